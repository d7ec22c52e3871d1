// The 22 TPC-H queries through the planners (join plans where they take a query, gathered plans for the
// rest), run by fragment-runner.ts over tpch.tiny: each gives the one-task answer, and each query that
// names two tables or more is planned in fragments.
import { expect } from 'chai';
import { TPCH_QUERIES } from '../../lib/tpch/queries/tpch-queries.js';
import { distributedPlanFor } from '../../lib/planner/statement-plans.js';
import { session } from '../cluster/cluster-harness.js';
import { expectSameRows } from '../cluster/same-rows.js';
import { rowsOf, runPlan, withTinyDuckDb, tinyMetadata, TINY_ROWS, translate } from './fragment-runner.js';

const JOIN_PLANNED = new Set([2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21]);
const metadata = tinyMetadata((t) => TINY_ROWS[t]! >= 2000);

describe('planner: the 22 TPC-H queries in fragments give the one-task answers', function () {
  this.timeout(120_000);
  const db = withTinyDuckDb();

  for (const q of TPCH_QUERIES) {
    it(`Q${q.number} (${q.name})`, async () => {
      const options = { tasks: 2, catalog: 'tpch', schema: 'tiny' };
      const plan = distributedPlanFor(q.sql, session({ catalog: 'tpch', schema: 'tiny' }), metadata);
      if (q.number === 1 || q.number === 6) {
        expect(plan, 'one table: the two-stage path, not this one').to.equal(undefined);
        return;
      }
      expect(plan, 'planned in fragments').to.not.equal(undefined);
      // Inner joins (Q7-Q9 through their merged derived tables, Q16 and Q18 with their IN subqueries as
      // semi-joins, Q4's EXISTS decorrelated into one, Q2, Q17 and Q21 with their correlated subqueries
      // co-partitioned, Q20's IN subquery a join plan of its own), Q13's outer join in its grouped derived
      // table, Q15's WITH query (planned once, read by the join and the max) and Q11's HAVING subquery get
      // join plans; the rest are gathered.
      expect(plan!.choices.order.length > 0, 'a join plan').to.equal(JOIN_PLANNED.has(q.number));
      expect(plan!.fragments.length).to.be.greaterThan(1);
      // Q11: its final aggregation in a HASH stage on partkey, HAVING reading the subquery's broadcast row there (scalar-values.ts).
      if (q.number === 11) {
        const final = plan!.fragments.find((f) => f.partitioning === 'HASH' && f.sql.includes('HAVING'))!;
        expect(final.sources.map((s) => plan!.fragments.find((f) => f.id === s.fragmentId)!.output.kind).sort()).to.deep.equal(['BROADCAST', 'HASH']);
      }
      const expected = await rowsOf(db(), translate(q.sql, options));
      expectSameRows(await runPlan(db(), plan!, options), expected, `Q${q.number}`);
    });
  }
});
