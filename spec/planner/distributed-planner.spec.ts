// The distributed planner on the tree alone: which fragments a join query becomes, and that running them
// (spec/planner/fragment-runner.ts: slices, buckets and broadcasts in one DuckDB) gives the one-task answer,
// whatever the join distribution.
import { expect } from 'chai';
import { parseStatement } from '../../lib/sql/index.js';
import { TPCH_QUERIES } from '../../lib/tpch/queries/tpch-queries.js';
import { planDistributed } from '../../lib/planner/distributed-planner.js';
import type { PlannerSession } from '../../lib/planner/planner.types.js';
import { rowsOf, runPlan, withTinyDuckDb, tinyMetadata, translate } from './fragment-runner.js';
import { expectSameRows } from '../cluster/same-rows.js';

const SPLIT = new Set(['lineitem', 'orders', 'partsupp', 'customer']);
const metadata = tinyMetadata((t) => SPLIT.has(t));
const session = (joinDistribution: PlannerSession['joinDistribution'] = 'AUTOMATIC', maxBroadcastBytes = 100 * 1024 * 1024): PlannerSession =>
  ({ catalog: 'tpch', schema: 'tiny', joinDistribution, maxBroadcastBytes });

const Q3 = `SELECT l.orderkey, round(sum(l.extendedprice * (1 - l.discount)), 2) AS revenue, o.orderdate, o.shippriority
  FROM customer c, orders o, lineitem l
  WHERE c.mktsegment = 'BUILDING' AND c.custkey = o.custkey AND l.orderkey = o.orderkey
    AND o.orderdate < DATE '1995-03-15' AND l.shipdate > DATE '1995-03-15'
  GROUP BY l.orderkey, o.orderdate, o.shippriority ORDER BY revenue DESC, o.orderdate, l.orderkey LIMIT 10`;
const Q5 = `SELECT n.name, round(sum(l.extendedprice * (1 - l.discount)), 2) AS revenue
  FROM customer c, orders o, lineitem l, supplier s, nation n, region r
  WHERE c.custkey = o.custkey AND l.orderkey = o.orderkey AND l.suppkey = s.suppkey AND c.nationkey = s.nationkey
    AND s.nationkey = n.nationkey AND n.regionkey = r.regionkey AND r.name = 'ASIA'
    AND o.orderdate >= DATE '1994-01-01' AND o.orderdate < DATE '1995-01-01'
  GROUP BY n.name ORDER BY revenue DESC`;
// Exact decimal sums: double sums in another order may differ in the last digit, as in Trino.
const Q10 = `SELECT c.custkey, c.name, sum(CAST(l.extendedprice AS decimal(12, 2)) * (1 - CAST(l.discount AS decimal(12, 2)))) AS revenue, c.acctbal, n.name, c.address, c.phone, c.comment
  FROM customer AS c JOIN orders AS o ON c.custkey = o.custkey JOIN lineitem AS l ON l.orderkey = o.orderkey JOIN nation AS n ON c.nationkey = n.nationkey
  WHERE o.orderdate >= DATE '1993-10-01' AND o.orderdate < DATE '1994-01-01' AND l.returnflag = 'R'
  GROUP BY c.custkey, c.name, c.acctbal, c.phone, n.name, c.address, c.comment ORDER BY revenue DESC, c.custkey LIMIT 20`;
const PLAIN = `SELECT o.orderkey, l.linenumber, l.quantity FROM orders o JOIN lineitem l ON o.orderkey = l.orderkey
  WHERE o.totalprice > 400000 ORDER BY 1, 2`;
const DISTINCT = `SELECT o.orderpriority, count(DISTINCT l.suppkey) AS suppliers, count(*) AS n FROM lineitem l, orders o
  WHERE l.orderkey = o.orderkey AND l.commitdate < l.receiptdate GROUP BY o.orderpriority ORDER BY 1`;
const CROSS = `SELECT r.name, count(*) AS n, sum(l.quantity) AS q FROM lineitem l CROSS JOIN region r
  WHERE l.quantity > 49 GROUP BY r.name ORDER BY r.name`;
const TOPN = `SELECT o.orderkey AS k, l.linenumber, l.extendedprice * (1 - l.discount) AS net FROM orders o JOIN lineitem l ON o.orderkey = l.orderkey
  WHERE l.quantity > 10 ORDER BY net DESC, 1, 2 LIMIT 7`;
const DERIVED = `SELECT flag, year, count(*) AS n, sum(amount) AS total FROM (
    SELECT l.returnflag AS flag, extract(YEAR FROM o.orderdate) AS year, l.extendedprice * (1 - l.discount) AS amount, o.orderpriority
    FROM orders o JOIN lineitem l ON o.orderkey = l.orderkey WHERE l.quantity > 10) AS t
  WHERE t.orderpriority <> '1-URGENT' AND amount > 1000 GROUP BY flag, year HAVING count(*) > 5 ORDER BY year, flag`;
// Stand-alone IN subqueries: semi-joins with their rows broadcast (one pushed into a scan, one NOT IN across two tables).
const SEMI = `SELECT o.orderpriority, count(*) AS n FROM orders o JOIN lineitem l ON o.orderkey = l.orderkey
  WHERE l.partkey IN (SELECT p.partkey FROM part p WHERE p.size < 10 AND p.type LIKE '%BRASS')
    AND o.custkey + l.suppkey NOT IN (SELECT c.custkey FROM customer c WHERE c.acctbal > 9000 GROUP BY c.custkey HAVING count(*) = 1)
  GROUP BY o.orderpriority ORDER BY 1`;
// EXISTS and NOT EXISTS correlated by one equality: decorrelated into [NOT] IN semi-joins (one table and a join).
const EXISTS = `SELECT o.orderpriority, count(*) AS n FROM orders o
  WHERE o.orderdate >= DATE '1993-07-01' AND EXISTS (SELECT * FROM lineitem l WHERE l.orderkey = o.orderkey AND l.commitdate < l.receiptdate)
  GROUP BY o.orderpriority ORDER BY 1`;
const NOT_EXISTS = `SELECT count(*) AS n, sum(c.acctbal) AS s FROM customer c JOIN nation n ON c.nationkey = n.nationkey
  WHERE NOT EXISTS (SELECT 1 FROM orders o WHERE o.custkey = c.custkey AND o.totalprice > 100000)`;
// A stand-alone scalar subquery (two stages over lineitem's splits), its one row broadcast; Q22's shape over one table.
const SCALAR = `SELECT o.orderpriority, count(*) AS n FROM orders o JOIN lineitem l ON o.orderkey = l.orderkey
  WHERE l.extendedprice > (SELECT avg(l2.extendedprice) * 1.5 FROM lineitem l2 WHERE l2.quantity < 5) GROUP BY 1 ORDER BY 1`;
const SCALAR_ONE = `SELECT count(*) AS n FROM customer c WHERE c.acctbal > (SELECT avg(x.acctbal) FROM customer x WHERE x.acctbal > 0)
  AND NOT EXISTS (SELECT * FROM orders o WHERE o.custkey = c.custkey)`;
const RESIDUAL = `SELECT count(*) AS n FROM lineitem l JOIN orders o ON l.orderkey = o.orderkey AND l.shipdate > o.orderdate + INTERVAL '100' DAY
  JOIN customer c ON c.custkey = o.custkey WHERE c.nationkey % 2 = 0 OR o.orderpriority = '1-URGENT'`;

describe('distributed planner: join queries cut into fragments', function () {
  this.timeout(60_000);
  const db = withTinyDuckDb();

  const oneTask = (sql: string) => rowsOf(db(), translate(sql, { tasks: 1, catalog: 'tpch', schema: 'tiny' }));
  const distributed = async (sql: string, s: PlannerSession, tasks = 3) => {
    const plan = planDistributed(parseStatement(sql), s, metadata);
    expect(plan, 'a distributed plan').to.not.equal(undefined);
    return { plan: plan!, rows: await runPlan(db(), plan!, { tasks, catalog: 'tpch', schema: 'tiny' }) };
  };

  for (const [name, sql] of Object.entries({ Q3, Q5, Q10, PLAIN, DISTINCT, CROSS, RESIDUAL, DERIVED, TOPN, SEMI, EXISTS, NOT_EXISTS, SCALAR, SCALAR_ONE })) {
    it(`${name}: the same rows as one task, broadcast, partitioned and automatic`, async () => {
      const expected = await oneTask(sql);
      expect(expected.length).to.be.greaterThan(0);
      for (const mode of ['BROADCAST', 'PARTITIONED', 'AUTOMATIC'] as const) {
        const { rows } = await distributed(sql, session(mode));
        expectSameRows(rows, expected, `${name} ${mode}`);
      }
    });
  }

  it('broadcasts small build sides within the probe side\'s source fragment, and partitions over the broadcast limit', () => {
    const auto = planDistributed(parseStatement(Q5), session(), metadata)!;
    // lineitem is the probe side; every other table is broadcast to its tasks: one SOURCE fragment joins.
    expect(auto.choices.order[0]).to.equal(2);
    expect(auto.choices.joins).to.deep.equal(['BROADCAST', 'BROADCAST', 'BROADCAST', 'BROADCAST', 'BROADCAST']);
    const probe = auto.fragments.find((f) => f.scan?.table.table === 'lineitem')!;
    expect(probe.partitioning).to.equal('SOURCE');
    expect(probe.sources).to.have.length(5);
    expect(auto.fragments.filter((f) => f.output.kind === 'BROADCAST')).to.have.length(5);
    const small = planDistributed(parseStatement(Q5), session('AUTOMATIC', 4096), metadata)!;
    expect(small.choices.joins).to.include('PARTITIONED');
    const hashed = small.fragments.filter((f) => f.partitioning === 'HASH');
    expect(hashed.length).to.be.greaterThan(0);
    for (const h of hashed) for (const s of h.sources) {
      const producer = small.fragments.find((f) => f.id === s.fragmentId)!;
      if (producer.output.kind === 'HASH') expect(producer.output.keys.every((k) => producer.columns.includes(k))).to.equal(true);
    }
  });

  it('finishes a grouped aggregation in a HASH stage on the group keys, with a partial TopN there under ORDER BY ... LIMIT', () => {
    const plan = planDistributed(parseStatement(Q3), session(), metadata)!;
    const root = plan.fragments[0]!;
    const final = plan.fragments.find((f) => f.id === root.sources[0]!.fragmentId)!;
    expect(final.partitioning).to.equal('HASH');
    const partial = plan.fragments.find((f) => f.id === final.sources[0]!.fragmentId)!;
    expect(partial.output).to.deep.equal({ kind: 'HASH', keys: ['vivace_g0', 'vivace_g1', 'vivace_g2'] });
    expect(final.sql).to.match(/ORDER BY .* LIMIT 10$/);
    expect(root.sql).to.match(/^SELECT vivace_o0, vivace_o1, vivace_o2, vivace_o3 FROM .* ORDER BY vivace_o1 DESC, vivace_s0 ASC|^SELECT vivace_o0, vivace_o1, vivace_o2, vivace_o3 FROM .* ORDER BY vivace_o1 DESC, vivace_s0, vivace_s1 LIMIT 10$/);
    // A global aggregate has nothing to hash on: its final runs in the root.
    const global = planDistributed(parseStatement('SELECT count(*) FROM orders o, lineitem l WHERE o.orderkey = l.orderkey'), session(), metadata)!;
    expect(global.fragments.filter((f) => f.partitioning === 'HASH')).to.have.length(0);
  });

  it('keeps a partial TopN (or LIMIT) in the last join\'s tasks when the query above only projects, sorts and limits', () => {
    const last = (sql: string) => {
      const plan = planDistributed(parseStatement(sql), session(), metadata)!;
      return plan.fragments.find((f) => f.id === plan.fragments[0]!.sources[0]!.fragmentId)!.sql;
    };
    expect(last(TOPN)).to.match(/ ORDER BY .* DESC, vivace_r\d+_0, vivace_r\d+_3 LIMIT 7$/);
    expect(last('SELECT o.orderkey FROM orders o, lineitem l WHERE o.orderkey = l.orderkey LIMIT 5')).to.match(/ LIMIT 5$/);
    // OFFSET 2 LIMIT 3 over groups: each HASH bucket keeps its first 5 groups, the root offsets and limits.
    const offset = planDistributed(parseStatement('SELECT o.custkey, count(*) FROM orders o, lineitem l WHERE o.orderkey = l.orderkey GROUP BY 1 ORDER BY 1 OFFSET 2 LIMIT 3'), session(), metadata)!;
    expect(offset.fragments.filter((f) => f.partitioning === 'HASH').map((f) => f.sql)).to.satisfy((sqls: string[]) => sqls.length === 1 && / LIMIT 5$/u.test(sqls[0]!));
    expect(offset.fragments[0]!.sql).to.match(/ OFFSET 2 ROWS LIMIT 3$/u);
    // A DISTINCT is an aggregation (distinct-groups.ts): its partial in the join's tasks, each HASH bucket its first 5 groups.
    const distinct = planDistributed(parseStatement('SELECT DISTINCT o.orderkey FROM orders o, lineitem l WHERE o.orderkey = l.orderkey LIMIT 5'), session(), metadata)!;
    expect(distinct.fragments.filter((f) => f.partitioning === 'HASH').map((f) => f.sql)).to.satisfy((sqls: string[]) => sqls.length === 1 && / LIMIT 5$/u.test(sqls[0]!));
    for (const sql of [
      'SELECT o.orderkey FROM orders o, lineitem l WHERE o.orderkey = l.orderkey ORDER BY 1',
      'SELECT o.orderkey, row_number() OVER (ORDER BY l.linenumber) FROM orders o, lineitem l WHERE o.orderkey = l.orderkey LIMIT 5',
    ]) {
      const plan = planDistributed(parseStatement(sql), session(), metadata);
      if (plan) expect(plan.fragments.map((f) => f.id === 0 ? '' : f.sql).join(' '), sql).to.not.include('LIMIT');
    }
  });

  it('runs a stand-alone IN subquery once, in a SINGLE fragment broadcast to where its predicate is evaluated', () => {
    const plan = planDistributed(parseStatement(SEMI), session(), metadata)!;
    const part = plan.fragments.find((f) => f.sql.startsWith('SELECT p.partkey'))!;
    expect(part).to.include({ partitioning: 'SINGLE' });
    expect(part.output).to.deep.equal({ kind: 'BROADCAST' });
    // The predicate on lineitem alone is pushed into lineitem's scan, which reads the part rows.
    const lineitem = plan.fragments.find((f) => f.scan?.table.table === 'lineitem')!;
    expect(lineitem.sources.map((s) => s.fragmentId)).to.include(part.id);
    expect(lineitem.sql).to.include(`IN (SELECT * FROM "vivace_stage"."exchange"."f${part.id}")`);
    // The NOT IN subquery groups customer, which splits: two stages, its final in a HASH stage on the group
    // key (semi-stages.ts), every bucket's rows broadcast.
    const leaf = plan.fragments.find((f) => f.scan?.table.table === 'customer')!;
    const final = plan.fragments.find((f) => f.sources.some((s) => s.fragmentId === leaf.id))!;
    expect(leaf.output).to.deep.equal({ kind: 'HASH', keys: ['vivace_g0'] });
    expect(final).to.include({ partitioning: 'HASH' });
    expect(final.output).to.deep.equal({ kind: 'BROADCAST' });
    expect(plan.choices.semis).to.deep.equal([false, true]);
    // part's IN reads its distinct values (replicated-semis.ts distinctSource): two stages when the coordinator says so.
    expect(planDistributed(parseStatement(SEMI), session(), metadata, { ...plan.choices, semis: [true, true] })!.fragments.some((f) => f.scan?.table.table === 'part')).to.equal(true);
    expect(planDistributed(parseStatement(SEMI), session(), metadata, { ...plan.choices, semis: [true] }), 'choices for one subquery of two').to.equal(undefined);
    expect(planDistributed(parseStatement(SEMI), session(), metadata, { ...plan.choices, semis: [false, false] })!.fragments.some((f) => f.scan?.table.table === 'customer')).to.equal(false);
    // The access check covers the subqueries' tables too.
    expect(plan.tables.map((t) => t.table).sort()).to.deep.equal(['customer', 'lineitem', 'orders', 'part']);
    // Split pruning never reads a semi-join's subquery.
    expect(JSON.stringify(lineitem.scan!.where ?? null)).to.not.include('SubqueryExpression');
  });

  it('finds the equi-join condition every branch of an OR shares (TPC-H Q19), so a forced PARTITIONED join hashes on it', () => {
    const q19 = TPCH_QUERIES[18]!.sql;
    const plan = planDistributed(parseStatement(q19), session('PARTITIONED'), metadata)!;
    expect(plan.choices.joins).to.deep.equal(['PARTITIONED']);
    expect(plan.fragments.filter((f) => f.output.kind === 'HASH').map((f) => f.output.kind === 'HASH' && f.output.keys.length)).to.deep.equal([1, 1]);
  });

  it('numbers fragments from the root (0) breadth first, each source after its consumer, with the root SINGLE', () => {
    const plan = planDistributed(parseStatement(Q3), session('PARTITIONED'), metadata)!;
    expect(plan.fragments[0]!.id).to.equal(0);
    expect(plan.fragments[0]!.partitioning).to.equal('SINGLE');
    expect(plan.fragments.map((f) => f.id)).to.deep.equal(plan.fragments.map((_, i) => i));
    for (const f of plan.fragments) for (const s of f.sources) expect(s.fragmentId).to.be.greaterThan(f.id);
  });

  it('derives the same fragments from the coordinator\'s choices, and refuses choices that do not fit', () => {
    const made = planDistributed(parseStatement(Q10), session(), metadata)!;
    const again = planDistributed(parseStatement(Q10), session('PARTITIONED'), metadata, made.choices)!;
    expect(again.fragments).to.deep.equal(made.fragments);
    expect(planDistributed(parseStatement(Q10), session(), metadata, { order: [0, 1, 2], joins: ['BROADCAST', 'BROADCAST'], split: [true, true, true] })).to.equal(undefined);
    expect(planDistributed(parseStatement(Q10), session(), metadata, { order: [0, 0, 1, 2], joins: ['BROADCAST', 'BROADCAST', 'BROADCAST'], split: [true, true, false, false] })).to.equal(undefined);
    expect(planDistributed(parseStatement(CROSS), session(), metadata, { order: [0, 1], joins: ['PARTITIONED'], split: [true, false] })).to.equal(undefined);
  });

  it('leaves to one task what it does not take: correlated subqueries, one table, small tables only, unknown names', () => {
    for (const sql of [
      // A subquery correlated by no column equality (one that is, is co-partitioned: correlated-subqueries.spec.ts).
      'SELECT count(*) FROM orders o, lineitem l WHERE o.orderkey = l.orderkey AND l.partkey IN (SELECT partkey FROM part p WHERE p.size < o.shippriority)',
      'SELECT count(*) FROM orders o, lineitem l WHERE o.orderkey = l.orderkey AND EXISTS (SELECT 1 FROM part p WHERE p.partkey < l.partkey)',
      'SELECT count(*) FROM lineitem',
      'SELECT count(*) FROM nation n, region r WHERE n.regionkey = r.regionkey',
      'SELECT count(*) FROM orders o, lineitem l WHERE o.orderkey = l.orderkey AND nosuch = 1',
      'SELECT orderkey FROM orders o, lineitem l',
      'SELECT * FROM orders o, lineitem l WHERE o.orderkey = l.orderkey',
      'SELECT count(*) FROM orders o, memory.default.t x WHERE o.orderkey = x.k',
      // A derived table that names a column twice is not merged.
      'SELECT k FROM (SELECT o.orderkey AS k, l.orderkey AS k FROM orders o, lineitem l WHERE o.orderkey = l.orderkey) t',
    ]) expect(planDistributed(parseStatement(sql), session(), metadata), sql).to.equal(undefined);
  });
});
