// Diagnosis, not a figure: a staged query's timeline at tpch.sf1 (or TIMELINE_SCALE) through 2 workers.
// `npx tsx bench/stage-timeline.ts 2 11 3 [runs]` starts a cluster with VIVACE_STAGE_TRACE set (every
// process appends its tasks' steps, lib/cluster/stage-trace.ts), runs each query `runs` times (the first
// one warms up) and prints each run's steps in milliseconds from the query's first step, its time and the
// CPU the cluster's processes spent on it (a figure the machine's other load shakes less than the time)
// and the rows and bytes its stages below the root handed on (GET /v1/query/{id}, as figure h reports them);
// TIMELINE_EXPLAIN=1 prints each query's EXPLAIN (TYPE DISTRIBUTED) first; TIMELINE_QUIET=1 prints each
// run's line only (for comparing builds). At sf1 each answer is checked against the official one.
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

const args = process.argv.slice(2).map(Number);
const queries = args.filter((n) => n >= 1 && n <= 22);
const runs = Number(process.env.TIMELINE_RUNS ?? 3);
const scale = process.env.TIMELINE_SCALE ?? 'sf1';
const dir = mkdtempSync(join(tmpdir(), 'vivace-timeline-'));
const traceFile = join(dir, 'trace.jsonl');
writeFileSync(traceFile, '');
process.env.VIVACE_STAGE_TRACE = traceFile;
const cluster = await startCluster({
  workers: 2,
  dataDirectory: process.env.TPCH_BENCH_DIR ?? defaultConfig().dataDirectory,
  properties: { 'log.level': 'warn', 'vivace.distributed-tpch': 'true', 'vivace.distributed-tpch-min-rows': process.env.BENCH_TPCH_MIN_ROWS ?? '100000' },
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
