// Diagnosis, not a figure: a staged query's timeline at tpch.sf1 (or TIMELINE_SCALE) through 2 workers.
// `npx tsx bench/stage-timeline.ts 2 11 3 [runs]` starts a cluster with VIVACE_STAGE_TRACE set (every
// process appends its tasks' steps, lib/cluster/stage-trace.ts), runs each query `runs` times (the first
// one warms up) and prints each run's steps in milliseconds from the query's first step, its time and the
// CPU the cluster's processes spent on it (a figure the machine's other load shakes less than the time)
// and the rows and bytes its stages below the root handed on (GET /v1/query/{id}, as figure h reports them);
// TIMELINE_EXPLAIN=1 prints each query's EXPLAIN (TYPE DISTRIBUTED) first; TIMELINE_QUIET=1 prints each
// run's line only (for comparing builds); TIMELINE_PROPERTIES='engine.threads=1,...' adds the cluster's
// properties. At sf1 each answer is checked against the official one.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultConfig } from '../lib/config.js';
import { TPCH_QUERIES } from '../lib/tpch/queries/tpch-queries.js';
import { startCluster } from './cluster-process.js';
import { PrestoHttpClient } from './http-client.js';
import { exchangedOf, runOnCluster } from './tpch-cluster.bench.js';
import { TPCH_ANSWERS_SF1 } from './tpch-answers-sf1.js';
import { checkAnswer } from './tpch-queries.bench.js';

interface Step { t: number; pid: number; event: string; taskId: string; [k: string]: unknown }

/** CPU milliseconds `pid` has used (utime + stime of /proc/<pid>/stat), 0 when unreadable (not Linux). */
function cpuMsOf(pid: number): number {
  try {
    // The fields after the command's closing parenthesis: state is field 3, utime 14 and stime 15.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return 0;
  }
}

/**
 * Where a run's time went, per stage (fragment): its tasks, each phase's longest task (post: the
 * coordinator's POST until the worker took it; pull: its inputs pulled, waiting for local producers
 * included; prep: plan derived, SQL translated and prepared; run: DuckDB's run with its COPY, the root's
 * until its last page; place: HASH buckets placed; notice: until the coordinator saw it end) and when its
 * first task was posted and its last ended; then the time no DuckDB statement of the query ran anywhere
 * (the wall time outside every task's run: scheduling, pulls and waits on the critical path).
 */
function breakdown(steps: readonly Step[], queryId: string, started: number, wallMs: number): string {
  const at = (event: string, taskId: string, pid?: number) => steps.find((s) => s.event === event && s.taskId === taskId && (pid === undefined || s.pid === pid))?.t;
  const tasks = [...new Set(steps.filter((s) => s.event === 'c.post').map((s) => s.taskId))];
  const stages = new Map<string, { tasks: number; phases: Record<string, number>; first: number; last: number }>();
  const runs: [number, number][] = [];
  for (const task of tasks) {
    const fragment = task.slice(queryId.length + 1).split('.')[0]!;
    const plan = steps.find((s) => s.event === 'w.plan' && s.taskId === task);
    const post = at('c.post', task)!;
    const pulled = at('w.pulled', task);
    const prepared = at('w.prepared', task);
    const completed = at('w.completed', task);
    // The copy steps name the fragment on the task's worker: the first after this task's prepare.
    const copy = steps.find((s) => s.event === 'w.copy' && s.taskId === `${queryId}.${fragment}` && s.pid === plan?.pid && prepared !== undefined && s.t >= prepared);
    const copied = copy && steps.find((s) => s.event === 'w.copied' && s.taskId === copy.taskId && s.pid === copy.pid && s.t >= copy.t);
    const placed = copied && steps.find((s) => s.event === 'w.placed' && s.taskId === copy.taskId && s.pid === copy.pid && s.t >= copied.t);
    const runFrom = copy?.t ?? prepared;
    const runTo = copied?.t ?? completed;
    if (runFrom !== undefined && runTo !== undefined) runs.push([runFrom, runTo]);
    const phases: Record<string, number | undefined> = {
      post: plan && plan.t - post, pull: plan && pulled !== undefined ? pulled - plan.t : undefined,
      prep: pulled !== undefined && prepared !== undefined ? prepared - pulled : undefined,
      run: runFrom !== undefined && runTo !== undefined ? runTo - runFrom : undefined,
      place: placed && copied ? placed.t - copied.t : undefined,
      notice: completed !== undefined ? (at('c.noticed', task) ?? completed) - completed : undefined,
    };
    const stage = stages.get(fragment) ?? { tasks: 0, phases: {}, first: Infinity, last: 0 };
    stage.tasks++;
    for (const [k, v] of Object.entries(phases)) if (v !== undefined) stage.phases[k] = Math.max(stage.phases[k] ?? 0, v);
    stage.first = Math.min(stage.first, post - started);
    stage.last = Math.max(stage.last, (completed ?? post) - started);
    stages.set(fragment, stage);
  }
  // The union of the runs' intervals.
  let busy = 0;
  let end = -Infinity;
  for (const [from, to] of runs.sort((a, b) => a[0] - b[0])) {
    if (to <= end) continue;
    busy += to - Math.max(from, end);
    end = to;
  }
  const lines = [...stages.entries()].sort((a, b) => Number(b[0]) - Number(a[0])).map(([id, s]) =>
    `    f${id} x${s.tasks}: ${Object.entries(s.phases).map(([k, v]) => `${k} ${v.toFixed(0)}`).join(', ')}; ${s.first.toFixed(0)}-${s.last.toFixed(0)} ms`);
  return [...lines, `    ${stages.size} stages, ${tasks.length} tasks; no DuckDB statement running for ${(wallMs - busy).toFixed(0)} of ${wallMs.toFixed(0)} ms`].join('\n');
}

const args = process.argv.slice(2).map(Number);
const queries = args.filter((n) => n >= 1 && n <= 22);
const runs = Number(process.env.TIMELINE_RUNS ?? 3);
const scale = process.env.TIMELINE_SCALE ?? 'sf1';
const dir = mkdtempSync(join(tmpdir(), 'vivace-timeline-'));
const traceFile = join(dir, 'trace.jsonl');
writeFileSync(traceFile, '');
process.env.VIVACE_STAGE_TRACE = traceFile;
// name=value pairs, comma-separated: only this bench's own settings (a value holds no comma).
const extraProperties = Object.fromEntries((process.env.TIMELINE_PROPERTIES ?? '').split(',').filter((p) => p.includes('=')).map((p) => [p.slice(0, p.indexOf('=')).trim(), p.slice(p.indexOf('=') + 1).trim()]));
const cluster = await startCluster({
  workers: 2,
  dataDirectory: process.env.TPCH_BENCH_DIR ?? defaultConfig().dataDirectory,
  properties: { 'log.level': 'warn', 'vivace.distributed-tpch': 'true', 'vivace.distributed-tpch-min-rows': process.env.BENCH_TPCH_MIN_ROWS ?? '100000', ...extraProperties },
});
const client = new PrestoHttpClient(cluster.url, 1);
try {
  await runOnCluster(client, 'SELECT count(*) FROM region', scale);
  // The cluster's processes (those that wrote a step), to add up the CPU a run took: a figure less shaken
  // than wall time on a shared machine.
  let pids: number[] = [];
  const cpuMs = () => pids.reduce((sum, pid) => sum + cpuMsOf(pid), 0);
  for (const number of queries) {
    const { sql } = TPCH_QUERIES[number - 1]!;
    if (process.env.TIMELINE_EXPLAIN) {
      const { rows } = await runOnCluster(client, `EXPLAIN (TYPE DISTRIBUTED) ${sql}`, scale);
      console.log(rows.map((r) => String(r[0])).join('\n'));
    }
    for (let run = 0; run < runs; run++) {
      const cpuBefore = cpuMs();
      const started = performance.timeOrigin + performance.now();
      const { queryId, rows } = await runOnCluster(client, sql, scale);
      const ms = performance.timeOrigin + performance.now() - started;
      const cpu = cpuMs() - cpuBefore;
      const all = readFileSync(traceFile, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Step);
      if (pids.length === 0) pids = [...new Set(all.map((s) => s.pid))];
      if (run === 0 && runs > 1) continue;
      const steps = all.filter((s) => s.taskId.startsWith(queryId));
      const exchanged = await exchangedOf(client, queryId);
      const answer = scale === 'sf1' ? `, answer ${checkAnswer(rows, TPCH_ANSWERS_SF1[number]!)}` : '';
      console.log(`Q${number} run ${run}: ${ms.toFixed(0)} ms, cpu ${cpu.toFixed(0)} ms, exchanged ${exchanged.rows} rows ${(exchanged.bytes / 1e6).toFixed(1)} MB${answer} (${queryId})`);
      console.log(breakdown(steps, queryId, started, ms));
      if (process.env.TIMELINE_QUIET) continue;
      for (const s of steps.sort((a, b) => a.t - b.t)) {
        const { t, pid, event, taskId, ...rest } = s;
        console.log(`  ${(t - started).toFixed(1).padStart(7)}  ${String(pid).padStart(7)}  ${event.padEnd(12)} ${taskId.slice(queryId.length)} ${Object.keys(rest).length ? JSON.stringify(rest) : ''}`);
      }
    }
  }
} finally {
  client.close();
  await cluster.stop();
  rmSync(dir, { recursive: true, force: true });
}
