// Whether a process id names a running process: files named after a process (profiles, generation locks)
// are reclaimed only once the process that wrote them is gone.

/** True when `pid` runs (EPERM: it runs as another user). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
