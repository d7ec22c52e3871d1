// Preloaded (node --import) into each local worker the coordinator spawns: the worker's stdin is a pipe
// from the coordinator, and when it closes the coordinator is gone (even by kill -9), so the worker stops
// rather than outlive it. SIGTERM first (the worker's own clean stop), a hard exit if that hangs.
// Processes the worker forks inherit the preload (execArgv) but not the marker, so only the worker watches.
export const ORPHAN_GUARD_ENV = 'VIVACE_ORPHAN_GUARD';
const HARD_EXIT_AFTER_MS = 10_000;

function coordinatorGone(): void {
  process.kill(process.pid, 'SIGTERM');
  setTimeout(() => process.exit(1), HARD_EXIT_AFTER_MS).unref();
}

if (process.env[ORPHAN_GUARD_ENV] === '1') {
  delete process.env[ORPHAN_GUARD_ENV];
  process.stdin.on('end', coordinatorGone);
  process.stdin.on('error', coordinatorGone);
  process.stdin.resume();
  // Reading stdin must not by itself keep a worker alive that is otherwise done.
  (process.stdin as { unref?: () => void }).unref?.();
}
