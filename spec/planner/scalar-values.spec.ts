// Stand-alone (uncorrelated) subqueries in the select list and HAVING (lib/planner/scalar-values.ts): each
// runs once and its rows are broadcast to the fragment that evaluates the expression around it, the final
// aggregation's (a HASH stage on the group keys, or the root) when the query groups, the scan's (or last
// join's) when it does not (source-values.ts), so the aggregation still
// splits into partial and final. Run as fragments (fragment-runner.ts), every shape gives the one-task answer
// under every distribution, and a worker given the coordinator's choices derives the same fragments.
import { expect } from 'chai';
import { parseStatement } from '../../lib/sql/index.js';
import { planDistributed } from '../../lib/planner/distributed-planner.js';
import type { DistributedPlan, PlanFragment } from '../../lib/planner/fragment.types.js';
import type { PlannerSession } from '../../lib/planner/planner.types.js';
import { expectSameRows } from '../cluster/same-rows.js';
import { rowsOf, runPlan, sortedRows, tinyMetadata, translate, withTinyDuckDb } from './fragment-runner.js';

const tiny = { catalog: 'tpch', schema: 'tiny' };
const metadata = tinyMetadata((t) => ['lineitem', 'orders', 'customer', 'partsupp'].includes(t));
const session = (joinDistribution: PlannerSession['joinDistribution'] = 'AUTOMATIC'): PlannerSession => ({ ...tiny, joinDistribution, maxBroadcastBytes: 100 * 1024 * 1024 });

/** Each shape, and the partitioning of the fragment that reads the subquery's rows (its final aggregation's, or the root's). */
const SHAPES: Record<string, [string, 'HASH' | 'SINGLE' | 'SOURCE']> = {
  // Grouped over a join: partial in the join's tasks, final (with the share) in the HASH stage.
  share: [`SELECT o.orderpriority, sum(o.totalprice) / (SELECT sum(o2.totalprice) FROM orders o2) AS share, count(*) AS n
    FROM orders o JOIN customer c ON c.custkey = o.custkey WHERE c.acctbal > 0 GROUP BY o.orderpriority`, 'HASH'],
  // One table, grouped, the value in HAVING and in the select list: TPC-H Q11's shape without its joins.
  having: [`SELECT ps.partkey, sum(ps.supplycost * ps.availqty) AS v, (SELECT count(*) FROM nation) AS k FROM partsupp ps
    GROUP BY ps.partkey HAVING sum(ps.supplycost * ps.availqty) > (SELECT sum(p2.supplycost * p2.availqty) * 0.0005 FROM partsupp p2)`, 'HASH'],
  // A global aggregation: the final and the value in the root.
  global: [`SELECT count(*) AS n, (SELECT max(n.nationkey) FROM nation n) AS m, sum(l.quantity) - (SELECT min(l2.quantity) FROM lineitem l2) AS q
    FROM lineitem l WHERE l.quantity > 49`, 'SINGLE'],
  // Rows, no aggregation: the scan's SOURCE fragment projects (source-values.ts), the root gathers.
  rows: [`SELECT c.custkey, c.acctbal - (SELECT avg(c2.acctbal) FROM customer c2) AS d FROM customer c WHERE c.acctbal > 9900`, 'SOURCE'],
  // Inside an aggregate's argument: read per row by the partial in the scan's tasks, as Trino's cross join below the aggregation.
  inside: [`SELECT o.orderstatus, sum(o.totalprice - (SELECT min(o2.totalprice) FROM orders o2)) AS s FROM orders o GROUP BY o.orderstatus`, 'SOURCE'],
  // An item of a DISTINCT: the DISTINCT an aggregation (distinct-groups.ts), its partial in the scan's tasks reading the value, its final in a HASH stage.
  distinct: [`SELECT DISTINCT o.orderstatus, o.orderpriority, (SELECT max(o2.totalprice) FROM orders o2) > 500000 AS big FROM orders o WHERE o.custkey < 1000`, 'SOURCE'],
  // IN as a value (NULL where the value is NULL), and an EXISTS as a value (never NULL) beside it.
  inValue: [`SELECT c.custkey, c.nationkey IN (SELECT n.nationkey FROM nation n WHERE n.regionkey = 1) AS i,
    CASE WHEN c.custkey % 7 = 0 THEN NULL ELSE c.nationkey END IN (SELECT n.nationkey FROM nation n WHERE n.regionkey = 2) AS j FROM customer c WHERE c.custkey < 200`, 'SINGLE'],
  // A WITH query read twice, its value a double sum: planned once (its subquery too), its rows read by both
  // references, so x.share = y.share holds as in one task.
  withTwice: [`WITH a AS (SELECT o.custkey, o.totalprice / (SELECT sum(totalprice) FROM orders) AS share FROM orders o)
    SELECT count(*) AS n FROM a x JOIN a y ON x.custkey = y.custkey AND x.share = y.share`, 'SINGLE'],
  // An empty source: the value is NULL.
  empty: [`SELECT o.orderstatus, count(*) AS n, max(o.totalprice) + (SELECT max(c.acctbal) FROM customer c WHERE c.acctbal > 100000) AS m FROM orders o GROUP BY o.orderstatus`, 'HASH'],
};

/** The fragments that read a broadcast source (the subquery's rows): without scanning a table, unless `scanning`. */
const readers = (plan: DistributedPlan, scanning = false): PlanFragment[] => plan.fragments.filter((f) => (scanning || f.scan === undefined) && f.sources.some((s) => {
  const source = plan.fragments.find((x) => x.id === s.fragmentId)!;
  return source.output.kind === 'BROADCAST';
}));

describe('planner: stand-alone subqueries in the select list and HAVING, broadcast to the final aggregation', function () {
  this.timeout(120_000);
  const db = withTinyDuckDb();
  const oneTask = async (sql: string) => rowsOf(db(), translate(sql, { ...tiny, tasks: 1 }));

  for (const [name, [sql, reader]] of Object.entries(SHAPES)) {
    it(`${name}: its rows broadcast to the ${reader} fragment evaluating it; the one-task answer under every distribution`, async () => {
      const expected = sortedRows(await oneTask(sql));
      expect(expected.length).to.be.greaterThan(0);
      for (const mode of ['BROADCAST', 'PARTITIONED', 'AUTOMATIC'] as const) {
        const plan = planDistributed(parseStatement(sql), session(mode), metadata)!;
        expect(plan, `${name} ${mode}`).to.not.equal(undefined);
        expect(readers(plan, reader === 'SOURCE').map((f) => f.partitioning), `${name} ${mode}`).to.include(reader);
        expect(planDistributed(parseStatement(sql), session(mode), metadata, plan.choices)!.fragments).to.deep.equal(plan.fragments);
        expectSameRows(sortedRows(await runPlan(db(), plan, { ...tiny, tasks: 3 })), expected, `${name} ${mode}`);
      }
    });
  }

  it('keeps the aggregation split: partial aggregates in the leaves, the value read only by the final', () => {
    const plan = planDistributed(parseStatement(SHAPES.share![0]), session('PARTITIONED'), metadata)!;
    const final = plan.fragments.find((f) => f.partitioning === 'HASH' && f.sql.includes('vivace_o0'))!;
    expect(final, 'a HASH final').to.not.equal(undefined);
    const partial = plan.fragments.find((f) => f.output.kind === 'HASH' && f.columns.some((c) => c.startsWith('vivace_g')))!;
    expect(partial.sql).to.match(/sum\(/u);
    // The subquery's own two stages (a global sum over orders' splits) feed the final only.
    const source = plan.fragments.find((f) => f.output.kind === 'BROADCAST')!;
    expect(final.sources.map((s) => s.fragmentId)).to.include(source.id);
    expect(partial.sql).to.not.include(`f${source.id}`);
  });
});
