// A hand-built DistributedPlan of four fragments run by `vivace serve --workers 2` as real processes,
// injected through distributedPlanOf's test seam (VIVACE_TEST_DISTRIBUTED_PLANS, distributed-plan.ts):
// two SOURCE fragments over orders and lineitem, each hashed on orderkey (orders' key as decimal,
// lineitem's as bigint: equal under `=`, so the DOUBLE normalisation must bucket them alike), a HASH
// fragment joining them and aggregating partially, a SINGLE root finishing. The answer equals DuckDB's
// in process; the HASH fragment has a task on each worker (DuckDB's hash() agrees across the two
// processes, or the join would lose rows); a worker killed with SIGKILL while the HASH fragment runs at
// sf1 leaves the answer right (its tasks, and the lost producers', run again on the other worker).
import { expect } from 'chai';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClusterProcess } from '../../bench/cluster-process.js';
import { TEST_PLANS_VARIABLE } from '../../lib/cluster/distributed-plan.js';
import { defaultConfig } from '../../lib/config.js';
import type { DuckDbEngine } from '../../lib/engine/duckdb-engine.js';
import { exchangeTableOf, type DistributedPlan } from '../../lib/planner/fragment.types.js';
import { formatDataSize } from '../../lib/protocol/data-size.js';
import { request, runStatement } from '../support/http.js';
import { validateResponse } from '../support/schema-validator.js';
import { runOn, session } from '../cluster/cluster-harness.js';
import { expectSameRows } from '../cluster/same-rows.js';
import { killWorkerRunning, startTpchCluster, stopTpchCluster, type TpchCluster } from './cluster-nodes.js';

const SHARED_TPCH = join(defaultConfig().dataDirectory, 'tpch');
const SECRET = 'fragments-e2e-secret';
const USER = { 'X-Trino-User': 'alice' };

const statement = (schema: string) =>
  `SELECT o.orderpriority, count(*) AS lines, sum(l.quantity) AS qty FROM tpch.${schema}.orders o JOIN tpch.${schema}.lineitem l ON o.orderkey = l.orderkey GROUP BY o.orderpriority ORDER BY 1`;

/** The statement's plan by hand: what the planner room will make of it. */
function planOf(schema: string): DistributedPlan {
  const table = (name: string) => ({ catalog: 'tpch', schema, table: name });
  const f = (id: number) => { const t = exchangeTableOf(id); return `${t.catalog}.${t.schema}.${t.table}`; };
  return {
    choices: { joins: ['PARTITIONED'] },
    fragments: [
      {
        id: 0, partitioning: 'SINGLE', sources: [{ fragmentId: 1, table: exchangeTableOf(1) }], output: { kind: 'SINGLE' }, columns: ['orderpriority', 'lines', 'qty'],
        sql: `SELECT orderpriority, CAST(sum(c) AS bigint) AS lines, sum(q) AS qty FROM ${f(1)} GROUP BY orderpriority ORDER BY 1`,
      },
      {
        id: 1, partitioning: 'HASH', sources: [{ fragmentId: 2, table: exchangeTableOf(2) }, { fragmentId: 3, table: exchangeTableOf(3) }], output: { kind: 'SINGLE' }, columns: ['orderpriority', 'c', 'q'],
        sql: `SELECT o.orderpriority, count(*) AS c, sum(l.quantity) AS q FROM ${f(2)} o JOIN ${f(3)} l ON o.orderkey = l.orderkey GROUP BY o.orderpriority`,
      },
      {
        id: 2, partitioning: 'SOURCE', scan: { table: table('orders') }, sources: [], output: { kind: 'HASH', keys: ['orderkey'] }, columns: ['orderkey', 'orderpriority'],
        sql: `SELECT CAST(orderkey AS decimal(12, 0)) AS orderkey, orderpriority FROM tpch.${schema}.orders`,
      },
      {
        id: 3, partitioning: 'SOURCE', scan: { table: table('lineitem') }, sources: [], output: { kind: 'HASH', keys: ['orderkey'] }, columns: ['orderkey', 'quantity'],
        sql: `SELECT orderkey, quantity FROM tpch.${schema}.lineitem`,
      },
    ],
  };
}

interface StageJson { stageId: string; outputPositions?: number; outputDataSize?: string; nodes: number; totalSplits: number; completedSplits: number; subStages: StageJson[]; tasks?: { taskStatus: { nodeId: string; state: string } }[] }

describe('e2e: a plan of four fragments (two SOURCE hashed on the join key, a HASH join, a SINGLE root) on two worker processes', function () {
  this.timeout(240_000);
  let started: Partial<TpchCluster> = {};
  let cluster: ClusterProcess;
  let local: DuckDbEngine;
  let plans: string;

  before(async function () {
    if (!existsSync(join(SHARED_TPCH, 'tiny', 'manifest.json'))) this.skip();
    plans = mkdtempSync(join(tmpdir(), 'vivace-e2e-fragment-plans-'));
    const file = join(plans, 'plans.json');
    writeFileSync(file, JSON.stringify({ [statement('tiny')]: planOf('tiny'), [statement('sf1')]: planOf('sf1') }));
    // The coordinator and its workers inherit the seam from this environment (bench/cluster-process.ts).
    process.env[TEST_PLANS_VARIABLE] = file;
    try {
      started = await startTpchCluster(SHARED_TPCH, SECRET, 'vivace-e2e-fragments-');
    } finally {
      delete process.env[TEST_PLANS_VARIABLE];
    }
    ({ cluster, local } = started as TpchCluster);
  });
  after(async () => {
    await stopTpchCluster(started);
    if (plans) rmSync(plans, { recursive: true, force: true });
  });

  it('answers as DuckDB in process, with the HASH fragment\'s tasks on both workers, every fragment a stage in /v1/query/{id}', async () => {
    const sql = statement('tiny');
    const result = await runStatement(cluster.url, sql, USER);
    expect(result.final.stats.state, JSON.stringify(result.final.error)).to.equal('FINISHED');
    expectSameRows(result.rows, (await runOn(local, sql, session({}))).rows, 'the four fragments vs one task');
    // Stage 1 (the HASH join) under the root, stages 2 and 3 (the scans) under it, as Trino nests them.
    const root = result.final.stats.rootStage as StageJson;
    expect(root.subStages.map((s) => s.stageId)).to.deep.equal(['1']);
    const join1 = root.subStages[0]!;
    expect(join1.subStages.map((s) => s.stageId).sort()).to.deep.equal(['2', '3']);
    // One task per bucket, the bucket count the two alive workers: one on each.
    expect(join1).to.include({ nodes: 2, totalSplits: 2, completedSplits: 2 });
    const info = await request('GET', `${cluster.url}/v1/query/${result.final.id as string}`, { headers: USER });
    expect(info.status).to.equal(200);
    validateResponse('query-info', info.body);
    const stage1 = (info.body.outputStage as StageJson).subStages[0]!;
    expect(stage1.tasks?.map((t) => t.taskStatus.nodeId).sort()).to.deep.equal([...cluster.workerUrls.keys()].sort());
    expect(stage1.tasks?.every((t) => t.taskStatus.state === 'FINISHED')).to.equal(true);
    // Rows and bytes exchanged: each stage's output (its tasks' files).
    for (const stage of [stage1, ...stage1.subStages]) {
      expect(stage.outputPositions, `stage ${stage.stageId}`).to.be.greaterThan(0);
      expect(stage.outputDataSize, `stage ${stage.stageId}`).to.be.a('string').and.not.equal(formatDataSize(0));
    }
    expect(stage1.subStages.flatMap((s) => s.tasks ?? [])).to.have.length.at.least(2);
  });

  it('at sf1, a worker killed with SIGKILL while the HASH fragment runs: the answer stays right', async function () {
    if (!existsSync(join(SHARED_TPCH, 'sf1', 'manifest.json'))) this.skip();
    const sql = statement('sf1');
    const reference = await runOn(local, sql, session({}));
    const running = runStatement(cluster.url, sql, USER);
    const victim = await killWorkerRunning(cluster, SECRET, 'a task of the HASH fragment running', (t) => t.taskId.split('.')[1] === '1' && t.state === 'RUNNING');
    const result = await running;
    expect(result.final.stats.state, JSON.stringify(result.final.error)).to.equal('FINISHED');
    expectSameRows(result.rows, reference.rows, 'the four fragments at sf1 after a kill');
    // The HASH fragment's tasks all ended on the survivor: the victim's ran again there.
    const info = await request('GET', `${cluster.url}/v1/query/${result.final.id as string}`, { headers: USER });
    validateResponse('query-info', info.body);
    const stage1 = (info.body.outputStage as StageJson).subStages[0]!;
    const survivor = [...cluster.workerUrls.keys()].find((n) => n !== victim);
    expect(stage1.tasks?.map((t) => [t.taskStatus.nodeId, t.taskStatus.state])).to.deep.equal([[survivor, 'FINISHED'], [survivor, 'FINISHED']]);
  });
});
