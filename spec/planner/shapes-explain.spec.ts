// EXPLAIN prints the plans of windows and UNION (window-stages.ts, union-stages.ts) as it prints a join's,
// a grouped semi-join source's HASH final (semi-stages.ts), a HASH final reading its HAVING subquery (Q11's shape,
// scalar-values.ts), grouping sets' HASH final (grouping-sets.ts) and a flipped RIGHT join (outer-joins.ts):
// Trino's fragments through the engine's distributedPlan hook (statement-plans.ts asks those planners first).
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDuckDbEngine, type DuckDbEngine } from '../../lib/engine/duckdb-engine.js';
import { distributedPlanFor } from '../../lib/planner/statement-plans.js';
import { generatedTiny } from '../support/generated-tiny.js';
import { TPCH_QUERIES } from '../../lib/tpch/queries/tpch-queries.js';
import { tinyMetadata } from './fragment-runner.js';
import { runSql, testSession } from '../engine/engine-helpers.js';

describe('plan shapes: EXPLAIN (TYPE DISTRIBUTED) of windows and UNION', function () {
  this.timeout(60_000);
  let engine: DuckDbEngine;
  let dir: string;

  before(async () => {
    const { directory } = await generatedTiny();
    dir = mkdtempSync(join(tmpdir(), 'vivace-shapes-explain-'));
    const metadata = tinyMetadata((t) => t === 'lineitem' || t === 'orders');
    engine = await createDuckDbEngine({ tempDirectory: dir, threads: 2, maxConnections: 1, tpch: { directory }, distributedPlan: (sql, session) => distributedPlanFor(sql, session, metadata) });
  });
  after(async () => {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const explain = async (sql: string, properties: Record<string, string> = {}) =>
    String((await runSql(engine, `EXPLAIN (TYPE DISTRIBUTED) ${sql}`, testSession({ catalog: 'tpch', schema: 'tiny', properties }))).rows[0]![0]);

  it('a window: the scan hashed on the partition key, the HASH fragment, the root', async () => {
    const text = await explain('SELECT orderkey, rank() OVER (PARTITION BY custkey ORDER BY totalprice) AS r FROM orders WHERE orderstatus = \'F\' ORDER BY r LIMIT 5');
    expect(text.match(/^Fragment \d+ \[[A-Z]+\]$/gm)).to.deep.equal(['Fragment 0 [SINGLE]', 'Fragment 1 [HASH]', 'Fragment 2 [SOURCE]']);
    expect(text).to.include('Output partitioning: HASH [custkey]').and.include('ScanFilter[table = tpch:tiny:orders');
    expect(text.match(/RemoteSource\[sourceFragmentIds = \[\d+\]\]/g)).to.have.length(2);
  });

  it('a UNION ALL: each branch\'s fragments under the SINGLE root, which reads every branch', async () => {
    const text = await explain(`SELECT orderpriority AS k, count(*) AS n FROM orders GROUP BY 1 UNION ALL SELECT name, nationkey FROM nation
      UNION ALL SELECT linestatus, linenumber FROM lineitem WHERE quantity > 49 ORDER BY k LIMIT 3`);
    expect(text.match(/^Fragment \d+ \[[A-Z]+\]$/gm)).to.deep.equal(['Fragment 0 [SINGLE]', 'Fragment 1 [SINGLE]', 'Fragment 2 [SINGLE]', 'Fragment 3 [SOURCE]', 'Fragment 4 [SOURCE]']);
    expect(text.match(/RemoteSource\[sourceFragmentIds = \[\d+\]\]/g)).to.have.length(4);
    expect(text).to.include('tpch:tiny:nation').and.include('tpch:tiny:lineitem').and.include('tpch:tiny:orders');
  });

  it('TPC-H Q18: the IN source\'s leaf hashed on its key, its final a HASH fragment broadcast to the join', async () => {
    const text = await explain(TPCH_QUERIES[17]!.sql);
    const final = text.split(/\n(?=Fragment \d)/).find((f) => /^Fragment \d+ \[HASH\]$/m.test(f) && f.includes('Output partitioning: BROADCAST []'));
    expect(final, text).to.not.equal(undefined);
    expect(final).to.match(/RemoteSource\[sourceFragmentIds = \[\d+\]\]/);
    expect(text).to.include('Output partitioning: HASH [vivace_g0]');
  });

  it('TPC-H Q11\'s shape: the final aggregation a HASH fragment on the group key, reading the HAVING subquery\'s broadcast row', async () => {
    const text = await explain(`SELECT o.orderpriority, sum(l.extendedprice) AS v FROM orders o JOIN lineitem l ON l.orderkey = o.orderkey GROUP BY o.orderpriority
      HAVING sum(l.extendedprice) > (SELECT sum(l2.extendedprice) * 0.1 FROM lineitem l2) ORDER BY v DESC`);
    const final = text.split(/\n(?=Fragment \d)/).find((f) => /^Fragment \d+ \[HASH\]$/m.test(f) && f.includes('Aggregate'));
    expect(final, text).to.not.equal(undefined);
    expect(final!.match(/RemoteSource\[sourceFragmentIds = \[\d+\]\]/g), text).to.have.length(2);
    expect(text).to.include('Output partitioning: BROADCAST []');
  });

  it('grouping sets over a join: the partial by the sets hashed on the keys and the set\'s id, the final a HASH fragment', async () => {
    const text = await explain(`SELECT o.orderpriority, l.returnflag, count(*) AS n, grouping(o.orderpriority) AS g FROM orders o JOIN lineitem l ON o.orderkey = l.orderkey
      GROUP BY ROLLUP (o.orderpriority, l.returnflag)`);
    expect(text.match(/^Fragment \d+ \[[A-Z]+\]$/gm)).to.include('Fragment 1 [HASH]');
    expect(text).to.include('Output partitioning: HASH [vivace_g0, vivace_g1, vivace_gid, vivace_gp0]');
  });

  it('a RIGHT join after an inner join, flipped: the joined rows broadcast to the preserved side\'s SOURCE fragment, no HASH fragment', async () => {
    const text = await explain(`SELECT o.orderkey, l.linenumber, n.name FROM orders o JOIN lineitem l ON l.orderkey = o.orderkey AND l.quantity > 49
      RIGHT JOIN nation n ON o.totalprice > n.nationkey * 20000 + 400000`);
    expect(text).to.not.match(/^Fragment \d+ \[HASH\]$/m);
    const preserved = text.split(/\n(?=Fragment \d)/).find((f) => f.includes('LeftJoin'));
    expect(preserved, text).to.include('RemoteSource');
    expect(text).to.include('Output partitioning: BROADCAST []');
  });

  it('TPC-H Q18 under join_distribution_type PARTITIONED: the semi-join in a HASH fragment over both sides hashed, Distribution: PARTITIONED', async () => {
    const text = await explain(TPCH_QUERIES[17]!.sql, { join_distribution_type: 'PARTITIONED' });
    const stage = text.split(/\n(?=Fragment \d)/).find((f) => f.includes('SemiJoin'));
    expect(stage, text).to.match(/^Fragment \d+ \[HASH\]$/m);
    expect(stage).to.include('Distribution: PARTITIONED');
    expect(text).to.include('Output partitioning: HASH [vivace_o0]');
    expect(text).to.not.include('BROADCAST []');
  });
});
