// Figure q (issue 24 §4): what the durable query history costs the coordinator, measured in this process on
// the store's append path (lib/history/history-store.ts, as the tracker calls it at each query's end):
//   1. real final views: 20 statements (one failing) through a coordinator over an in-process DuckDB and
//      its HTTP server, each view taken as the tracker records it;
//   2. the store (the default batches, 1000 queries or 4 MB; query.history.max-size 64MB so that old files
//      go as they would) takes 100,000 of them in turn (10,000 under BENCH_QUICK) after a warm-up, yielding
//      a tick every 100 queries as queries end over time: this process's CPU (user + system, the writes'
//      threads included) per query, and its RSS after a full collection against before.
// What a query's end costs beyond the history (the tracker, metrics, log) is not counted; writing the
// files' bytes is (each batch is written and fsynced, then old files removed).
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createCoordinator } from '../lib/actors/coordinator.js';
import type { QueryView } from '../lib/actors/query-view.js';
import { createDuckDbEngine } from '../lib/engine/duckdb-engine.js';
import { historyLine } from '../lib/history/history-line.js';
import { HISTORY_DEFAULTS, QueryHistoryStore } from '../lib/history/history-store.js';
import { startServer } from '../lib/http/server.js';
import { createLogger } from '../lib/log/logger.js';
import { PrestoHttpClient } from './http-client.js';
import type { BenchRow } from './spooled-stream.bench.js';

const STATEMENTS = [
  'SELECT 1',
  "SELECT 'a longer text value', 42, DATE '2026-01-01'",
  'SELECT * FROM (VALUES (1, 2), (3, 4)) t(a, b)',
  'SELECT count(*) FROM (VALUES 1, 2, 3) t(x)',
  'SELECT no_such_column',
];

export interface HistoryFigures {
  queries: number;
  cpuMicrosPerQuery: number;
  /** of which rendering the info and row to a JSON line, measured alone (the rest: encoding, writing, fsync, removing old files, the collector) */
  serializeMicrosPerQuery: number;
  wallMicrosPerQuery: number;
  rssGrowthBytes: number;
  heapGrowthBytes: number;
  files: number;
  /** a stored line's mean size */
  lineBytes: number;
}

/** A full collection, where the flag can be set at run time (V8's gc, exposed into a fresh context). */
function collector(): () => void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (() => void) | undefined;
  return () => {
    gc?.();
    gc?.();
  };
}

/** Step 1: final views of real statements, as the tracker records them. */
async function finishedViews(dir: string, count: number): Promise<QueryView[]> {
  const engine = await createDuckDbEngine({ tempDirectory: join(dir, 'engine'), threads: 1, maxConnections: 2 });
  const coordinator = createCoordinator({ engine, config: { longPollMs: 50 } });
  const server = await startServer(coordinator, { host: '127.0.0.1', port: 0, logger: createLogger({ destination: { write: () => undefined } }) });
  const client = new PrestoHttpClient(server.url, 2);
  const views: QueryView[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const sql = STATEMENTS[i % STATEMENTS.length]!;
      const reply = await client.request('POST', '/v1/statement', sql, { 'X-Trino-User': `user_${i % 3}`, 'Content-Type': 'text/plain', 'Content-Length': Buffer.byteLength(sql) });
      let page = JSON.parse(reply.body.toString('utf8')) as { id: string; nextUri?: string };
      const id = page.id;
      while (page.nextUri) page = JSON.parse((await client.request('GET', new URL(page.nextUri).pathname)).body.toString('utf8')) as typeof page;
      views.push(await coordinator.waitFor(coordinator.lookup(id)!, () => false, 10_000));
    }
  } finally {
    client.close();
    await server.close();
    await coordinator.stop();
  }
  return views;
}

export async function runHistoryBench(queries: number, log: (line: string) => void): Promise<HistoryFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'vivace-history-bench-'));
  try {
    const views = await finishedViews(dir, 20);
    log(`${views.length} final views (${views.filter((v) => v.state === 'FAILED').length} failed); appending ${queries.toLocaleString('en-US')} to the store`);
    const errors: string[] = [];
    const store = new QueryHistoryStore({ directory: join(dir, 'history'), maxAgeMs: 7 * 24 * 3_600_000, maxSizeBytes: 64 << 20, batchSize: HISTORY_DEFAULTS.batchSize, batchMaxBytes: HISTORY_DEFAULTS.batchMaxBytes, now: Date.now, onError: (message) => void (errors.push(message)) });
    const gc = collector();
    // Queries end over time: the loop yields every 100 (a tick), so the store's writes, off the event loop, go
    // on; with a batch written and another full (far more queries per second than a coordinator ends on a
    // loaded disk), it waits for the write instead of having the store drop a batch.
    const appendAll = async (n: number) => {
      for (let i = 0; i < n; i++) {
        store.append(views[i % views.length]!);
        if (i % 100 !== 99) continue;
        await new Promise((resolve) => setImmediate(resolve));
        if (store.pending >= 2 * HISTORY_DEFAULTS.batchSize) await store.settled();
      }
      await store.flush();
    };
    await appendAll(2_000);
    gc();
    const rss0 = process.memoryUsage().rss;
    const heap0 = process.memoryUsage().heapUsed;
    const cpu0 = process.cpuUsage();
    const wall0 = performance.now();
    await appendAll(queries);
    const wall = performance.now() - wall0;
    const cpu = process.cpuUsage(cpu0);
    gc();
    const rss1 = process.memoryUsage().rss;
    const heap1 = process.memoryUsage().heapUsed;
    if (errors.length > 0) throw new Error(`the store reported ${errors.length} errors: ${errors[0]}`);
    const files = store.filePaths();
    const keptBytes = files.reduce((n, path) => n + statSync(path).size, 0);
    const keptLines = files.reduce((n, path) => n + readFileSync(path, 'utf8').split('\n').length - 1, 0);
    await store.close();
    // The same queries' lines built alone (history-line.ts, each dropped at once): the part of the CPU that is
    // rendering each query's info and row to a JSON line, the rest being encoding it into the batch, the
    // files' writes and removals, and the collector.
    const serializing = queries;
    let chars = 0;
    const cpu2 = process.cpuUsage();
    for (let i = 0; i < serializing; i++) chars += historyLine(views[i % views.length]!).length;
    const serialized = process.cpuUsage(cpu2);
    if (chars === 0) throw new Error('no line was built');
    return {
      serializeMicrosPerQuery: (serialized.user + serialized.system) / serializing,
      queries,
      cpuMicrosPerQuery: (cpu.user + cpu.system) / queries,
      wallMicrosPerQuery: (wall * 1000) / queries,
      rssGrowthBytes: rss1 - rss0,
      heapGrowthBytes: heap1 - heap0,
      files: files.length,
      lineBytes: keptLines === 0 ? 0 : keptBytes / keptLines,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Figure q for bench/run.ts: CPU per query and RSS growth, against the targets. */
export async function historyFigure(quick: boolean, log: (line: string) => void): Promise<{ rows: BenchRow[]; notes: string[] }> {
  const queries = quick ? 10_000 : 100_000;
  log(`q. the query history's append path in process, ${queries.toLocaleString('en-US')} queries (bench/history.bench.ts)`);
  const f = await runHistoryBench(queries, (line) => log(`   ${line}`));
  const judged = !quick;
  const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
  return {
    rows: [
      { figure: `q. history: coordinator CPU per query stored (${queries.toLocaleString('en-US')})`, measured: `${f.cpuMicrosPerQuery.toFixed(1)} us`, baseline: `wall ${f.wallMicrosPerQuery.toFixed(1)} us`, ratio: `JSON ${f.serializeMicrosPerQuery.toFixed(1)} us`, target: '<= 20 us', verdict: judged ? (f.cpuMicrosPerQuery <= 20 ? 'ok' : 'MISS') : '-' },
      { figure: `q. history: RSS growth after ${queries.toLocaleString('en-US')} queries stored`, measured: mb(f.rssGrowthBytes), baseline: `heap ${mb(f.heapGrowthBytes)}`, ratio: '', target: '<= 50 MB', verdict: judged ? (f.rssGrowthBytes <= 50e6 ? 'ok' : 'MISS') : '-' },
    ],
    notes: [`q. the store kept ${f.files} files under query.history.max-size=64MB, ${Math.round(f.lineBytes).toLocaleString('en-US')} bytes per stored query`],
  };
}
