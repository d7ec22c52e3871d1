// A join planned in fragments (lib/planner, join_distribution_type=PARTITIONED) run by `vivace serve
// --workers 2` as real processes: two SOURCE fragments over orders and lineitem hashed on orderkey, a HASH
// fragment joining them and aggregating partially, a HASH fragment finishing the aggregation on the group
// key, and a SINGLE root. The answer equals DuckDB's in process; the join's stage has a task on each worker
// (DuckDB's hash() agrees across the two processes, or the join would lose rows); a worker killed with
// SIGKILL while the join's tasks run at sf1 leaves the answer right (its tasks, and the lost producers',
// run again on the other worker).
import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ClusterProcess } from '../../bench/cluster-process.js';
import { defaultConfig } from '../../lib/config.js';
import type { DuckDbEngine } from '../../lib/engine/duckdb-engine.js';
import { formatDataSize } from '../../lib/protocol/data-size.js';
import { request, runStatement } from '../support/http.js';
import { validateResponse } from '../support/schema-validator.js';
import { runOn, session } from '../cluster/cluster-harness.js';
import { expectSameRows } from '../cluster/same-rows.js';
import { killWorkerRunning, startTpchCluster, stopTpchCluster, type TpchCluster } from './cluster-nodes.js';

const SHARED_TPCH = join(defaultConfig().dataDirectory, 'tpch');
const SECRET = 'fragments-e2e-secret';
const USER = { 'X-Trino-User': 'alice', 'X-Trino-Session': 'join_distribution_type=PARTITIONED' };

const statement = (schema: string) =>
  `SELECT o.orderpriority, count(*) AS lines, sum(l.quantity) AS qty FROM tpch.${schema}.orders o JOIN tpch.${schema}.lineitem l ON o.orderkey = l.orderkey GROUP BY o.orderpriority ORDER BY 1`;

interface StageJson { stageId: string; outputPositions?: number; outputDataSize?: string; nodes: number; totalSplits: number; completedSplits: number; subStages: StageJson[]; tasks?: { taskStatus: { nodeId: string; state: string } }[] }

describe('e2e: a partitioned join in five fragments (two SOURCE hashed on the join key, a HASH join, a HASH final aggregation, a SINGLE root) on two worker processes', function () {
  this.timeout(240_000);
  let started: Partial<TpchCluster> = {};
  let cluster: ClusterProcess;
  let local: DuckDbEngine;

  before(async function () {
    if (!existsSync(join(SHARED_TPCH, 'tiny', 'manifest.json'))) this.skip();
    started = await startTpchCluster(SHARED_TPCH, SECRET, 'vivace-e2e-fragments-');
    ({ cluster, local } = started as TpchCluster);
  });
  after(() => stopTpchCluster(started));

  it('answers as DuckDB in process, with the HASH fragment\'s tasks on both workers, every fragment a stage in /v1/query/{id}', async () => {
    const sql = statement('tiny');
    const result = await runStatement(cluster.url, sql, USER);
    expect(result.final.stats.state, JSON.stringify(result.final.error)).to.equal('FINISHED');
    expectSameRows(result.rows, (await runOn(local, sql, session({}))).rows, 'the fragments vs one task');
    // As Trino nests them: the final aggregation (1) under the root, the join (2) under it, the scans (3, 4) under that.
    const root = result.final.stats.rootStage as StageJson;
    expect(root.subStages.map((s) => s.stageId)).to.deep.equal(['1']);
    expect(root.subStages[0]!.subStages.map((s) => s.stageId)).to.deep.equal(['2']);
    const join2 = root.subStages[0]!.subStages[0]!;
    expect(join2.subStages.map((s) => s.stageId).sort()).to.deep.equal(['3', '4']);
    // One task per bucket, the bucket count the two alive workers: one on each.
    expect(join2).to.include({ nodes: 2, totalSplits: 2, completedSplits: 2 });
    const info = await request('GET', `${cluster.url}/v1/query/${result.final.id as string}`, { headers: USER });
    expect(info.status).to.equal(200);
    validateResponse('query-info', info.body);
    const stage1 = (info.body.outputStage as StageJson).subStages[0]!;
    const stage2 = stage1.subStages[0]!;
    for (const hashed of [stage1, stage2]) {
      expect(hashed.tasks?.map((t) => t.taskStatus.nodeId).sort(), `stage ${hashed.stageId}`).to.deep.equal([...cluster.workerUrls.keys()].sort());
      expect(hashed.tasks?.every((t) => t.taskStatus.state === 'FINISHED')).to.equal(true);
    }
    // Rows and bytes exchanged: each stage's output (its tasks' files).
    for (const stage of [stage1, stage2, ...stage2.subStages]) {
      expect(stage.outputPositions, `stage ${stage.stageId}`).to.be.greaterThan(0);
      expect(stage.outputDataSize, `stage ${stage.stageId}`).to.be.a('string').and.not.equal(formatDataSize(0));
    }
    expect(stage2.subStages.flatMap((s) => s.tasks ?? [])).to.have.length.at.least(2);
  });

  it('at sf1, a worker killed with SIGKILL while the join\'s HASH fragment runs: the answer stays right', async function () {
    if (!existsSync(join(SHARED_TPCH, 'sf1', 'manifest.json'))) this.skip();
    const sql = statement('sf1');
    const reference = await runOn(local, sql, session({}));
    const running = runStatement(cluster.url, sql, USER);
    const victim = await killWorkerRunning(cluster, SECRET, 'a task of the HASH fragment running', (t) => t.taskId.split('.')[1] === '2' && t.state === 'RUNNING');
    const result = await running;
    expect(result.final.stats.state, JSON.stringify(result.final.error)).to.equal('FINISHED');
    expectSameRows(result.rows, reference.rows, 'the fragments at sf1 after a kill');
    // The join's tasks all ended on the survivor: the victim's ran again there.
    const info = await request('GET', `${cluster.url}/v1/query/${result.final.id as string}`, { headers: USER });
    validateResponse('query-info', info.body);
    const stage2 = (info.body.outputStage as StageJson).subStages[0]!.subStages[0]!;
    const survivor = [...cluster.workerUrls.keys()].find((n) => n !== victim);
    expect(stage2.tasks?.map((t) => [t.taskStatus.nodeId, t.taskStatus.state])).to.deep.equal([[survivor, 'FINISHED'], [survivor, 'FINISHED']]);
  });
});
