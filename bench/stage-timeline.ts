// Diagnosis, not a figure: a staged query's timeline at tpch.sf1 (or TIMELINE_SCALE) through 2 workers.
// `npx tsx bench/stage-timeline.ts 2 11 3 [runs]` starts a cluster with VIVACE_STAGE_TRACE set (every
// process appends its tasks' steps, lib/cluster/stage-trace.ts), runs each query `runs` times (the first
// one warms up) and prints each run's steps in milliseconds from the query's first step, and its time.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultConfig } from '../lib/config.js';
import { TPCH_QUERIES } from '../lib/tpch/queries/tpch-queries.js';
import { startCluster } from './cluster-process.js';
import { PrestoHttpClient } from './http-client.js';
import { runOnCluster } from './tpch-cluster.bench.js';

interface Step { t: number; pid: number; event: string; taskId: string; [k: string]: unknown }

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
  for (const number of queries) {
    const { sql } = TPCH_QUERIES[number - 1]!;
    for (let run = 0; run < runs; run++) {
      const started = performance.timeOrigin + performance.now();
      const { queryId } = await runOnCluster(client, sql, scale);
      const ms = performance.timeOrigin + performance.now() - started;
      if (run === 0 && runs > 1) continue;
      const steps = readFileSync(traceFile, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Step).filter((s) => s.taskId.startsWith(queryId));
      console.log(`Q${number} run ${run}: ${ms.toFixed(0)} ms (${queryId})`);
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
