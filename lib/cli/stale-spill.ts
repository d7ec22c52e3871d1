// Spill directories of worker processes that are gone: a worker removes its own vivace-spill-<pid> when it
// stops, but one killed (SIGKILL, OOM, a crash) leaves it, with its exchange files, in the system's temp
// directory for good. A worker starting on the default directory removes those whose process no longer runs.
import { readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isProcessAlive } from '../connectors/process-alive.js';

export const SPILL_PREFIX = 'vivace-spill-';

/** The process id a spill directory's name carries, or undefined for any other name. */
export function spillOwner(name: string): number | undefined {
  if (!name.startsWith(SPILL_PREFIX)) return undefined;
  const digits = name.slice(SPILL_PREFIX.length);
  if (digits.length === 0 || digits.length > 10 || ![...digits].every((c) => c >= '0' && c <= '9')) return undefined;
  const pid = Number(digits);
  return pid > 0 ? pid : undefined;
}

/** Removes the spill directories under `directory` whose process is gone; answers their paths. */
export function sweepStaleSpill(directory = tmpdir(), alive: (pid: number) => boolean = isProcessAlive): string[] {
  let names: string[];
  try {
    names = readdirSync(directory);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const pid = spillOwner(name);
    if (pid === undefined || pid === process.pid || alive(pid)) continue;
    const path = join(directory, name);
    try {
      // A file (or a link) of that name is not ours to remove.
      if (!statSync(path, { throwIfNoEntry: false })?.isDirectory()) continue;
      rmSync(path, { recursive: true, force: true });
      removed.push(path);
    } catch {
      // Another user's, or gone meanwhile: leave it.
    }
  }
  return removed;
}
