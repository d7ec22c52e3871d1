// Figure r (issue 24 §2): fairness between two users of one cluster, as real processes (a coordinator and
// its local workers, bench/cluster-process.ts). User A submits `aQueries` long queries at once; user B sends
// one `SELECT 1` every `bIntervalMs` while A's queries run. B's latency (POST to the last page, through the
// whole protocol) is taken first on the idle cluster (B alone), then under A's load, on a cluster whose
// resource groups are a `fair` root with one sub group per user (`${USER}`, each running at most
// `perUserRunning`), and on a cluster without a resource-groups file (Trino's one global group, every query
// in one first-in-first-out queue of query.max-concurrent-queries running).
//
// A's query is real work on a worker, not a sleep: a self-join of tpch lineitem counted (join rows), whose
// size sets its cost (FAIRNESS_SQL: on linenumber and returnflag, about a second at tiny on an idle core;
// on suppkey, about 0.2 s).
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { startCluster, type ClusterOptions, type RunningCluster } from './cluster-process.js';
import { PrestoHttpClient, percentile } from './http-client.js';
import type { BenchRow } from './spooled-stream.bench.js';
import { durationMillis } from '../lib/protocol/duration.js';

/** A's queries: a counted self-join of tpch tiny lineitem (60,175 rows), of two sizes. */
export const FAIRNESS_SQL = {
  /** about 23 million join rows: about a second of one worker's time */
  long: 'SELECT count(*) FROM tpch.tiny.lineitem a JOIN tpch.tiny.lineitem b ON a.linenumber = b.linenumber AND a.returnflag = b.returnflag',
  /** about 36 million join rows on one key: a few tenths of a second */
  short: 'SELECT count(*) FROM tpch.tiny.lineitem a JOIN tpch.tiny.lineitem b ON a.suppkey = b.suppkey',
} as const;

export interface FairnessOptions {
  /** the directory holding tpch/ (tiny generated there), linked into each cluster's data directory */
  tpchCacheParent: string;
  workers: number;
  aQueries: number;
  aSql: string;
  bIntervalMs: number;
  /** B's queries on the idle cluster */
  bAloneQueries: number;
  /** each user's sub group's hardConcurrencyLimit */
  perUserRunning: number;
  /** the root group's hardConcurrencyLimit, and query.max-concurrent-queries of the cluster without groups */
  rootRunning: number;
  /** extra lines of both clusters' config files */
  properties?: Record<string, string>;
  log?: (line: string) => void;
  /** called with the cluster's URL once A's queries are all submitted (while they run), and whether it has groups */
  duringLoad?: (url: string, grouped: boolean) => Promise<void>;
}

/** What one client saw of one query. */
export interface Outcome {
  queryId?: string;
  ms: number;
  state: string;
  error?: string;
}

export interface FairnessRun {
  /** B's latencies on the idle cluster, then while A's queries ran */
  bAlone: number[];
  bLoaded: number[];
  /** how long each of B's queries under load waited QUEUED (the coordinator's queuedTime): what admission made it wait */
  bQueuedMs: number[];
  /** A's queries, in submission order */
  a: Outcome[];
  /** from the first of A's submissions to the last one's end */
  aWallMs: number;
}

/** The resource-groups.json of the grouped cluster: a fair root, one sub group per user. */
export function fairGroupsJson(rootRunning: number, perUserRunning: number, maxQueued = 1000): string {
  return JSON.stringify({
    rootGroups: [{
      name: 'root', softMemoryLimit: '100%', hardConcurrencyLimit: rootRunning, maxQueued, schedulingPolicy: 'fair',
      subGroups: [{ name: '${USER}', softMemoryLimit: '100%', hardConcurrencyLimit: perUserRunning, maxQueued }],
    }],
    selectors: [{ group: 'root.${USER}' }],
  }, null, 2);
}

/** The grouped cluster's etc/resource-groups.properties, naming the JSON written into `dir`. */
function groupFiles(dir: string, options: FairnessOptions): Record<string, string> {
  const json = join(dir, 'resource-groups.json');
  writeFileSync(json, fairGroupsJson(options.rootRunning, options.perUserRunning));
  return { 'resource-groups.properties': `resource-groups.configuration-manager=file\nresource-groups.config-file=${json}\n` };
}

/** Runs `sql` as `user` to its end through the protocol: its time, final state and error. */
export async function runAs(client: PrestoHttpClient, user: string, sql: string): Promise<Outcome> {
  const start = performance.now();
  let reply = await client.request('POST', '/v1/statement', sql, { 'X-Trino-User': user, 'Content-Type': 'text/plain', 'Content-Length': Buffer.byteLength(sql) });
  for (;;) {
    if (reply.status !== 200) return { ms: performance.now() - start, state: `HTTP ${reply.status}`, error: reply.body.toString('utf8', 0, 300) };
    const page = JSON.parse(reply.body.toString('utf8')) as { id?: string; nextUri?: string; stats?: { state?: string }; error?: { errorName?: string; message?: string } };
    if (page.nextUri === undefined || page.error) {
      return { ...(page.id ? { queryId: page.id } : {}), ms: performance.now() - start, state: page.stats?.state ?? 'UNKNOWN', ...(page.error ? { error: `${page.error.errorName}: ${page.error.message}` } : {}) };
    }
    reply = await client.request('GET', new URL(page.nextUri).pathname);
  }
}

/** B's loop: one `SELECT 1` every `intervalMs` (each on its own, not waiting for the last) until `done()`, or `count` sent. */
async function bLoop(client: PrestoHttpClient, intervalMs: number, done: () => boolean, count = Infinity): Promise<Outcome[]> {
  const pending: Promise<Outcome>[] = [];
  const begin = performance.now();
  while (!done() && pending.length < count) {
    pending.push(runAs(client, 'user_b', 'SELECT 1'));
    // paced from the start, so a slow answer does not stretch the interval
    await delay(Math.max(0, begin + pending.length * intervalMs - performance.now()));
  }
  return Promise.all(pending);
}

function expectFinished(outcomes: Outcome[], who: string): number[] {
  const failed = outcomes.find((o) => o.state !== 'FINISHED');
  if (failed) throw new Error(`${who}'s query ended ${failed.state}: ${failed.error ?? ''}`);
  return outcomes.map((o) => o.ms);
}

/** One cluster: B alone, then A's burst with B beside it. */
async function runOnce(options: FairnessOptions, grouped: boolean): Promise<FairnessRun> {
  const dir = mkdtempSync(join(tmpdir(), 'vivace-fairness-'));
  // the shared cache (tiny is generated there by the first worker to need it when missing)
  mkdirSync(join(options.tpchCacheParent, 'tpch'), { recursive: true });
  symlinkSync(join(options.tpchCacheParent, 'tpch'), join(dir, 'tpch'));
  const clusterOptions: ClusterOptions = {
    workers: options.workers,
    dataDirectory: dir,
    captureOutput: true,
    properties: { ...options.properties, 'query.max-concurrent-queries': String(options.rootRunning), 'query.max-queued-queries': '1000' },
    ...(grouped ? { files: groupFiles(dir, options) } : {}),
  };
  let cluster: RunningCluster | undefined;
  let client: PrestoHttpClient | undefined;
  try {
    cluster = await startCluster(clusterOptions);
    // enough sockets that no query waits for one: A's all at once, and B's
    const http = new PrestoHttpClient(cluster.url, options.aQueries + 64);
    client = http;
    // warm both: a worker's first statement opens its DuckDB, the tables' first read their files
    await runAs(client, 'user_b', 'SELECT 1');
    expectFinished([await runAs(client, 'user_a', options.aSql)], 'A (warm-up)');
    const bAlone = expectFinished(await bLoop(client, options.bIntervalMs, () => false, options.bAloneQueries), 'B alone');
    let aLeft = options.aQueries;
    const aStart = performance.now();
    const aRuns = Array.from({ length: options.aQueries }, () => runAs(http, 'user_a', options.aSql).finally(() => aLeft--));
    const bRuns = bLoop(client, options.bIntervalMs, () => aLeft === 0);
    await options.duringLoad?.(cluster.url, grouped);
    const a = await Promise.all(aRuns);
    const aWallMs = performance.now() - aStart;
    const bOutcomes = await bRuns;
    const bLoaded = expectFinished(bOutcomes, 'B under load');
    const bQueuedMs = await queuedTimes(client, bOutcomes);
    if (options.log) await logSlowest(client, bOutcomes, options.log);
    options.log?.(`${grouped ? 'with groups' : 'without groups'}: A's ${a.length} queries in ${(aWallMs / 1000).toFixed(1)} s, B ${bAlone.length} alone and ${bLoaded.length} under load`);
    return { bAlone, bLoaded, bQueuedMs, a, aWallMs };
  } finally {
    client?.close();
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** queryStats.queuedTime of each query, from GET /v1/query/{id} as its user. */
async function queuedTimes(client: PrestoHttpClient, outcomes: Outcome[]): Promise<number[]> {
  const times: number[] = [];
  for (const o of outcomes) {
    const reply = await client.request('GET', `/v1/query/${encodeURIComponent(o.queryId ?? '')}`, undefined, { 'X-Trino-User': 'user_b' });
    if (reply.status !== 200) throw new Error(`GET /v1/query/${o.queryId}: HTTP ${reply.status}`);
    const queued = (JSON.parse(reply.body.toString('utf8')) as { queryStats?: { queuedTime?: string } }).queryStats?.queuedTime;
    times.push(durationMillis(queued ?? '') ?? NaN);
  }
  return times;
}

/** Where the time of B's 3 slowest queries under load went, from the coordinator's query info. */
async function logSlowest(client: PrestoHttpClient, outcomes: Outcome[], log: (line: string) => void): Promise<void> {
  for (const o of [...outcomes].sort((x, y) => y.ms - x.ms).slice(0, 3)) {
    const reply = await client.request('GET', `/v1/query/${encodeURIComponent(o.queryId ?? '')}`, undefined, { 'X-Trino-User': 'user_b' });
    const stats = reply.status === 200 ? (JSON.parse(reply.body.toString('utf8')) as { queryStats?: Record<string, unknown> }).queryStats ?? {} : {};
    const times = ['queuedTime', 'planningTime', 'executionTime', 'elapsedTime'].map((k) => `${k} ${String(stats[k])}`).join(', ');
    log(`B's ${o.ms.toFixed(1)} ms query ${o.queryId}: ${times}`);
  }
}

/** B alone and under A's load, on a cluster with per-user fair groups and on one without groups. */
export async function runFairnessBench(options: FairnessOptions, which: { withoutGroups: boolean } = { withoutGroups: true }): Promise<{ withGroups: FairnessRun; withoutGroups?: FairnessRun }> {
  const withGroups = await runOnce(options, true);
  return which.withoutGroups ? { withGroups, withoutGroups: await runOnce(options, false) } : { withGroups };
}

/** p50 and p99 of B's latencies, and their ratios to B alone. */
export function bFigures(run: FairnessRun): { aloneP50: number; aloneP99: number; p50: number; p99: number; p50Ratio: number; p99Ratio: number } {
  const aloneP50 = percentile(run.bAlone, 50);
  const aloneP99 = percentile(run.bAlone, 99);
  const p50 = percentile(run.bLoaded, 50);
  const p99 = percentile(run.bLoaded, 99);
  return { aloneP50, aloneP99, p50, p99, p50Ratio: p50 / aloneP50, p99Ratio: p99 / aloneP99 };
}

/**
 * Figure r for bench/run.ts: the load (40 queries of about a second; 12 of a few tenths under
 * BENCH_QUICK) with one running query per user and engine.threads=1 (A's running query takes one core),
 * B's p50 and p99 alone, under the load with groups and without, as ratios to B alone (target: <= 2x with
 * groups), and A's wall time in each.
 */
export async function fairnessFigure(quick: boolean, tpchCacheParent: string, log: (line: string) => void): Promise<{ rows: BenchRow[]; notes: string[] }> {
  const options: FairnessOptions = {
    tpchCacheParent, workers: 2, aQueries: quick ? 12 : 40, aSql: quick ? FAIRNESS_SQL.short : FAIRNESS_SQL.long, bIntervalMs: 100, bAloneQueries: quick ? 30 : 100,
    perUserRunning: 1, rootRunning: 8, properties: { 'engine.threads': '1' }, log,
  };
  log(`r. fairness: A submits ${options.aQueries} self-joins of tiny lineitem at once, B a SELECT 1 every ${options.bIntervalMs} ms (bench/fairness.bench.ts)`);
  const { withGroups, withoutGroups } = await runFairnessBench(options);
  const ms = (n: number) => `${n.toFixed(1)} ms`;
  const rows: BenchRow[] = [];
  for (const [label, run] of [['fair root, ${USER} sub groups of 1 running', withGroups], ['no groups (global, 8 running, FIFO)', withoutGroups!]] as const) {
    const f = bFigures(run);
    const judged = run === withGroups;
    for (const [p, value, alone, ratio] of [['p50', f.p50, f.aloneP50, f.p50Ratio], ['p99', f.p99, f.aloneP99, f.p99Ratio]] as const) {
      rows.push({
        figure: `r. B's SELECT 1 ${p} under A's ${options.aQueries} queries, ${label}`,
        measured: ms(value), baseline: `B alone ${ms(alone)}`, ratio: `${ratio.toFixed(2)}x`,
        target: judged ? '<= 2x' : '', verdict: judged ? (ratio <= 2 ? 'ok' : 'MISS') : '-',
      });
    }
  }
  const finished = (run: FairnessRun) => run.a.filter((o) => o.state === 'FINISHED').length;
  const queuedP50 = (run: FairnessRun) => percentile(run.bQueuedMs, 50).toFixed(0);
  const notes = [`r. B's queries under load waited QUEUED ${queuedP50(withGroups)} ms (p50) with groups, ${queuedP50(withoutGroups!)} ms without`, `r. A's ${options.aQueries} queries: ${finished(withGroups)} finished in ${(withGroups.aWallMs / 1000).toFixed(1)} s with groups, ${finished(withoutGroups!)} in ${(withoutGroups!.aWallMs / 1000).toFixed(1)} s without; B sent ${withGroups.bLoaded.length} and ${withoutGroups!.bLoaded.length} queries under load`];
  return { rows, notes };
}
