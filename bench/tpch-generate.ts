// Generates all TPC-H tables at a scale factor into a temporary directory with
// parallel worker processes (each writes part k of n of every table) and prints
// the wall time. Usage: tsx bench/tpch-generate.ts [scaleFactor=1] [--workers N=2] [--out DIR] [--keep]
import { fork } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TPCH_TABLES, writeTableCsv } from '../lib/tpch/index.js';

interface WorkerResult {
  readonly rows: Record<string, number>;
  readonly seconds: number;
}

function runWorker(scaleFactor: number, part: number, partCount: number, dir: string): void {
  const start = performance.now();
  const rows: Record<string, number> = {};
  for (const table of TPCH_TABLES) {
    rows[table.name] = writeTableCsv(table.name, scaleFactor, part, partCount, join(dir, `${table.name}.${part}.tbl`));
  }
  const result: WorkerResult = { rows, seconds: (performance.now() - start) / 1000 };
  process.send?.(result);
}

function spawnWorker(scaleFactor: number, part: number, partCount: number, dir: string): Promise<WorkerResult> {
  return new Promise((resolve, reject) => {
    // fork inherits execArgv, so the tsx loader that runs this script runs the child too.
    const child = fork(fileURLToPath(import.meta.url), ['--worker', String(scaleFactor), String(part), String(partCount), dir]);
    let result: WorkerResult | undefined;
    child.on('message', (message) => { result = message as WorkerResult; });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0 && result !== undefined) resolve(result);
      else reject(new Error(`worker ${part} exited with code ${code}`));
    });
  });
}

async function main(args: string[]): Promise<void> {
  if (args[0] === '--worker') {
    runWorker(Number(args[1]), Number(args[2]), Number(args[3]), args[4]);
    return;
  }
  const option = (name: string): string | undefined => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const positional = args.filter((a, i) => !a.startsWith('--') && !(i > 0 && ['--workers', '--out'].includes(args[i - 1])));
  const scaleFactor = Number(positional[0] ?? 1);
  const workers = Number(option('--workers') ?? 2);
  const out = option('--out');
  const dir = out ?? mkdtempSync(join(tmpdir(), `tpch-sf${scaleFactor}-`));
  mkdirSync(dir, { recursive: true });

  const start = performance.now();
  const results = await Promise.all(
    Array.from({ length: workers }, (_, i) => spawnWorker(scaleFactor, i + 1, workers, dir)));
  const seconds = (performance.now() - start) / 1000;

  let bytes = 0;
  for (const table of TPCH_TABLES) {
    const rows = results.reduce((sum, r) => sum + r.rows[table.name], 0);
    for (let part = 1; part <= workers; part++) bytes += statSync(join(dir, `${table.name}.${part}.tbl`)).size;
    console.log(`${table.name.padEnd(9)} ${String(rows).padStart(12)} rows`);
  }
  console.log(`tpch sf${scaleFactor}: ${workers} workers, ${(bytes / 1e6).toFixed(0)} MB, ${seconds.toFixed(2)} s`
    + ` (workers: ${results.map((r) => r.seconds.toFixed(2)).join(', ')} s)`);
  if (out === undefined && !args.includes('--keep')) rmSync(dir, { recursive: true, force: true });
  else console.log(`output in ${dir}`);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
