// Fragments whose exchange tables hold no zoned value (lib/cluster/distributed-plan.ts zoneFree): a plan
// over tpch alone marks every fragment, and a fragment with a subquery then translates without the zoned
// macros (each column of such a statement went through their untyped wrapper, a list and a lambda per
// value); a plan that makes a zoned value, or reads a table that may hold one, marks none. The answers of
// the marked plans are the one-task answers (inline-fragments, e2e distributed-tpch).
import { expect } from 'chai';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { distributedPlanOf } from '../../lib/cluster/distributed-plan.js';
import { fragmentDuckDbSql } from '../../lib/cluster/stage-sql.js';
import type { DistributedPlan, PlanFragment } from '../../lib/planner/fragment.types.js';
import { TPCH_QUERIES } from '../../lib/tpch/queries/tpch-queries.js';
import { findAll, parseStatement } from '../../lib/sql/index.js';
import { builtInConnectors, session } from './cluster-harness.js';

const tiny = session({ catalog: 'tpch', schema: 'tiny' });
const connectors = builtInConnectors(join(tmpdir(), 'vivace-no-tpch-zones'), { tpchMinRows: 0 });

/** A fragment's DuckDB SQL with each table it reads standing for a plain table of that name. */
const duckDbSql = (f: PlanFragment) => fragmentDuckDbSql(f, tiny, [...(f.scan ? [{ table: f.scan.table, source: 'SELECT * FROM scanned' }] : []), ...f.sources.map((s) => ({ table: s.table, source: `SELECT * FROM ${s.table.table}` }))]);
/** The fragments reading exchange tables with a subquery of their own. */
const withSubquery = (plan: DistributedPlan) => plan.fragments.filter((f) => {
  const statement = parseStatement(f.sql);
  return f.sources.length > 0 && findAll(statement, 'SubqueryExpression').length + findAll(statement, 'ExistsPredicate').length > 0;
});

describe('fragments whose exchange tables hold no zoned value', () => {
  it('TPC-H Q2, Q17, Q20, Q21, Q22 over tpch: every fragment marked, those with subqueries translated without the zoned macros', () => {
    for (const n of [2, 17, 20, 21, 22]) {
      const plan = distributedPlanOf(TPCH_QUERIES[n - 1]!.sql, tiny, connectors)!;
      expect(plan.fragments.every((f) => f.zoneFree), `Q${n}`).to.equal(true);
      const subqueries = withSubquery(plan);
      expect(subqueries.length, `Q${n}: a fragment over exchange tables with a subquery`).to.be.greaterThan(0);
      for (const f of subqueries) expect(duckDbSql(f), `Q${n} f${f.id}`).to.not.include('vivace_instant_key');
      // A worker given the coordinator's choices marks them alike.
      expect(distributedPlanOf(TPCH_QUERIES[n - 1]!.sql, tiny, connectors, plan.choices)!.fragments.map((f) => f.zoneFree)).to.deep.equal(plan.fragments.map((f) => f.zoneFree));
    }
  });

  it('marks none where a fragment makes a zoned value, and those keep the zoned macros', () => {
    const sql = `SELECT o.orderpriority, count(*) AS n FROM orders o, customer c WHERE o.custkey = c.custkey
      AND CAST(o.orderdate AS timestamp with time zone) > TIMESTAMP '1995-01-01 00:00:00 UTC'
      AND EXISTS (SELECT 1 FROM lineitem l WHERE l.orderkey = o.orderkey AND l.commitdate < l.receiptdate) GROUP BY 1`;
    const plan = distributedPlanOf(sql, tiny, connectors)!;
    expect(plan.fragments.some((f) => f.zoneFree)).to.equal(false);
    const subqueries = withSubquery(plan);
    expect(subqueries.length).to.be.greaterThan(0);
    for (const f of subqueries) expect(duckDbSql(f)).to.include('vivace_instant_key');
  });
});
