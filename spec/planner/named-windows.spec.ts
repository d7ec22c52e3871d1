// Named windows (lib/planner/named-windows.ts): `WINDOW w AS (...)` written into every OVER clause naming
// it, as Trino resolves a window reference, so a query with a WINDOW clause plans as the same query with its
// windows spelled out: partitioned on its PARTITION BY keys in HASH buckets (window-stages.ts), the one-task
// answer. A reference breaking the rules, or naming no window, leaves the query as written.
import { expect } from 'chai';
import { formatSql, parseStatement } from '../../lib/sql/index.js';
import { inlineNamedWindows } from '../../lib/planner/named-windows.js';
import { distributedPlanFor } from '../../lib/planner/statement-plans.js';
import { session } from '../cluster/cluster-harness.js';
import { expectSameRows } from '../cluster/same-rows.js';
import { rowsOf, runPlan, sortedRows, tinyMetadata, translate, withTinyDuckDb } from './fragment-runner.js';

const inlined = (sql: string) => formatSql(inlineNamedWindows(parseStatement(sql)));

describe('planner: named windows written into their references', function () {
  this.timeout(60_000);

  it('writes a definition into OVER w, and into OVER (w ORDER BY ...) with the reference\'s ORDER BY and frame', () => {
    expect(inlined('SELECT sum(v) OVER w, rank() OVER (w ORDER BY k) FROM t WINDOW w AS (PARTITION BY g)'))
      .to.equal('SELECT sum(v) OVER (PARTITION BY g), rank() OVER (PARTITION BY g ORDER BY k) FROM t');
    expect(inlined('SELECT sum(v) OVER (W ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t WINDOW w AS (PARTITION BY g ORDER BY k)'))
      .to.equal(inlined('SELECT sum(v) OVER (PARTITION BY g ORDER BY k ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t'));
    // A definition naming an earlier one; ORDER BY of the query reading a window function.
    expect(inlined('SELECT k FROM t WINDOW a AS (PARTITION BY g), b AS (a ORDER BY k) ORDER BY row_number() OVER b'))
      .to.equal('SELECT k FROM t ORDER BY row_number() OVER (PARTITION BY g ORDER BY k)');
    // A subquery's names are its own.
    expect(inlined('SELECT max(x) OVER w FROM (SELECT sum(v) OVER w AS x, g FROM t WINDOW w AS (PARTITION BY k)) s WINDOW w AS (PARTITION BY g)'))
      .to.equal('SELECT max(x) OVER (PARTITION BY g) FROM (SELECT sum(v) OVER (PARTITION BY k) AS x, g FROM t) AS s');
  });

  it('leaves as written a reference that breaks the rules or names no window (the one task reports the error)', () => {
    for (const sql of [
      'SELECT sum(v) OVER x FROM t WINDOW w AS (PARTITION BY g)',
      'SELECT sum(v) OVER (w PARTITION BY k) FROM t WINDOW w AS (PARTITION BY g)',
      'SELECT sum(v) OVER (w ORDER BY k) FROM t WINDOW w AS (PARTITION BY g ORDER BY v)',
      'SELECT sum(v) OVER (w ORDER BY k) FROM t WINDOW w AS (PARTITION BY g ROWS UNBOUNDED PRECEDING)',
      'SELECT sum(v) OVER w FROM t WINDOW w AS (PARTITION BY g), w AS (PARTITION BY k)',
    ]) expect(inlined(sql), sql).to.equal(formatSql(parseStatement(sql)));
    const plain = parseStatement('SELECT 1');
    expect(inlineNamedWindows(plain)).to.equal(plain);
  });

  describe('planned', () => {
    const db = withTinyDuckDb();
    const metadata = tinyMetadata((t) => ['lineitem', 'orders'].includes(t));
    for (const sql of [
      `SELECT o.custkey, o.orderkey, rank() OVER w AS r, sum(o.totalprice) OVER (w ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS s
        FROM orders o WHERE o.orderstatus = 'F' WINDOW w AS (PARTITION BY o.custkey ORDER BY o.totalprice DESC, o.orderkey)`,
      'SELECT orderkey, linenumber, lag(quantity) OVER w AS before, count(*) OVER p AS n FROM lineitem WINDOW p AS (PARTITION BY orderkey), w AS (p ORDER BY linenumber)',
    ]) {
      it(`partitions its rows on the window's keys: ${sql.slice(0, 60)}...`, async () => {
        const plan = distributedPlanFor(sql, session({ catalog: 'tpch', schema: 'tiny' }), metadata)!;
        expect(plan, 'a distributed plan').to.not.equal(undefined);
        expect(plan.fragments.some((f) => f.partitioning === 'HASH')).to.equal(true);
        const expected = sortedRows(await rowsOf(db(), translate(sql, { tasks: 1, catalog: 'tpch', schema: 'tiny' })));
        expectSameRows(sortedRows(await runPlan(db(), plan, { tasks: 3, catalog: 'tpch', schema: 'tiny' })), expected, sql);
      });
    }
  });
});
