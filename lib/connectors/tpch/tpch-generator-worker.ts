// Child process of the tpch catalog: generates parts of tables (dbgen's data, CPU-bound and synchronous,
// so not in the coordinator) as CSV, converts each to Parquet with its own single-threaded DuckDB and
// removes the CSV, so at most one part's CSV is on disk per worker. Tasks arrive by IPC, one at a time.
import { rmSync } from 'node:fs';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { tpchTable, writeTableCsv } from '../../tpch/index.js';
import type { WorkerReply, WorkerTask } from './tpch-generation.js';

const quoteString = (s: string) => `'${s.replace(/'/g, "''")}'`;

async function openDuckDb(tempDirectory: string): Promise<DuckDBConnection> {
  const instance = await DuckDBInstance.create(':memory:', {
    threads: '1',
    memory_limit: '1GB',
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
    temp_directory: tempDirectory,
  });
  return instance.connect();
}

async function runTask(connection: DuckDBConnection, task: WorkerTask): Promise<WorkerReply> {
  const start = performance.now();
  const rows = writeTableCsv(task.table, task.scaleFactor, task.part, task.partCount, task.csvPath);
  if (rows > 0) {
    const columns = tpchTable(task.table).columns.map((c) => `${quoteString(c.name)}: ${quoteString(c.type.toUpperCase())}`).join(', ');
    // Explicit columns and no detection: generated text never holds '|', quotes or newlines.
    await connection.run(`COPY (SELECT * FROM read_csv(${quoteString(task.csvPath)}, columns = {${columns}}, delim = '|', `
      + `header = false, auto_detect = false, quote = '', escape = '')) TO ${quoteString(task.parquetPath)} (FORMAT parquet)`);
  }
  rmSync(task.csvPath, { force: true });
  return { type: 'done', id: task.id, rows, seconds: (performance.now() - start) / 1000 };
}

async function main(): Promise<void> {
  let connection: DuckDBConnection | undefined;
  const queue: WorkerTask[] = [];
  let running = false;
  const drain = async () => {
    if (running) return;
    running = true;
    while (queue.length > 0) {
      const task = queue.shift()!;
      try {
        connection ??= await openDuckDb(task.tempDirectory);
        process.send!(await runTask(connection, task));
      } catch (err) {
        process.send!({ type: 'error', id: task.id, message: err instanceof Error ? err.message : String(err) } satisfies WorkerReply);
      }
    }
    running = false;
  };
  process.on('message', (message: WorkerTask | { type: 'exit' }) => {
    if (message.type === 'exit') process.exit(0);
    queue.push(message);
    void drain();
  });
}

// The coordinator went away (crash or close): stop rather than generate for nobody.
process.on('disconnect', () => process.exit(0));
void main();
