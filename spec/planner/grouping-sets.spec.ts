// GROUP BY ROLLUP, CUBE and GROUPING SETS split into partial and final (lib/planner/grouping-sets.ts): the
// leaf groups by every set's columns at once, the final computes the sets over the partial rows where the
// root runs (never in a HASH stage: a bucket of the finest keys holds no coarser set's whole group). Over one
// table (the two-stage plan, fragmentsOfStages) and above joins (the join planner), run as fragments
// (fragment-runner.ts), every shape gives the one-task answer; a property over small random tables with
// NULL keys holds for 1 to 4 tasks. grouping() and an ordinal inside a set stay one task.
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
    it(`joined, ${name}: partial in the join's tasks, the sets in the root; the one-task answer under every distribution`, async () => {
      const expected = await oneTask(sql);
      expect(expected.length).to.be.greaterThan(0);
      for (const mode of ['BROADCAST', 'PARTITIONED', 'AUTOMATIC'] as const) {
        const plan = planDistributed(parseStatement(sql), session(mode), metadata)!;
        expect(plan, `${name} ${mode}`).to.not.equal(undefined);
        const root = plan.fragments[0]!;
        expect(root.sql).to.match(/ROLLUP|CUBE|GROUPING SETS/u);
        // The root reads the last join's partial rows: no HASH final on the finest keys.
        const below = plan.fragments.find((f) => f.id === root.sources[0]!.fragmentId)!;
        expect(below.sql).to.include('GROUP BY');
        expect(below.output).to.deep.equal({ kind: 'SINGLE' });
        expect(planDistributed(parseStatement(sql), session(mode), metadata, plan.choices)!.fragments).to.deep.equal(plan.fragments);
        expectSameRows(sortedRows(await runPlan(db(), plan, { ...tiny, tasks: 3 })), expected, `${name} ${mode}`);
      }
    });
  }

  it('leaves grouping() and an ordinal inside a set to one task', () => {
    for (const sql of [
      'SELECT returnflag, grouping(returnflag), count(*) FROM lineitem GROUP BY ROLLUP (returnflag)',
      'SELECT returnflag, count(*) FROM lineitem GROUP BY ROLLUP (1)',
    ]) expect(planStages(parseStatement(sql), tiny, new Set(['tpch'])), sql).to.equal(undefined);
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
          ? `SELECT a.g, a.k, ${aggs}, count(b.v) AS bv FROM a JOIN b ON a.k = b.k GROUP BY ${grouping}`
          : `SELECT a.g, a.k, ${aggs} FROM a GROUP BY ${grouping}`;
        const expected = sortedRows(await rowsOf(connection, translate(sql, options(1))));
        const plan = join ? planDistributed(parseStatement(sql), { catalog: 'lake', schema: 's', joinDistribution: 'PARTITIONED', maxBroadcastBytes: 0 }, lake) : fragmentsOfStages(planStages(parseStatement(sql), options(1), new Set(['lake']))!);
        expect(plan, sql).to.not.equal(undefined);
        expect(sortedRows(await runPlan(connection, plan!, options(tasks))), `${sql} (${tasks} tasks)`).to.deep.equal(expected);
      }), { numRuns: 100, seed: 20261129 });
    } finally {
      close();
    }
  });
});
