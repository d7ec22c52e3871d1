// Stage tasks under query.max-memory-per-node (task-memory.ts): each runs its SQL on a DuckDB instance of
// its own whose memory_limit is the task's, and reports that instance's peak, not the worker's. The
// worker's own instance holds a table larger than the limit the whole time, so a figure taken from the
// worker's instance (what DuckDB's profile reported before) would be above the limit.
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDuckDbEngine, type DuckDbEngine } from '../../lib/engine/duckdb-engine.js';
import { defaultConfig } from '../../lib/config.js';
import { readManifest } from '../../lib/connectors/tpch/tpch-generation.js';
import type { Execution } from '../../lib/engine/engine.types.js';
import type { VivaceError } from '../../lib/protocol/vivace-error.js';
import type { TaskPlanRequest } from '../../lib/cluster/task-protocol.js';
import { StageTasks } from '../../lib/worker/stage-tasks.js';
import { DUCKDB_COUNTER_DRIFT_BYTES, instanceLimitOf, taskMemoryOf, type TaskMemory } from '../../lib/worker/task-memory.js';
import { drainPlan, testSession } from '../engine/engine-helpers.js';
import { builtInConnectors } from '../cluster/cluster-harness.js';

const session = testSession({ catalog: 'tpch', schema: 'tiny' });
const tpchDirectory = join(defaultConfig().dataDirectory, 'tpch');
const LIMIT = 32 << 20;
/** A leaf whose partial aggregation holds ~13 MB of DuckDB's buffer memory at tpch.tiny. */
const GROUPED = 'SELECT comment, partkey, count(*) AS n, max(shipinstruct) AS i, sum(quantity) AS q FROM lineitem GROUP BY comment, partkey';
/** Its groups (the rows its leaf writes), from the first test. */
let groups = 0;

async function run(execution: Execution): Promise<number> {
  let rows = 0;
  for (let batch; (batch = await execution.next(1 << 16)) !== null;) rows += batch.rows;
  return rows;
}

describe('stage tasks under query.max-memory-per-node (task-memory.ts)', function () {
  this.timeout(120_000);
  let directory: string;
  let engine: DuckDbEngine;
  let taskMemory: TaskMemory;
  let stages: StageTasks;
  const manifest = () => readManifest(join(tpchDirectory, 'tiny'))!;
  const split = (table: string) => ({ file: manifest().tables[table]!.files[0]!, slice: 0, slices: 1 });

  before(async () => {
    directory = mkdtempSync(join(tmpdir(), 'vivace-task-memory-'));
    engine = await createDuckDbEngine({ tempDirectory: directory, threads: 2, tpch: { directory: tpchDirectory, log: () => {} } });
    await drainPlan(await engine.plan('SELECT count(*) FROM tpch.tiny.region', session));
    taskMemory = taskMemoryOf({ limitBytes: LIMIT, tempDirectory: directory, threads: 2, directories: [directory], tpchDirectory, sampleMs: 2 })!;
    stages = new StageTasks({ engine, connectors: builtInConnectors(tpchDirectory, { tpchMinRows: 0 }), directory: join(directory, 'stages'), nodeId: 'n1', taskMemory });
    // The worker's instance holds more than a task's limit for the whole spec.
    await drainPlan(await engine.planOwnSql(`CREATE TABLE memory."default".ballast AS SELECT i, md5(CAST(i AS VARCHAR)) || md5(CAST(i + 1 AS VARCHAR)) AS s FROM range(700000) t(i)`, session));
  });
  after(async () => {
    stages.close();
    await taskMemory.close();
    await engine.close();
    rmSync(directory, { recursive: true, force: true });
  });

  const leaf = (queryId: string, sql: string, table: string): TaskPlanRequest => ({ queryId, sql, session, stage: { kind: 'leaf', splits: [split(table)] } });

  it('reports a leaf task\'s peak from its own instance: positive, within the limit, below the worker instance\'s', async () => {
    const workerBytes = await engine.memoryInUse();
    expect(workerBytes, 'the worker\'s instance holds more than the limit').to.be.above(LIMIT);
    const sql = GROUPED;
    const plan = await stages.engineFor('t-leaf', leaf('q-leaf', sql, 'lineitem')).plan(sql, session);
    const execution = plan.execute();
    await run(execution);
    stages.completed('t-leaf');
    const peak = execution.progress().peakMemoryBytes!;
    expect(peak, 'the task\'s peak').to.be.above(0);
    expect(peak, 'within the task\'s limit').to.be.at.most(LIMIT);
    expect(peak, 'not the worker instance\'s').to.be.below(workerBytes);
    groups = Number(execution.updateCount);
    expect(groups, 'the rows the leaf wrote').to.be.above(0);
    stages.forget('t-leaf');
  });

  it('fails a task that does not fit its limit with EXCEEDED_LOCAL_MEMORY_LIMIT naming the task\'s limit, and takes its engine back', async () => {
    const small = 10 << 20;
    const tight = taskMemoryOf({ limitBytes: small, tempDirectory: directory, threads: 2, directories: [directory], tpchDirectory, sampleMs: 2 })!;
    const tasks = new StageTasks({ engine, connectors: builtInConnectors(tpchDirectory, { tpchMinRows: 0 }), directory: join(directory, 'stages-tight'), nodeId: 'n1', taskMemory: tight });
    try {
      const plan = await tasks.engineFor('t-tight', leaf('q-tight', GROUPED, 'lineitem')).plan(GROUPED, session);
      const execution = plan.execute();
      const failure = await run(execution).then(() => undefined, (err: unknown) => err as VivaceError);
      expect(failure?.errorName).to.equal('EXCEEDED_LOCAL_MEMORY_LIMIT');
      // Trino's DataSize.succinctBytes of the task's limit: 10MB, not DuckDB's 8MB.
      expect(failure?.message).to.match(/^Query exceeded per-node memory limit of 10MB \[/);
      // Sampled: a task that fails before its first sample reads 0 (the peak test above shows it positive).
      expect(execution.progress().peakMemoryBytes, 'its peak before it failed').to.be.within(0, small);
      tasks.forget('t-tight');
      expect(tight.engines, 'the engine is idle again, not lost').to.equal(1);
    } finally {
      tasks.close();
      await tight.close();
    }
  });

  it('gives the task engine back when the task ends, and reuses it for the next task', async () => {
    const sql = 'SELECT count(*), sum(extendedprice) FROM lineitem';
    for (const id of ['a', 'b']) {
      const plan = await stages.engineFor(`t-${id}`, leaf(`q-${id}`, sql, 'lineitem')).plan(sql, session);
      const execution = plan.execute();
      await run(execution);
      expect(execution.progress().peakMemoryBytes, id).to.be.within(0, LIMIT);
      stages.completed(`t-${id}`);
      stages.forget(`t-${id}`);
    }
    expect(taskMemory.engines, 'one engine served both').to.equal(1);
  });

  it('gives the engine back for a plan released unexecuted', async () => {
    const sql = 'SELECT count(*) FROM orders';
    const before = taskMemory.engines;
    const plan = await stages.engineFor('t-released', leaf('q-released', sql, 'orders')).plan(sql, session);
    plan.release();
    stages.forget('t-released');
    const again = await stages.engineFor('t-again', leaf('q-again', sql, 'orders')).plan(sql, session);
    const execution = again.execute();
    await run(execution);
    stages.forget('t-again');
    expect(taskMemory.engines).to.equal(before);
  });

  it('gives the engine back when the last page comes with exhausted set (a root\'s: nothing asks again)', async () => {
    const before = taskMemory.engines;
    const { engine: taskEngine, done } = await taskMemory.forTask(engine);
    const plan = done(await taskEngine.planOwnSql('SELECT i FROM range(10) t(i)', session));
    const execution = plan.execute();
    const batch = await execution.next(1 << 20);
    expect(batch?.rows).to.equal(10);
    expect(execution.exhausted).to.equal(true);
    const again = await taskMemory.forTask(engine);
    again.fail();
    expect(taskMemory.engines, 'the engine was idle for the next task').to.equal(Math.max(before, 1));
  });

  it('sets the instance\'s DuckDB limit below the task\'s by DuckDB\'s counter drift, and refuses a limit within it', () => {
    expect(instanceLimitOf(LIMIT)).to.equal(`${LIMIT - DUCKDB_COUNTER_DRIFT_BYTES}B`);
    expect(() => instanceLimitOf(DUCKDB_COUNTER_DRIFT_BYTES)).to.throw(/query.max-memory-per-node/);
  });
});
