// Throughput of Presto JSON rendering: N rows x 16 lineitem-like columns through the engine's
// Execution (what the coordinator pages out), against DuckDB's plain json_array rendering and a raw fetch.
// Run: npx tsx bench/engine-render.bench.ts [rows]   (ROWS env or argv; default 5,000,000)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBBlobVector } from '@duckdb/node-api';
import { createDuckDbEngine } from '../lib/engine/duckdb-engine.js';
import type { Session } from '../lib/protocol/types.js';

const rows = Number(process.argv[2] ?? process.env.ROWS ?? 5_000_000);
const targetBytes = 1 << 20;
const generate = `SELECT i AS orderkey, (i * 7) % 200000 AS partkey, (i * 13) % 10000 AS suppkey, (i % 7)::INTEGER AS linenumber,
  ((i % 50) + 1)::DECIMAL(15,2) AS quantity, (i * 1.01)::DECIMAL(15,2) AS extendedprice,
  ((i % 10) / 100)::DECIMAL(15,2) AS discount, ((i % 8) / 100)::DECIMAL(15,2) AS tax,
  CASE i % 3 WHEN 0 THEN 'A' WHEN 1 THEN 'N' ELSE 'R' END AS returnflag, CASE i % 2 WHEN 0 THEN 'O' ELSE 'F' END AS linestatus,
  DATE '1992-01-01' + (i % 2500)::INTEGER AS shipdate, DATE '1992-01-01' + (i % 2500 + 30)::INTEGER AS commitdate,
  DATE '1992-01-01' + (i % 2500 + 10)::INTEGER AS receiptdate, 'DELIVER IN PERSON' AS shipinstruct, 'TRUCK' AS shipmode,
  'comment number ' || i AS comment
  FROM range(${rows}) t(i)`;
const COLUMNS = 'orderkey, partkey, suppkey, linenumber, quantity, extendedprice, discount, tax, returnflag, linestatus, shipdate, commitdate, receiptdate, shipinstruct, shipmode, comment';

const session: Session = {
  prefix: 'X-Trino-', user: 'bench', clientTags: [], properties: {}, preparedStatements: {}, remoteUserAddress: '127.0.0.1', startTime: Date.now(),
};

function report(label: string, count: number, bytes: number, millis: number): void {
  const s = millis / 1000;
  const mb = bytes ? `${(bytes / s / 1e6).toFixed(1).padStart(6)} MB/s` : '';
  console.log(`${label.padEnd(52)} ${(count / s / 1000).toFixed(0).padStart(6)}k rows/s ${mb}  (${s.toFixed(2)} s)`);
}

async function baseline(dir: string): Promise<void> {
  const instance = await DuckDBInstance.create(':memory:', {
    autoinstall_known_extensions: 'false', autoload_known_extensions: 'false', temp_directory: join(dir, 'baseline'),
  });
  const c = await instance.connect();
  await c.run(`SET streaming_buffer_size = '4MB'`);
  await c.run(`CREATE TABLE g AS ${generate}`);
  const run = async (label: string, sql: string, read: boolean) => {
    const started = performance.now();
    const result = await c.stream(sql);
    let count = 0;
    let bytes = 0;
    const page = Buffer.allocUnsafe(64 << 20);
    for (;;) {
      const chunk = await result.fetchChunk();
      if (!chunk || chunk.rowCount === 0) break;
      count += chunk.rowCount;
      if (!read) continue;
      const v = chunk.getColumnVector(0) as DuckDBBlobVector;
      let n = 0;
      for (let i = 0; i < chunk.rowCount; i++) {
        const b = v.getItemBytes(i)!;
        page.set(b, n);
        n += b.length;
        page[n++] = 0x2c;
      }
      bytes += page.toString('utf8', 0, n).length;
    }
    report(label, count, bytes, performance.now() - started);
  };
  await run('raw fetch of 16 columns, no rendering (ceiling)', 'SELECT * FROM g', false);
  await run('baseline: DuckDB json_array(...) -> bytes page', `SELECT encode(json_array(${COLUMNS})::VARCHAR) FROM g`, true);
  c.closeSync();
  instance.closeSync();
}

async function engineRender(dir: string): Promise<void> {
  const engine = await createDuckDbEngine({ tempDirectory: join(dir, 'engine') });
  // The project's own table in DuckDB's dialect (range, ::): past the SQL gate, as the engine's own SQL.
  const ctas = await engine.planOwnSql(`CREATE TABLE g AS ${generate}`, session);
  const created = ctas.execute();
  while (await created.next(targetBytes)) { /* drain */ }
  const started = performance.now();
  const plan = await engine.plan('SELECT * FROM g', session);
  const execution = plan.execute();
  let count = 0;
  let bytes = 0;
  let batches = 0;
  let firstBatchMillis = 0;
  for (;;) {
    const batch = await execution.next(targetBytes);
    if (!batch) break;
    if (batches++ === 0) firstBatchMillis = performance.now() - started;
    count += batch.rows;
    bytes += batch.bytes;
  }
  report('vivace Execution: Presto JSON, 1 MB batches', count, bytes, performance.now() - started);
  console.log(`  ${batches} batches, first after ${firstBatchMillis.toFixed(0)} ms, progress ${JSON.stringify(execution.progress())}`);
  await engine.close();
}

const dir = mkdtempSync(join(tmpdir(), 'vivace-bench-'));
try {
  console.log(`${rows} rows x 16 columns`);
  await baseline(dir);
  await engineRender(dir);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
