// A coordinator's claim on its local workers' data directory (`{data.directory}/workers/{port}`): a
// `coordinator.pid` file holding its process id. Two coordinators on one machine have their own directories
// (one per port), so the claim only refuses what would still collide, e.g. two hosts on one port: the second
// start stops at once with a message naming the directory, the other process and how to choose another
// directory, rather than run with its memory worker failing on DuckDB's lock over and over.
import { readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { VivaceError } from '../protocol/vivace-error.js';

export const CLAIM_FILE = 'coordinator.pid';

export interface WorkersDirectoryClaim {
  readonly directory: string;
  /** Removes the claim if it is still this process's. */
  release(): void;
}

/** Whether `pid` is a live `vivace serve` (a reused pid of another program is a stale claim). */
export function isLiveCoordinator(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    // Linux: the arguments, NUL-separated. Elsewhere the signal check alone decides.
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes('serve');
  } catch {
    return true;
  }
}

function claimant(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Claims `directory` for this process, taking over a stale claim (its process gone). Throws when a live
 * coordinator holds it.
 */
export function claimWorkersDirectory(directory: string, options: { pid?: number; isLive?: (pid: number) => boolean } = {}): WorkersDirectoryClaim {
  const pid = options.pid ?? process.pid;
  const isLive = options.isLive ?? isLiveCoordinator;
  const file = join(directory, CLAIM_FILE);
  mkdirSync(directory, { recursive: true });
  // Twice at most: a stale claim is removed once, and a coordinator that won the race meanwhile is live.
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, `${pid}\n`, { flag: 'wx', mode: 0o644 });
      return { directory, release: () => (claimant(file) === pid ? rmSync(file, { force: true }) : undefined) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = claimant(file);
    if (holder !== undefined && holder !== pid && isLive(holder)) {
      throw new VivaceError(
        'INVALID_ARGUMENTS',
        `The local workers' data directory ${directory} is in use by another coordinator (PID ${holder}); ` +
          'start this one with another --data-dir (or data.directory) or another port',
      );
    }
    rmSync(file, { force: true });
  }
  throw new VivaceError('INVALID_ARGUMENTS', `Could not claim the local workers' data directory ${directory}: another coordinator is starting on it`);
}
