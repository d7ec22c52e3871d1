// GROUP BY ROLLUP, CUBE and GROUPING SETS split into partial and final (lib/planner/grouping-sets.ts). Over
// one table (the two-stage plan, fragmentsOfStages) the leaf groups by every set's columns at once and the
// root computes the sets over the partial rows; above joins (the join planner) the leaf aggregates by the
// sets themselves, each row carrying its set's id (GROUPING of every key) and each grouping() call, and the
// final groups by the keys and the id in a HASH stage on them, as Trino's GroupIdNode under the partial
// aggregation. Run as fragments (fragment-runner.ts), every shape gives the one-task answer; properties over
// small random tables with NULL keys hold for 1 to 4 tasks. An ordinal inside a set stays one task; a set
// written twice keeps the root's final.
import { expect } from 'chai';
import fc from 'fast-check';
import { parseStatement } from '../../lib/sql/index.js';
import { planStages } from '../../lib/planner/aggregate-stages.js';
import { planDistributed } from '../../lib/planner/distributed-planner.js';
import { fragmentsOfStages } from '../../lib/cluster/distributed-plan.js';
import type { PlannerSession } from '../../lib/planner/planner.types.js';
import { expectSameRows } from '../cluster/same-rows.js';
import { createSmallLakeTables, plannerDuckDb, rowsOf, runPlan, smallLakeMetadata, sortedRows, tinyMetadata, translate, withTinyDuckDb } from './fragment-runner.js';

const tiny = { catalog: 'tpch', schema: 'tiny' };
const metadata = tinyMetadata((t) => ['lineitem', 'orders', 'customer'].includes(t));
const session = (joinDistribution: PlannerSession['joinDistribution'] = 'AUTOMATIC'): PlannerSession => ({ ...tiny, joinDistribution, maxBroadcastBytes: 100 * 1024 * 1024 });

const ONE_TABLE: Record<string, string> = {
  rollup: 'SELECT returnflag, linestatus, count(*) AS n, sum(quantity) AS q, avg(discount) AS d FROM lineitem GROUP BY ROLLUP (returnflag, linestatus)',
  cube: 'SELECT returnflag, shipmode, count(DISTINCT suppkey) AS s, max(extendedprice) AS m FROM lineitem WHERE quantity > 30 GROUP BY CUBE (returnflag, shipmode)',
  sets: `SELECT returnflag, linestatus, shipmode, sum(quantity) AS q, min(shipdate) AS d FROM lineitem
    GROUP BY GROUPING SETS ((returnflag), (linestatus, shipmode), ()) HAVING sum(quantity) > 1000 ORDER BY 1, 2, 3`,
  mixed: 'SELECT linestatus, returnflag, shipmode, count(*) AS n FROM lineitem GROUP BY linestatus, ROLLUP ((returnflag, shipmode))',
  ordinal: 'SELECT returnflag AS f, linestatus, count(*) FROM lineitem GROUP BY 1, CUBE (linestatus) ORDER BY 3 DESC, 1, 2 LIMIT 5',
  empty: 'SELECT returnflag, count(*) AS n, sum(quantity) AS q FROM lineitem WHERE quantity > 1000 GROUP BY ROLLUP (returnflag)',
};
const JOINED: Record<string, string> = {
  rollup: `SELECT o.orderpriority, l.returnflag, count(*) AS n, sum(l.extendedprice) AS s FROM orders o JOIN lineitem l ON o.orderkey = l.orderkey
    WHERE l.quantity > 40 GROUP BY ROLLUP (o.orderpriority, l.returnflag) ORDER BY 1, 2`,
  cube: `SELECT c.mktsegment, o.orderstatus, count(DISTINCT o.custkey) AS k, avg(o.totalprice) AS p FROM customer c JOIN orders o ON c.custkey = o.custkey
    GROUP BY CUBE (c.mktsegment, o.orderstatus)`,
  sets: `SELECT n.name, o.orderstatus, count(*) AS n FROM orders o JOIN customer c ON c.custkey = o.custkey JOIN nation n ON n.nationkey = c.nationkey
    GROUP BY GROUPING SETS ((n.name), (o.orderstatus), ()) HAVING count(*) > 100`,
  // grouping() in the select list, HAVING and ORDER BY, beside a simple element.
  grouping: `SELECT o.orderpriority, l.returnflag, l.linestatus, grouping(l.returnflag, linestatus) AS g, grouping(o.orderpriority) AS h, count(*) AS n
    FROM orders o JOIN lineitem l ON o.orderkey = l.orderkey GROUP BY o.orderpriority, CUBE (l.returnflag, l.linestatus)
    HAVING grouping(l.returnflag) = 1 OR count(*) > 2000 ORDER BY g, 1, 2, 3`,
  // count(DISTINCT x): x joins every set in the leaf, the final counts it per set in its bucket.
  distinct: `SELECT o.orderstatus, c.mktsegment, count(DISTINCT c.nationkey) AS k, sum(o.totalprice) AS t FROM orders o JOIN customer c ON c.custkey = o.custkey
    GROUP BY ROLLUP (o.orderstatus, c.mktsegment)`,
  // No row passes: the grand total's one row (count 0) all the same.
  empty: `SELECT o.orderstatus, count(*) AS n, sum(l.quantity) AS q FROM orders o JOIN lineitem l ON o.orderkey = l.orderkey WHERE l.quantity > 1000
    GROUP BY ROLLUP (o.orderstatus)`,
};

describe('planner: grouping sets split into partial and final', function () {
  this.timeout(120_000);
  const db = withTinyDuckDb();
  const oneTask = async (sql: string) => sortedRows(await rowsOf(db(), translate(sql, { ...tiny, tasks: 1 })));

  for (const [name, sql] of Object.entries(ONE_TABLE)) {
    it(`one table, ${name}: the leaf groups by every set's columns, the root by the sets; the one-task answer over 1 and 3 slices`, async () => {
      const stages = planStages(parseStatement(sql), tiny, new Set(['tpch']))!;
      expect(stages, sql).to.not.equal(undefined);
      expect(stages.leafSql).to.not.match(/ROLLUP|CUBE|GROUPING SETS/u);
      expect(stages.rootSql).to.match(/ROLLUP|CUBE|GROUPING SETS/u);
      const expected = await oneTask(sql);
      expect(expected.length, 'some rows').to.be.greaterThan(0);
      for (const tasks of [1, 3]) expectSameRows(sortedRows(await runPlan(db(), fragmentsOfStages(stages), { ...tiny, tasks })), expected, `${name} ${tasks}`);
    });
  }

  for (const [name, sql] of Object.entries(JOINED)) {
    it(`joined, ${name}: partial by the sets in the join's tasks, the final in a HASH stage on the keys and the set's id; the one-task answer under every distribution`, async () => {
      const expected = await oneTask(sql);
      expect(expected.length).to.be.greaterThan(0);
      for (const mode of ['BROADCAST', 'PARTITIONED', 'AUTOMATIC'] as const) {
        const plan = planDistributed(parseStatement(sql), session(mode), metadata)!;
        expect(plan, `${name} ${mode}`).to.not.equal(undefined);
        const final = plan.fragments.find((f) => f.partitioning === 'HASH' && f.sql.includes('vivace_gid'))!;
        expect(final, `${name} ${mode}: a HASH final`).to.not.equal(undefined);
        expect(final.sql).to.not.match(/ROLLUP|CUBE|GROUPING SETS/u);
        // Its input: the last join's partial rows by the sets, hashed on the keys and the set's id.
        const partial = plan.fragments.find((f) => f.id === final.sources[0]!.fragmentId)!;
        expect(partial.sql).to.match(/ROLLUP|CUBE|GROUPING SETS/u);
        expect(partial.output.kind === 'HASH' && partial.output.keys).to.include('vivace_gid');
        expect(planDistributed(parseStatement(sql), session(mode), metadata, plan.choices)!.fragments).to.deep.equal(plan.fragments);
        expectSameRows(sortedRows(await runPlan(db(), plan, { ...tiny, tasks: 3 })), expected, `${name} ${mode}`);
      }
    });
  }

  for (const [name, sql] of Object.entries(ONE_TABLE)) {
    it(`one table, ${name}: its sets all different, the join planner's group ids finish it in a HASH stage; the one-task answer over 1 and 3 tasks`, async () => {
      expect(planStages(parseStatement(sql), tiny, new Set(['tpch']))!.setIds, 'two stages say the group ids fit').to.equal(true);
      const plan = planDistributed(parseStatement(sql), session(), metadata)!;
      expect(plan, sql).to.not.equal(undefined);
      // SOURCE scan with the partial by the sets, hashed on the keys and the id; HASH final; SINGLE root.
      expect(plan.fragments.map((f) => f.partitioning).sort()).to.deep.equal(['HASH', 'SINGLE', 'SOURCE']);
      const leaf = plan.fragments.find((f) => f.partitioning === 'SOURCE')!;
      const final = plan.fragments.find((f) => f.partitioning === 'HASH')!;
      expect(leaf.scan?.table.table).to.equal('lineitem');
      expect(leaf.sql).to.match(/ROLLUP|CUBE|GROUPING SETS/u);
      expect(leaf.output.kind === 'HASH' && leaf.output.keys).to.include('vivace_gid');
      expect(final.sources.map((x) => x.fragmentId)).to.deep.equal([leaf.id]);
      expect(final.sql).to.include('vivace_gid').and.not.match(/ROLLUP|CUBE|GROUPING SETS/u);
      expect(plan.fragments[0]!.sources.map((x) => x.fragmentId)).to.deep.equal([final.id]);
      expect(planDistributed(parseStatement(sql), session(), metadata, plan.choices)!.fragments).to.deep.equal(plan.fragments);
      const expected = await oneTask(sql);
      for (const tasks of [1, 3]) expectSameRows(sortedRows(await runPlan(db(), plan, { ...tiny, tasks })), expected, `${name} ${tasks}`);
    });
  }

  it('one table, a set written twice: no group ids, the two stages\' root final', () => {
    const sql = 'SELECT returnflag, count(*) AS n FROM lineitem GROUP BY GROUPING SETS ((returnflag), (returnflag), ())';
    const stages = planStages(parseStatement(sql), tiny, new Set(['tpch']))!;
    expect(stages.setIds).to.equal(undefined);
    expect(stages.rootSql).to.include('GROUPING SETS');
  });

  it('leaves grouping() to the join planner and an ordinal inside a set to one task in the two stages', () => {
    for (const sql of [
      'SELECT returnflag, grouping(returnflag), count(*) FROM lineitem GROUP BY ROLLUP (returnflag)',
      'SELECT returnflag, count(*) FROM lineitem GROUP BY ROLLUP (1)',
    ]) expect(planStages(parseStatement(sql), tiny, new Set(['tpch'])), sql).to.equal(undefined);
  });

  it('grouping() over one table: the join planner\'s plan, its final in a HASH stage; the one-task answer', async () => {
    const sql = 'SELECT returnflag, linestatus, grouping(returnflag, linestatus) AS g, count(*) AS n, sum(quantity) AS q FROM lineitem GROUP BY ROLLUP (returnflag, linestatus)';
    const plan = planDistributed(parseStatement(sql), session(), metadata)!;
    expect(plan.fragments.some((f) => f.partitioning === 'HASH' && f.sql.includes('vivace_gp0'))).to.equal(true);
    expectSameRows(sortedRows(await runPlan(db(), plan, { ...tiny, tasks: 3 })), await oneTask(sql), sql);
  });

  it('keeps the root\'s final for a set written twice (Trino keeps its groups twice; one id would merge them)', async () => {
    const sql = `SELECT o.orderstatus, count(*) AS n FROM orders o JOIN customer c ON c.custkey = o.custkey GROUP BY GROUPING SETS ((o.orderstatus), (o.orderstatus), ())`;
    const plan = planDistributed(parseStatement(sql), session('PARTITIONED'), metadata)!;
    expect(plan.fragments[0]!.sql).to.include('GROUPING SETS');
    expect(plan.fragments.some((f) => f.sql.includes('vivace_gid'))).to.equal(false);
    const expected = await oneTask(sql);
    expect(expected).to.have.length(7);
    expectSameRows(sortedRows(await runPlan(db(), plan, { ...tiny, tasks: 3 })), expected, sql);
  });

  it('holds for 100 generated grouping sets over small tables with NULL keys, 1 to 4 tasks', async () => {
    const { connection, close } = await plannerDuckDb();
    try {
      await createSmallLakeTables(connection, ['a', 'b'], 0.73, 6, true);
      const lake = smallLakeMetadata(['a', 'b'], () => true);
      const options = (tasks: number) => ({ tasks, catalog: 'lake', schema: 's' });
      const element = fc.constantFrom('ROLLUP (a.g, a.k)', 'CUBE (a.g, a.k)', 'GROUPING SETS ((a.g), (a.k), ())', 'a.g, ROLLUP (a.k)', 'GROUPING SETS ((a.g, a.k), (a.k))', 'ROLLUP ((a.g, a.k))');
      const aggregates = fc.constantFrom('count(*) AS n', 'sum(a.v) AS s, count(a.v) AS c', 'avg(a.v) AS m, min(a.v) AS lo', 'count(DISTINCT a.v) AS d', 'bool_or(a.v > 5) AS o, max(a.g) AS x');
      await fc.assert(fc.asyncProperty(element, aggregates, fc.boolean(), fc.integer({ min: 1, max: 4 }), async (grouping, aggs, join, tasks) => {
        const sql = join
          ? `SELECT a.g, a.k, ${aggs}, count(b.v) AS bv, grouping(a.k, a.g) AS gk FROM a JOIN b ON a.k = b.k GROUP BY ${grouping}`
          : `SELECT a.g, a.k, ${aggs} FROM a GROUP BY ${grouping}`;
        const expected = sortedRows(await rowsOf(connection, translate(sql, options(1))));
        const planner = { catalog: 'lake', schema: 's', joinDistribution: 'PARTITIONED' as const, maxBroadcastBytes: 0 };
        const stages = join ? undefined : planStages(parseStatement(sql), options(1), new Set(['lake']))!;
        // One table: by group ids in a HASH stage when its sets are all different, else the two stages.
        const plan = join || stages!.setIds ? planDistributed(parseStatement(sql), planner, lake) : fragmentsOfStages(stages!);
        expect(plan, sql).to.not.equal(undefined);
        if (!join) expect(plan!.fragments.some((f) => f.partitioning === 'HASH'), sql).to.equal(stages!.setIds === true);
        expect(sortedRows(await runPlan(connection, plan!, options(tasks))), `${sql} (${tasks} tasks)`).to.deep.equal(expected);
      }), { numRuns: 100, seed: 20261129 });
    } finally {
      close();
    }
  });
});
