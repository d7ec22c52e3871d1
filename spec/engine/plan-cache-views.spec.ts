// The plan cache (engine/plan-cache.ts) never runs a plan over a view that was replaced since it was analysed:
// a tpch schema's placeholder views ("tpch.tiny is not generated yet") replaced by the views over its data
// empty the cache, and a plan analysed while the cache was emptied is not kept.
import { expect } from 'chai';
import { cpSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDuckDbEngine, type DuckDbEngine } from '../../lib/engine/duckdb-engine.js';
import { PlanCache, type CachedQueryPlan } from '../../lib/engine/plan-cache.js';
import { drainPlan, testSession } from './engine-helpers.js';
import { generatedTiny } from '../support/generated-tiny.js';

const failure = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e as { message: string });

describe('the plan cache across replaced views (plan-cache.ts)', function () {
  this.timeout(120_000);
  let dir: string;
  let tpchDirectory: string;
  let engine: DuckDbEngine;

  before(async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'vivace-plan-views-')));
    tpchDirectory = join(dir, 'tpch');
    mkdirSync(tpchDirectory);
    // No tpch schema on disk yet: every tpch view is a placeholder.
    engine = await createDuckDbEngine({ tempDirectory: join(dir, 'temp'), threads: 1, maxConnections: 1, tpch: { directory: tpchDirectory, log: () => {} } });
  });
  after(async () => {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads a tpch view through a plan cached before the schema was generated only as the view is now', async () => {
    const session = testSession({ catalog: 'tpch', schema: 'tiny' });
    const read = 'SELECT count(*) FROM tpch.tiny.region';
    // Analysed and cached over the placeholder view (it fails as it runs, not as it is prepared).
    const before = await failure(engine.planOwnSql(read, session).then(drainPlan));
    expect(before?.message).to.include('not generated yet');
    // The schema is on disk now; a user's statement over it brings its views.
    cpSync(join((await generatedTiny()).directory, 'tiny'), join(tpchDirectory, 'tiny'), { recursive: true });
    expect((await drainPlan(await engine.plan('SELECT count(*) FROM tpch.tiny.nation', session))).rows).to.deep.equal([[25]]);
    expect((await drainPlan(await engine.planOwnSql(read, session))).rows, 'the same text, planned again').to.deep.equal([[5]]);
  });

  it('does not keep a plan analysed across a clear (it may have read what the clear was for)', () => {
    const cache = new PlanCache();
    const plan: CachedQueryPlan = { columns: [], renderSql: 'SELECT 1', readsTables: false };
    const since = cache.generation;
    cache.clear();
    cache.set('k', plan, since);
    expect(cache.get('k')).to.equal(undefined);
    cache.set('k', plan, cache.generation);
    expect(cache.get('k')).to.equal(plan);
  });
});
