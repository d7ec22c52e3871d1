// The benchmark suite (`make bench`): prints the figures the issues ask for as one table, each beside its
// target and the baseline measured in the same run. Figures a-c are measured through a cluster as `make run`
// starts it (coordinator + 2 local worker processes, bench/cluster-process.ts), beside the single-process
// coordinator (bench/server-child.ts) and the engine alone.
//
//   BENCH_QUICK=1      reduced sizes (smoke test, < 60 s)
//   BENCH_TPCH=1       generate TPC-H at sf1 (default: sf0.1, extrapolated x10 and labelled so)
//   BENCH_CPU_PROF=DIR write V8 CPU profiles of the server children into DIR (open in Chrome DevTools)
//   BENCH_RENDER=1     also run bench/engine-render.bench.ts (DuckDB rendering variants) at the figure c size
//   BENCH_ONLY=a,b,... run only these figures (f: the 22 TPC-H queries at sf1, g: the failure detector
//                      watching 1,000 simulated nodes, bench/failure-detector.bench.ts, h: TPC-H at sf1
//                      through a cluster of 2 workers, bench/tpch-cluster.bench.ts; `tiny` under BENCH_QUICK;
//                      l: the lake, tpch lineitem copied in by CTAS, Q1 over it, one month of a partitioned
//                      copy: bench/lake.bench.ts at sf1, `tiny` under BENCH_QUICK; m: Q9 and Q18 with
//                      query.max-memory-per-node a third of one task's need, each task's peak against it,
//                      bench/task-memory.bench.ts at sf1, `tiny` under BENCH_QUICK; r: fairness between two
//                      users, resource groups or none, bench/fairness.bench.ts, 12 short queries under BENCH_QUICK;
//                      q: the query history's CPU per query and RSS growth over 100,000 stored queries,
//                      bench/history.bench.ts, 10,000 under BENCH_QUICK)
//
// Load loops are bounded by count and by time; children are stopped by message, else killed by pid.
import { mkdirSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { startChild, type Child, type ChildScript } from './children.js';
import { startCluster, type RunningCluster } from './cluster-process.js';
import { runFailureDetectorBench } from './failure-detector.bench.js';
import { engineLatency, plainGetLatency, sequentialLatency, type LatencyFigures } from './latency.bench.js';
import { memoryGrowth } from './memory.bench.js';
import { startVivace } from './server-child.js';
import { LINEITEM_SF1_ROWS, renderInProcess, streamOverHttp, wideResultSql, type StreamFigures } from './stream.bench.js';
import { watchLoadCpu, workerPids, type LoadCpu } from './process-cpu.js';
import { measureSpooled, spooledReport, type BenchRow, type SpooledRun } from './spooled-stream.bench.js';
import { plainGetThroughput, queryThroughput, warmUp, type ThroughputFigures } from './throughput.bench.js';
import { generateTpch, runBenchScript } from './tpch.bench.js';
import { runTpchClusterBench } from './tpch-cluster.bench.js';
import { runTpchQueriesBench } from './tpch-queries.bench.js';
import { runLakeBench } from './lake.bench.js';
import { runTaskMemoryBench } from './task-memory.bench.js';
import { fairnessFigure } from './fairness.bench.js';
import { historyFigure } from './history.bench.js';
import { defaultConfig } from '../lib/config.js';

const QUICK = process.env.BENCH_QUICK === '1';
const FULL_TPCH = process.env.BENCH_TPCH === '1';
const PROFILE_DIR = process.env.BENCH_CPU_PROF ? resolve(process.env.BENCH_CPU_PROF) : undefined;
const ONLY = new Set((process.env.BENCH_ONLY ?? 'a,b,c,d,e,f,g,h,l,m,q,r').split(',').map((s) => s.trim()));

const SIZES = QUICK
  ? { warmup: 50, jitWarmupSeconds: 1, latencyQueries: 300, clients: 16, throughputSeconds: 3, streamRows: 500_000, memoryQueries: 2_000, tpchScales: [0.01] }
  : { warmup: 200, jitWarmupSeconds: 15, latencyQueries: 2_000, clients: 16, throughputSeconds: 10, streamRows: LINEITEM_SF1_ROWS, memoryQueries: 10_000, tpchScales: FULL_TPCH ? [1] : [0.01, 0.1] };

type Row = BenchRow;
const rows: Row[] = [];

/** A row shown for context: no target, no verdict. */
const info = (figure: string, measured: string, baseline = '', ratio = ''): Row => ({ figure, measured, baseline, ratio, target: '', verdict: '-' });
const notes: string[] = [];

const ms = (n: number) => `${n.toFixed(2)} ms`;
const num = (n: number) => Math.round(n).toLocaleString('en-US');
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
const log = (line: string) => process.stdout.write(`${line}\n`);

async function withChild<T>(script: ChildScript, body: (child: Child) => Promise<T>): Promise<T> {
  if (PROFILE_DIR) mkdirSync(PROFILE_DIR, { recursive: true });
  const child = await startChild(script, script === 'server-child.ts' && PROFILE_DIR ? { cpuProfDir: PROFILE_DIR } : {});
  try {
    return await body(child);
  } finally {
    await child.stop();
  }
}

/** The figures' subject since the cluster issue: `make run`'s shape, a coordinator and 2 local worker processes. */
const CLUSTER_WORKERS = 2;

async function withCluster<T>(body: (cluster: RunningCluster) => Promise<T>): Promise<T> {
  if (PROFILE_DIR) mkdirSync(PROFILE_DIR, { recursive: true });
  const cluster = await startCluster({ workers: CLUSTER_WORKERS, ...(PROFILE_DIR ? { cpuProfDir: PROFILE_DIR } : {}) });
  try {
    return await body(cluster);
  } finally {
    await cluster.stop();
  }
}

async function figureA(): Promise<void> {
  log(`a. SELECT 1 latency: ${SIZES.latencyQueries} sequential queries after ${SIZES.jitWarmupSeconds} s of load (${SIZES.clients} clients) and ${SIZES.warmup} sequential ones`);
  // Each server is measured in its steady state (warmUp), then warmed sequentially.
  const steady = async (url: string) => {
    await warmUp(url, SIZES.clients, SIZES.jitWarmupSeconds);
    return sequentialLatency(url, SIZES.warmup, SIZES.latencyQueries, 120);
  };
  const cluster = await withCluster((c) => steady(c.url));
  log(`   cluster (coordinator + ${CLUSTER_WORKERS} workers): ${JSON.stringify(round(cluster))}`);
  const separate = await withChild('server-child.ts', (child) => steady(child.url));
  log(`   server in a child process: ${JSON.stringify(round(separate))}`);
  const inProcess = await (async (): Promise<LatencyFigures> => {
    const vivace = await startVivace();
    try {
      return await steady(vivace.url);
    } finally {
      await vivace.stop();
    }
  })();
  log(`   server in this process:    ${JSON.stringify(round(inProcess))}`);
  const engine = await engineLatency(SIZES.warmup, SIZES.latencyQueries);
  log(`   engine alone (in process, no HTTP): ${JSON.stringify(round(engine))}`);
  const koa = await withChild('koa-child.ts', (child) => plainGetLatency(child.url, SIZES.warmup, SIZES.latencyQueries));
  log(`   bare Koa GET / (child process):     ${JSON.stringify(round(koa))}`);
  // Bare HTTP with the cluster's hops (bench/hop-floor-child.ts), measured the same way: the processes'
  // wake-ups and loopback round trips alone, without Koa, actors, SQL or DuckDB.
  const floor = await withChild('hop-floor-child.ts', (child) => steady(child.url));
  log(`   bare HTTP, the cluster's hops:      ${JSON.stringify(round(floor))}`);
  rows.push(
    {
      figure: `a. SELECT 1 p50 via a worker (cluster of ${CLUSTER_WORKERS})`,
      measured: ms(cluster.p50),
      baseline: `single process ${ms(separate.p50)}`,
      ratio: `${(cluster.p50 / separate.p50).toFixed(2)}x single`,
      target: '<= 2 ms',
      verdict: cluster.p50 <= 2 ? 'ok' : 'MISS',
    },
    info('a. SELECT 1 p99 via a worker', ms(cluster.p99), `single process ${ms(separate.p99)}`),
    info('a. floor: bare Node HTTP, same hops and client, p50', ms(floor.p50), `POST ${ms(floor.stepP50[0] ?? 0)}`, `cluster ${(cluster.p50 / floor.p50).toFixed(2)}x`),
    { figure: 'a. SELECT 1 p50 (server child)', measured: ms(separate.p50), baseline: `engine ${ms(engine.p50)}, Koa GET ${ms(koa.p50)}`, ratio: `${(separate.p50 / engine.p50).toFixed(1)}x engine`, target: '<= 2 ms', verdict: separate.p50 <= 2 ? 'ok' : 'MISS' },
    info('a. SELECT 1 p99 (server child)', ms(separate.p99), `engine ${ms(engine.p99)}, Koa GET ${ms(koa.p99)}`),
    { figure: 'a. SELECT 1 p50 (in-process)', measured: ms(inProcess.p50), baseline: `engine ${ms(engine.p50)}`, ratio: `${(inProcess.p50 / engine.p50).toFixed(1)}x engine`, target: '<= 2 ms', verdict: inProcess.p50 <= 2 ? 'ok' : 'MISS' },
    info('a. SELECT 1 p99 (in-process)', ms(inProcess.p99)),
  );
  notes.push(`a. p50 per HTTP exchange of a SELECT 1 (cluster): ${cluster.stepP50.map((v, i) => `${i === 0 ? 'POST' : `GET ${i}`} ${ms(v)}`).join(', ')}`);
  notes.push(`a. p50 per HTTP exchange of a SELECT 1 (child): ${separate.stepP50.map((v, i) => `${i === 0 ? 'POST' : `GET ${i}`} ${ms(v)}`).join(', ')}; engine alone: plan ${ms(engine.planP50)}, execute+drain ${ms(engine.executeP50)}`);
  notes.push(`a. ${separate.requestsPerQuery.toFixed(1)} HTTP requests per SELECT 1 (POST + GETs); mean ${ms(separate.mean)} (child), ${ms(inProcess.mean)} (in-process)`);
}

/** Figure b's loads stop by time; this bound only keeps them finite. */
const MAX_LOAD_OPERATIONS = 1_000_000;

/** Figure b's load on `url` after its warm-up, with the CPU of `pids()` (read as the measured part starts) and of this process (the client) around it. */
async function throughputWithCpu(url: string, pids: () => number[]): Promise<{ figures: ThroughputFigures; cpu?: LoadCpu }> {
  let watch: ReturnType<typeof watchLoadCpu> | undefined;
  let cpu: LoadCpu | undefined;
  const figures = await queryThroughput(url, SIZES.clients, SIZES.throughputSeconds, MAX_LOAD_OPERATIONS, {
    started: () => {
      watch = watchLoadCpu(pids());
    },
    ended: () => {
      cpu = watch?.stop();
    },
  }, SIZES.jitWarmupSeconds);
  return cpu ? { figures, cpu } : { figures };
}

async function figureB(): Promise<void> {
  const max = MAX_LOAD_OPERATIONS;
  log(`b. throughput: ${SIZES.clients} clients for ${SIZES.throughputSeconds} s after ${SIZES.jitWarmupSeconds} s of the same load`);
  // CPU per query of each process of the cluster and of this process (the load's client), from /proc.
  const { figures: cluster, cpu } = await withCluster((c) => throughputWithCpu(c.url, () => [c.pid, ...workerPids(c.pid).values()]));
  log(`   cluster SELECT 1: ${JSON.stringify(round(cluster))}`);
  if (cpu) {
    const per = (micros: number) => `${Math.round(micros / cluster.operations)} us`;
    const [coordinator, ...workers] = cpu.processes;
    const total = cpu.processes.reduce((sum, p) => sum + p.total, cpu.client);
    notes.push(`b. cluster CPU per query (/proc, all threads): coordinator ${per(coordinator!.total)} (main thread ${per(coordinator!.main)}), `
      + `${workers.length} workers ${per(workers.reduce((sum, w) => sum + w.total, 0))} together, this bench's client ${per(cpu.client)}: `
      + `${per(total)} in all, so ${cpus().length} cores allow about ${num((cpus().length * 1e6 * cluster.operations) / total)} q/s`);
  }
  const vivace = await withChild('server-child.ts', (child) => queryThroughput(child.url, SIZES.clients, SIZES.throughputSeconds, max, {}, SIZES.jitWarmupSeconds));
  log(`   vivace SELECT 1: ${JSON.stringify(round(vivace))}`);
  const koa = await withChild('koa-child.ts', (child) => plainGetThroughput(child.url, SIZES.clients, SIZES.throughputSeconds, max));
  log(`   bare Koa GET /:  ${JSON.stringify(round(koa))}`);
  // The same load through bare HTTP with the cluster's hops (bench/hop-floor-child.ts): what is left of the
  // 2 cores for the coordinator's and the workers' own work.
  const { figures: floor, cpu: floorWatch } = await withChild('hop-floor-child.ts', (child) => throughputWithCpu(child.url, () => [child.pid]));
  const floorCpu = floorWatch?.processes[0];
  log(`   bare HTTP, the cluster's hops: ${JSON.stringify(round(floor))}`);
  rows.push(
    {
      figure: `b. SELECT 1 queries/s via workers (${SIZES.clients} clients)`,
      measured: `${num(cluster.perSecond)} q/s`,
      baseline: `single process ${num(vivace.perSecond)} q/s`,
      ratio: `${(cluster.perSecond / vivace.perSecond).toFixed(2)}x single`,
      target: '>= 1,500 q/s',
      verdict: cluster.perSecond >= 1500 && cluster.errors === 0 ? 'ok' : 'MISS',
    },
    {
      figure: `b. SELECT 1 queries/s, single process (${SIZES.clients} clients)`,
      measured: `${num(vivace.perSecond)} q/s`,
      baseline: `Koa ${num(koa.perSecond)} req/s`,
      ratio: `${(vivace.perSecond / koa.perSecond).toFixed(3)}x Koa`,
      target: '>= 1,500 q/s',
      verdict: vivace.perSecond >= 1500 && vivace.errors === 0 ? 'ok' : 'MISS',
    },
    info(
      'b. floor: bare Node HTTP, same hops and client',
      `${num(floor.perSecond)} q/s`,
      floorCpu ? `front process ${Math.round(floorCpu.total / floor.operations)} us per query` : '',
      `cluster ${(cluster.perSecond / floor.perSecond).toFixed(3)}x`,
    ),
    info(
      'b. HTTP requests/s during b',
      `${num(vivace.requestsPerSecond)} req/s`,
      `Koa ${num(koa.requestsPerSecond)} req/s`,
      `${(vivace.requestsPerSecond / koa.requestsPerSecond).toFixed(3)}x Koa`,
    ),
  );
  notes.push(`b. cluster: query latency under load p50 ${ms(cluster.p50)} p99 ${ms(cluster.p99)}; errors ${cluster.errors}${cluster.firstError ? ` (${cluster.firstError})` : ''}`);
  notes.push(`b. query latency under load p50 ${ms(vivace.p50)} p99 ${ms(vivace.p99)}; errors ${vivace.errors}${vivace.firstError ? ` (${vivace.firstError})` : ''}; Koa errors ${koa.errors}`);
}

async function figureC(): Promise<void> {
  const sql = wideResultSql(SIZES.streamRows);
  log(`c. stream ${num(SIZES.streamRows)} rows x 16 columns of tpch.sf1.lineitem`);
  // Generated once into the user's cache (about 12 s), before anything is timed.
  await renderInProcess('SELECT count(*) FROM tpch.sf1.region');
  const engineStart = process.cpuUsage();
  const engine = await renderInProcess(sql);
  const engineUsage = process.cpuUsage(engineStart);
  log(`   engine in process: ${JSON.stringify(round(engine))}`);
  // The CPU of every process of the stream (the cluster's from /proc, the client's this process's own).
  let streamCpu: LoadCpu | undefined;
  let spooled: SpooledRun[] = [];
  const viaWorker = await withCluster(async (c) => {
    const watch = watchLoadCpu([c.pid, ...workerPids(c.pid).values()]);
    const r = await streamOverHttp(c.url, sql, 'raw');
    streamCpu = watch.stop();
    log(`   cluster, no parse:         ${JSON.stringify(round(r))}`);
    // The same rows through the spooling protocol, each encoding (bench/spooled-stream.bench.ts).
    spooled = await measureSpooled(c, sql, (line) => log(`   ${line}`));
    return r;
  });
  if (streamCpu) {
    // What the cores allow at best: all the stream's CPU spread evenly over them, nothing waiting.
    const seconds = (micros: number) => `${(micros / 1e6).toFixed(2)} s`;
    const [coordinator, ...workers] = streamCpu.processes;
    const total = streamCpu.processes.reduce((sum, p) => sum + p.total, streamCpu.client);
    const floor = total / 1e6 / cpus().length;
    notes.push(`c. CPU of the stream through the cluster (/proc, all threads): coordinator ${seconds(coordinator!.total)}, ${workers.length} workers ${seconds(workers.reduce((sum, w) => sum + w.total, 0))}, `
      + `this bench's client ${seconds(streamCpu.client)}: ${seconds(total)} in all, so ${cpus().length} cores need at least ${floor.toFixed(2)} s, `
      + `${(floor / engine.seconds).toFixed(2)}x the engine alone (which used ${seconds(engineUsage.user + engineUsage.system)} of CPU in ${engine.seconds.toFixed(2)} s)`);
  }
  // The no-parse client counts no rows; the bytes (beside the single process's) show the stream was whole.
  const [parsed, raw] = await withChild('server-child.ts', async (child) => {
    const p = await streamOverHttp(child.url, sql, 'parse');
    log(`   HTTP, JSON.parse per page: ${JSON.stringify(round(p))}`);
    const r = await streamOverHttp(child.url, sql, 'raw');
    log(`   HTTP, no parse:            ${JSON.stringify(round(r))}`);
    return [p, r] as const;
  });
  if (parsed.rows !== SIZES.streamRows) throw new Error(`stream returned ${parsed.rows} rows, expected ${SIZES.streamRows}`);
  const rate = (f: StreamFigures) => `${num(SIZES.streamRows / f.seconds)} rows/s, ${(f.bytes / 1e6 / f.seconds).toFixed(1)} MB/s`;
  // The target is for the plain client (reads every page, follows nextUri). The JSON.parse client is
  // shown beside it: parsing 800 MB costs its own CPU on the same 2 cores, so it measures the client too.
  for (const [label, f, judged] of [['c0: direct protocol via a worker, no-parse client', viaWorker, true], ['single process, JSON.parse client', parsed, false], ['single process, no-parse client', raw, false]] as const) {
    const ratio = f.seconds / engine.seconds;
    rows.push({
      figure: `c. stream, ${label}`,
      measured: `${f.seconds.toFixed(2)} s: ${rate(f)}`,
      baseline: `engine ${engine.seconds.toFixed(2)} s`,
      ratio: `${ratio.toFixed(2)}x engine`,
      target: judged ? '>= 500k rows/s, <= 1.3x' : '',
      verdict: !judged ? '-' : SIZES.streamRows / f.seconds >= 500_000 && ratio <= 1.3 ? 'ok' : 'MISS',
    });
  }
  rows.push(info('c. engine alone (in process)', `${engine.seconds.toFixed(2)} s: ${rate(engine)}`));
  const report = spooledReport(spooled, engine, viaWorker, SIZES.streamRows);
  rows.push(...report.rows);
  notes.push(...report.notes);
  if (process.env.BENCH_RENDER === '1') {
    const output = await runBenchScript('engine-render.bench.ts', [String(SIZES.streamRows)], 1800);
    log(`   bench/engine-render.bench.ts ${SIZES.streamRows}:\n   ${output.split('\n').join('\n   ')}`);
  }
  notes.push(`c. ${mb(parsed.bytes)} of response bodies in ${parsed.pages} HTTP requests; engine rendered ${mb(engine.bytes)} of rows in ${engine.pages} batches`);
}

async function figureD(): Promise<void> {
  log(`d. memory: ${num(SIZES.memoryQueries)} SELECT 1 on a fresh server child (${SIZES.clients} clients)`);
  const m = await memoryGrowth(SIZES.memoryQueries, SIZES.clients, 300, 2000);
  log(`   ${JSON.stringify(m)}`);
  const growth = m.rssEnd - m.rssStart;
  const gcGrowth = m.rssEndAfterGc - m.rssStartAfterGc;
  const heapGrowth = m.heapTotalEndAfterGc - m.heapTotalStartAfterGc;
  rows.push(
    {
      figure: `d. RSS growth after ${num(m.queries)} queries`,
      measured: mb(growth),
      baseline: `start ${mb(m.rssStart)}`,
      ratio: `${(m.rssEnd / m.rssStart).toFixed(2)}x start`,
      target: '<= 50 MB',
      verdict: growth <= 50e6 && m.queries >= SIZES.memoryQueries ? 'ok' : 'MISS',
    },
    info('d. same, both readings after a forced full GC', mb(gcGrowth), `start ${mb(m.rssStartAfterGc)}`),
    info('d. of which V8 heap (committed, after GC)', mb(heapGrowth), `native and the rest ${mb(gcGrowth - heapGrowth)}`),
    info('d. RSS growth after the 200-query warm-up', mb(m.rssEnd - m.rssAfterWarmup), `warm ${mb(m.rssAfterWarmup)}`),
  );
  notes.push(`d. heapUsed (from /v1/status) ${mb(m.heapUsedStart)} -> ${mb(m.heapUsedEnd)}, ${mb(m.heapUsedEndAfterGc)} after a full GC; ${m.errors} errors; ${(m.queries / m.seconds).toFixed(0)} q/s while loading`);
}

async function figureE(): Promise<void> {
  // Generation has a fixed cost (text pool, process start) that a plain x10 would multiply too, so
  // without BENCH_TPCH=1 sf1 is estimated by a straight line through sf0.01 and sf0.1.
  const measured: { scale: number; seconds: number; megabytes: number }[] = [];
  for (const scale of SIZES.tpchScales) {
    log(`e. TPC-H generation at sf${scale} (bench/tpch-generate.ts, 2 workers)`);
    const t = await generateTpch(scale, 2, scale >= 1 ? 3600 : 600);
    log(`   ${t.output.split('\n').join('\n   ')}`);
    measured.push({ scale, seconds: t.seconds, megabytes: t.megabytes });
    rows.push(info(`e. TPC-H sf${scale} all tables (measured)`, `${t.seconds.toFixed(2)} s`, `${t.megabytes} MB`));
  }
  if (measured.length === 2) {
    const [small, large] = measured as [typeof measured[0], typeof measured[0]];
    const perScale = (large.seconds - small.seconds) / (large.scale - small.scale);
    const fixed = small.seconds - perScale * small.scale;
    const sf1 = fixed + perScale;
    rows.push(info('e. TPC-H sf1 all tables (EXTRAPOLATED)', `~${sf1.toFixed(0)} s`, `fixed ${fixed.toFixed(1)} s + ${perScale.toFixed(1)} s per sf`));
    notes.push(`e. sf1 is an estimate from a line through sf${small.scale} and sf${large.scale}; BENCH_TPCH=1 measures sf1 itself`);
  }
}

/** f. The 22 TPC-H queries at sf1 through the engine beside plain DuckDB, checked against the official answers. */
async function figureF(): Promise<void> {
  if (QUICK) {
    notes.push('f. skipped under BENCH_QUICK (sf1 generation and 22 queries take about a minute)');
    return;
  }
  log('f. TPC-H 22 queries at sf1 (bench/tpch-queries.bench.ts)');
  const f = await runTpchQueriesBench((line) => log(`   ${line}`));
  rows.push({
    figure: `f. tpch.sf1 ${f.cold ? 'cold generation' : 'open (already generated)'}`,
    measured: `${f.generationSeconds.toFixed(1)} s`,
    baseline: `cached reopen ${f.reopenSeconds.toFixed(2)} s`,
    ratio: '',
    target: f.cold ? '<= 60 s' : '',
    verdict: f.cold ? (f.generationSeconds <= 60 ? 'ok' : 'MISS') : '-',
  });
  // 'ok (...)' is a match with a remark (Q17: the answer file's known erratum).
  const matches = (answer: string) => answer === 'ok' || answer.startsWith('ok (');
  const ok = f.queries.filter((q) => matches(q.answer)).length;
  const vivace = f.queries.reduce((n, q) => n + (q.vivaceMs ?? 0), 0);
  const duckdb = f.queries.reduce((n, q) => n + (q.duckdbMs ?? 0), 0);
  rows.push({
    figure: 'f. 22 TPC-H queries at sf1, total',
    measured: `${(vivace / 1000).toFixed(2)} s`,
    baseline: `DuckDB ${(duckdb / 1000).toFixed(2)} s`,
    ratio: `${(vivace / duckdb).toFixed(2)}x DuckDB`,
    target: `22/22 answers (${ok}/22)`,
    verdict: ok === 22 ? 'ok' : 'MISS',
  });
  for (const q of f.queries) {
    rows.push({
      figure: `f. Q${q.query}`,
      measured: q.vivaceMs === undefined ? '-' : `${q.vivaceMs.toFixed(0)} ms`,
      baseline: q.duckdbMs === undefined ? '-' : `DuckDB ${q.duckdbMs.toFixed(0)} ms`,
      ratio: q.vivaceMs && q.duckdbMs ? `${(q.vivaceMs / q.duckdbMs).toFixed(2)}x` : '',
      target: q.answer === 'ok' ? '' : q.answer.slice(0, 40),
      verdict: matches(q.answer) ? 'ok' : 'MISS',
    });
  }
}

/** g. The failure detector over 1,000 simulated nodes: coordinator CPU beside an idle one, and detection time. */
async function figureG(): Promise<void> {
  const nodes = 1_000;
  log(`g. failure detector watching ${num(nodes)} simulated nodes (bench/failure-detector.bench.ts)`);
  const [idle, fake, http] = await runFailureDetectorBench(nodes, (line) => log(`   ${line}`));
  const pct = (share: number) => `${(share * 100).toFixed(1)}% of a core`;
  for (const f of [fake!, http!]) {
    const label = f.variant === 'http' ? 'real HEAD pings' : 'fake transport';
    rows.push({
      figure: `g. detector CPU, ${label}`,
      measured: pct(f.cpuShare),
      baseline: `idle ${pct(idle!.cpuShare)}`,
      ratio: `${(f.cpuShare / Math.max(idle!.cpuShare, 1e-6)).toFixed(1)}x idle`,
      target: f.variant === 'http' ? '< 25%' : '',
      verdict: f.variant === 'http' ? (f.cpuShare < 0.25 ? 'ok' : 'MISS') : '-',
    });
  }
  const h = http!;
  const [, last] = h.detectionSeconds!;
  // Nodes here are watched for ~15 s before failing: fewer decayed requests, so the ratio crosses 0.1 sooner
  // than after a long history. The lag over the decay math, added to the steady 6.0 s, is the real figure.
  const steady = h.steadyExpectedSeconds! + (last - h.expectedSeconds!);
  rows.push(
    {
      figure: 'g. failed node detected (real pings)',
      measured: `${last.toFixed(2)} s`,
      baseline: `decay math ${h.expectedSeconds!.toFixed(2)} s`,
      ratio: `steady nodes ~${steady.toFixed(2)} s`,
      target: '<= 7 s',
      verdict: steady <= 7 ? 'ok' : 'MISS',
    },
    info(
      'g. hanging node detected (real pings)',
      `${h.hangDetectionSeconds![1].toFixed(2)} s`,
      `1 s timeout + decay math ${h.hangExpectedSeconds!.toFixed(2)} s`,
      `steady nodes ~${(1 + h.steadyExpectedSeconds! + h.hangDetectionSeconds![1] - h.hangExpectedSeconds!).toFixed(2)} s`,
    ),
    info('g. event-loop p99 with 1,000 nodes (real pings)', ms(h.loopP99Ms), `idle ${ms(idle!.loopP99Ms)}`),
    info('g. GET /v1/node, 1,000 nodes listed', `p50 ${ms(h.nodeListMs!.p50)}`, `${mb(h.nodeListMs!.bytes)} body`),
  );
  notes.push(`g. pings/s over the steady window: ${Math.round(h.pingsPerSecond!)} real, ${Math.round(fake!.pingsPerSecond!)} fake (1,000 nodes x 2/s = 2,000)`);
  notes.push('g. detection is timed from the parent telling the status child (IPC delivery included) to nodes() showing the node failed,'
    + ' polled every 100 ms; the lag over the decay math is then up to one ping interval (0.5 s) plus the poll on an idle machine');
}

/** h. TPC-H through a cluster of 2 workers (sf1; tiny under BENCH_QUICK) beside plain DuckDB in process, answers checked. */
async function figureH(): Promise<void> {
  const scale = QUICK ? 'tiny' : 'sf1';
  log(`h. TPC-H at ${scale} through a cluster (bench/tpch-cluster.bench.ts)`);
  const h = await runTpchClusterBench(scale, (line) => log(`   ${line}`));
  // The 1.5x target is for sf1; tiny (a smoke run) is shown without a verdict.
  const judged = scale === 'sf1';
  for (const q of h.timed) {
    const ratio = q.clusterMs / q.duckdbMs;
    rows.push({
      figure: `h. Q${q.query} ${scale} via ${h.workers} workers (${q.leaf ? h.stagesLabel : `ran as one task; ${h.stagesLabel}`})`,
      measured: ms(q.clusterMs),
      baseline: `DuckDB ${ms(q.duckdbMs)}`,
      ratio: `${ratio.toFixed(2)}x DuckDB`,
      target: judged ? '<= 1.5x' : '',
      verdict: !judged ? '-' : ratio <= 1.5 ? 'ok' : 'MISS',
    });
  }
  for (const q of h.timed) {
    const leaf = q.leaf;
    // /v1/query's sub-stage has the rows the leaves read; the rows they handed on only if it reports them.
    rows.push(info(
      `h. Q${q.query} rows exchanged between stages`,
      !leaf ? 'one task: no exchange' : leaf.outputRows === undefined ? 'not in /v1/query stats' : `Q${q.query}: ${num(leaf.outputRows)} rows from ${leaf.nodes} leaf tasks`,
      leaf ? `leaves read ${num(leaf.processedRows)} rows: ${leaf.nodes} leaf tasks, ${leaf.totalSplits} splits` : '',
    ));
  }
  const matches = (answer: string) => answer === 'ok' || answer.startsWith('ok (');
  const ok = h.queries.filter((q) => matches(q.answer)).length;
  const cluster = h.queries.reduce((n, q) => n + (q.clusterMs ?? 0), 0);
  const duckdb = h.queries.reduce((n, q) => n + (q.duckdbMs ?? 0), 0);
  rows.push({
    figure: `h. 22 TPC-H queries at ${scale} via ${h.workers} workers, total`,
    measured: `${(cluster / 1000).toFixed(2)} s`,
    baseline: `DuckDB ${(duckdb / 1000).toFixed(2)} s`,
    ratio: `${(cluster / duckdb).toFixed(2)}x DuckDB`,
    target: judged ? `22/22 answers (${ok}/22), <= 1.3x` : `22/22 answers (${ok}/22)`,
    verdict: ok === 22 && (!judged || cluster / duckdb <= 1.3) ? 'ok' : 'MISS',
  });
  // Issue 22: every join distributed; each query's stages, workers and what its stages exchanged.
  const spread = h.queries.filter((q) => q.exchanged && q.exchanged.stages >= 2 && q.exchanged.nodes >= 2).length;
  rows.push(info(`h. queries in stages on ${h.workers} workers`, `${spread}/22`, 'every query with a join, and Q1 and Q6'));
  notes.push(`h. per query stages/workers/rows/bytes exchanged: ${h.queries.map((q) => `Q${q.query} ${q.exchanged ? `${q.exchanged.stages}/${q.exchanged.nodes}/${num(q.exchanged.rows)}/${(q.exchanged.bytes / 1e6).toFixed(1)}MB` : '-'}`).join(', ')}`);
  for (const q of h.queries.filter((f) => !matches(f.answer))) {
    rows.push({ figure: `h. Q${q.query} answer`, measured: q.answer.slice(0, 60), baseline: '', ratio: '', target: 'right answer', verdict: 'MISS' });
  }
  notes.push(`h. answers checked against ${h.checkedAgainst}; Q1 and Q6 best of ${h.runs} after a warm-up, the 22 once each; data directory ${h.dataDirectory}`);
  notes.push(`h. per query ms (cluster/DuckDB): ${h.queries.map((q) => `Q${q.query} ${q.clusterMs?.toFixed(0) ?? '-'}/${q.duckdbMs?.toFixed(0) ?? '-'}`).join(', ')}`);
}

function round<T extends object>(o: T): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, typeof v === 'number' && !Number.isInteger(v) ? Number(v.toFixed(3)) : v]));
}

function printTable(): void {
  const headers: Row = { figure: 'figure', measured: 'measured', baseline: 'baseline (same run)', ratio: 'ratio', target: 'target', verdict: '-' };
  const keys = ['figure', 'measured', 'baseline', 'ratio', 'target', 'verdict'] as const;
  const all = [headers, ...rows];
  const widths = keys.map((k) => Math.max(...all.map((r) => (k === 'verdict' && r === headers ? 'verdict' : r[k]).length)));
  const line = (r: Row) => keys.map((k, i) => (k === 'verdict' && r === headers ? 'verdict' : r[k]).padEnd(widths[i]!)).join(' | ');
  log('');
  log(line(headers));
  log(widths.map((w) => '-'.repeat(w)).join('-+-'));
  for (const r of rows) log(line(r));
  log('');
  for (const n of notes) log(n);
}

/** l. The lake: CTAS of lineitem (l3), Q1 over it (l1), one month of a copy partitioned by ship month (l2), beside DuckDB in process. */
async function figureL(): Promise<void> {
  const scale = QUICK ? 'tiny' : 'sf1';
  log(`l. the lake at ${scale} through a cluster of 2 workers (bench/lake.bench.ts)`);
  const l = await runLakeBench(scale, (line) => log(`   ${line}`));
  const judged = scale === 'sf1';
  const verdict = (ok: boolean): Row['verdict'] => (!judged ? '-' : ok ? 'ok' : 'MISS');
  const q1 = l.q1Ms / l.q1DuckdbMs;
  const ctas = l.ctasMs / l.copyMs;
  const byteShare = l.monthBytes / l.fullBytes;
  const timeShare = l.monthMs / l.fullMs;
  // What pruning controls: the time each statement spends beyond the fixed cost of any statement (SELECT 1).
  const netShare = (l.monthMs - l.floorMs) / (l.fullMs - l.floorMs);
  const byteTarget = (l.fullBytes / 60 + l.footerBytes) / l.fullBytes;
  rows.push(
    { figure: `l1. Q1 over lake ${scale} lineitem (Parquet), ${l.q1Splits} splits on ${l.q1Nodes} workers`, measured: ms(l.q1Ms), baseline: `DuckDB read_parquet ${ms(l.q1DuckdbMs)}`, ratio: `${q1.toFixed(2)}x DuckDB`, target: judged ? '<= 1.3x' : '', verdict: verdict(q1 <= 1.3) },
    { figure: `l2. one ship month of ${l.partitions} partitions: bytes read`, measured: mb(l.monthBytes), baseline: `all months ${mb(l.fullBytes)}`, ratio: `${(byteShare * 100).toFixed(2)}%`, target: judged ? `<= 1/60 + footers (${(byteTarget * 100).toFixed(2)}%)` : '', verdict: verdict(byteShare <= byteTarget) },
    { figure: `l2. one ship month of ${l.partitions} partitions: time`, measured: ms(l.monthMs), baseline: `all months ${ms(l.fullMs)}`, ratio: `${(timeShare * 100).toFixed(1)}%`, target: judged ? '<= 1/20 (5%)' : '', verdict: verdict(timeShare <= 0.05) },
    { figure: `l2. the same, beyond the SELECT 1 floor (${ms(l.floorMs)})`, measured: ms(l.monthMs - l.floorMs), baseline: `all months ${ms(l.fullMs - l.floorMs)}`, ratio: `${(netShare * 100).toFixed(1)}%`, target: judged ? '<= 1/20 (5%)' : '', verdict: verdict(netShare <= 0.05) },
    { figure: `l3. CTAS of ${scale} lineitem into the lake`, measured: ms(l.ctasMs), baseline: `DuckDB COPY TO ${ms(l.copyMs)}`, ratio: `${ctas.toFixed(2)}x DuckDB`, target: judged ? '<= 1.3x' : '', verdict: verdict(ctas <= 1.3) },
  );
}

/**
 * m. Q9 and Q18 with join_distribution_type=PARTITIONED through 2 workers whose query.max-memory-per-node
 * is a third of what the query needs as one task (measured first, in the same run): they finish, each
 * task's peak under the limit.
 */
async function figureM(): Promise<void> {
  const scale = QUICK ? 'tiny' : 'sf1';
  log(`m. Q9 and Q18 at ${scale} under a third of one task's memory (bench/task-memory.bench.ts)`);
  const m = await runTaskMemoryBench(scale, (line) => log(`   ${line}`));
  const judged = scale === 'sf1';
  for (const q of m.queries) {
    const ok = q.answer === 'ok' || q.answer.startsWith('ok (');
    const top = q.tasks.reduce((n, t) => Math.max(n, t.peakBytes), 0);
    const under = q.tasks.length > 0 && top <= q.limitBytes;
    rows.push({
      figure: `m. Q${q.query} ${scale}, PARTITIONED, ${q.tasks.length} tasks on ${m.workers} workers`,
      measured: ok ? `largest task peak ${mb(top)}` : q.answer.slice(0, 60),
      baseline: `one task ${mb(q.needBytes)}`,
      ratio: `limit ${mb(q.limitBytes)} (${((q.limitBytes / Math.max(1, q.needBytes)) * 100).toFixed(0)}%)`,
      target: 'right answer, every task <= limit',
      verdict: ok && under ? 'ok' : judged ? 'MISS' : '-',
    });
    notes.push(`m. Q${q.query} task peaks (stage/node: MB): ${q.tasks.map((t) => `${t.stageId}/${t.nodeId}: ${(t.peakBytes / 1e6).toFixed(1)}`).join(', ') || 'none'}`);
  }
}

/** r. Fairness (issue 24 §2): B's latency under A's burst, with per-user fair groups and without groups. */
async function figureR(): Promise<void> {
  const r = await fairnessFigure(QUICK, defaultConfig().dataDirectory, (line) => log(`   ${line}`));
  rows.push(...r.rows);
  notes.push(...r.notes);
}

/** q. The query history (issue 24 §4): coordinator CPU per stored query and RSS growth, in process. */
async function figureQ(): Promise<void> {
  const q = await historyFigure(QUICK, (line) => log(`   ${line}`));
  rows.push(...q.rows);
  notes.push(...q.notes);
}

async function main(): Promise<void> {
  const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');
  notes.push(`load average at start: ${load()} (${cpus().length} CPUs): other processes on the machine distort every figure`);
  log(`vivace bench${QUICK ? ' (BENCH_QUICK)' : ''}: node ${process.version}, UV_THREADPOOL_SIZE=${process.env.UV_THREADPOOL_SIZE ?? '(unset)'}`
    + `${PROFILE_DIR ? `, CPU profiles in ${PROFILE_DIR}` : ''}`);
  const figures: [string, () => Promise<void>][] = [['a', figureA], ['b', figureB], ['c', figureC], ['d', figureD], ['e', figureE], ['f', figureF], ['g', figureG], ['h', figureH], ['l', figureL], ['m', figureM], ['q', figureQ], ['r', figureR]];
  let failed = false;
  for (const [name, run] of figures) {
    if (!ONLY.has(name)) continue;
    const start = performance.now();
    try {
      await run();
    } catch (err) {
      failed = true;
      log(`   figure ${name} failed: ${err instanceof Error ? err.stack ?? err.message : String(err)}`);
      rows.push({ figure: `${name}. FAILED`, measured: (err instanceof Error ? err.message : String(err)).replace(/\s+/g, ' ').slice(0, 80), baseline: '', ratio: '', target: '', verdict: 'MISS' });
    }
    log(`   (${((performance.now() - start) / 1000).toFixed(1)} s)`);
  }
  notes.push(`load average at end: ${load()}`);
  printTable();
  process.exitCode = failed ? 1 : 0;
}

await main();
