// The gathered plan of queries the join planner does not take: each table read in a fragment of its own,
// filtered by the WHERE conjuncts that read it alone, and the root running the statement over them.
import { expect } from 'chai';
import { parseStatement } from '../../lib/sql/index.js';
import { planGathered } from '../../lib/planner/gather-planner.js';
import type { PlannerSession } from '../../lib/planner/planner.types.js';
import { expectSameRows } from '../cluster/same-rows.js';
import { rowsOf, runPlan, withTinyDuckDb, tinyMetadata, translate } from './fragment-runner.js';

const metadata = tinyMetadata((t) => t === 'lineitem' || t === 'orders');
const session: PlannerSession = { catalog: 'tpch', schema: 'tiny', joinDistribution: 'AUTOMATIC', maxBroadcastBytes: 100 * 1024 * 1024 };
const plan = (sql: string) => planGathered(parseStatement(sql), session, metadata);

describe('gather planner: every table in its own fragment, the rest in the root', function () {
  this.timeout(60_000);
  const db = withTinyDuckDb();

  const answers = async (sql: string) => {
    const options = { tasks: 3, catalog: 'tpch', schema: 'tiny' };
    expectSameRows(await runPlan(db(), plan(sql)!, options), await rowsOf(db(), translate(sql, options)), sql);
  };

  it('pushes a WHERE conjunct that reads one table into that table\'s fragment, qualified by its alias', async () => {
    const sql = `SELECT o.orderpriority, count(*) FROM orders o WHERE o.orderdate >= DATE '1993-07-01' AND o.orderdate < DATE '1993-10-01'
      AND EXISTS (SELECT * FROM lineitem l WHERE l.orderkey = o.orderkey AND l.commitdate < l.receiptdate) GROUP BY 1 ORDER BY 1`;
    const p = plan(sql)!;
    const orders = p.fragments.find((f) => f.scan?.table.table === 'orders')!;
    expect(orders.sql).to.equal('SELECT "orderkey", "orderdate", "orderpriority" FROM "tpch"."tiny"."orders" AS "o" WHERE o.orderdate >= DATE \'1993-07-01\' AND o.orderdate < DATE \'1993-10-01\'');
    expect(orders.scan!.where).to.not.equal(undefined);
    // Inside the subquery: the conjunct on l alone goes down, the correlated one stays in the root.
    const lineitem = p.fragments.find((f) => f.scan?.table.table === 'lineitem')!;
    expect(lineitem.sql).to.match(/WHERE l\.commitdate < l\.receiptdate$/);
    await answers(sql);
  });

  it('keeps a filter on an outer join\'s null-supplying side in the root, and reads alike references once', async () => {
    const sql = `SELECT c.custkey, count(o.orderkey) AS n FROM customer c LEFT JOIN orders o ON c.custkey = o.custkey AND o.comment NOT LIKE '%special%requests%'
      WHERE o.totalprice > 1000 OR o.totalprice IS NULL GROUP BY c.custkey ORDER BY 2 DESC, 1 LIMIT 20`;
    const p = plan(sql)!;
    expect(p.fragments.find((f) => f.scan?.table.table === 'orders')!.sql).to.not.include('WHERE');
    await answers(sql);
    const twice = plan('SELECT count(*) FROM orders a WHERE a.totalprice > (SELECT avg(b.totalprice) FROM orders b)')!;
    expect(twice.fragments.filter((f) => f.scan?.table.table === 'orders')).to.have.length(1);
    await answers('SELECT count(*) FROM orders a WHERE a.totalprice > (SELECT avg(b.totalprice) FROM orders b)');
  });

  it('reads a table twice with different filters in two fragments', async () => {
    const sql = `SELECT count(*) FROM lineitem l1 WHERE l1.quantity > 45 AND EXISTS (SELECT 1 FROM lineitem l2 WHERE l2.quantity < 2 AND l2.orderkey = l1.orderkey)`;
    expect(plan(sql)!.fragments.filter((f) => f.scan?.table.table === 'lineitem')).to.have.length(2);
    await answers(sql);
  });

  it('refuses what a fragment cannot stand in for: column aliases of a table, TABLE t, hidden columns, parameters, other catalogs', () => {
    for (const sql of [
      'SELECT count(*) FROM orders o(a, b, c, d, e, f, g, h, i), lineitem l WHERE o.a = l.orderkey',
      'SELECT * FROM (TABLE orders) UNION ALL SELECT * FROM orders',
      'SELECT "$path" FROM orders o, lineitem l WHERE o.orderkey = l.orderkey',
      'SELECT count(*) FROM orders o, lineitem l WHERE o.orderkey = l.orderkey AND l.quantity > ?',
      'SELECT count(*) FROM orders o, memory.default.t x WHERE o.orderkey = x.k',
      'SELECT count(*) FROM nation n, region r WHERE n.regionkey = r.regionkey',
    ]) expect(plan(sql), sql).to.equal(undefined);
  });
});
