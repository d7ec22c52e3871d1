// stagedQuery on a coordinator without its own tpch cache (`--workers 0`, or a fresh coordinator beside
// workers with the data): the same stages and splits as with the generated cache, lineitem's row count
// estimated rather than replayed, and a hostile scale factor answered at once with the single-task path.
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stagedQuery } from '../../lib/cluster/staged-query.js';
import { cachedStages } from '../../lib/planner/aggregate-stages.js';
import { TPCH_QUERIES } from '../../lib/tpch/queries/tpch-queries.js';
import { TPCH_TABLES } from '../../lib/tpch/index.js';
import { builtInConnectors, session } from './cluster-harness.js';
import { generatedTiny } from '../support/generated-tiny.js';

const tiny = session({ catalog: 'tpch', schema: 'tiny' });
/** The tpch connector over `directory`, with its least rows and whether it plans without a generated schema. */
const tpchIn = (directory: string, minRows?: number, planWithoutManifest?: boolean) =>
  builtInConnectors(directory, { ...(minRows === undefined ? {} : { tpchMinRows: minRows }), ...(planWithoutManifest === undefined ? {} : { tpchPlanWithoutManifest: planWithoutManifest }) });

describe('stagedQuery without the coordinator\'s own tpch cache', function () {
  this.timeout(60_000);
  let cached: string;
  let empty: string;

  before(async () => {
    empty = mkdtempSync(join(tmpdir(), 'vivace-staged-empty-'));
    ({ directory: cached } = await generatedTiny());
  });
  after(() => rmSync(empty, { recursive: true, force: true }));

  it('plans the same stages and splits from an empty tpch directory as from the generated cache (Q1, Q6, a count of each table)', () => {
    const statements = [TPCH_QUERIES[0]!.sql, TPCH_QUERIES[5]!.sql, ...TPCH_TABLES.map((t) => `SELECT count(*) FROM ${t.name.toUpperCase()}`)];
    for (const sql of statements) {
      const planned = stagedQuery(sql, tiny, tpchIn(empty, 0));
      expect(planned, sql).to.not.equal(undefined);
      const fromCache = stagedQuery(sql, tiny, tpchIn(cached, 0));
      // The same stages and files; only the cache's manifest may tell each file's rows too.
      expect([planned!.plan, planned!.splits.get(1)!.names], sql).to.deep.equal([fromCache!.plan, fromCache!.splits.get(1)!.names]);
    }
  });

  it('leaves a schema not generated yet to one task when the directory is the local workers\' shared cache', () => {
    const q6 = TPCH_QUERIES[5]!.sql;
    // One worker generates it; two leaves would both generate into the same directory at once.
    expect(stagedQuery(q6, tiny, tpchIn(empty, 0, false))).to.equal(undefined);
    expect(stagedQuery(q6, tiny, tpchIn(cached, 0, false))?.splits.get(1)?.names).to.deep.equal(['lineitem/lineitem-00001.parquet']);
  });

  it('decides min rows on lineitem\'s estimate (60,000 at tiny) where the manifest has the exact count (60,175)', () => {
    const q6 = TPCH_QUERIES[5]!.sql;
    expect(stagedQuery(q6, tiny, tpchIn(empty, 60_000))?.splits.get(1)?.names).to.deep.equal(['lineitem/lineitem-00001.parquet']);
    expect(stagedQuery(q6, tiny, tpchIn(empty, 60_001))).to.equal(undefined);
    expect(stagedQuery(q6, tiny, tpchIn(cached, 60_175))?.splits.get(1)?.names).to.deep.equal(['lineitem/lineitem-00001.parquet']);
    // Still one task by default (5,000,000 rows), as with the cache.
    expect(stagedQuery(q6, tiny, tpchIn(empty))).to.equal(undefined);
  });

  it('answers a huge scale factor at once: over the cap one task, under it the estimate, never the replay', () => {
    const huge = ['sf100000', 'sf1e300', 'sfInfinity', 'SF0x1p1000'].map((schema) => `SELECT count(*) FROM tpch.${schema}.lineitem`);
    let started = performance.now();
    for (const sql of huge) expect(stagedQuery(sql, tiny, tpchIn(empty, 0)), sql).to.equal(undefined);
    expect(performance.now() - started, 'over the cap').to.be.below(50);
    // Each would split: it is the part count that sends it to one task.
    for (const sql of huge) expect(cachedStages(sql, tiny, new Set(['tpch']))?.table.table, sql).to.equal('lineitem');
    // lineitem at sf500 has 2,946 parts, under the cap: the exact count would replay 750,000,000 orders
    // (seconds); the estimate is orders × 4.
    started = performance.now();
    const sf500 = stagedQuery('SELECT sum(quantity) FROM tpch.sf500.lineitem', tiny, tpchIn(empty));
    expect(performance.now() - started, 'sf500 planned').to.be.below(50);
    expect(sf500?.splits.get(1)?.names).to.have.length(2946);
    expect(sf500?.splits.get(1)?.names.at(-1)).to.equal('lineitem/lineitem-02946.parquet');
  });
});
