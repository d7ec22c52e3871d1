// Windows over one table that splits (window-stages.ts): the scan fragment hashes its rows on the partition
// keys the windows share, a HASH fragment runs the windows over its bucket (a partial TopN under ORDER BY
// ... LIMIT), the root sorts and limits. Run as fragments over slices and buckets of tpch.tiny
// (fragment-runner.ts), they give the one-task answer; a property over a small random table holds for
// generated windows and any number of tasks.
import { expect } from 'chai';
import fc from 'fast-check';
import { parseStatement } from '../../lib/sql/index.js';
import { planWindowed } from '../../lib/planner/window-stages.js';
import type { PlannerMetadata, PlannerSession } from '../../lib/planner/planner.types.js';
import { tinyMetadata, withTinyDuckDb } from './fragment-runner.js';
import { planAnswers, randomInts, randomLetters, withLakeDuckDb } from './lake-tables.js';

const session: PlannerSession = { catalog: 'tpch', schema: 'tiny', joinDistribution: 'AUTOMATIC', maxBroadcastBytes: 100 * 1024 * 1024 };
const metadata = tinyMetadata((t) => t === 'orders' || t === 'lineitem');

describe('window stages: windows partitioned across buckets', function () {
  this.timeout(120_000);
  const connection = withTinyDuckDb();

  const CASES: Record<string, { sql: string; ordered: boolean }> = {
    'rank and a partition\'s sum, the WHERE in the scan': {
      sql: `SELECT o.orderkey, o.custkey, rank() OVER (PARTITION BY o.custkey ORDER BY o.totalprice DESC, o.orderkey) AS r,
        sum(o.shippriority + 1) OVER (PARTITION BY o.custkey) AS s, count(*) OVER (PARTITION BY custkey, orderstatus) AS n
        FROM orders o WHERE o.orderstatus <> 'P'`,
      ordered: false,
    },
    'a partial TopN per bucket under ORDER BY ... LIMIT': {
      sql: 'SELECT orderkey, row_number() OVER (PARTITION BY orderpriority ORDER BY orderkey) AS n FROM orders ORDER BY n, orderkey DESC LIMIT 12',
      ordered: true,
    },
    'a computed partition key, lag and lead, ORDER BY a window and a column': {
      sql: `SELECT linenumber, lag(quantity) OVER (PARTITION BY orderkey % 97 ORDER BY orderkey, linenumber) AS before,
        lead(quantity, 2) OVER (PARTITION BY orderkey % 97 ORDER BY orderkey, linenumber) AS after
        FROM lineitem WHERE shipmode = 'AIR' ORDER BY dense_rank() OVER (PARTITION BY orderkey % 97 ORDER BY quantity), orderkey, linenumber LIMIT 20`,
      ordered: true,
    },
    'GROUP BY with windows over the groups, hashed on a partition key that is a group key': {
      sql: `SELECT o.custkey, orderstatus, count(*) AS n, max(totalprice) AS top, rank() OVER (PARTITION BY orderstatus ORDER BY count(*) DESC, o.custkey) AS r,
        sum(count(*)) OVER (PARTITION BY orderstatus, o.custkey) AS same FROM orders o WHERE custkey < 300 GROUP BY o.custkey, 2 HAVING count(*) > 1
        ORDER BY r, orderstatus LIMIT 30`,
      ordered: true,
    },
    '`*` and `o.*` as the table\'s columns beside a window': {
      sql: 'SELECT *, rank() OVER (PARTITION BY custkey ORDER BY orderkey) AS r, o.* FROM orders o WHERE custkey < 60',
      ordered: false,
    },
    'GROUP BY whose aggregation does not split: the bucket groups the scanned rows itself': {
      sql: `SELECT custkey, avg(CAST(totalprice AS decimal(12, 2))) AS a, dense_rank() OVER (PARTITION BY custkey % 5 ORDER BY count(*), custkey) AS r
        FROM orders WHERE custkey < 200 GROUP BY custkey, custkey % 5`,
      ordered: false,
    },
    'a stand-alone scalar subquery in the select list: its two stages, its row broadcast to the buckets (window-scalars.ts)': {
      sql: `SELECT orderkey, rank() OVER (PARTITION BY custkey ORDER BY totalprice, orderkey) AS r, totalprice / (SELECT max(o2.totalprice) FROM orders o2 WHERE o2.orderstatus = 'F') AS share,
        (SELECT count(*) FROM lineitem WHERE quantity > 49) AS big FROM orders WHERE custkey < 400 ORDER BY share DESC, orderkey LIMIT 25`,
      ordered: true,
    },
    'no ORDER BY, a LIMIT kept by each bucket and the root': {
      sql: 'SELECT count(*) OVER (PARTITION BY clerk) AS n FROM orders WHERE clerk = \'Clerk#000000001\' LIMIT 1000',
      ordered: false,
    },
  };
  for (const [name, { sql, ordered }] of Object.entries(CASES)) {
    it(`${name}: the one-task answer over 3 slices and 4 buckets`, async () => {
      const plan = planWindowed(parseStatement(sql), session, metadata)!;
      expect(plan, sql).to.not.equal(undefined);
      const { actual, expected } = await planAnswers(connection(), sql, plan, { tasks: 3, catalog: 'tpch', schema: 'tiny' }, ordered);
      expect(actual.length).to.be.greaterThan(0);
      expect(actual).to.deep.equal(expected);
    });
  }

  it('cuts a scan hashed on the shared keys, a HASH bucket fragment and a SINGLE root', () => {
    const plan = planWindowed(parseStatement(CASES['rank and a partition\'s sum, the WHERE in the scan']!.sql), session, metadata)!;
    expect(plan.fragments.map((f) => [f.id, f.partitioning, f.output])).to.deep.equal([
      [0, 'SINGLE', { kind: 'SINGLE' }], [1, 'HASH', { kind: 'SINGLE' }], [2, 'SOURCE', { kind: 'HASH', keys: ['custkey'] }],
    ]);
    const scan = plan.fragments[2]!;
    expect(scan.columns).to.deep.equal(['orderkey', 'custkey', 'orderstatus', 'totalprice', 'shippriority']);
    expect(scan.sql).to.include('WHERE').and.include('"o"');
    expect(scan.scan!.where).to.not.equal(undefined);
    expect(plan.choices).to.deep.equal({ order: [], joins: [], split: [true] });
    // A worker derives the same fragments from the coordinator's choices, and refuses others.
    expect(planWindowed(parseStatement(CASES['rank and a partition\'s sum, the WHERE in the scan']!.sql), session, metadata, plan.choices)).to.deep.equal(plan);
    expect(planWindowed(parseStatement(CASES['rank and a partition\'s sum, the WHERE in the scan']!.sql), session, metadata, { order: [0], joins: [], split: [true] })).to.equal(undefined);
  });

  it('splits a grouped query\'s aggregation: partials in the leaves hashed on the group key, the final and the windows in the buckets', () => {
    const grouped = planWindowed(parseStatement(CASES['GROUP BY with windows over the groups, hashed on a partition key that is a group key']!.sql), session, metadata)!;
    expect(grouped.fragments[2]!.output).to.deep.equal({ kind: 'HASH', keys: ['vivace_g1'] });
    expect(grouped.fragments[2]!.columns).to.deep.equal(['vivace_g0', 'vivace_g1', 'vivace_a0', 'vivace_a1']);
    expect(grouped.fragments[1]!.sql).to.include('AS vivace_core(vivace_c0, vivace_c1, vivace_c2, vivace_c3) WHERE vivace_c2 > 1');
    const raw = planWindowed(parseStatement(CASES['GROUP BY whose aggregation does not split: the bucket groups the scanned rows itself']!.sql), session, metadata)!;
    expect(raw.fragments[2]!.output).to.deep.equal({ kind: 'HASH', keys: ['vivace_p0'] });
    expect(raw.fragments[1]!.sql).to.include('GROUP BY custkey, custkey % 5');
  });

  it('reads a stand-alone scalar subquery\'s row in the buckets, from its own two stages; a correlated one, or one in WHERE or beside GROUP BY, leaves the query to the other planners', () => {
    const sql = 'SELECT orderkey, rank() OVER (PARTITION BY custkey ORDER BY totalprice) AS r, totalprice / (SELECT max(totalprice) FROM orders) AS share FROM orders';
    const plan = planWindowed(parseStatement(sql), session, metadata)!;
    expect(plan.fragments.map((f) => [f.id, f.partitioning, f.output.kind, f.sources.map((x) => x.fragmentId)])).to.deep.equal([
      [0, 'SINGLE', 'SINGLE', [1]], [1, 'HASH', 'SINGLE', [2, 3]], [2, 'SOURCE', 'HASH', []], [3, 'SINGLE', 'BROADCAST', [4]], [4, 'SOURCE', 'SINGLE', []],
    ]);
    expect(plan.fragments[1]!.sql).to.include('totalprice / (SELECT * FROM "vivace_stage"."exchange"."f3")');
    expect(plan.fragments[4]!.scan?.table.table).to.equal('orders');
    expect(plan.tables.map((t) => t.table)).to.deep.equal(['orders', 'orders']);
    expect(planWindowed(parseStatement(sql), session, metadata, plan.choices)!.fragments).to.deep.equal(plan.fragments);
    for (const other of [
      'SELECT o.orderkey, rank() OVER (PARTITION BY o.custkey ORDER BY o.totalprice), (SELECT max(l.quantity) FROM lineitem l WHERE l.orderkey = o.orderkey) FROM orders o',
      'SELECT orderkey, rank() OVER (PARTITION BY custkey ORDER BY totalprice), (SELECT max(quantity) FROM lineitem WHERE orderkey = custkey) FROM orders',
      'SELECT orderkey, rank() OVER (PARTITION BY custkey ORDER BY totalprice) FROM orders WHERE totalprice > (SELECT avg(totalprice) FROM orders)',
      'SELECT custkey, count(*), rank() OVER (PARTITION BY custkey ORDER BY count(*)), (SELECT max(totalprice) FROM orders) FROM orders GROUP BY custkey',
      'SELECT orderkey, rank() OVER (PARTITION BY custkey ORDER BY totalprice), (SELECT max(totalprice) FROM orders GROUP BY custkey) FROM orders',
    ]) expect(planWindowed(parseStatement(other), session, metadata), other).to.equal(undefined);
    // A table's own column named like a marker stays that column.
    const named: PlannerMetadata = { table: (t) => (t.table === 'm' ? { columns: [{ name: 'k', type: 'integer' }, { name: 'vivace_u0', type: 'integer' }], splits: true, rows: 10 } : undefined) };
    const own = planWindowed(parseStatement('SELECT vivace_u0, rank() OVER (PARTITION BY k ORDER BY vivace_u0) FROM m'), session, named)!;
    expect(own.fragments.map((f) => f.id)).to.deep.equal([0, 1, 2]);
    expect(own.fragments[1]!.sql).to.include('vivace_u0 AS vivace_o0');
  });

  it('leaves to one task: no PARTITION BY, windows with no key in common, a named window, a partition key no group key, grouping sets, a global aggregation, a table that does not split', () => {
    for (const sql of [
      'SELECT rank() OVER (ORDER BY orderkey) FROM orders',
      'SELECT rank() OVER (PARTITION BY custkey ORDER BY orderkey), rank() OVER (PARTITION BY clerk ORDER BY orderkey) FROM orders',
      'SELECT rank() OVER w FROM orders WINDOW w AS (PARTITION BY custkey ORDER BY orderkey)',
      'SELECT custkey % 3, count(*), rank() OVER (PARTITION BY max(orderstatus) ORDER BY count(*)) FROM orders GROUP BY custkey % 3',
      'SELECT custkey, count(*), rank() OVER (PARTITION BY custkey ORDER BY count(*)) FROM orders GROUP BY GROUPING SETS ((custkey), ())',
      'SELECT count(*), rank() OVER (PARTITION BY 1) FROM orders',
      'SELECT rank() OVER (PARTITION BY nationkey ORDER BY custkey) FROM customer',
      'SELECT rank() OVER (PARTITION BY custkey ORDER BY orderkey) FROM orders o WHERE o.orderkey IN (SELECT orderkey FROM lineitem)',
      'SELECT orderkey FROM orders',
    ]) expect(planWindowed(parseStatement(sql), session, metadata), sql).to.equal(undefined);
  });
});

describe('window stages: generated windows over a small random table give the one-task answer', function () {
  this.timeout(120_000);
  const connection = withLakeDuckDb(0.61, [`CREATE TABLE lake.s.t AS SELECT ${randomInts('k', 5, 0.1)}, ${randomLetters('g', 3, 0.15)},
    ${randomInts('v', 10, 0, 'BIGINT')}, CAST(i AS BIGINT) AS u FROM range(50) r(i)`]);
  const lake: PlannerMetadata = {
    table: (t) => (t.catalog === 'lake' && t.schema === 's' && t.table === 't'
      ? { columns: [{ name: 'k', type: 'integer' }, { name: 'g', type: 'varchar' }, { name: 'v', type: 'bigint' }, { name: 'u', type: 'bigint' }], splits: true, rows: 50 }
      : undefined),
  };
  const queries = fc.record({
    fn: fc.constantFrom('row_number()', 'rank()', 'sum(v)', 'count(g)', 'lag(v)', 'first_value(g)', 'max(v)'),
    keys: fc.constantFrom('k', 'g', 'k, g', 'v % 3', 't.k'),
    order: fc.constantFrom('u', 'v DESC, u', ''),
    filter: fc.option(fc.integer({ min: 0, max: 9 })),
    limit: fc.option(fc.integer({ min: 1, max: 20 })),
    tasks: fc.integer({ min: 1, max: 4 }),
    grouped: fc.option(fc.record({ fn: fc.constantFrom('rank()', 'sum(count(*))', 'lag(sum(v))', 'max(min(u))'), keys: fc.constantFrom('k', 'g', 'g, k') })),
    // A stand-alone scalar subquery in the select list (window-scalars.ts): an empty one's NULL too.
    scalar: fc.constantFrom('', ', v - (SELECT min(z.v) FROM t z WHERE z.g <> \'a\') AS d', ', (SELECT max(z.k) FROM t z WHERE z.v > 100) AS e'),
  });

  /** A window over the groups of (k, g), ordered totally within its partition. */
  const groupedSql = (q: { grouped: { fn: string; keys: string }; filter: number | null; limit: number | null }) =>
    `SELECT k, g, sum(v) AS s, ${q.grouped.fn} OVER (PARTITION BY ${q.grouped.keys} ORDER BY sum(v), g NULLS FIRST, k NULLS FIRST) AS w FROM t
      ${q.filter === null ? '' : `WHERE v <> ${q.filter}`} GROUP BY k, g${q.limit === null ? '' : ` ORDER BY k NULLS FIRST, g NULLS FIRST LIMIT ${q.limit}`}`;

  it('holds for 80 generated queries', async () => {
    await fc.assert(fc.asyncProperty(queries, async (q) => {
      // u is unique: every window's order, and the query's, is total.
      // A window whose answer depends on the row order has one (sum, count and max over a partition have none).
      const order = q.order || (['sum(v)', 'count(g)', 'max(v)'].includes(q.fn) ? '' : 'u');
      const over = `OVER (PARTITION BY ${q.keys}${order ? ` ORDER BY ${order}` : ''})`;
      const tail = q.limit === null ? '' : ` ORDER BY u LIMIT ${q.limit}`;
      const sql = q.grouped ? groupedSql({ ...q, grouped: q.grouped }) : `SELECT u, k, ${q.fn} ${over} AS w${q.scalar} FROM t${q.filter === null ? '' : ` WHERE v <> ${q.filter}`}${tail}`;
      const options = { tasks: q.tasks, catalog: 'lake', schema: 's' };
      const plan = planWindowed(parseStatement(sql), { ...session, catalog: 'lake', schema: 's' }, lake);
      expect(plan, sql).to.not.equal(undefined);
      const { actual, expected } = await planAnswers(connection(), sql, plan!, options, q.limit !== null);
      expect(actual, `${sql} (${q.tasks} tasks)`).to.deep.equal(expected);
    }), { numRuns: 80, seed: 20261129 });
  });
});
