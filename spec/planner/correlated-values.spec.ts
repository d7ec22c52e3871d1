// Correlated scalar subqueries in the select list and HAVING (lib/planner/correlated-values.ts): after the joins and the
// WHERE's filters the rows are hashed on the correlating keys into a HASH fragment, beside the subquery's
// table hashed alike, and each row gets the subquery's value there as a column the query above reads.
// Run as fragments (fragment-runner.ts), every shape gives the one-task answer under every distribution; a
// property over small random tables with NULL keys (a NULL key matches nothing: count 0, max NULL) holds
// for 1 to 4 tasks; a worker given the coordinator's choices derives the same fragments.
import { expect } from 'chai';
import fc from 'fast-check';
import { parseStatement } from '../../lib/sql/index.js';
import { planDistributed } from '../../lib/planner/distributed-planner.js';
import type { DistributedPlan } from '../../lib/planner/fragment.types.js';
import type { PlannerSession } from '../../lib/planner/planner.types.js';
import { expectSameRows } from '../cluster/same-rows.js';
import { createSmallLakeTables, plannerDuckDb, rowsOf, runPlan, smallLakeMetadata, sortedRows, tinyMetadata, translate, withTinyDuckDb } from './fragment-runner.js';

const tiny = { catalog: 'tpch', schema: 'tiny' };
const metadata = tinyMetadata((t) => ['lineitem', 'orders', 'customer', 'partsupp'].includes(t));
const session = (joinDistribution: PlannerSession['joinDistribution'] = 'AUTOMATIC'): PlannerSession => ({ ...tiny, joinDistribution, maxBroadcastBytes: 100 * 1024 * 1024 });

const SHAPES: Record<string, string> = {
  count: 'SELECT c.custkey, (SELECT count(*) FROM orders o WHERE o.custkey = c.custkey) AS n FROM customer c WHERE c.nationkey < 5',
  grouped: `SELECT c.nationkey, sum((SELECT max(o.totalprice) FROM orders o WHERE o.custkey = c.custkey AND o.orderstatus = 'F')) AS m, count(*) AS n
    FROM customer c GROUP BY c.nationkey`,
  joined: `SELECT c.name, n.name AS nation, coalesce((SELECT avg(o.totalprice) FROM orders o WHERE o.custkey = c.custkey), 0) + 1 AS a FROM customer c
    JOIN nation n ON n.nationkey = c.nationkey WHERE c.acctbal > 5000 ORDER BY a DESC, c.name LIMIT 10`,
  // Two values on other keys, and a WHERE conjunct correlated on a third: three HASH fragments in a row.
  several: `SELECT o.orderkey, (SELECT count(*) FROM lineitem l WHERE l.orderkey = o.orderkey AND l.quantity > 45) AS big,
      (SELECT max(c.acctbal) FROM customer c WHERE c.custkey = o.custkey) AS acctbal
    FROM orders o WHERE o.orderkey < 3000 AND o.totalprice > (SELECT 4 * avg(l2.extendedprice) FROM lineitem l2 WHERE l2.orderkey = o.orderkey)`,
  // HAVING's subquery over group keys: computed per row, read once per group as arbitrary(column).
  having: `SELECT c.nationkey, count(*) AS n FROM customer c GROUP BY c.nationkey
    HAVING count(*) > (SELECT count(*) * 55 FROM nation n WHERE n.nationkey = c.nationkey AND n.regionkey < 3)`,
  havingJoined: `SELECT o.orderstatus, c.mktsegment, sum(o.totalprice) AS t FROM orders o JOIN customer c ON c.custkey = o.custkey
    GROUP BY o.orderstatus, c.mktsegment HAVING sum(o.totalprice) > (SELECT sum(o2.totalprice) / 5.2 FROM orders o2 WHERE o2.orderstatus = o.orderstatus)`,
};

/** The HASH fragments that compute a value column. */
const valueStages = (plan: DistributedPlan) => plan.fragments.filter((f) => f.partitioning === 'HASH' && f.sql.includes('AS vivace_v'));

describe('planner: correlated scalar subqueries in the select list, co-partitioned', function () {
  this.timeout(120_000);
  const db = withTinyDuckDb();
  const oneTask = async (sql: string) => rowsOf(db(), translate(sql, { ...tiny, tasks: 1 }));

  for (const [name, sql] of Object.entries(SHAPES)) {
    it(`${name}: a HASH fragment computes each value; the one-task answer under every distribution`, async () => {
      const ordered = /ORDER BY/u.test(sql);
      const expected = await oneTask(sql);
      expect(expected.length).to.be.greaterThan(0);
      for (const mode of ['BROADCAST', 'PARTITIONED', 'AUTOMATIC'] as const) {
        const plan = planDistributed(parseStatement(sql), session(mode), metadata)!;
        expect(plan, `${name} ${mode}`).to.not.equal(undefined);
        expect(valueStages(plan), name).to.have.length(name === 'several' ? 2 : 1);
        expect(planDistributed(parseStatement(sql), session(mode), metadata, plan.choices)!.fragments).to.deep.equal(plan.fragments);
        const actual = await runPlan(db(), plan, { ...tiny, tasks: 3 });
        expectSameRows(ordered ? actual : sortedRows(actual), ordered ? expected : sortedRows(expected), `${name} ${mode}`);
      }
    });
  }

  // An uncorrelated one is a broadcast source (scalar-values.spec.ts).
  it('leaves a scalar subquery correlated by no equality in the select list, one beside an outer join, and HAVING\'s over a column no group key, to the other planners', () => {
    for (const sql of [
      'SELECT c.custkey, (SELECT count(*) FROM orders o WHERE o.custkey > c.custkey) AS n FROM customer c',
      'SELECT c.custkey, (SELECT count(*) FROM orders o WHERE o.custkey = c.custkey) AS n FROM customer c LEFT JOIN nation n ON n.nationkey = c.nationkey',
      // HAVING's subquery reading a column that is no group key (Trino refuses it; the one task says so).
      'SELECT c.nationkey, count(*) FROM customer c GROUP BY c.nationkey HAVING count(*) > (SELECT count(*) FROM orders o WHERE o.custkey = c.custkey)',
    ]) expect(planDistributed(parseStatement(sql), session(), metadata), sql).to.equal(undefined);
  });

  it('holds for 80 generated select-list subqueries over small tables with NULL keys, 1 to 4 tasks', async () => {
    const { connection, close } = await plannerDuckDb();
    try {
      await createSmallLakeTables(connection, ['a', 'b', 'c'], 0.19, 8, true);
      const lake = smallLakeMetadata(['a', 'b', 'c'], (t) => t !== 'c');
      const options = (tasks: number) => ({ tasks, catalog: 'lake', schema: 's' });
      const value = fc.constantFrom('count(*)', 'max(x.v)', 'sum(x.v) + 1', 'count(DISTINCT x.g)', 'min(x.g)');
      const filter = fc.constantFrom('', ' AND x.v > 3', ' AND x.g <> \'a\'');
      const outer = fc.constantFrom('a', 'a JOIN c ON a.g = c.g', 'a JOIN c ON a.k = c.k');
      const shape = fc.constantFrom('rows', 'grouped', 'filtered');
      await fc.assert(fc.asyncProperty(value, filter, outer, shape, fc.constantFrom('k', 'g'), fc.integer({ min: 1, max: 4 }), async (v, f, from, s, key, tasks) => {
        const sub = `(SELECT ${v} FROM b x WHERE x.${key} = a.${key}${f})`;
        const sql = s === 'grouped' ? `SELECT a.g, max(${sub}) AS s, count(*) AS n FROM ${from} GROUP BY a.g`
          : s === 'filtered' ? `SELECT a.k, a.v, ${sub} AS s FROM ${from} WHERE a.v > 2`
            : `SELECT a.k, a.g, ${sub} AS s FROM ${from}`;
        const plan = planDistributed(parseStatement(sql), { catalog: 'lake', schema: 's', joinDistribution: 'AUTOMATIC', maxBroadcastBytes: 100 * 1024 * 1024 }, lake);
        expect(plan, sql).to.not.equal(undefined);
        expectSameRows(sortedRows(await runPlan(connection, plan!, options(tasks))), sortedRows(await rowsOf(connection, translate(sql, options(1)))), `${sql} (${tasks} tasks)`);
      }), { numRuns: 80, seed: 20261129 });
    } finally {
      close();
    }
  });
});
