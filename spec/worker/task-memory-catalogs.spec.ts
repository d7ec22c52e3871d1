// A stage task's own DuckDB instance (query.max-memory-per-node, task-memory.ts) is pooled: made once and
// reused task after task. forTask readies it for the task's statement before the fragment plans there: a
// dynamic cluster's catalog set (a catalog CREATE CATALOG made after the worker started) is opened on it,
// and the statement planned on it brings the views of a tpch schema generated after the instance was made.
import { expect } from 'chai';
import { cpSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDuckDbEngine, type DuckDbEngine } from '../../lib/engine/duckdb-engine.js';
import type { CatalogSync } from '../../lib/connectors/dynamic-catalogs.js';
import { taskMemoryOf, type TaskMemory, type TaskStatement } from '../../lib/worker/task-memory.js';
import { drainPlan, runSql, testSession } from '../engine/engine-helpers.js';
import { generatedTiny } from '../support/generated-tiny.js';

const failure = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e as { errorName?: string; message: string });

describe('a stage task\'s pooled DuckDB instance readied for its statement (task-memory.ts)', function () {
  this.timeout(120_000);
  let dir: string;
  let roots: string;
  let tpchDirectory: string;
  let worker: DuckDbEngine;
  let taskMemory: TaskMemory;
  const dyn = (name: string) => ({
    name, properties: { 'hive.metastore': 'file', 'hive.metastore.catalog.dir': `file://${roots}/${name}`, 'fs.native-local.enabled': 'true' },
  });

  /** Rows of `sql` (the project's own SQL) on a task engine readied for `statement`. */
  async function onTaskEngine(sql: string, statement?: TaskStatement): Promise<unknown[][]> {
    const task = await taskMemory.forTask(worker, statement);
    try {
      return (await drainPlan(await task.engine.planOwnSql(sql, statement?.session ?? testSession()))).rows;
    } finally {
      task.fail();
    }
  }

  before(async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'vivace-task-catalogs-')));
    roots = join(dir, 'roots');
    tpchDirectory = join(dir, 'tpch');
    mkdirSync(roots);
    mkdirSync(tpchDirectory);
    // A worker of a dynamic cluster whose tpch cache has no schema yet.
    worker = await createDuckDbEngine({ tempDirectory: join(dir, 'temp'), threads: 1, maxConnections: 2, tpch: { directory: tpchDirectory, log: () => {} }, dynamicRoots: [roots] });
    taskMemory = taskMemoryOf({ limitBytes: 64 << 20, tempDirectory: join(dir, 'temp'), threads: 1, directories: [join(dir, 'temp')], tpchDirectory, dynamicRoots: [roots], sampleMs: 5 })!;
    // One task engine made now and pooled: the instance every test below takes again.
    (await taskMemory.forTask(worker)).fail();
    expect(taskMemory.engines).to.equal(1);
  });
  after(async () => {
    await taskMemory.close();
    await worker.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('opens a catalog CREATE CATALOG made after the worker started, from the task\'s catalog set', async () => {
    const sync: CatalogSync = { catalogs: [dyn('dyn')] };
    await worker.syncCatalogs(sync);
    const session = testSession({ catalog: 'dyn', schema: 's' });
    await runSql(worker, 'CREATE SCHEMA dyn.s', session);
    await runSql(worker, 'CREATE TABLE dyn.s.t AS SELECT * FROM (VALUES (1, \'a\'), (2, \'b\')) v(k, v)', session);
    const sql = 'SELECT count(*), sum(k) FROM dyn.s.t';
    const missing = await failure(onTaskEngine(sql, { sql, session }));
    expect(missing?.errorName, 'a task engine without the task\'s catalog set').to.equal('CATALOG_NOT_FOUND');
    expect(await onTaskEngine(sql, { sql, session, catalogs: sync })).to.deep.equal([[2, 3]]);
    expect(taskMemory.engines, 'the pooled instance, not a new one').to.equal(1);
  });

  it('reads the views of a tpch schema generated after the pooled instance was made, once readied for a statement over it', async () => {
    // The schema appears in the cache now (another task's statement generated it on this worker).
    cpSync(join((await generatedTiny()).directory, 'tiny'), join(tpchDirectory, 'tiny'), { recursive: true });
    const session = testSession({ catalog: 'tpch', schema: 'tiny' });
    await drainPlan(await worker.plan('SELECT count(*) FROM tpch.tiny.nation', session));
    const read = 'SELECT count(*) FROM tpch.tiny.nation';
    // The same text as the read below: its plan is cached on the pooled instance, then the views are replaced.
    const stale = await failure(onTaskEngine(read));
    expect(stale?.message, 'the pooled instance still has the placeholder views').to.include('not generated yet');
    expect(await onTaskEngine(read, { sql: 'SELECT n.name, r.name FROM tpch.tiny.nation n JOIN tpch.tiny.region r ON n.regionkey = r.regionkey', session })).to.deep.equal([[25]]);
    expect(taskMemory.engines).to.equal(1);
  });

  it('keeps the instances a burst of tasks made (a worker runs 5 or more of a query\'s tasks at once): the next burst as wide makes none', async () => {
    const burst = async () => {
      const tasks = await Promise.all(Array.from({ length: 6 }, () => taskMemory.forTask(worker)));
      for (const task of tasks) task.fail();
    };
    await burst();
    expect(taskMemory.engines, 'made for the first burst, all kept idle').to.equal(6);
    await burst();
    expect(taskMemory.engines, 'the second burst took them again').to.equal(6);
  });

  it('gives the engine back when readying it fails (a catalog set it cannot open)', async () => {
    const session = testSession({ catalog: 'dyn', schema: 's' });
    const bad = { catalogs: [{ name: 'out', properties: { ...dyn('out').properties, 'hive.metastore.catalog.dir': `file://${dir}/elsewhere` } }] };
    const err = await failure(taskMemory.forTask(worker, { sql: 'SELECT 1', session, catalogs: bad }));
    expect(err?.message).to.include('is not under catalog.dynamic-roots');
    // The pooled instance is back: the next task takes it, no new one is made.
    const before = taskMemory.engines;
    expect(await onTaskEngine('SELECT 42')).to.deep.equal([[42]]);
    expect(taskMemory.engines).to.equal(before);
  });
});
