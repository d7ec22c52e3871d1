// Figure m (issue 22 §5): Q9 and Q18 with query.max-memory-per-node set to a third of what one task of the
// query needs, through a cluster of 2 workers with join_distribution_type=PARTITIONED. Per query, in one run:
//   1. the need: the query as one task, in this process on a fresh DuckDB engine sized as a worker's
//      (engine.threads, engine.memory-limit): DuckDB's profile figure (SYSTEM_PEAK_BUFFER_MEMORY,
//      scan-profile.ts; a fresh engine's first statement, so the statement's own, reservations included),
//      and beside it the largest duckdb_memory() total sampled while it ran, as a stage task's peak is
//      taken (lib/worker/task-memory.ts). The sampled figure misses short peaks: a third of it (37.6 MiB for
//      Q18 at sf1) failed a task, so the limit is a third of the profile's, as before;
//   2. a cluster whose workers run each stage task on a DuckDB instance of its own under
//      query.max-memory-per-node, a third of that, every table of 100,000 rows or more split: the query runs
//      there, its answer is checked (the official sf1 answers; at tiny the engine in this process), and each
//      task's peak from GET /v1/query/{id} (stats.peakUserMemoryReservation) is printed against the limit.
// A task's peak is its own instance's buffer memory (task-memory.ts): what the limit governs. Node's memory
// (a root's rendered pages, the exchange files a task pulls) is outside it and not in the figure.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultConfig } from '../lib/config.js';
import { createDuckDbEngine } from '../lib/engine/duckdb-engine.js';
import { parseDataSize } from '../lib/protocol/data-size.js';
import { TPCH_QUERIES } from '../lib/tpch/queries/tpch-queries.js';
import { startCluster } from './cluster-process.js';
import { PrestoHttpClient } from './http-client.js';
import { TPCH_ANSWERS_SF1 } from './tpch-answers-sf1.js';
import { checkAnswer, runOnEngine, sessionOn } from './tpch-queries.bench.js';
import { compareRows, runOnCluster, type TpchClusterScale } from './tpch-cluster.bench.js';
import { DUCKDB_COUNTER_DRIFT_BYTES, SAMPLE_MS } from '../lib/worker/task-memory.js';

export const TASK_MEMORY_QUERIES = [9, 18];
const WORKERS = 2;
/**
 * The least limit set: at tiny a third of a query's need is a few MB, where DuckDB fails even a scan (its
 * blocks are 256 KiB, several per thread and operator: Q18 at tiny failed under 8MB; Q9's join stage
 * (fragment 5) under 16 MiB, with its tasks sharing the worker's instance and with an instance each, and a
 * task of Q18 under 20 MiB, in some runs: allocations outside DuckDB's blocks). The task's instance gets
 * 32 MiB of it (task-memory.ts takes DuckDB's counter drift off). Far below sf1's needs.
 */
const FLOOR_BYTES = (32 << 20) + DUCKDB_COUNTER_DRIFT_BYTES;

export interface TaskPeak {
  stageId: string;
  taskId: string;
  nodeId: string;
  peakBytes: number;
}

export interface TaskMemoryFigure {
  query: number;
  /** The query's peak as one task (step 1): DuckDB's profile figure (SYSTEM_PEAK_BUFFER_MEMORY). */
  needBytes: number;
  /** The same statement's peak sampled as a task's is (duckdb_memory()). */
  sampledNeedBytes: number;
  /** query.max-memory-per-node of the cluster (a third of the need, at least FLOOR_BYTES). */
  limitBytes: number;
  clusterMs?: number;
  /** 'ok', 'ok (...)', or the first difference or the error (EXCEEDED_LOCAL_MEMORY_LIMIT when it did not fit). */
  answer: string;
  tasks: TaskPeak[];
}

export interface TaskMemoryFigures {
  scale: TpchClusterScale;
  workers: number;
  queries: TaskMemoryFigure[];
}

/** Step 1: the query's peak buffer memory as one task, on a fresh engine of its own (and its rows). */
async function oneTaskPeak(dataDirectory: string, sql: string, scale: TpchClusterScale): Promise<{ peakBytes: number; profileBytes: number; rows: unknown[][] }> {
  const config = defaultConfig();
  const tempDirectory = mkdtempSync(join(tmpdir(), 'vivace-bench-task-memory-'));
  // A second connection samples the instance's memory while the first runs the query.
  const engine = await createDuckDbEngine({ tempDirectory, dataDirectory, threads: config.engineThreads, memoryLimit: config.engineMemoryLimit, maxConnections: 2 });
  try {
    const session = sessionOn(scale);
    const plan = await engine.plan(sql, session);
    const execution = plan.execute();
    let peakBytes = 0;
    let sampling: Promise<void> | undefined;
    const sample = () => {
      sampling ??= engine.memoryInUse().then((bytes) => { peakBytes = Math.max(peakBytes, bytes); }, () => {}).finally(() => { sampling = undefined; });
    };
    const timer = setInterval(sample, SAMPLE_MS);
    try {
      while (await execution.next(1 << 20)) { /* the rows are counted below, on the same engine */ }
    } finally {
      clearInterval(timer);
      await sampling;
    }
    const profileBytes = execution.progress().peakMemoryBytes ?? 0;
    return { peakBytes, profileBytes, rows: await runOnEngine(engine, sql, scale) };
  } finally {
    await engine.close();
    rmSync(tempDirectory, { recursive: true, force: true });
  }
}

interface StageJson { stageId?: string; subStages?: StageJson[]; tasks?: { taskStatus?: { taskId?: string; nodeId?: string }; stats?: { peakUserMemoryReservation?: string } }[] }

/** Every task's peak of a finished query, from GET /v1/query/{id}. */
async function taskPeaksOf(client: PrestoHttpClient, queryId: string): Promise<TaskPeak[]> {
  const reply = await client.request('GET', `/v1/query/${encodeURIComponent(queryId)}`, undefined, { 'X-Trino-User': 'bench' });
  if (reply.status !== 200) throw new Error(`GET /v1/query/${queryId}: HTTP ${reply.status}`);
  const root = (JSON.parse(reply.body.toString('utf8')) as { outputStage?: StageJson }).outputStage;
  const peaks: TaskPeak[] = [];
  const visit = (stage: StageJson) => {
    for (const t of stage.tasks ?? []) {
      const peak = t.stats?.peakUserMemoryReservation;
      peaks.push({ stageId: stage.stageId ?? '?', taskId: t.taskStatus?.taskId ?? '?', nodeId: t.taskStatus?.nodeId ?? '?', peakBytes: peak ? parseDataSize(peak) : 0 });
    }
    for (const s of stage.subStages ?? []) visit(s);
  };
  if (root) visit(root);
  return peaks;
}

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

/** Figure m at `scale` on the user's tpch cache (TPCH_BENCH_DIR, else the configured data directory). */
export async function runTaskMemoryBench(scale: TpchClusterScale, log: (line: string) => void): Promise<TaskMemoryFigures> {
  const dataDirectory = process.env.TPCH_BENCH_DIR ?? defaultConfig().dataDirectory;
  const figures: TaskMemoryFigures = { scale, workers: WORKERS, queries: [] };
  for (const number of TASK_MEMORY_QUERIES) {
    const { sql } = TPCH_QUERIES[number - 1]!;
    const one = await oneTaskPeak(dataDirectory, sql, scale);
    const limitBytes = Math.max(FLOOR_BYTES, Math.floor(one.profileBytes / 3));
    log(`Q${number}: ${mib(one.profileBytes)} as one task (DuckDB's profile; sampled: ${mib(one.peakBytes)}); query.max-memory-per-node=${limitBytes}B (${mib(limitBytes)}${limitBytes === FLOOR_BYTES ? ', the floor' : ''})`);
    const figure: TaskMemoryFigure = { query: number, needBytes: one.profileBytes, sampledNeedBytes: one.peakBytes, limitBytes, answer: '', tasks: [] };
    const cluster = await startCluster({
      workers: WORKERS,
      dataDirectory,
      properties: {
        'log.level': 'warn',
        'vivace.distributed-tpch': 'true',
        // Every join distributed: every table of 100,000 rows or more splits (tiny's too).
        'vivace.distributed-tpch-min-rows': scale === 'tiny' ? '0' : '100000',
        'query.max-memory-per-node': `${limitBytes}B`,
      },
    });
    const client = new PrestoHttpClient(cluster.url, 1);
    try {
      const started = performance.now();
      try {
        const answer = await runOnCluster(client, sql, scale, 'tpch', { 'X-Trino-Session': 'join_distribution_type=PARTITIONED' });
        figure.clusterMs = performance.now() - started;
        figure.answer = scale === 'sf1' ? checkAnswer(answer.rows, TPCH_ANSWERS_SF1[number]!) : compareRows(answer.rows, one.rows);
        figure.tasks = await taskPeaksOf(client, answer.queryId);
      } catch (err) {
        figure.answer = `error: ${(err instanceof Error ? err.message : String(err)).split('\n')[0]}`;
      }
    } finally {
      client.close();
      await cluster.stop();
    }
    figures.queries.push(figure);
    log(`Q${number}: ${figure.answer}${figure.clusterMs === undefined ? '' : ` in ${figure.clusterMs.toFixed(0)} ms`}; ${figure.tasks.length} tasks`);
    for (const t of figure.tasks) {
      log(`   stage ${t.stageId} task ${t.taskId} on ${t.nodeId}: peak ${mib(t.peakBytes)} of ${mib(limitBytes)} (${((t.peakBytes / limitBytes) * 100).toFixed(0)}%)`);
    }
  }
  return figures;
}
