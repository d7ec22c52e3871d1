// Generates one tpch schema on disk: checks free space, runs worker processes over (table, part) tasks
// in a temporary directory, writes a manifest last and renames the directory into place, so a crash
// never leaves a directory that looks complete.
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { VivaceError } from '../../protocol/vivace-error.js';
import { TPCH_TABLES } from '../../tpch/index.js';
import type { TpchSchema } from './tpch-schemas.js';
import { CSV_MB_PER_SF, partCountOf, partFile } from './tpch-parts.js';

export interface WorkerTask {
  readonly type: 'task';
  readonly id: number;
  readonly table: string;
  readonly scaleFactor: number;
  readonly part: number;
  readonly partCount: number;
  readonly csvPath: string;
  readonly parquetPath: string;
  readonly tempDirectory: string;
}

export type WorkerReply =
  | { readonly type: 'done'; readonly id: number; readonly rows: number; readonly seconds: number }
  | { readonly type: 'error'; readonly id: number; readonly message: string };

export interface TpchManifest {
  readonly version: number;
  readonly schema: string;
  readonly scaleFactor: number;
  readonly seconds: number;
  /**
   * Parquet files relative to the schema directory, in part order; parts without rows have none.
   * `fileRows`, each file's rows (absent in manifests written before it), lets a split read a contiguous
   * run of a file's rows.
   */
  readonly tables: Record<string, { rows: number; files: string[]; fileRows?: number[] }>;
}

export interface GenerationOptions {
  /** The catalog's directory; the schema lands in <directory>/<schema.directory>. */
  readonly directory: string;
  readonly schema: TpchSchema;
  readonly workers?: number;
  readonly freeDiskBytes: (directory: string) => Promise<number>;
  readonly log: (line: string) => void;
  readonly signal?: AbortSignal;
}

/** Bump when the generated files change meaning: older caches are then regenerated. */
export const MANIFEST_VERSION = 1;
export const MANIFEST_FILE = 'manifest.json';

/** CSV of the parts in flight plus Parquet (about 0.33 GB per unit), with a margin: 1.1 GB per unit. */
export const DISK_BYTES_PER_SF = 1.1e9;

export function readManifest(schemaDirectory: string): TpchManifest | undefined {
  try {
    const manifest = JSON.parse(readFileSync(join(schemaDirectory, MANIFEST_FILE), 'utf8')) as TpchManifest;
    return manifest.version === MANIFEST_VERSION ? manifest : undefined;
  } catch {
    return undefined;
  }
}

const gigabytes = (bytes: number) => (bytes >= 1e9 ? `${(bytes / 1e9).toFixed(1)} GB` : `${Math.ceil(bytes / 1e6)} MB`);

interface PlannedTask extends WorkerTask {
  readonly weight: number;
  readonly file: string;
}

function planTasks(tmp: string, scaleFactor: number): PlannedTask[] {
  const tasks: PlannedTask[] = [];
  const bySize = [...TPCH_TABLES].sort((a, b) => CSV_MB_PER_SF[b.name]! - CSV_MB_PER_SF[a.name]!);
  for (const table of bySize) {
    const megabytes = CSV_MB_PER_SF[table.name]! * scaleFactor;
    // Cut as tpch-parts.ts says, which a coordinator without a cache reads for the same file names.
    const partCount = partCountOf(table.name, scaleFactor);
    mkdirSync(join(tmp, table.name));
    for (let part = 1; part <= partCount; part++) {
      const file = partFile(table.name, part);
      tasks.push({
        type: 'task', id: tasks.length, table: table.name, scaleFactor, part, partCount, tempDirectory: tmp,
        csvPath: join(tmp, `${table.name}-${part}.csv`), parquetPath: join(tmp, file), file, weight: megabytes / partCount,
      });
    }
  }
  return tasks;
}

function workerEntry(): { path: string; execArgv: string[] } {
  const here = fileURLToPath(import.meta.url);
  const ext = extname(here);
  // Profilers and inspectors of the coordinator are not for the workers; a TypeScript run needs tsx.
  const execArgv = process.execArgv.filter((a) => !/^--(?:cpu-prof|heap-prof|inspect|prof)/.test(a));
  if (ext === '.ts' && !execArgv.some((a) => a.includes('tsx'))) execArgv.push('--import', 'tsx');
  return { path: join(dirname(here), `tpch-generator-worker${ext}`), execArgv };
}

/** Runs the tasks on `workerCount` child processes; resolves with rows per task id. */
function runWorkers(tasks: readonly PlannedTask[], workerCount: number, onDone: (task: PlannedTask, rows: number) => void, signal?: AbortSignal): Promise<number[]> {
  const { path, execArgv } = workerEntry();
  const rows: number[] = new Array(tasks.length).fill(0);
  let next = 0;
  let remaining = tasks.length;
  const children: ChildProcess[] = [];
  return new Promise<number[]>((resolve, reject) => {
    let settled = false;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      for (const child of children) child.kill('SIGKILL');
      reject(error);
    };
    const busy = new Set<ChildProcess>();
    const feed = (child: ChildProcess) => {
      if (next < tasks.length) {
        const { weight: _weight, file: _file, ...task } = tasks[next++]!;
        busy.add(child);
        child.send(task);
      } else {
        busy.delete(child);
        child.send({ type: 'exit' });
      }
    };
    signal?.addEventListener('abort', () => fail(new VivaceError('GENERIC_INTERNAL_ERROR', 'tpch generation was cancelled: the engine closed')), { once: true });
    for (let i = 0; i < workerCount; i++) {
      const child = fork(path, [], { execArgv, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
      children.push(child);
      child.on('message', (reply: WorkerReply) => {
        if (reply.type === 'error') {
          fail(new Error(`tpch worker failed on ${tasks[reply.id]!.table} part ${tasks[reply.id]!.part}: ${reply.message}`));
          return;
        }
        rows[reply.id] = reply.rows;
        onDone(tasks[reply.id]!, reply.rows);
        if (--remaining === 0 && !settled) {
          settled = true;
          for (const c of busy) c.send({ type: 'exit' });
          busy.clear();
          resolve(rows);
        } else {
          feed(child);
        }
      });
      child.on('error', fail);
      child.on('exit', (code, sig) => {
        if (code !== 0 || busy.has(child)) fail(new Error(`tpch worker exited (code ${code}, signal ${sig}) before finishing`));
      });
      feed(child);
    }
  });
}

export async function generateSchema(options: GenerationOptions): Promise<TpchManifest> {
  const { directory, schema, log } = options;
  mkdirSync(directory, { recursive: true });
  const needed = schema.scaleFactor * DISK_BYTES_PER_SF;
  const free = await options.freeDiskBytes(directory);
  if (free < needed) {
    throw new VivaceError('GENERIC_INSUFFICIENT_RESOURCES',
      `Cannot generate tpch.${schema.name}: scale factor ${schema.scaleFactor} needs about ${gigabytes(needed)} of free disk in ${directory}, `
      + `but only ${gigabytes(free)} is free`);
  }
  const start = performance.now();
  const tmp = mkdtempSync(join(directory, `.tmp-${schema.directory}-${process.pid}-`));
  try {
    const tasks = planTasks(tmp, schema.scaleFactor);
    const defaultWorkers = schema.scaleFactor < 0.1 ? 1 : Math.min(8, availableParallelism());
    const workerCount = Math.max(1, Math.min(options.workers ?? defaultWorkers, tasks.length));
    log(`tpch: generating tpch.${schema.name} (scale factor ${schema.scaleFactor}, about ${gigabytes(needed)} of disk) in ${workerCount} worker processes`);
    const totalWeight = tasks.reduce((sum, t) => sum + t.weight, 0);
    let doneWeight = 0;
    let lastLog = performance.now();
    const rows = await runWorkers(tasks, workerCount, (task) => {
      doneWeight += task.weight;
      const now = performance.now();
      if (now - lastLog >= 5000) {
        lastLog = now;
        log(`tpch: tpch.${schema.name} ${Math.floor((100 * doneWeight) / totalWeight)}% (${task.table} part ${task.part}/${task.partCount}) after ${((now - start) / 1000).toFixed(0)} s`);
      }
    }, options.signal);
    const tables: Record<string, { rows: number; files: string[]; fileRows: number[] }> = {};
    for (const table of TPCH_TABLES) tables[table.name] = { rows: 0, files: [], fileRows: [] };
    for (const task of tasks) {
      const entry = tables[task.table]!;
      entry.rows += rows[task.id]!;
      if (rows[task.id]! > 0) {
        entry.files.push(task.file);
        entry.fileRows.push(rows[task.id]!);
      }
    }
    const seconds = (performance.now() - start) / 1000;
    const manifest: TpchManifest = { version: MANIFEST_VERSION, schema: schema.directory, scaleFactor: schema.scaleFactor, seconds, tables };
    // The manifest is written last and the directory renamed whole: either all of it is there or none.
    writeFileSync(join(tmp, MANIFEST_FILE), JSON.stringify(manifest, null, 1));
    const target = join(directory, schema.directory);
    // A directory without a current manifest is an older generator's output: replace it.
    if (existsSync(target) && readManifest(target) === undefined) rmSync(target, { recursive: true, force: true });
    try {
      renameSync(tmp, target);
    } catch (err) {
      // Another process finished the same schema first: use its copy.
      const existing = readManifest(target);
      if (existing === undefined) throw err;
      rmSync(tmp, { recursive: true, force: true });
      return existing;
    }
    log(`tpch: tpch.${schema.name} ready in ${seconds.toFixed(1)} s`);
    return manifest;
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
}
