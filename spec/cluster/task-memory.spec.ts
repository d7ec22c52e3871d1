// Memory per task (issue 22 §3) on `vivace serve --workers 2` as real processes: each task's peak memory in
// /v1/query/{id} (Trino's TaskStats.peakUserMemoryReservation: without a limit DuckDB's
// SYSTEM_PEAK_BUFFER_MEMORY of the task's statement; with query.max-memory-per-node its own DuckDB
// instance's memory, sampled, worker/task-memory.ts) and its stage's; and query.max-memory-per-node as each
// task's DuckDB limit: every task's peak within it, a query past it fails with EXCEEDED_LOCAL_MEMORY_LIMIT
// naming the limit, and the workers stay up.
import { expect } from 'chai';
import { existsSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { ClusterProcess } from '../../bench/cluster-process.js';
import { startClusterProcess, until } from '../../bench/cluster-process.js';
import { defaultConfig } from '../../lib/config.js';
import { parseDataSize } from '../../lib/protocol/data-size.js';
import { request, runStatement } from '../support/http.js';
import { validateResponse } from '../support/schema-validator.js';
import { healthy } from '../e2e/cluster-nodes.js';
import { temporaryDirectory } from './cluster-harness.js';

const SHARED_TPCH = join(defaultConfig().dataDirectory, 'tpch');
const USER = { 'X-Trino-User': 'alice', 'X-Trino-Session': 'join_distribution_type=PARTITIONED' };

interface TaskJson { taskStatus: { nodeId: string; state: string }; stats: { peakUserMemoryReservation: string } }
interface StageJson { stageId: string; peakUserMemoryReservation?: string; subStages: StageJson[]; tasks?: TaskJson[] }

/** A GROUP BY of many groups (every order of tiny: 15,000) finished in a HASH stage. */
const MANY_GROUPS = 'SELECT l.orderkey, count(*) AS n, sum(l.quantity) AS q FROM tpch.tiny.lineitem l JOIN tpch.tiny.orders o ON o.orderkey = l.orderkey GROUP BY l.orderkey';

function stagesOf(stage: StageJson): StageJson[] {
  return [stage, ...stage.subStages.flatMap(stagesOf)];
}

/** MANY_GROUPS run to its end, and its stage tree from GET /v1/query/{id} (schema-validated). */
async function manyGroupsStages(cluster: ClusterProcess): Promise<StageJson> {
  const result = await runStatement(cluster.url, MANY_GROUPS, USER);
  expect(result.final.stats.state, JSON.stringify(result.final.error)).to.equal('FINISHED');
  expect(result.rows).to.have.length(15_000);
  const info = await request('GET', `${cluster.url}/v1/query/${result.final.id as string}`, { headers: USER });
  expect(info.status).to.equal(200);
  validateResponse('query-info', info.body);
  return info.body.outputStage as StageJson;
}

async function startCluster(prefix: string, properties: Record<string, string>): Promise<{ cluster: ClusterProcess; remove(): void }> {
  const dir = temporaryDirectory(prefix);
  symlinkSync(SHARED_TPCH, join(dir.path, 'tpch'));
  const cluster = await startClusterProcess({
    workers: 2, dataDirectory: dir.path, captureOutput: true,
    properties: { 'shutdown.grace-period': '1s', 'vivace.distributed-tpch-min-rows': '0', ...properties },
  });
  await until('two workers listen and are not failed', 60_000, () => healthy(cluster), 50);
  return { cluster, remove: () => dir.remove() };
}

describe('memory per task: peaks in /v1/query/{id} and query.max-memory-per-node on two worker processes', function () {
  this.timeout(180_000);

  before(function () {
    if (!existsSync(join(SHARED_TPCH, 'tiny', 'manifest.json'))) this.skip();
  });

  describe('without a limit', () => {
    let started: { cluster: ClusterProcess; remove(): void } | undefined;
    before(async () => {
      started = await startCluster('vivace-task-memory-', {});
    });
    after(async () => {
      await started?.cluster.stop();
      started?.remove();
    });

    it('reports each task\'s peak memory (> 0 for a GROUP BY of many groups) and each stage\'s', async () => {
      const distributed = stagesOf(await manyGroupsStages(started!.cluster)).filter((s) => s.tasks !== undefined);
      expect(distributed.length, 'stages with tasks').to.be.at.least(3);
      for (const stage of distributed) {
        const peaks = stage.tasks!.map((t) => parseDataSize(t.stats.peakUserMemoryReservation));
        // Every task ran a COPY over a table's splits or its inputs' files: DuckDB held buffers for it.
        for (const peak of peaks) expect(peak, `a task of stage ${stage.stageId}`).to.be.above(0);
        const stagePeak = parseDataSize(stage.peakUserMemoryReservation!);
        expect(stagePeak, `stage ${stage.stageId}`).to.be.at.least(Math.max(...peaks));
        expect(stagePeak, `stage ${stage.stageId}`).to.be.at.most(peaks.reduce((a, b) => a + b, 0));
      }
    });
  });

  describe('with query.max-memory-per-node=16MB', () => {
    let started: { cluster: ClusterProcess; remove(): void } | undefined;
    before(async () => {
      started = await startCluster('vivace-task-memory-limit-', { 'query.max-memory-per-node': '16MB' });
    });
    after(async () => {
      await started?.cluster.stop();
      started?.remove();
    });

    it('reports every task\'s peak within the limit, from the task\'s own instance', async () => {
      const peaks = stagesOf(await manyGroupsStages(started!.cluster)).flatMap((s) => (s.tasks ?? []).map((t) => parseDataSize(t.stats.peakUserMemoryReservation)));
      expect(peaks.length, 'tasks').to.be.at.least(6);
      // Sampled every 10 ms: a task of a few ms can read 0, the join's cannot.
      expect(Math.max(...peaks), 'the largest task\'s peak').to.be.within(1, 16 << 20);
      for (const peak of peaks) expect(peak).to.be.at.most(16 << 20);
    });

    it('fails an aggregation that needs more with EXCEEDED_LOCAL_MEMORY_LIMIT naming the limit; the workers stay up and answer the next query', async () => {
      const { cluster } = started!;
      // Every line's comment gathered per order: list() keeps its values in memory (it cannot spill them).
      const big = 'SELECT l.orderkey, array_agg(l.comment) AS comments, array_agg(o.comment) AS orders FROM tpch.tiny.lineitem l JOIN tpch.tiny.orders o ON o.orderkey = l.orderkey GROUP BY l.orderkey';
      const failed = await runStatement(cluster.url, big, USER);
      expect(failed.final.stats.state).to.equal('FAILED');
      validateResponse('statement-failed', failed.final);
      expect(failed.final.error).to.include({ errorName: 'EXCEEDED_LOCAL_MEMORY_LIMIT', errorType: 'INSUFFICIENT_RESOURCES', errorCode: 131079 });
      expect(failed.final.error.message).to.match(/^Query exceeded per-node memory limit of 16MB \[/);
      // The workers did not die: both still listed, none failed, and a query runs on them.
      expect(await healthy(cluster)).to.equal(true);
      const next = await runStatement(cluster.url, 'SELECT count(*) FROM tpch.tiny.nation', USER);
      expect(next.final.stats.state, JSON.stringify(next.final.error)).to.equal('FINISHED');
      expect(next.rows).to.deep.equal([[25]]);
    });
  });
});
