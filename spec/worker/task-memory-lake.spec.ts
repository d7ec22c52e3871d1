// A stage task under query.max-memory-per-node runs on a DuckDB instance of its own (task-memory.ts): that
// instance opens the worker's lake catalogs too, so a fragment reading an unsplit lake table by its
// catalog's name finds it there (the first cut had tpch alone: CATALOG_NOT_FOUND).
import { expect } from 'chai';
import { join } from 'node:path';
import type { StageEngine } from '../../lib/worker/stage-runner.js';
import { taskMemoryOf, type TaskMemory } from '../../lib/worker/task-memory.js';
import { drainPlan } from '../engine/engine-helpers.js';
import { useHiveFixture } from '../connectors/hive/hive-helpers.js';

describe('a stage task\'s own DuckDB instance and the lake (task-memory.ts)', function () {
  this.timeout(60_000);
  const fixture = useHiveFixture();
  let taskMemory: TaskMemory | undefined;

  before(async () => {
    await fixture().run('CREATE TABLE lake.s.small AS SELECT * FROM (VALUES (1, \'a\'), (2, \'b\'), (3, NULL)) t(k, v)');
  });
  after(() => taskMemory?.close());

  const taskEngines = (withLake: boolean) => taskMemoryOf({
    limitBytes: 64 << 20, tempDirectory: join(fixture().directory, withLake ? 'tasks' : 'tasks-bare'),
    directories: [fixture().directory, fixture().root], ...(withLake ? { hive: [fixture().config] } : {}),
  })!;

  async function rowsOnTaskEngine(memory: TaskMemory, sql: string): Promise<string> {
    const task = await memory.forTask(fixture().engine as unknown as StageEngine);
    try {
      const plan = await task.engine.planOwnSql(sql, fixture().session);
      return JSON.stringify(await drainPlan(plan));
    } finally {
      task.fail();
    }
  }

  it('reads an unsplit lake table by its catalog\'s name on the task\'s instance', async () => {
    taskMemory = taskEngines(true);
    const rows = await rowsOnTaskEngine(taskMemory, 'SELECT count(*), count(v), sum(k) FROM lake.s.small');
    expect(rows).to.contain('[3,2,6]');
  });

  it('without the worker\'s lake catalogs the same read fails (what the spec above guards)', async () => {
    const bare = taskEngines(false);
    try {
      const failure = await rowsOnTaskEngine(bare, 'SELECT count(*) FROM lake.s.small').then(() => undefined, (err: unknown) => err as Error);
      expect(failure, 'a task engine without the lake').to.be.instanceOf(Error);
      expect((failure as { errorName?: string }).errorName, failure?.message).to.equal('CATALOG_NOT_FOUND');
    } finally {
      await bare.close();
    }
  });
});
