// A stand-alone scalar subquery in the select list of a query that does not aggregate (source-values.ts):
// the select list runs in the last fragment (the scan's SOURCE stage, or the last join's), which reads the
// subquery's one row broadcast to its tasks, as Trino's replicated cross join with EnforceSingleRow; the root
// only orders and limits. Run as fragments (fragment-runner.ts) over 1 and 3 tasks, the one-task answer.
import { expect } from 'chai';
import { parseStatement } from '../../lib/sql/index.js';
import { planDistributed } from '../../lib/planner/distributed-planner.js';
import type { PlannerSession } from '../../lib/planner/planner.types.js';
import { expectSameRows } from '../cluster/same-rows.js';
import { rowsOf, runPlan, sortedRows, tinyMetadata, translate, withTinyDuckDb } from './fragment-runner.js';

const tiny = { catalog: 'tpch', schema: 'tiny' };
const metadata = tinyMetadata((t) => ['lineitem', 'orders', 'customer'].includes(t));
const session = (joinDistribution: PlannerSession['joinDistribution'] = 'AUTOMATIC'): PlannerSession => ({ ...tiny, joinDistribution, maxBroadcastBytes: 100 * 1024 * 1024 });

const IN_SOURCE: Record<string, string> = {
  'one table': 'SELECT o.orderkey, o.totalprice / (SELECT max(totalprice) FROM orders) AS r FROM orders o WHERE o.orderkey < 2000',
  'ORDER BY an alias, LIMIT': 'SELECT orderkey, totalprice - (SELECT avg(totalprice) FROM orders) AS d FROM orders ORDER BY d DESC, 1 LIMIT 7',
  'ORDER BY an ordinal and an item\'s expression': `SELECT l.orderkey, l.linenumber, l.quantity * (SELECT count(*) FROM customer) FROM lineitem l WHERE l.quantity > 49
    ORDER BY l.orderkey, 2`,
  'after a join': `SELECT c.name, o.totalprice, o.totalprice > (SELECT avg(totalprice) FROM orders WHERE orderstatus = 'F') AS above FROM orders o
    JOIN customer c ON c.custkey = o.custkey WHERE o.totalprice > 400000`,
  'ORDER BY ... OFFSET ... LIMIT': 'SELECT orderkey, totalprice - (SELECT avg(totalprice) FROM orders) AS d FROM orders ORDER BY d DESC, 1 OFFSET 4 LIMIT 7',
  'an empty subquery (NULL)': 'SELECT o.orderkey, (SELECT max(totalprice) FROM orders WHERE totalprice < 0) AS m FROM orders o WHERE o.orderkey < 100',
};

describe('planner: a scalar subquery in a select list that does not aggregate, evaluated in the source stage', function () {
  this.timeout(120_000);
  const db = withTinyDuckDb();
  const oneTask = async (sql: string) => sortedRows(await rowsOf(db(), translate(sql, { ...tiny, tasks: 1 })));

  for (const [name, sql] of Object.entries(IN_SOURCE)) {
    it(`${name}: the select list in the last fragment, the subquery's row broadcast to it; the one-task answer over 1 and 3 tasks`, async () => {
      for (const mode of ['AUTOMATIC', 'PARTITIONED'] as const) {
        const plan = planDistributed(parseStatement(sql), session(mode), metadata)!;
        expect(plan, `${name} ${mode}`).to.not.equal(undefined);
        const root = plan.fragments[0]!;
        expect(root.partitioning).to.equal('SINGLE');
        expect(root.sql, 'the root reads no source').to.not.match(/\(SELECT/u);
        expect(root.sources).to.have.length(1);
        const last = plan.fragments.find((f) => f.id === root.sources[0]!.fragmentId)!;
        expect(last.columns[0]).to.equal('vivace_v0');
        // ORDER BY ... LIMIT: each task keeps its first rows (a partial TopN).
        if (/LIMIT 7/u.test(sql)) expect(last.sql).to.match(new RegExp(`ORDER BY vivace_v1 DESC, vivace_v0 LIMIT ${/OFFSET 4/u.test(sql) ? 11 : 7}$`, 'u'));
        // OFFSET m: the root's, after each task's first m + n rows.
        if (/OFFSET/u.test(sql)) expect(root.sql).to.match(/OFFSET 4 ROWS LIMIT 7$/u);
        const broadcast = last.sources.map((x) => plan.fragments.find((f) => f.id === x.fragmentId)!).filter((f) => f.output.kind === 'BROADCAST');
        expect(broadcast.length, 'the subquery\'s source broadcast to the last fragment').to.be.greaterThan(0);
        expect(planDistributed(parseStatement(sql), session(mode), metadata, plan.choices)!.fragments).to.deep.equal(plan.fragments);
        const expected = await oneTask(sql);
        expect(expected.length).to.be.greaterThan(0);
        for (const tasks of [1, 3]) {
          const rows = await runPlan(db(), plan, { ...tiny, tasks });
          // With ORDER BY the root's order is the answer's.
          if (/ORDER BY/u.test(sql)) expectSameRows(rows, await rowsOf(db(), translate(sql, { ...tiny, tasks: 1 })), `${name} ${mode} ${tasks} ordered`);
          expectSameRows(sortedRows(rows), expected, `${name} ${mode} ${tasks}`);
        }
      }
    });
  }

  it('leaves the select list in the root when the query aggregates, or ORDER BY reads a column it does not select', () => {
    for (const sql of [
      'SELECT orderkey FROM orders ORDER BY totalprice / (SELECT max(totalprice) FROM orders) LIMIT 3',
      'SELECT orderkey, (SELECT max(totalprice) FROM orders) FROM orders ORDER BY custkey LIMIT 3',
    ]) {
      const plan = planDistributed(parseStatement(sql), session(), metadata);
      expect(plan?.fragments.some((f) => f.columns.includes('vivace_v0')) ?? false, sql).to.equal(false);
    }
  });
});
