// Derived tables that group, as relations of their own (derived-relations.ts): each is a sub-plan whose rows
// feed the query above in its own tasks. Run by fragment-runner.ts, each gives the one-task answer under
// every join distribution; TPC-H Q13's plan has Trino's shape.
import { expect } from 'chai';
import { parseStatement } from '../../lib/sql/index.js';
import { TPCH_QUERIES } from '../../lib/tpch/queries/tpch-queries.js';
import { planDistributed } from '../../lib/planner/distributed-planner.js';
import type { PlannerSession } from '../../lib/planner/planner.types.js';
import { MAX_SUB_PLAN_DEPTH } from '../../lib/planner/fragment.types.js';
import { rowsOf, runPlan, sortedRows, withTinyDuckDb, tinyMetadata, translate } from './fragment-runner.js';
import { expectSameRows } from '../cluster/same-rows.js';

const SPLIT = new Set(['lineitem', 'orders', 'partsupp', 'customer']);
const metadata = tinyMetadata((t) => SPLIT.has(t));
const session = (joinDistribution: PlannerSession['joinDistribution'] = 'AUTOMATIC'): PlannerSession =>
  ({ catalog: 'tpch', schema: 'tiny', joinDistribution, maxBroadcastBytes: 100 * 1024 * 1024 });
const Q13 = TPCH_QUERIES.find((q) => q.number === 13)!.sql;
const Q15 = TPCH_QUERIES.find((q) => q.number === 15)!.sql;

const SHAPES: Record<string, string> = {
  Q13,
  // Q15 without its WITH: a grouped derived table over one table joined to a table, filtered above.
  JOINED: `SELECT s.suppkey, s.name, r.total FROM supplier s, (SELECT l.suppkey AS k, sum(l.extendedprice) AS total FROM lineitem l
    WHERE l.shipdate >= DATE '1996-01-01' GROUP BY l.suppkey) AS r WHERE s.suppkey = r.k AND r.total > 1500000 ORDER BY s.suppkey`,
  // A WHERE on the derived table's columns alone, pushed onto its rows; its columns read qualified and not.
  FILTERED: `SELECT t.n, count(*) AS customers, max(t.spent) AS most FROM (SELECT o.custkey, count(*) AS n, sum(o.totalprice) AS spent
    FROM orders o GROUP BY o.custkey) t WHERE n > 10 AND t.spent > 100000 GROUP BY t.n`,
  // A global aggregate inside: its one row comes from a SINGLE root, cross joined.
  GLOBAL: `SELECT o.orderpriority, count(*) AS n FROM orders o, (SELECT avg(l.quantity) AS q FROM lineitem l) AS a, lineitem l
    WHERE l.orderkey = o.orderkey AND l.quantity > a.q GROUP BY o.orderpriority`,
  // One derived table inside another; the outer one joined to a table on a left outer join.
  NESTED: `SELECT c.mktsegment, count(x.c) AS with_orders, count(*) AS n FROM customer c LEFT JOIN (
      SELECT k, count(*) AS c FROM (SELECT o.custkey AS k, o.orderkey FROM orders o JOIN lineitem l ON l.orderkey = o.orderkey WHERE l.quantity > 49) AS i GROUP BY k
    ) AS x (k, c) ON x.k = c.custkey GROUP BY c.mktsegment`,
  // WITH queries inline: one read twice (once in a scalar subquery, TPC-H Q15), one reading another, column names.
  Q15,
  WITH: `WITH big (k, total) AS (SELECT o.custkey, max(o.totalprice) FROM orders o GROUP BY o.custkey), top AS (SELECT k FROM big WHERE total > 450000)
    SELECT c.name, b.total FROM customer c JOIN big b ON b.k = c.custkey WHERE c.custkey IN (SELECT k FROM top) AND b.total > (SELECT avg(total) FROM big) ORDER BY 1`,
  // A grouped WITH query joined to itself, and read again in an IN subquery: planned once.
  SELF: `WITH a AS (SELECT o.custkey, count(*) AS n, sum(o.totalprice) AS t FROM orders o GROUP BY o.custkey)
    SELECT x.n, count(*) AS c, sum(y.t) AS t FROM a x LEFT JOIN a y ON x.n = y.custkey WHERE x.custkey IN (SELECT custkey FROM a WHERE t > 1000000) GROUP BY x.n`,
  // A stand-alone subquery in HAVING (TPC-H Q11), over a join, and over a derived table.
  Q11: TPCH_QUERIES.find((q) => q.number === 11)!.sql,
  HAVING: `SELECT o.orderpriority, count(*) AS n FROM orders o JOIN lineitem l ON l.orderkey = o.orderkey GROUP BY o.orderpriority
    HAVING count(*) > (SELECT avg(n) FROM (SELECT o2.orderstatus, count(*) AS n FROM orders o2 GROUP BY o2.orderstatus) AS x) / 2`,
  // Semi-joins inside the derived table (its scan's IN, its HAVING's scalar subquery) and above it.
  SEMIS: `SELECT t.n, count(*) AS c FROM (SELECT o.custkey, count(*) AS n FROM orders o WHERE o.custkey IN (SELECT c.custkey FROM customer c WHERE c.acctbal > 5000)
    GROUP BY o.custkey) AS t WHERE t.custkey NOT IN (SELECT c2.custkey FROM customer c2 WHERE c2.nationkey = 3) GROUP BY t.n`,
  HAVING_INSIDE: `SELECT t.n, count(*) AS c FROM (SELECT o.custkey, count(*) AS n FROM orders o GROUP BY o.custkey
    HAVING count(*) > (SELECT count(*) FROM orders o2 WHERE o2.orderstatus = 'P') / 100) AS t GROUP BY t.n`,
  // Two derived tables joined to each other.
  TWO: `SELECT a.k, a.n, b.m FROM (SELECT custkey AS k, count(*) AS n FROM orders GROUP BY custkey) AS a
    FULL JOIN (SELECT c.nationkey AS k, count(*) AS m FROM customer c GROUP BY c.nationkey) AS b ON a.k = b.k`,
};

describe('planner: derived tables that group, as sub-plans', function () {
  this.timeout(120_000);
  const db = withTinyDuckDb();
  const oneTask = (sql: string) => rowsOf(db(), translate(sql, { tasks: 1, catalog: 'tpch', schema: 'tiny' }));

  for (const [name, sql] of Object.entries(SHAPES)) {
    it(`${name}: the one-task answer, broadcast, partitioned and automatic, and the same plan from its choices`, async () => {
      const expected = sortedRows(await oneTask(sql));
      expect(expected.length, name).to.be.greaterThan(0);
      for (const mode of ['BROADCAST', 'PARTITIONED', 'AUTOMATIC'] as const) {
        const plan = planDistributed(parseStatement(sql), session(mode), metadata);
        expect(plan, `${name} ${mode}: a join plan`).to.not.equal(undefined);
        expect(plan!.choices.derived === undefined, name).to.equal(name === 'Q11');
        expectSameRows(sortedRows(await runPlan(db(), plan!, { tasks: 3, catalog: 'tpch', schema: 'tiny' })), expected, `${name} ${mode}`);
        // A worker derives the same fragments from the choices (the derived tables' among them).
        expect(planDistributed(parseStatement(sql), session(), metadata, plan!.choices)!.fragments, name).to.deep.equal(plan!.fragments);
        if (name !== 'Q11') expect(planDistributed(parseStatement(sql), session(), metadata, { ...plan!.choices, derived: [] }), name).to.equal(undefined);
      }
    });
  }

  it('plans a WITH query read twice once, its rows read whole by each reader (TPC-H Q15 compares a double sum with its own max)', () => {
    const plan = planDistributed(parseStatement(Q15), session(), metadata)!;
    // lineitem is scanned once; the revenue rows' fragment is read by the join with supplier and by the max.
    expect(plan.fragments.filter((f) => f.scan?.table.table === 'lineitem')).to.have.length(1);
    const revenue = plan.fragments.find((f) => f.sources.some((s) => plan.fragments.find((x) => x.id === s.fragmentId)!.scan?.table.table === 'lineitem'))!;
    expect(revenue.output).to.deep.equal({ kind: 'BROADCAST' });
    const readers = plan.fragments.filter((f) => f.sources.some((s) => s.fragmentId === revenue.id));
    expect(readers).to.have.length(2);
    // Numbered after both its readers, as every fragment comes after its consumers.
    expect(plan.fragments.findIndex((f) => f.id === revenue.id)).to.be.greaterThan(Math.max(...readers.map((r) => plan.fragments.indexOf(r))));
    expect(revenue.id).to.be.greaterThan(Math.max(...readers.map((r) => r.id)));
    // Joined to itself and read in a subquery: one scan of orders, its grouped rows read three times.
    const self = planDistributed(parseStatement(SHAPES.SELF!), session('PARTITIONED'), metadata)!;
    expect(self.fragments.filter((f) => f.scan?.table.table === 'orders')).to.have.length(1);
    const grouped = self.fragments.find((f) => f.output.kind === 'BROADCAST' && f.partitioning === 'HASH')!;
    expect(self.fragments.filter((f) => f.sources.some((s) => s.fragmentId === grouped.id))).to.have.length(3);
  });

  it('plans Q13 as Trino does: the inner aggregation and the outer partial in one HASH stage, the outer final in another', () => {
    const plan = planDistributed(parseStatement(Q13), session(), metadata)!;
    const byId = (id: number) => plan.fragments.find((f) => f.id === id)!;
    const root = plan.fragments[0]!;
    const outerFinal = byId(root.sources[0]!.fragmentId);
    expect(outerFinal.partitioning).to.equal('HASH');
    const inner = byId(outerFinal.sources[0]!.fragmentId);
    expect(inner.partitioning).to.equal('HASH');
    expect(inner.output).to.deep.equal({ kind: 'HASH', keys: ['vivace_g0'] });
    // Grouped by c.custkey, then by its count, in the same tasks; the column aliases name the counts.
    expect(inner.sql).to.include('AS "c_orders" ("c_custkey", "c_count")');
    expect(inner.sql).to.match(/GROUP BY vivace_g0\) AS "c_orders" .* GROUP BY vivace_r0_1$/);
    const join = byId(inner.sources[0]!.fragmentId);
    expect(join.sql).to.include(' LEFT JOIN ');
    expect(plan.tables.map((t) => t.table).sort()).to.deep.equal(['customer', 'orders']);
  });

  it('plans derived tables in derived tables as deep as the workers take their choices, and gathers a deeper one', async () => {
    const nested = (levels: number) => {
      let sql = 'SELECT o.custkey AS k, count(*) AS c FROM orders o GROUP BY o.custkey';
      for (let i = 0; i < levels; i++) sql = `SELECT t${i}.k % ${10 + i} AS k, max(t${i}.c) AS c FROM (${sql}) AS t${i} GROUP BY 1`;
      return sql;
    };
    const sql = nested(MAX_SUB_PLAN_DEPTH);
    const plan = planDistributed(parseStatement(sql), session(), metadata)!;
    let depth = 0;
    for (let c = plan.choices; c.derived; c = c.derived[0]!) depth++;
    expect(depth).to.equal(MAX_SUB_PLAN_DEPTH);
    expectSameRows(sortedRows(await runPlan(db(), plan, { tasks: 2, catalog: 'tpch', schema: 'tiny' })), sortedRows(await oneTask(sql)), 'nested');
    expect(planDistributed(parseStatement(nested(MAX_SUB_PLAN_DEPTH + 1)), session(), metadata)).to.equal(undefined);
  });

  it('leaves to the gathered plan a derived table it cannot name the columns of, and WITH queries it cannot inline', () => {
    for (const sql of [
      'SELECT max(n) FROM (SELECT o.custkey, count(*) FROM orders o GROUP BY o.custkey) t (a, b, c)',
      'SELECT count(*) FROM (SELECT o.custkey, count(*) FROM orders o GROUP BY o.custkey) t',
      'SELECT count(*) FROM (SELECT o.custkey, o.custkey FROM orders o GROUP BY o.custkey) t',
      'SELECT count(*) FROM (SELECT o.custkey FROM orders o GROUP BY o.custkey ORDER BY 1 LIMIT 5) t',
      'SELECT count(*) FROM (SELECT * FROM orders o) t (a)',
      // The derived table's HAVING reads a subquery's rows in the fragment the query above reads it in, which reads one of its own.
      `${SHAPES.HAVING_INSIDE} HAVING count(*) > (SELECT count(*) FROM nation)`,
      // A recursive WITH, a WITH inside that may shadow, TABLE name as a query.
      'WITH RECURSIVE t (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 3) SELECT count(*) FROM t, orders o, lineitem l WHERE o.orderkey = l.orderkey',
      'WITH a AS (SELECT custkey, count(*) AS n FROM orders GROUP BY custkey) SELECT count(*) FROM a, (WITH a AS (SELECT 1 AS custkey) SELECT custkey FROM a) b WHERE a.custkey = b.custkey',
      'WITH a AS (SELECT custkey, count(*) AS n FROM orders GROUP BY custkey) SELECT count(*) FROM customer c WHERE c.custkey IN (TABLE a)',
      // A WITH query read through another's SELECT * (whose columns a derived table cannot name). One read twice
      // whose value is a stand-alone subquery's is planned once (scalar-values.spec.ts withTwice).
      'WITH a AS (SELECT custkey, avg(totalprice) AS m FROM orders GROUP BY custkey), b AS (SELECT * FROM a) SELECT count(*) FROM a JOIN b ON a.custkey = b.custkey AND a.m = b.m',
    ]) expect(planDistributed(parseStatement(sql), session(), metadata), sql).to.equal(undefined);
  });
});
