// Outer joins, cross joins and derived tables that group, in the join planner (outer-joins.ts,
// derived-relations.ts): each shape's fragments, run by fragment-runner.ts (slices, buckets, broadcasts in
// one DuckDB), give the one-task answer under every join distribution, with NULL keys, duplicate keys,
// rows without a match, extra ON conditions on either side and WHERE conjuncts on the side filled with NULLs.
import { expect } from 'chai';
import { parseStatement } from '../../lib/sql/index.js';
import { planDistributed } from '../../lib/planner/distributed-planner.js';
import type { PlannerSession } from '../../lib/planner/planner.types.js';
import { rowsOf, runPlan, sortedRows, withTinyDuckDb, tinyMetadata, translate } from './fragment-runner.js';
import { expectSameRows } from '../cluster/same-rows.js';

const SPLIT = new Set(['lineitem', 'orders', 'partsupp', 'customer']);
const metadata = tinyMetadata((t) => SPLIT.has(t));
const session = (joinDistribution: PlannerSession['joinDistribution'] = 'AUTOMATIC', maxBroadcastBytes = 100 * 1024 * 1024): PlannerSession =>
  ({ catalog: 'tpch', schema: 'tiny', joinDistribution, maxBroadcastBytes });

// NULL keys on both sides (a CASE leaves a third of them NULL), duplicate keys, rows with no match.
const SHAPES: Record<string, string> = {
  LEFT: `SELECT c.custkey, count(o.orderkey) AS n, sum(o.totalprice) AS t FROM customer c LEFT JOIN orders o ON c.custkey = o.custkey GROUP BY c.custkey`,
  LEFT_ON_BOTH: `SELECT c.custkey, o.orderkey FROM customer c LEFT JOIN orders o ON c.custkey = o.custkey AND o.orderpriority = '1-URGENT' AND c.acctbal > 5000 AND o.totalprice > c.acctbal * 10`,
  LEFT_WHERE_NULL: `SELECT c.custkey, c.name FROM customer c LEFT JOIN orders o ON c.custkey = o.custkey WHERE o.orderkey IS NULL AND c.nationkey < 10`,
  LEFT_WHERE_OTHER: `SELECT c.custkey, o.orderkey, o.orderstatus FROM customer c LEFT OUTER JOIN orders o ON c.custkey = o.custkey WHERE o.orderstatus = 'F' OR o.orderstatus IS NULL`,
  NULL_KEYS: `SELECT l.orderkey, l.linenumber, o.orderkey AS o_key FROM lineitem l LEFT JOIN orders o ON CASE WHEN l.orderkey % 3 = 0 THEN NULL ELSE l.orderkey END = o.orderkey AND o.orderdate > DATE '1995-01-01' WHERE l.quantity > 45`,
  RIGHT: `SELECT o.orderkey, c.custkey, c.name FROM orders o RIGHT JOIN customer c ON o.custkey = c.custkey AND o.totalprice > 300000 WHERE c.acctbal > 9000`,
  RIGHT_ON_LEFT: `SELECT o.orderkey, c.custkey FROM orders o RIGHT OUTER JOIN customer c ON o.custkey = c.custkey AND o.orderpriority = '5-LOW' AND c.mktsegment = 'BUILDING'`,
  FULL: `SELECT o.orderkey, c.custkey FROM orders o FULL JOIN customer c ON o.custkey = c.custkey AND o.totalprice > 400000 AND c.acctbal > 0 AND o.orderkey % 7 <> c.custkey % 5`,
  FULL_WHERE: `SELECT count(*) AS n, count(o.orderkey) AS o, count(c.custkey) AS c FROM orders o FULL OUTER JOIN customer c ON o.custkey = c.custkey AND o.orderstatus = 'P' WHERE o.orderkey IS NULL OR c.custkey IS NULL`,
  NO_MATCH: `SELECT c.custkey, n.name, r.name AS region FROM customer c JOIN nation n ON c.nationkey = n.nationkey LEFT JOIN region r ON n.regionkey = r.regionkey AND r.name = 'NOWHERE' WHERE c.custkey < 50`,
  INNER_THEN_LEFT: `SELECT o.orderpriority, count(*) AS n, count(l.orderkey) AS lines FROM customer c JOIN orders o ON c.custkey = o.custkey LEFT JOIN lineitem l ON l.orderkey = o.orderkey AND l.returnflag = 'R' WHERE c.mktsegment = 'AUTOMOBILE' GROUP BY o.orderpriority`,
  LEFT_THEN_LEFT: `SELECT c.nationkey, count(o.orderkey) AS o, count(l.linenumber) AS l FROM customer c LEFT JOIN orders o ON c.custkey = o.custkey AND o.orderdate < DATE '1993-01-01' LEFT JOIN lineitem l ON l.orderkey = o.orderkey AND l.quantity > 48 GROUP BY c.nationkey`,
  LEFT_THEN_RIGHT: `SELECT n.name, c.custkey, o.orderkey FROM customer c LEFT JOIN orders o ON c.custkey = o.custkey AND o.totalprice > 400000 RIGHT JOIN nation n ON n.nationkey = c.nationkey AND c.acctbal > 9900 WHERE n.regionkey < 3 OR o.orderkey IS NULL`,
  FULL_THEN_LEFT: `SELECT r.name, n.name AS nation, c.custkey FROM region r FULL JOIN nation n ON n.regionkey = r.regionkey + 0 * n.nationkey AND n.nationkey < 20 AND r.regionkey = n.regionkey LEFT JOIN customer c ON c.nationkey = n.nationkey AND c.acctbal > 9950`,
  // A derived table merged into the query above: the outer WHERE on its NULL side runs after the RIGHT join too.
  MERGED: `SELECT t.nn, t.ck FROM (SELECT c.custkey AS ck, o.orderkey AS ok, n.name AS nn FROM customer c LEFT JOIN orders o ON c.custkey = o.custkey AND o.totalprice > 300000
    RIGHT JOIN nation n ON n.nationkey = c.nationkey AND c.acctbal > 9900) t WHERE t.ok IS NULL`,
  LEFT_NO_KEYS: `SELECT c.custkey, r.name FROM customer c LEFT JOIN region r ON c.acctbal > 9990 AND r.regionkey < 2`,
  // A RIGHT join as the LEFT join with sides swapped (join-order.ts flips): region broadcast to customer's tasks.
  RIGHT_NO_KEYS: `SELECT c.custkey, r.name FROM region r RIGHT JOIN customer c ON r.regionkey > c.nationkey % 5 + 2 AND r.name <> 'ASIA'`,
  RIGHT_FLIPPED_THEN_LEFT: `SELECT c.custkey, n.name, o.orderkey FROM nation n RIGHT JOIN customer c ON n.nationkey = c.nationkey AND n.regionkey = 1
    LEFT JOIN orders o ON o.custkey = c.custkey AND o.totalprice > 400000 WHERE c.custkey < 300`,
  // RIGHT and FULL joins after inner joins: the inner block joined on its ONs first, flipped or partitioned after.
  INNER_THEN_RIGHT: `SELECT c.custkey, n.name, o.orderkey FROM customer c JOIN nation n ON c.nationkey = n.nationkey AND n.regionkey = 2
    RIGHT JOIN orders o ON o.custkey = c.custkey AND c.acctbal > 5000 WHERE o.totalprice > 350000 AND (n.name IS NULL OR n.name <> 'CHINA')`,
  INNER_THEN_RIGHT_NO_KEYS: `SELECT o.orderkey, l.linenumber, n.name FROM orders o JOIN lineitem l ON l.orderkey = o.orderkey AND l.quantity > 49
    RIGHT JOIN nation n ON o.totalprice > n.nationkey * 20000 + 400000`,
  INNER_THEN_FULL: `SELECT c.nationkey, count(*) AS n, count(o.orderkey) AS o, count(c.custkey) AS c FROM customer c JOIN nation n ON c.nationkey = n.nationkey
    FULL JOIN orders o ON o.custkey = c.custkey AND o.orderstatus = 'P' WHERE n.regionkey IS NULL OR n.regionkey < 3 GROUP BY c.nationkey`,
  LEFT_THEN_RIGHT_FLIPPED: `SELECT r.name, n.name AS nation, c.custkey FROM region r LEFT JOIN nation n ON n.regionkey = r.regionkey AND n.nationkey < 12
    RIGHT JOIN customer c ON c.nationkey = n.nationkey AND c.acctbal < 0`,
  CROSS: `SELECT n.name, count(*) AS n FROM nation n, orders o WHERE o.totalprice > 450000 GROUP BY n.name`,
  EMPTY: `SELECT c.custkey, o.orderkey FROM customer c LEFT JOIN orders o ON c.custkey = o.custkey WHERE c.acctbal > 100000`,
  EMPTY_BUILD: `SELECT c.custkey, o.orderkey FROM customer c FULL JOIN orders o ON c.custkey = o.custkey AND o.totalprice < 0 WHERE c.custkey < 20`,
};

describe('planner: outer joins and cross joins in fragments', function () {
  this.timeout(120_000);
  const db = withTinyDuckDb();
  const oneTask = (sql: string) => rowsOf(db(), translate(sql, { tasks: 1, catalog: 'tpch', schema: 'tiny' }));

  for (const [name, sql] of Object.entries(SHAPES)) {
    it(`${name}: the one-task answer, broadcast, partitioned and automatic`, async () => {
      const expected = sortedRows(await oneTask(sql));
      for (const mode of ['BROADCAST', 'PARTITIONED', 'AUTOMATIC'] as const) {
        const plan = planDistributed(parseStatement(sql), session(mode), metadata);
        expect(plan, `${name} ${mode}: a join plan`).to.not.equal(undefined);
        expectSameRows(sortedRows(await runPlan(db(), plan!, { tasks: 3, catalog: 'tpch', schema: 'tiny' })), expected, `${name} ${mode}`);
      }
    });
  }

  it('pushes an ON conjunct on the non-preserved side below the join and keeps the preserved side\'s in the ON', () => {
    const plan = planDistributed(parseStatement(SHAPES.LEFT_ON_BOTH!), session('PARTITIONED'), metadata)!;
    const scan = (t: string) => plan.fragments.find((f) => f.scan?.table.table === t)!;
    expect(scan('orders').sql).to.include("WHERE (o.orderpriority = '1-URGENT')");
    expect(scan('customer').sql).to.not.include('WHERE');
    const join = plan.fragments.find((f) => f.partitioning === 'HASH')!;
    expect(join.sql).to.match(/ LEFT JOIN .* ON vivace_r0_0 = vivace_r1_1 AND \(vivace_r0_5 > 5000\) AND \(vivace_r1_3 > vivace_r0_5 \* 10\)/);
    // A RIGHT join's ON conjunct on its left side alone filters that side below the join; the preserved side's stays.
    const right = planDistributed(parseStatement(SHAPES.RIGHT_ON_LEFT!), session('PARTITIONED'), metadata)!;
    expect(right.fragments.find((f) => f.scan?.table.table === 'orders')!.sql).to.include("= '5-LOW')");
    const rightJoin = right.fragments.find((f) => f.partitioning === 'HASH')!.sql;
    expect(rightJoin).to.not.include('5-LOW');
    expect(rightJoin).to.include("'BUILDING'");
    // A WHERE conjunct on the side filled with NULLs runs after the join, never in that side's scan.
    const anti = planDistributed(parseStatement(SHAPES.LEFT_WHERE_NULL!), session(), metadata)!;
    expect(anti.fragments.find((f) => f.scan?.table.table === 'orders')!.sql).to.not.include('IS NULL');
    expect(anti.fragments.find((f) => f.scan?.table.table === 'customer')!.sql).to.include('WHERE (c.nationkey < 10)');
  });

  it('broadcasts a LEFT join\'s build side, a RIGHT join\'s first relation as the flipped LEFT join\'s, and partitions FULL joins even when BROADCAST is forced', () => {
    expect(planDistributed(parseStatement(SHAPES.LEFT!), session(), metadata)!.choices.joins).to.deep.equal(['BROADCAST']);
    // RIGHT: orders broadcast (its ON conjunct on orders alone below it) to customer's tasks, LEFT joined there.
    for (const shape of ['RIGHT', 'RIGHT_ON_LEFT']) {
      const plan = planDistributed(parseStatement(SHAPES[shape]!), session('BROADCAST'), metadata)!;
      expect(plan.choices.joins, shape).to.deep.equal(['BROADCAST']);
      const customer = plan.fragments.find((f) => f.scan?.table.table === 'customer')!;
      expect(customer.sql, shape).to.include(' LEFT JOIN ');
      const orders = plan.fragments.find((f) => f.scan?.table.table === 'orders')!;
      expect(orders.output, shape).to.deep.equal({ kind: 'BROADCAST' });
      expect(plan.fragments.some((f) => f.partitioning === 'HASH'), shape).to.equal(false);
      expect(planDistributed(parseStatement(SHAPES[shape]!), session(), metadata, plan.choices)!.fragments).to.deep.equal(plan.fragments);
    }
    expect(planDistributed(parseStatement(SHAPES.RIGHT!), { ...session('AUTOMATIC'), maxBroadcastBytes: 1000 }, metadata)!.choices.joins).to.deep.equal(['PARTITIONED']);
    for (const shape of ['FULL', 'FULL_WHERE']) {
      const plan = planDistributed(parseStatement(SHAPES[shape]!), session('BROADCAST'), metadata)!;
      expect(plan.choices.joins, shape).to.deep.equal(['PARTITIONED']);
      const join = plan.fragments.find((f) => f.partitioning === 'HASH')!;
      expect(join.sql, shape).to.include(' FULL JOIN ');
      // The coordinator's choices on a worker must keep it so.
      expect(planDistributed(parseStatement(SHAPES[shape]!), session(), metadata, { ...plan.choices, joins: ['BROADCAST'] }), shape).to.equal(undefined);
    }
    // A keyless LEFT join is broadcast whatever the session says; a CROSS JOIN broadcasts the smaller side.
    expect(planDistributed(parseStatement(SHAPES.LEFT_NO_KEYS!), session('PARTITIONED'), metadata)!.choices.joins).to.deep.equal(['BROADCAST']);
    const cross = planDistributed(parseStatement(SHAPES.CROSS!), session('PARTITIONED'), metadata)!;
    expect(cross.choices).to.deep.include({ order: [1, 0], joins: ['BROADCAST'] });
  });

  it('flips a RIGHT join after other joins: the rows joined so far broadcast to the preserved side\'s tasks, or both sides partitioned', () => {
    // Broadcast: customer joined with nation in customer's tasks, those rows broadcast to orders' tasks, LEFT joined there.
    const flipped = planDistributed(parseStatement(SHAPES.INNER_THEN_RIGHT!), session('BROADCAST'), metadata)!;
    expect(flipped.choices).to.deep.include({ joins: ['BROADCAST', 'BROADCAST'] });
    const orders = flipped.fragments.find((f) => f.scan?.table.table === 'orders')!;
    expect(orders.partitioning).to.equal('SOURCE');
    expect(orders.sql).to.include(' LEFT JOIN ');
    const customer = flipped.fragments.find((f) => f.scan?.table.table === 'customer')!;
    expect(customer.output).to.deep.equal({ kind: 'BROADCAST' });
    expect(orders.sources.map((s) => s.fragmentId)).to.include(customer.id);
    // The RIGHT join's ON conjunct on the rows joined before it filters them there; the WHERE on them runs after the join.
    expect(customer.sql).to.include('5000');
    expect(customer.sql).to.not.include('CHINA');
    expect(flipped.fragments.some((f) => f.partitioning === 'HASH')).to.equal(false);
    expect(planDistributed(parseStatement(SHAPES.INNER_THEN_RIGHT!), session(), metadata, flipped.choices)!.fragments).to.deep.equal(flipped.fragments);
    // Automatic over a small broadcast limit, and forced PARTITIONED: the join in a HASH fragment on the keys.
    for (const s of [{ ...session(), maxBroadcastBytes: 1000 }, session('PARTITIONED')]) {
      const parted = planDistributed(parseStatement(SHAPES.INNER_THEN_RIGHT!), s, metadata)!;
      expect(parted.choices.joins[1]).to.equal('PARTITIONED');
      const join = parted.fragments.find((f) => f.partitioning === 'HASH' && f.sql.includes(' RIGHT JOIN '))!;
      expect(join.sources).to.have.length(2);
    }
    // Without keys it can only flip, whatever the session says.
    expect(planDistributed(parseStatement(SHAPES.INNER_THEN_RIGHT_NO_KEYS!), session('PARTITIONED'), metadata)!.choices.joins[1]).to.equal('BROADCAST');
    // A FULL join after inner ones is partitioned.
    expect(planDistributed(parseStatement(SHAPES.INNER_THEN_FULL!), session('BROADCAST'), metadata)!.choices.joins[1]).to.equal('PARTITIONED');
  });

  it('leaves to the gathered plan what it cannot order or partition', () => {
    for (const sql of [
      // An inner join after an outer one, an outer join inside a comma list.
      'SELECT n.name FROM nation n LEFT JOIN region r ON n.regionkey = r.regionkey JOIN customer c ON c.nationkey = n.nationkey',
      'SELECT n.name FROM customer c, nation n LEFT JOIN region r ON n.regionkey = r.regionkey WHERE c.nationkey = n.nationkey',
      // FULL joins without an equi-join key have nothing to partition on (a RIGHT join flips).
      'SELECT o.orderkey, c.custkey FROM orders o FULL JOIN customer c ON o.custkey = c.custkey + 1',
      'SELECT o.orderkey, c.custkey FROM orders o JOIN lineitem l ON l.orderkey = o.orderkey FULL JOIN customer c ON o.totalprice > c.acctbal * 100',
      // USING, and an ON reading a relation joined later.
      'SELECT c.custkey FROM customer c LEFT JOIN orders o USING (custkey)',
    ]) expect(planDistributed(parseStatement(sql), session(), metadata), sql).to.equal(undefined);
  });
});
