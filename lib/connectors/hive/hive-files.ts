// The data files of a table or partition directory, as Trino's HiveFileIterator lists them: names starting
// with `_` or `.` are skipped (metadata, staging, commit markers), subdirectories only with
// hive.recursive-directories. Listed at every statement that reads the table: other nodes and tools write the tree too.
import { lstatSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ancestorDirectories } from './partition-names.js';

export interface DataFile {
  path: string;
  size: number;
  mtimeMs: number;
}

const hidden = (name: string) => name.startsWith('_') || name.startsWith('.');

/** Files in `directory` (none when it does not exist), sorted by path. */
export function listDataFiles(directory: string, recursive: boolean): DataFile[] {
  const out: DataFile[] = [];
  const walk = (dir: string) => {
    let entries: import('node:fs').Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (hidden(entry.name)) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (recursive) walk(path);
        continue;
      }
      if (!entry.isFile()) continue; // a symlink is never followed out of the tree
      try {
        const stat = statSync(path);
        out.push({ path, size: stat.size, mtimeMs: stat.mtimeMs });
      } catch {
        // removed meanwhile
      }
    }
  };
  walk(directory);
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** A listing's identity: changes when a file comes, goes or is rewritten. */
export function filesSignature(files: readonly DataFile[]): string {
  return files.map((f) => `${f.path}\u0000${f.size}\u0000${f.mtimeMs}`).join('\u0001');
}

/**
 * The modification times of a table's location and of every partition directory at each level (`k=v`,
 * `k=v/k2=w`), with the partitions' names: a file added, removed or renamed in any of them, or a
 * directory swapped for a symlink, changes it. It lets a statement skip listing every file when nothing
 * moved (84 partitions: ~4 ms of a worker's event loop a statement). A file rewritten in place under
 * its old name leaves it as it was (Vivace's writers never do that, other tools may): filesUnchanged
 * checks the files of the last listing for that. Not for hive.recursive-directories (any depth).
 */
export function directoryStamp(location: string, partitionNames: readonly string[]): string {
  const directories = new Set<string>(['']);
  for (const name of partitionNames) {
    for (const above of ancestorDirectories(name)) directories.add(above);
    directories.add(name);
  }
  const parts: string[] = [];
  for (const directory of directories) {
    let mtime: number | string;
    try {
      mtime = lstatSync(directory === '' ? location : join(location, directory)).mtimeMs;
    } catch {
      mtime = 'missing';
    }
    parts.push(`${directory}\u0000${mtime}`);
  }
  return parts.join('\u0001');
}

/**
 * Most files filesUnchanged stats in one turn of the event loop, and the most time it spends there: a
 * turn of 256 local stats takes ~0.6 ms. The slices are synchronous stats, not fs.promises.stat: 10,000
 * files took 22-39 ms of CPU as one synchronous loop and in slices, 130 ms with 8 promised stats in flight
 * (libuv's pool dispatching each one), at load 9.5 on this 2-core machine.
 */
export const STAT_SLICE_FILES = 256;
const STAT_SLICE_MS = 2;

/**
 * Whether every file of a listing still has its size and modification time: with the directories'
 * stamps unchanged (no file came, went or was renamed), the listing is then as it was. A stat per file,
 * no directory read, in slices of at most STAT_SLICE_FILES files (or STAT_SLICE_MS) with a turn of the
 * event loop between them, so a table of 10,000 files does not hold a worker's loop for the whole check
 * (Trino lists a table's files in its split loader's threads, not its request threads). The first change
 * found ends the check.
 */
export async function filesUnchanged(files: readonly DataFile[]): Promise<boolean> {
  let sliceStart = performance.now();
  for (let i = 0; i < files.length; i++) {
    if (i > 0 && (i % STAT_SLICE_FILES === 0 || performance.now() - sliceStart >= STAT_SLICE_MS)) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
    const file = files[i]!;
    try {
      const stat = statSync(file.path);
      if (!stat.isFile() || stat.size !== file.size || stat.mtimeMs !== file.mtimeMs) return false;
    } catch {
      return false;
    }
  }
  return true;
}
