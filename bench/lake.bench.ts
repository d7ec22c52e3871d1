// Figure l: the lake through a real cluster (`vivace serve --workers 2`, bench/cluster-process.ts) beside
// DuckDB in this process on the same files. l3: tpch.{scale}.lineitem copied into the lake by CTAS, beside
// DuckDB's COPY ... TO of the same rows (same codec, GZIP); l1: TPC-H Q1 over the lake table through the
// cluster (two stages over its files), beside read_parquet of the same files; l2: the table partitioned by
// ship month, one month's query beside the full scan: bytes read (the leaf stage's stats) and time. The
// cluster is as `make run` starts it: a scan of less than vivace.distributed-lake-min-bytes (64MB of files,
// one month here) runs as one task.
// Runs alternate between the two sides; the best of `RUNS` counts. The lake lives in a temporary data
// directory (removed at the end) whose tpch is a link to the user's cache.
import { mkdtempSync, readdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { defaultConfig } from '../lib/config.js';
import { parseDataSize } from '../lib/protocol/data-size.js';
import { readManifest } from '../lib/connectors/tpch/tpch-generation.js';
import { TPCH_QUERIES } from '../lib/tpch/queries/tpch-queries.js';
import { startCluster } from './cluster-process.js';
import { PrestoHttpClient } from './http-client.js';
import { timed } from './tpch-queries.bench.js';
import { runOnCluster, type ClusterAnswer } from './tpch-cluster.bench.js';

export interface LakeFigures {
  scale: string;
  ctasMs: number;
  copyMs: number;
  q1Ms: number;
  q1DuckdbMs: number;
  q1Splits: number;
  q1Nodes: number;
  monthMs: number;
  fullMs: number;
  /** `SELECT 1` through the same cluster and client: the fixed cost of any statement (best of the month's runs) */
  floorMs: number;
  monthBytes: number;
  fullBytes: number;
  /** the Parquet footers of the month's query: bytes a reader needs beside the month's data (estimate: 64 KB a file) */
  footerBytes: number;
  partitions: number;
}

const RUNS = 3;
const THREADS = 2;

type Answer = ClusterAnswer;

/** A statement on the lake's bench schema, as a client runs it. */
const run = (client: PrestoHttpClient, sql: string): Promise<Answer> => runOnCluster(client, sql, 'b', 'lake');

/** The leaf stage's figures of a finished query (GET /v1/query/{id}). */
async function leafOf(client: PrestoHttpClient, queryId: string): Promise<{ nodes: number; splits: number; bytes: number }> {
  const reply = await client.request('GET', `/v1/query/${encodeURIComponent(queryId)}`, undefined, { 'X-Trino-User': 'bench' });
  const info = JSON.parse(reply.body.toString('utf8')) as { outputStage?: { subStages?: { nodes?: number; totalSplits?: number; processedBytes?: number }[] } };
  const leaf = info.outputStage?.subStages?.[0];
  if (!leaf) {
    // One task: its own figures are the query's.
    const stats = (info as { queryStats?: { processedInputDataSize?: string; rawInputDataSize?: string } }).queryStats;
    const size = stats?.processedInputDataSize ?? stats?.rawInputDataSize;
    let bytes = Number.NaN;
    try {
      if (size !== undefined) bytes = parseDataSize(size);
    } catch { /* no figure */ }
    return { nodes: 1, splits: 1, bytes };
  }
  return { nodes: leaf.nodes ?? 0, splits: leaf.totalSplits ?? 0, bytes: leaf.processedBytes ?? Number.NaN };
}

const dataFiles = (directory: string): string[] => readdirSync(directory, { recursive: true, withFileTypes: true })
  .filter((e) => e.isFile() && !e.name.startsWith('.') && !e.parentPath.split('/').some((p) => p.startsWith('.')))
  .map((e) => join(e.parentPath, e.name));

export async function runLakeBench(scale: string, log: (line: string) => void): Promise<LakeFigures> {
  const cache = process.env.TPCH_BENCH_DIR ?? defaultConfig().dataDirectory;
  if (!readManifest(join(cache, 'tpch', scale))) throw new Error(`tpch.${scale} is not generated under ${cache} (run figure f or h first)`);
  const dataDirectory = mkdtempSync(join(tmpdir(), 'vivace-bench-lake-'));
  symlinkSync(join(cache, 'tpch'), join(dataDirectory, 'tpch'));
  const lake = join(dataDirectory, 'lake');
  const cluster = await startCluster({ workers: 2, dataDirectory, properties: { 'log.level': 'warn' } });
  const client = new PrestoHttpClient(cluster.url, 1);
  const instance = await DuckDBInstance.create(':memory:', { threads: String(THREADS), autoinstall_known_extensions: 'false', autoload_known_extensions: 'false' });
  const duckdb: DuckDBConnection = await instance.connect();
  try {
    await run(client, 'CREATE SCHEMA lake.b');
    const manifest = readManifest(join(cache, 'tpch', scale))!;
    const parts = manifest.tables.lineitem!.files.map((f) => `'${join(cache, 'tpch', scale, f)}'`).join(', ');
    // l3: the CTAS, beside DuckDB writing the same rows to one Parquet file with the lake's codec.
    let ctasMs = Infinity;
    let copyMs = Infinity;
    for (let i = 0; i < 2; i++) {
      if (i > 0) await run(client, 'DROP TABLE lake.b.lineitem');
      ctasMs = Math.min(ctasMs, (await timed(() => run(client, `CREATE TABLE lake.b.lineitem AS SELECT * FROM tpch.${scale}.lineitem`)))[1]);
      const out = join(dataDirectory, `copy-${i}.parquet`);
      copyMs = Math.min(copyMs, (await timed(() => duckdb.run(`COPY (SELECT * FROM read_parquet([${parts}])) TO '${out}' (FORMAT parquet, COMPRESSION gzip)`)))[1]);
      rmSync(out, { force: true });
    }
    log(`l3: CTAS ${ctasMs.toFixed(0)} ms, DuckDB COPY ${copyMs.toFixed(0)} ms (best of 2)`);
    // l1: Q1 over the lake table through the cluster, beside read_parquet of its files here.
    const files = dataFiles(join(lake, 'b', 'lineitem'));
    await duckdb.run(`CREATE VIEW lineitem AS SELECT * FROM read_parquet([${files.map((f) => `'${f}'`).join(', ')}])`);
    const q1 = TPCH_QUERIES[0]!.sql;
    await run(client, q1);
    await duckdb.runAndReadAll(q1);
    let q1Ms = Infinity;
    let q1DuckdbMs = Infinity;
    let last: Answer | undefined;
    for (let i = 0; i < RUNS; i++) {
      const [answer, ms] = await timed(() => run(client, q1));
      last = answer;
      q1Ms = Math.min(q1Ms, ms);
      q1DuckdbMs = Math.min(q1DuckdbMs, (await timed(() => duckdb.runAndReadAll(q1)))[1]);
    }
    const q1Leaf = await leafOf(client, last!.queryId);
    log(`l1: Q1 cluster ${q1Ms.toFixed(0)} ms, DuckDB ${q1DuckdbMs.toFixed(0)} ms; leaf ${JSON.stringify(q1Leaf)} over ${files.length} files`);
    // l2: partitioned by ship month; one month against the whole table.
    await run(client, 'CREATE TABLE lake.b.bymonth WITH (partitioned_by = ARRAY[\'shipmonth\']) AS SELECT orderkey, quantity, extendedprice, discount, shipdate, year(shipdate) * 100 + month(shipdate) AS shipmonth FROM lake.b.lineitem');
    const partitions = readdirSync(join(lake, 'b', 'bymonth')).filter((n) => n.startsWith('shipmonth=')).length;
    const month = 'SELECT count(*), sum(extendedprice * (1 - discount)) FROM lake.b.bymonth WHERE shipmonth = 199503';
    const full = 'SELECT count(*), sum(extendedprice * (1 - discount)) FROM lake.b.bymonth';
    await run(client, month);
    await run(client, full);
    let monthMs = Infinity;
    let fullMs = Infinity;
    let monthAnswer: Answer | undefined;
    let fullAnswer: Answer | undefined;
    let floorMs = Infinity;
    // Short statements are timed more often than the full scan: their best of 3 is mostly the machine's noise.
    for (let i = 0; i < RUNS * 4; i++) {
      const [m, mMs] = await timed(() => run(client, month));
      monthAnswer = m;
      monthMs = Math.min(monthMs, mMs);
      floorMs = Math.min(floorMs, (await timed(() => run(client, 'SELECT 1')))[1]);
      if (i % 4 !== 0) continue;
      const [f, fMs] = await timed(() => run(client, full));
      fullAnswer = f;
      fullMs = Math.min(fullMs, fMs);
    }
    const monthLeaf = await leafOf(client, monthAnswer!.queryId);
    const fullLeaf = await leafOf(client, fullAnswer!.queryId);
    const monthFiles = dataFiles(join(lake, 'b', 'bymonth', 'shipmonth=199503'));
    const footerBytes = monthFiles.reduce((sum, f) => sum + Math.min(statSync(f).size, 64 * 1024), 0);
    log(`l2: ${partitions} partitions; one month ${monthMs.toFixed(1)} ms ${JSON.stringify(monthLeaf)}, all ${fullMs.toFixed(0)} ms ${JSON.stringify(fullLeaf)}, SELECT 1 ${floorMs.toFixed(1)} ms`);
    return {
      scale, ctasMs, copyMs, q1Ms, q1DuckdbMs, q1Splits: q1Leaf.splits, q1Nodes: q1Leaf.nodes,
      monthMs, fullMs, floorMs, monthBytes: monthLeaf.bytes, fullBytes: fullLeaf.bytes, footerBytes, partitions,
    };
  } finally {
    duckdb.closeSync();
    instance.closeSync();
    await cluster.stop();
    rmSync(dataDirectory, { recursive: true, force: true });
  }
}
