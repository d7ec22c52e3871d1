// Queries over one tpch table in two stages across real in-process workers (vivace.distributed-tpch):
// the 22 TPC-H queries at tiny equal the in-process engine's answers (Q1 and Q6 take the two stages),
// splits land on both workers, a leaf whose worker dies is run again elsewhere, no worker left is
// NO_NODES_AVAILABLE, and cancelling while the leaves run ends them on every worker. A lake query's leaf
// whose worker dies runs again on the other worker too.
import { expect } from 'chai';
import { expectSameRows } from './same-rows.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDuckDbEngine, type DuckDbEngine } from '../../lib/engine/duckdb-engine.js';
import type { Engine, Execution, Plan, RowBatch } from '../../lib/engine/engine.types.js';
import type { RemoteEngine } from '../../lib/cluster/remote-engine.js';
import { ClusterSizeMonitor } from '../../lib/cluster/cluster-size-monitor.js';
import { SimulatedClock } from 'xstate';
import { defaultConfig, parseConfigProperties } from '../../lib/config.js';
import { readManifest } from '../../lib/connectors/tpch/tpch-generation.js';
import { TPCH_QUERIES } from '../../lib/tpch/queries/tpch-queries.js';
import { VivaceError } from '../../lib/protocol/vivace-error.js';
import { startWorkerServer, type RunningWorker } from '../../lib/worker/worker-server.js';
import type { StageEngine } from '../../lib/worker/stage-runner.js';
import { builtInConnectors, remoteEngine, runOn, session, startTestWorker, testWorkerOf, WorkerList, type TestWorker } from './cluster-harness.js';
import { call, planTask, results } from '../worker/worker-support.js';
import { taskOutputPath, taskPath, type TaskPlanRequest } from '../../lib/cluster/task-protocol.js';
import { StageTasks } from '../../lib/worker/stage-tasks.js';
import { TaskRegistry } from '../../lib/worker/task-registry.js';
import { request, runStatement, startTestServer } from '../support/http.js';
import { validateResponse } from '../support/schema-validator.js';
import type { HiveCatalogConfig } from '../../lib/connectors/catalog.types.js';
import { defaultHiveCatalog } from '../../lib/connectors/hive/default-lake.js';
import { connectorsOf } from '../../lib/connectors/connectors.js';
import { batchText } from '../../lib/engine/row-batch.js';

const TPCH = join(defaultConfig().dataDirectory, 'tpch');
const tiny = session({ catalog: 'tpch', schema: 'tiny' });
/** Rows of tpch.tiny.lineitem Q1's scan hands on: its shipdate filter is evaluated inside the scan. */
const Q1_ROWS_READ = 59_307;

interface StageWorker extends TestWorker {
  /** The leaves' COPY statements this worker planned. */
  copies: string[];
  /** While set, a leaf's COPY waits for it (a leaf caught mid-way). */
  hold: Promise<void> | undefined;
  /** Resolves when a leaf reached the hold. */
  held: Promise<void>;
}

/** A worker with stage tasks; `tpchDirectory`: its own tpch cache (default: the shared one); `hive`: a lake it serves too. */
async function startStageWorker(nodeId: string, tpchDirectory = TPCH, hive?: HiveCatalogConfig): Promise<StageWorker> {
  const dir = mkdtempSync(join(tmpdir(), 'vivace-two-stage-'));
  const engine: DuckDbEngine = await createDuckDbEngine({ tempDirectory: dir, memoryLimit: '1GB', threads: 1, maxConnections: 4, tpch: { directory: tpchDirectory, log: () => {} }, ...(hive ? { hive: [hive] } : {}) });
  let reached: () => void = () => {};
  const state: { hold: Promise<void> | undefined; held: Promise<void> } = { hold: undefined, held: new Promise((r) => (reached = r)) };
  const copies: string[] = [];
  const stageEngine: StageEngine = {
    plan: (sql, s, abort) => engine.plan(sql, s, abort),
    readsGuarded: (user, table) => engine.readsGuarded(user, table),
    planOwnSql: async (sql, s, abort) => {
      const plan = await engine.planOwnSql(sql, s, abort);
      if (!sql.startsWith('COPY')) return plan;
      copies.push(sql);
      const hold = state.hold;
      // The leaf's plan answers at once (its columns are the query's); its COPY waits for the hold.
      return hold ? { ...plan, execute: () => heldExecution(plan, hold, reached) } : plan;
    },
    parquetFooter: (path) => engine.parquetFooter(path),
    close: () => engine.close(),
  };
  const worker: RunningWorker = await startWorkerServer({
    engine, nodeId, environment: 'vivace', host: '127.0.0.1', port: 0, maxBodyBytes: 4 << 20, maxQueryLength: 1_000_000, gracePeriodMs: 1_000,
    stages: { engine: stageEngine, connectors: connectorsOf([{ name: 'tpch', connector: 'tpch', directory: tpchDirectory }, ...(hive ? [hive] : [])]), directory: join(dir, 'stages') },
  });
  return {
    ...testWorkerOf({ nodeId, memory: false, worker, engine, planned: [], dir }),
    copies,
    get hold() { return state.hold; },
    set hold(p) { state.hold = p; state.held = new Promise((r) => (reached = r)); },
    get held() { return state.held; },
  };
}

/** A leaf's COPY that starts once `hold` resolves (a leaf caught mid-way), telling `reached` when it waits. */
function heldExecution(plan: Plan, hold: Promise<void>, reached: () => void): Execution {
  let inner: Execution | undefined;
  let canceled = false;
  return {
    async next(targetBytes) {
      if (!inner) {
        reached();
        await hold;
        if (canceled) throw new VivaceError('USER_CANCELED', 'Task was canceled');
        inner = plan.execute();
      }
      return inner.next(targetBytes);
    },
    cancel() {
      canceled = true;
      if (inner) inner.cancel();
      else plan.release();
    },
    progress: () => inner?.progress() ?? { processedRows: 0, processedBytes: 0, cpuTimeMillis: 0 },
    get updateCount() { return inner?.updateCount; },
    get exhausted() { return inner?.exhausted; },
  };
}

/** The early roots a worker has (task attempt 4, staged-query.ts), finished ones of earlier queries too. */
const earlyRoots = (w: StageWorker) => w.worker.registry.list().filter((t) => t.taskId.endsWith('.0.0.4')).map((t) => t.taskId);
/** A query's tasks of one fragment on a worker (task ids are query.fragment.partition.attempt). */
const fragmentTasks = (w: StageWorker, queryId: string, fragmentId: number) => w.worker.registry.list().filter((t) => t.queryId === queryId && t.taskId.split('.')[1] === String(fragmentId));
/** Runs `body` with every COPY `w` plans held until `body` calls release (or ends). */
async function whileHeld(w: StageWorker, body: (release: () => void) => Promise<void>): Promise<void> {
  let release: () => void = () => {};
  w.hold = new Promise<void>((r) => (release = r));
  try {
    await body(release);
  } finally {
    w.hold = undefined;
    release();
  }
}

/** Whether a worker has an early root other than `before`'s. */
const hasEarlyRoot = (w: StageWorker, before: string[] = []) => earlyRoots(w).some((id) => !before.includes(id));

/** Waits (yielding to I/O, up to 10 s) until `ready()` holds. */
async function until(ready: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error('condition not reached within 10 s');
    await new Promise((r) => setImmediate(r));
  }
}

async function rejection(promise: Promise<unknown>): Promise<VivaceError> {
  try {
    await promise;
  } catch (err) {
    return err as VivaceError;
  }
  throw new Error('expected a rejection');
}

describe('two stages across in-process workers (vivace.distributed-tpch)', function () {
  this.timeout(120_000);
  let w0: StageWorker;
  let w1: StageWorker;
  let list: WorkerList;
  let engine: RemoteEngine;
  let local: DuckDbEngine;
  let localDir: string;

  before(async () => {
    localDir = mkdtempSync(join(tmpdir(), 'vivace-two-stage-local-'));
    local = await createDuckDbEngine({ tempDirectory: localDir, threads: 2, tpch: { directory: TPCH, log: () => {} } });
    // The shared cache holds tiny once anything read it; this makes sure before the workers look.
    await runOn(local, 'SELECT count(*) FROM tpch.tiny.region', tiny);
    w0 = await startStageWorker('w0');
    w1 = await startStageWorker('w1');
    list = new WorkerList([w0, w1]);
    // tiny's tables are far below the default threshold (STAGED_MIN_ROWS): every size splits here.
    engine = remoteEngine(list, { connectors: builtInConnectors(TPCH, { tpchMinRows: 0 }), stages: {} });
  });
  after(async () => {
    await engine.close();
    await local.close();
    await Promise.all([w0.stop(), w1.stop()]);
    rmSync(localDir, { recursive: true, force: true });
  });
  beforeEach(() => {
    list.dead.clear();
    list.workers = [w0, w1];
    w0.copies.length = 0;
    w1.copies.length = 0;
  });

  for (const q of TPCH_QUERIES) {
    it(`Q${q.number} equals the in-process answer, in stages with tasks on both workers${q.number === 1 || q.number === 6 ? ' (two stages)' : ''}`, async () => {
      const [remote, whole] = [await runOn(engine, q.sql, tiny), await runOn(local as Engine, q.sql, tiny)];
      expect(remote.columns).to.deep.equal(whole.columns);
      expectSameRows(remote.rows, whole.rows, `Q${q.number}`);
      // Q1 and Q6 in two stages, every other query (joins, subqueries) in the planner's fragments: all on both workers.
      expect(w0.copies.length > 0 && w1.copies.length > 0, 'producer tasks on both workers').to.equal(true);
    });
  }

  it('two statements whose roots read the same generated columns from the same slot: each renders its own types (stage files named by statement too)', async () => {
    // Both DISTINCTs finish in a HASH stage and their roots select vivace_o0..2 from the slot's input files:
    // named by slot alone, the second root's text was the first's, and its cached render of a DOUBLE ran
    // over a BOOLEAN (FUNCTION_NOT_FOUND "abs(boolean)"), or printed a number as text.
    const join = 'FROM tpch.tiny.orders o JOIN tpch.tiny.customer c ON c.custkey = o.custkey WHERE o.orderkey < 200 ORDER BY 1, 2, 3';
    for (const sql of [`SELECT DISTINCT o.orderstatus, c.mktsegment, o.totalprice * 2e0 AS x ${join}`, `SELECT DISTINCT o.orderstatus, c.mktsegment, o.totalprice > 100000 AS x ${join}`, `SELECT DISTINCT o.orderstatus, c.mktsegment, CAST(o.orderkey AS varchar) AS x ${join}`]) {
      const [remote, whole] = [await runOn(engine, sql, tiny), await runOn(local as Engine, sql, tiny)];
      expect(remote.columns, sql).to.deep.equal(whole.columns);
      expectSameRows(remote.rows, whole.rows, sql);
    }
  });

  it('is on by default; vivace.distributed-tpch=false turns it off, vivace.distributed-tpch-min-rows sets the threshold', () => {
    expect(defaultConfig().distributedTpch).to.equal(true);
    expect(parseConfigProperties('vivace.distributed-tpch=false\nvivace.distributed-tpch-min-rows=0\n')).to.include({ distributedTpch: false, distributedTpchMinRows: 0 });
    for (const bad of ['-1', '1.5', 'many']) {
      expect(() => parseConfigProperties(`vivace.distributed-tpch-min-rows=${bad}\n`), bad).to.throw(/vivace\.distributed-tpch-min-rows/);
    }
  });

  it('a table with fewer rows than the threshold (by default 5,000,000) runs as one task', async () => {
    const defaults = remoteEngine(list, { connectors: builtInConnectors(TPCH), stages: {} });
    try {
      const execution = (await defaults.plan(TPCH_QUERIES[5]!.sql, tiny)).execute();
      while (await execution.next(1 << 20)) { /* drain */ }
      expect(execution.progress().subStages).to.equal(undefined);
      expect(w0.copies.length + w1.copies.length).to.equal(0);
      const limit = remoteEngine(list, { connectors: builtInConnectors(TPCH, { tpchMinRows: 60_175 }), stages: {} });
      const staged = (await limit.plan(TPCH_QUERIES[5]!.sql, tiny)).execute();
      while (await staged.next(1 << 20)) { /* drain */ }
      expect(staged.progress().subStages, 'lineitem at tiny has 60,175 rows: at the threshold it splits').to.have.length(1);
      await limit.close();
    } finally {
      await defaults.close();
    }
  });

  it('a user with a column mask or row filter on the table runs the query as one task, where they apply', async () => {
    const guarded = remoteEngine(list, { connectors: builtInConnectors(TPCH, { tpchMinRows: 0 }), stages: { guarded: (user, table) => user === tiny.user && table.table === 'lineitem' } });
    try {
      const execution = (await guarded.plan(TPCH_QUERIES[5]!.sql, tiny)).execute();
      while (await execution.next(1 << 20)) { /* drain */ }
      expect(execution.progress().subStages).to.equal(undefined);
      expect(w0.copies.length + w1.copies.length).to.equal(0);
    } finally {
      await guarded.close();
    }
  });

  it('a mask or row filter on any table a distributed plan reads, even only in a semi-join\'s subquery, runs the query as one task', async () => {
    // Q16 reads supplier only in its NOT IN subquery (a semi-join source); Q3 joins customer; Q17 joins part;
    // Q21 reads nation outside its correlated subqueries, Q20 lineitem only in the one nested in its IN; Q22 gathers orders.
    for (const [number, table] of [[16, 'supplier'], [3, 'customer'], [17, 'part'], [21, 'nation'], [20, 'lineitem'], [22, 'orders']] as const) {
      w0.copies.length = 0;
      w1.copies.length = 0;
      const guarded = remoteEngine(list, { connectors: builtInConnectors(TPCH, { tpchMinRows: 0 }), stages: { guarded: (user, t) => user === tiny.user && t.table === table } });
      try {
        const execution = (await guarded.plan(TPCH_QUERIES[number - 1]!.sql, tiny)).execute();
        while (await execution.next(1 << 20)) { /* drain */ }
        expect(execution.progress().subStages, `Q${number} guarded on ${table}`).to.equal(undefined);
        expect(w0.copies.length + w1.copies.length, `Q${number}: no stage files`).to.equal(0);
      } finally {
        await guarded.close();
      }
    }
  });

  it('a query in two stages waits for the required workers as a single task does', async () => {
    const clock = new SimulatedClock();
    const monitor = new ClusterSizeMonitor({ activeWorkers: () => list.list().filter((w) => w.alive).length, requiredWorkers: 1, maxWaitMs: 300_000, clock });
    const starting = remoteEngine(list, { connectors: builtInConnectors(TPCH, { tpchMinRows: 0 }), stages: {}, waitForWorkers: (abort) => monitor.waitForMinimumWorkers(abort) });
    try {
      list.dead.add('w0').add('w1');
      const answer = runOn(starting, TPCH_QUERIES[5]!.sql, tiny);
      clock.increment(1_000);
      list.dead.clear();
      clock.increment(100);
      expectSameRows((await answer).rows, (await runOn(local as Engine, TPCH_QUERIES[5]!.sql, tiny)).rows, 'Q6 after the wait');
      expect(w0.copies.length + w1.copies.length, 'in two stages').to.be.greaterThan(0);
    } finally {
      monitor.stop();
      await starting.close();
    }
  });

  it('a worker with its own empty tpch cache (another machine) generates the parts its leaf reads and answers right', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'vivace-two-stage-own-cache-'));
    const remote = await startStageWorker('remote', cache);
    list.workers = [w0, remote];
    try {
      for (const q of [TPCH_QUERIES[5]!, TPCH_QUERIES[0]!]) {
        const result = await runOn(engine, q.sql, tiny);
        expectSameRows(result.rows, (await runOn(local as Engine, q.sql, tiny)).rows, `Q${q.number} with a fresh cache`);
      }
      expect(remote.copies.length, 'the remote worker ran a leaf of each query').to.equal(2);
      expect(readManifest(join(cache, 'tiny'))?.tables.lineitem?.files).to.deep.equal(readManifest(join(TPCH, 'tiny'))?.tables.lineitem?.files);
    } finally {
      await remote.stop();
      rmSync(cache, { recursive: true, force: true });
    }
  });

  it('a coordinator without a tpch cache of its own (--workers 0) names the planned parts and still runs Q6 in two stages', async () => {
    const none = mkdtempSync(join(tmpdir(), 'vivace-two-stage-coordinator-'));
    const bare = remoteEngine(list, { connectors: builtInConnectors(none, { tpchMinRows: 0 }), stages: {} });
    try {
      const result = await runOn(bare, TPCH_QUERIES[5]!.sql, tiny);
      expectSameRows(result.rows, (await runOn(local as Engine, TPCH_QUERIES[5]!.sql, tiny)).rows, 'Q6 from a coordinator without a cache');
      expect(w0.copies.length > 0 && w1.copies.length > 0, 'leaves on both workers').to.equal(true);
      expect(readManifest(join(none, 'tiny')), 'the coordinator generated nothing').to.equal(undefined);
    } finally {
      await bare.close();
      rmSync(none, { recursive: true, force: true });
    }
  });

  it('starts the root on the last running leaf\'s worker while that leaf runs, and answers right', async () => {
    let release: () => void = () => {};
    w1.hold = new Promise<void>((r) => (release = r));
    try {
      const before = [...earlyRoots(w0), ...earlyRoots(w1)];
      const running = runOn(engine, TPCH_QUERIES[5]!.sql, tiny);
      await w1.held;
      // w0's leaf ends; the root goes to w1 at once and waits there for w1's own leaf.
      await until(() => hasEarlyRoot(w1, before));
      expect(hasEarlyRoot(w0, before), 'no root on w0').to.equal(false);
      release();
      const result = await running;
      expectSameRows(result.rows, (await runOn(local as Engine, TPCH_QUERIES[5]!.sql, tiny)).rows, 'Q6 with an early root');
      expect(w1.copies.length).to.equal(1);
    } finally {
      w1.hold = undefined;
      release();
    }
  });

  it('starts a consumer task beside its producer still running on that worker once its producers elsewhere ended, not once all did (Q12)', async () => {
    // Q12: fragment 2 (lineitem, HASH out) reads fragment 3 (orders, BROADCAST out); partition 1 of each on w1.
    await whileHeld(w1, async (release) => {
      const execution = (await engine.plan(TPCH_QUERIES[11]!.sql, tiny, undefined, 'early_consumer')).execute();
      const page = execution.next(1 << 20);
      await w1.held;
      // w1's orders task waits in its COPY; w0's ended, so w1's lineitem task is posted and waits there for it.
      await until(() => fragmentTasks(w1, 'early_consumer', 2).length > 0);
      expect(fragmentTasks(w1, 'early_consumer', 3).map((t) => t.state), 'its producer there still runs').to.deep.equal(['RUNNING']);
      // w0's lineitem task reads w1's orders output too: it waits for that to end, on the coordinator.
      expect(fragmentTasks(w0, 'early_consumer', 2), 'no consumer of a remote producer still running').to.deep.equal([]);
      release();
      const batches: RowBatch[] = [];
      for (let batch = await page; batch; batch = await execution.next(1 << 20)) batches.push(batch);
      const rows = batches.flatMap((b) => (b.rows === 0 ? [] : (JSON.parse(`[${batchText(b)}]`) as unknown[][])));
      expectSameRows(rows, (await runOn(local as Engine, TPCH_QUERIES[11]!.sql, tiny)).rows, 'Q12 with an early consumer');
    });
  });

  it('cancelling while a consumer task waits beside its running producer ends every task of the query on both workers', async () => {
    await whileHeld(w1, async () => {
      const execution = (await engine.plan(TPCH_QUERIES[11]!.sql, tiny, undefined, 'cancelled_early_consumer')).execute();
      const page = execution.next(1 << 20);
      await w1.held;
      await until(() => fragmentTasks(w1, 'cancelled_early_consumer', 2).length > 0);
      execution.cancel();
      expect((await rejection(page)).errorName).to.equal('USER_CANCELED');
      await until(() => [w0, w1].every((w) => !w.worker.registry.list().some((t) => t.queryId === 'cancelled_early_consumer')));
    });
  });

  it('keeps a finished producer\'s output past the finished tasks\' linger, until its query drops it or the abandonment timeout', async () => {
    let now = 0;
    // Inside the engine's sandbox (its temp directory), as a worker's stage directory is.
    const dir = join(localDir, 'linger-stages');
    const stages = new StageTasks({ engine: local, connectors: connectorsOf([{ name: 'tpch', connector: 'tpch', directory: TPCH }]), directory: dir, nodeId: 'linger' });
    const registry = new TaskRegistry(local, { now: () => now, stages, finishedLingerMs: 10_000, abandonedAfterMs: 120_000 });
    const finish = async (taskId: string, request: TaskPlanRequest) => {
      const task = registry.create(taskId, request);
      await task.planResponse();
      await task.results(0, 1 << 20);
    };
    try {
      await finish('linger.1.0.0', {
        queryId: 'linger', sql: TPCH_QUERIES[5]!.sql, session: tiny, execute: true,
        stage: { kind: 'fragment', fragmentId: 1, splits: [{ file: 'lineitem/lineitem-00001.parquet', slice: 0, slices: 1 }], inputs: [], output: { kind: 'SINGLE' } },
      });
      await finish('plain', { queryId: 'other', sql: 'SELECT 1', session: tiny, execute: true });
      now = 11_000;
      registry.sweep();
      // Another stage of its query may run for minutes: the exchange file stays; a plain task's page goes.
      expect(registry.list().map((t) => t.taskId)).to.deep.equal(['linger.1.0.0']);
      expect(stages.outputOf('linger.1.0.0')).to.be.a('string');
      now = 121_000;
      registry.sweep();
      expect(stages.outputOf('linger.1.0.0')).to.equal(undefined);
    } finally {
      stages.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('spreads a query\'s one-task scans over both workers, but for a dynamic filter\'s scan beside its filter\'s file', async () => {
    // With 16,000 rows to split, tiny's orders (15,000) is scanned whole in one task, and too large to be read
    // in place by its consumers (inline-fragments.ts, at most 10,000 rows); lineitem splits. A self-join
    // of orders has two such scans: one on each worker. With dynamic filtering (Trino's default) the
    // unfiltered o1 reads o2's keys, so it runs after o2, beside its file: one worker for both.
    const gathered = remoteEngine(list, { connectors: builtInConnectors(TPCH, { tpchMinRows: 16_000 }), stages: {} });
    const singleNodes = async (properties: Record<string, string>) => {
      const sql = 'SELECT count(*) FROM orders o1 JOIN orders o2 ON o2.orderkey = o1.orderkey JOIN lineitem l ON l.orderkey = o1.orderkey WHERE o2.orderstatus = \'F\'';
      const execution = (await gathered.plan(sql, { ...tiny, properties })).execute();
      while (await execution.next(1 << 20)) { /* drain */ }
      const singles = execution.progress().subStages!.filter((s) => s.tasks?.length === 1 && s.stageId !== '0');
      expect(singles.length, 'one-task scans').to.be.at.least(2);
      return singles.map((s) => s.tasks![0]!.nodeId);
    };
    try {
      const spread = await singleNodes({ enable_dynamic_filtering: 'false' });
      expect(new Set(spread), spread.join(', ')).to.have.keys('w0', 'w1');
      const filtered = await singleNodes({});
      expect(new Set(filtered).size, filtered.join(', ')).to.equal(1);
    } finally {
      await gathered.close();
    }
  });

  it('runs a leaf again on the other worker when its worker dies mid-way (with the early root waiting there), and the answer stays right', async () => {
    const victim = await startStageWorker('victim');
    list.workers = [victim, w1];
    try {
      let release: () => void = () => {};
      victim.hold = new Promise<void>((r) => (release = r));
      const running = runOn(engine, TPCH_QUERIES[0]!.sql, tiny);
      await victim.held;
      // w1's leaf ends, so the root starts on the victim beside its running leaf: both die with it.
      await until(() => hasEarlyRoot(victim));
      await victim.kill();
      list.dead.add('victim');
      release();
      const result = await running;
      expectSameRows(result.rows, (await runOn(local as Engine, TPCH_QUERIES[0]!.sql, tiny)).rows, 'Q1 after a kill');
      expect(w1.copies.length, 'w1 ran its leaf and the victim\'s').to.equal(2);
    } finally {
      await victim.stop();
    }
  });

  it('runs a lake query\'s leaf again on the other worker when its worker dies mid-way, with the answer of one task', async () => {
    const lakeDir = mkdtempSync(join(tmpdir(), 'vivace-two-stage-lake-'));
    const lake = defaultHiveCatalog(lakeDir);
    const [victim, survivor] = [await startStageWorker('lake-victim', TPCH, lake), await startStageWorker('lake-survivor', TPCH, lake)];
    // Two partitions, one file each: a split for each worker (the catalog's files are shared, as every node sees the root).
    await runOn(survivor.engine, 'CREATE SCHEMA lake.s', tiny);
    await runOn(survivor.engine, "CREATE TABLE lake.s.items WITH (partitioned_by = ARRAY['linestatus']) AS SELECT orderkey, quantity, returnflag, linestatus FROM tpch.tiny.lineitem", tiny);
    const lakeEngine = remoteEngine(list, { connectors: connectorsOf([{ name: 'tpch', connector: 'tpch', directory: TPCH }, lake], { tpchMinRows: 0, lakeMinBytes: 1 }), stages: {} });
    list.workers = [victim, survivor];
    const sql = 'SELECT returnflag, linestatus, count(*), sum(quantity), sum(orderkey) FROM lake.s.items GROUP BY 1, 2 ORDER BY 1, 2';
    try {
      let release: () => void = () => {};
      victim.hold = new Promise<void>((r) => (release = r));
      const execution = (await lakeEngine.plan(sql, tiny)).execute();
      const running = (async () => {
        const rows: unknown[][] = [];
        for (let batch = await execution.next(1 << 20); batch; batch = execution.exhausted ? null : await execution.next(1 << 20)) if (batch.rows > 0) rows.push(...(JSON.parse(`[${batchText(batch)}]`) as unknown[][]));
        return rows;
      })();
      await victim.held;
      await victim.kill();
      list.dead.add('lake-victim');
      release();
      const rows = await running;
      const one = await runOn(survivor.engine, sql, tiny);
      expectSameRows(rows, one.rows, 'the lake query after a kill vs one task');
      expect(survivor.copies.length, 'the survivor ran its leaf and the victim\'s').to.equal(2);
      expect(execution.progress().subStages?.[0]).to.include({ totalSplits: 2, completedSplits: 2 });
    } finally {
      victim.hold = undefined;
      await lakeEngine.close();
      await Promise.all([victim.stop(), survivor.stop()]);
      rmSync(lakeDir, { recursive: true, force: true });
    }
  });

  it('runs the query once more when a finished leaf\'s worker dies before the root pulled its output', async () => {
    const victim = await startStageWorker('finished-victim');
    list.workers = [victim, w1];
    try {
      let release: () => void = () => {};
      w1.hold = new Promise<void>((r) => (release = r));
      const running = runOn(engine, TPCH_QUERIES[0]!.sql, tiny);
      await w1.held;
      const deadline = Date.now() + 10_000;
      while (!victim.worker.registry.list().some((t) => t.taskId.includes('.1.') && t.state === 'FINISHED') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      await victim.kill();
      list.dead.add('finished-victim');
      w1.hold = undefined;
      release();
      const result = await running;
      expectSameRows(result.rows, (await runOn(local as Engine, TPCH_QUERIES[0]!.sql, tiny)).rows, 'Q1 after a finished leaf was lost');
      // w1's leaf of the first round, then the second round's only leaf (all of the table) on w1; or
      // w1's leaf alone when the early root on w1 pulled the victim's output before the kill.
      expect(w1.copies.length).to.be.within(1, 2);
    } finally {
      w1.hold = undefined;
      await victim.stop();
    }
  });

  it('fails with NO_NODES_AVAILABLE when no worker is alive, or when the last one dies mid-way', async () => {
    list.dead.add('w0').add('w1');
    expect((await rejection(engine.plan(TPCH_QUERIES[5]!.sql, tiny))).errorName).to.equal('NO_NODES_AVAILABLE');
    list.dead.clear();
    const victim = await startStageWorker('last');
    list.workers = [victim];
    try {
      let release: () => void = () => {};
      victim.hold = new Promise<void>((r) => (release = r));
      const execution = (await engine.plan(TPCH_QUERIES[5]!.sql, tiny)).execute();
      const page = execution.next(1 << 20);
      await victim.held;
      await victim.kill();
      list.dead.add('last');
      release();
      const err = await rejection(page);
      expect(err.errorName).to.equal('NO_NODES_AVAILABLE');
    } finally {
      await victim.stop();
    }
  });

  it('reports the leaf stage as a sub-stage: its nodes, splits, rows read and rows exchanged (a few per split for Q1)', async () => {
    let release: () => void = () => {};
    const hold = new Promise<void>((r) => (release = r));
    w0.hold = hold;
    w1.hold = hold;
    // The leaves run from the plan on: its sub-stage shows them running on both workers.
    const execution = (await engine.plan(TPCH_QUERIES[0]!.sql, tiny)).execute();
    await Promise.all([w0.held, w1.held]);
    const [running] = execution.progress().subStages!;
    const { wallTimeMillis, tasks, ...counters } = running!;
    expect(counters).to.deep.equal({ stageId: '1', parentStageId: '0', nodes: 2, totalSplits: 2, queuedSplits: 0, runningSplits: 2, completedSplits: 0, outputRows: 0, processedRows: 0, processedBytes: 0, cpuTimeMillis: 0 });
    // Its tasks: one per worker, each on its node (its COPY held; RUNNING once its plan answered).
    expect(tasks!.map((t) => [t.nodeId, t.fragmentId, t.partition]).sort()).to.deep.equal([['w0', 1, 0], ['w1', 1, 1]]);
    for (const t of tasks!) expect(t.state).to.be.oneOf(['PLANNED', 'RUNNING']);
    expect(wallTimeMillis).to.be.a('number').and.at.least(0);
    w0.hold = undefined;
    w1.hold = undefined;
    release();
    while (await execution.next(1 << 20)) { /* drain */ }
    const [leaf] = execution.progress().subStages!;
    expect(leaf).to.include({ nodes: 2, totalSplits: 2, completedSplits: 2, runningSplits: 0, queuedSplits: 0 });
    // lineitem at tiny: 60,175 rows in one part, read in two slices; Q1 has 4 groups per leaf. The rows
    // read are what the leaves' scans produced: Q1's shipdate filter runs inside DuckDB's Parquet scan,
    // which hands on 59,307 of them (as the same statement in one task counts).
    expect(leaf!.processedRows).to.equal(Q1_ROWS_READ);
    expect(leaf!.processedBytes).to.be.greaterThan(0);
    expect(leaf!.outputRows).to.equal(8);
    // Each task's own figures add up to the stage's.
    expect(leaf!.tasks!.map((t) => t.state)).to.deep.equal(['FINISHED', 'FINISHED']);
    expect(leaf!.tasks!.reduce((n, t) => n + t.outputRows, 0)).to.equal(8);
    expect(leaf!.tasks!.reduce((n, t) => n + t.processedRows, 0)).to.equal(Q1_ROWS_READ);
    // The bytes each leaf's Parquet file holds: the bytes exchanged.
    for (const t of leaf!.tasks!) expect(t.outputBytes).to.be.greaterThan(0);
    // Wall time since the first leaf started, frozen once the last ended.
    expect(leaf!.wallTimeMillis).to.be.a('number').and.at.least(0);
    expect(execution.progress().subStages![0]!.wallTimeMillis).to.equal(leaf!.wallTimeMillis);
  });

  it('shows the leaf stage as stage 1 under the root in the statement\'s stats and in /v1/query/{id} (schema-valid)', async () => {
    const server = await startTestServer({ engine });
    try {
      const result = await runStatement(server.url, TPCH_QUERIES[0]!.sql, { 'X-Trino-User': 'alice', 'X-Trino-Catalog': 'tpch', 'X-Trino-Schema': 'tiny' });
      expect(result.final.stats.state).to.equal('FINISHED');
      const leaf = { nodes: 2, totalSplits: 2, queuedSplits: 0, runningSplits: 0, completedSplits: 2, processedRows: Q1_ROWS_READ };
      expect(result.final.stats.rootStage.subStages).to.have.length(1);
      expect(result.final.stats.rootStage.subStages[0]).to.include({ stageId: '1', state: 'FINISHED', done: true, ...leaf });
      // The leaf stage's CPU and wall time are real, and counted in the query's.
      const sub = result.final.stats.rootStage.subStages[0] as { cpuTimeMillis: number; wallTimeMillis: number };
      expect(sub.wallTimeMillis).to.be.greaterThan(0);
      expect(result.final.stats.cpuTimeMillis).to.be.at.least(sub.cpuTimeMillis);
      expect(result.final.stats.wallTimeMillis).to.be.at.least(sub.wallTimeMillis);
      // Rolled up: the query's splits are the root's one and the leaves' two.
      expect(result.final.stats).to.include({ totalSplits: 3, completedSplits: 3, nodes: 2 });
      const info = await request('GET', `${server.url}/v1/query/${result.final.id as string}`, { headers: { 'X-Trino-User': 'alice' } });
      expect(info.status).to.equal(200);
      validateResponse('query-info', info.body);
      expect(info.body.outputStage.subStages[0]).to.include({ state: 'FINISHED', ...leaf });
      // The rows exchanged: Q1's 4 groups from each of the 2 leaves; the root sent the client 4.
      expect(info.body.outputStage).to.include({ outputPositions: 4 });
      expect(info.body.outputStage.subStages[0]).to.include({ outputPositions: 8 });
      // Trino's client StageStats has no output figures: the statement's stats do not grow any.
      expect(result.final.stats.rootStage.subStages[0]).to.not.have.any.keys('outputPositions', 'outputRows');
    } finally {
      await server.stop();
    }
  });

  it('shows the leaf stage running in /v1/query/{id} while the leaves run, before the first rows', async () => {
    const server = await startTestServer({ engine });
    let release: () => void = () => {};
    const hold = new Promise<void>((r) => (release = r));
    w0.hold = hold;
    w1.hold = hold;
    try {
      const running = runStatement(server.url, TPCH_QUERIES[0]!.sql, { 'X-Trino-User': 'alice', 'X-Trino-Catalog': 'tpch', 'X-Trino-Schema': 'tiny' });
      await Promise.all([w0.held, w1.held]);
      const user = { 'X-Trino-User': 'alice' };
      const list = await request('GET', `${server.url}/v1/query`, { headers: user });
      validateResponse('query-list', list.body);
      const queryId = (list.body as { queryId: string; state: string }[]).find((q) => q.state === 'RUNNING')!.queryId;
      // The pump reports an awaited batch's sub-stages every SUB_STAGE_PROGRESS_INTERVAL_MS: poll for it.
      let leaf: Record<string, unknown> | undefined;
      const deadline = Date.now() + 10_000;
      while (!leaf && Date.now() < deadline) {
        const info = await request('GET', `${server.url}/v1/query/${queryId}`, { headers: user });
        validateResponse('query-info', info.body);
        leaf = info.body.outputStage.subStages[0];
      }
      expect(leaf).to.include({ state: 'RUNNING', nodes: 2, totalSplits: 2, runningSplits: 2, completedSplits: 0 });
      w0.hold = undefined;
      w1.hold = undefined;
      release();
      const result = await running;
      expect(result.final.stats.rootStage.subStages[0]).to.include({ state: 'FINISHED', completedSplits: 2, runningSplits: 0 });
    } finally {
      w0.hold = undefined;
      w1.hold = undefined;
      release();
      await server.stop();
    }
  });

  it('stage task endpoints: an output that is not there (404, 409), a bad split (400), each a TaskError', async () => {
    const tinyTask = { session: session({ catalog: 'tpch', schema: 'tiny' }) };
    expect((await call('GET', `${w0.url}${taskOutputPath('nosuch.1.0.0')}`)).status).to.equal(404);
    const bad = await planTask(w0.url, 'bad.1.0.0', 'SELECT count(*) FROM lineitem', { ...tinyTask, execute: true, stage: { kind: 'leaf', splits: [{ file: '../../x.parquet', slice: 0, slices: 1 }] } });
    expect([bad.status, bad.body.errorName]).to.deep.equal([400, 'INVALID_ARGUMENTS']);
    const whole = await planTask(w0.url, 'whole.0.0.0', 'SELECT count(*) FROM lineitem', { ...tinyTask, execute: true });
    expect(whole.status).to.equal(200);
    expect((await call('GET', `${w0.url}${taskOutputPath('whole.0.0.0')}`)).status).to.equal(404);
    let release: () => void = () => {};
    w0.hold = new Promise<void>((r) => (release = r));
    const pending = planTask(w0.url, 'held.1.0.0', 'SELECT count(*) FROM lineitem', { ...tinyTask, execute: true, stage: { kind: 'leaf', splits: [{ file: 'lineitem/lineitem-00001.parquet', slice: 0, slices: 1 }] } });
    await w0.held;
    expect((await call('GET', `${w0.url}${taskOutputPath('held.1.0.0')}`)).status).to.equal(409);
    w0.hold = undefined;
    release();
    expect((await pending).status).to.equal(200);
    expect((await results(w0.url, 'held.1.0.0', 0)).status).to.equal(204);
    const output = await fetch(`${w0.url}${taskOutputPath('held.1.0.0')}`);
    expect([output.status, output.headers.get('content-type')]).to.deep.equal([200, 'application/vnd.apache.parquet']);
    expect(Buffer.from(await output.arrayBuffer()).subarray(0, 4).toString()).to.equal('PAR1');
    // A bucket is asked of a HASH output only: a single output has none (404); a bucket not a number is a 400.
    expect((await call('GET', `${w0.url}${taskOutputPath('held.1.0.0', 0)}`)).status).to.equal(404);
    for (const bucket of ['x', '-1', '99999', '']) expect((await call('GET', `${w0.url}${taskOutputPath('held.1.0.0')}?bucket=${bucket}`)).status, bucket).to.equal(400);
    for (const id of ['whole.0.0.0', 'held.1.0.0']) await call('DELETE', `${w0.url}${taskPath(id)}`);
  });

  it('a worker without stage tasks refuses one with a 400 TaskError', async () => {
    const plain = await startTestWorker('plain', { tpchDirectory: TPCH });
    try {
      const answer = await planTask(plain.url, 'x.1.0.0', 'SELECT count(*) FROM lineitem', { session: session({ catalog: 'tpch', schema: 'tiny' }), stage: { kind: 'leaf', splits: [{ file: 'lineitem/lineitem-00001.parquet', slice: 0, slices: 1 }] } });
      expect([answer.status, answer.body.errorName]).to.deep.equal([400, 'NOT_SUPPORTED']);
    } finally {
      await plain.stop();
    }
  });

  it('cancelling while the leaves run ends the leaf tasks on every worker', async () => {
    let release: () => void = () => {};
    const hold = new Promise<void>((r) => (release = r));
    w0.hold = hold;
    w1.hold = hold;
    const execution = (await engine.plan(TPCH_QUERIES[0]!.sql, tiny, undefined, 'cancelled_query')).execute();
    const page = execution.next(1 << 20);
    await Promise.all([w0.held, w1.held]);
    execution.cancel();
    expect((await rejection(page)).errorName).to.equal('USER_CANCELED');
    const deadline = Date.now() + 10_000;
    while ([w0, w1].some((w) => w.worker.registry.list().some((t) => t.queryId === 'cancelled_query')) && Date.now() < deadline) await new Promise((r) => setImmediate(r));
    expect([w0, w1].flatMap((w) => w.worker.registry.list().filter((t) => t.queryId === 'cancelled_query'))).to.deep.equal([]);
    w0.hold = undefined;
    w1.hold = undefined;
    release();
  });

  it('cancelling while the early root waits beside the last leaf ends the root and the leaves on every worker', async () => {
    let release: () => void = () => {};
    w1.hold = new Promise<void>((r) => (release = r));
    try {
      const before = earlyRoots(w1);
      const execution = (await engine.plan(TPCH_QUERIES[5]!.sql, tiny, undefined, 'cancelled_early_root')).execute();
      const page = execution.next(1 << 20);
      await w1.held;
      await until(() => hasEarlyRoot(w1, before));
      execution.cancel();
      expect((await rejection(page)).errorName).to.equal('USER_CANCELED');
      await until(() => [w0, w1].every((w) => !w.worker.registry.list().some((t) => t.queryId === 'cancelled_early_root')));
    } finally {
      w1.hold = undefined;
      release();
    }
  });
});
