// UNION [ALL] (union-stages.ts): each branch planned on its own (two aggregation stages, a scan over splits,
// windows, the join planner, one SINGLE fragment), its output SINGLE into the root, which unions the
// exchange tables and sorts and limits. Run as fragments over slices and buckets of tpch.tiny
// (fragment-runner.ts), they give the one-task answer; a worker derives the same fragments from the
// coordinator's choices; a property over small random tables holds for generated unions.
import { expect } from 'chai';
import fc from 'fast-check';
import { parseStatement } from '../../lib/sql/index.js';
import { planUnion } from '../../lib/planner/union-stages.js';
import type { PlannerMetadata, PlannerSession } from '../../lib/planner/planner.types.js';
import type { PlanChoices } from '../../lib/planner/fragment.types.js';
import { tinyMetadata, withTinyDuckDb } from './fragment-runner.js';
import { planAnswers, randomInts, randomLetters, withLakeDuckDb } from './lake-tables.js';

const session = (joinDistribution: PlannerSession['joinDistribution'] = 'AUTOMATIC'): PlannerSession =>
  ({ catalog: 'tpch', schema: 'tiny', joinDistribution, maxBroadcastBytes: 100 * 1024 * 1024 });
const metadata = tinyMetadata((t) => t === 'orders' || t === 'lineitem');

const MIXED = `SELECT orderpriority AS k, count(*) AS n FROM orders GROUP BY orderpriority
  UNION ALL SELECT returnflag, count(*) FROM lineitem WHERE quantity > 45 GROUP BY returnflag
  UNION ALL SELECT name, nationkey FROM nation WHERE regionkey = 1
  UNION ALL SELECT o.orderpriority, count(*) FROM orders o JOIN lineitem l ON l.orderkey = o.orderkey WHERE l.quantity > 49 GROUP BY 1
  ORDER BY k, n`;

/** Branches whose join plans carry sub-plans (a grouped derived table, an outer join to one) and a correlated subquery. */
const SUB_PLANS = `SELECT t.n AS k, count(*) AS c FROM (SELECT o.custkey, count(*) AS n FROM orders o GROUP BY o.custkey) AS t GROUP BY t.n
  UNION ALL SELECT p.size, count(*) FROM part p, partsupp ps WHERE p.partkey = ps.partkey AND ps.availqty > 9000
    AND p.retailprice > (SELECT min(l.extendedprice) / 10 FROM lineitem l WHERE l.partkey = p.partkey AND l.quantity > 49) GROUP BY 1
  UNION ALL SELECT c.nationkey, count(x.c) FROM customer c LEFT JOIN (SELECT o.custkey AS k, count(*) AS c FROM orders o GROUP BY o.custkey) AS x ON x.k = c.custkey GROUP BY 1`;

describe('union stages: each branch planned on its own, unioned in the root', function () {
  this.timeout(120_000);
  const connection = withTinyDuckDb();

  const CASES: Record<string, { sql: string; ordered: boolean }> = {
    'aggregation stages, a table read whole and a join, sorted in the root': { sql: MIXED, ordered: true },
    'scans over splits, ORDER BY ... LIMIT in the root': {
      sql: `SELECT orderkey, totalprice AS price FROM orders WHERE totalprice > 450000
        UNION ALL SELECT orderkey, extendedprice FROM lineitem WHERE extendedprice > 100000 ORDER BY price DESC, 1 LIMIT 10`,
      ordered: true,
    },
    'UNION (DISTINCT): a partial DISTINCT in each branch, a branch without a table': {
      sql: 'SELECT orderstatus AS s FROM orders UNION SELECT linestatus FROM lineitem UNION SELECT \'Z\' UNION SELECT orderstatus FROM orders WHERE totalprice > 1000',
      ordered: false,
    },
    'INTERSECT, EXCEPT and a mix with UNION ALL, each operation evaluated in the root': {
      sql: `(SELECT custkey FROM orders WHERE orderpriority = '1-URGENT' INTERSECT SELECT custkey FROM orders WHERE orderstatus = 'F')
        EXCEPT SELECT c.custkey FROM customer c WHERE c.acctbal < 0
        UNION ALL SELECT suppkey FROM lineitem WHERE quantity = 50 AND discount = 0 ORDER BY 1`,
      ordered: true,
    },
    '`*` as the table\'s columns in each branch': {
      sql: 'SELECT * FROM orders WHERE totalprice > 400000 UNION ALL SELECT o.* FROM orders o WHERE orderkey < 100 ORDER BY orderkey LIMIT 20',
      ordered: true,
    },
    'branches planned with sub-plans and a correlated subquery': { sql: SUB_PLANS, ordered: false },
    'a branch of windows beside a scan': {
      sql: `SELECT custkey, rank() OVER (PARTITION BY custkey ORDER BY orderkey) AS r FROM orders WHERE custkey < 40
        UNION ALL SELECT orderkey, linenumber FROM lineitem WHERE orderkey < 40`,
      ordered: false,
    },
  };
  for (const [name, { sql, ordered }] of Object.entries(CASES)) {
    it(`${name}: the one-task answer over 3 slices and 3 buckets`, async () => {
      const plan = planUnion(parseStatement(sql), session(), metadata)!;
      expect(plan, sql).to.not.equal(undefined);
      const { actual, expected } = await planAnswers(connection(), sql, plan, { tasks: 3, catalog: 'tpch', schema: 'tiny' }, ordered);
      expect(actual.length).to.be.greaterThan(0);
      expect(actual).to.deep.equal(expected);
    });
  }

  it('numbers the branches\' outputs 1..k under the SINGLE root; a worker derives the same fragments from the choices, whatever its layouts', () => {
    for (const mode of ['AUTOMATIC', 'PARTITIONED'] as const) {
      const plan = planUnion(parseStatement(MIXED), session(mode), metadata)!;
      expect(plan.fragments[0]!.sources.map((s) => s.fragmentId)).to.deep.equal([1, 2, 3, 4]);
      expect(plan.fragments.slice(1, 5).map((f) => [f.partitioning, f.output.kind, f.columns])).to.deep.equal([
        ['SINGLE', 'SINGLE', ['vivace_u0', 'vivace_u1']], ['SINGLE', 'SINGLE', ['vivace_u0', 'vivace_u1']],
        ['SINGLE', 'SINGLE', ['vivace_u0', 'vivace_u1']], ['SINGLE', 'SINGLE', ['vivace_u0', 'vivace_u1']],
      ]);
      expect(plan.fragments.map((f) => f.id)).to.deep.equal(plan.fragments.map((_, i) => i));
      expect(plan.tables.map((t) => t.table).sort()).to.deep.equal(['lineitem', 'nation', 'orders']);
      expect(planUnion(parseStatement(MIXED), session(), metadata, plan.choices), mode).to.deep.equal(plan);
      // A worker's layouts need not split as the coordinator's do (its thresholds): the choices say how.
      expect(planUnion(parseStatement(MIXED), session(), tinyMetadata(() => false), plan.choices), `${mode} on a worker`).to.deep.equal(plan);
    }
    const partitioned = planUnion(parseStatement(MIXED), session('PARTITIONED'), metadata)!;
    expect(partitioned.choices.branches![3]!.choices.joins).to.deep.equal(['PARTITIONED']);
    // The union's own lists stay empty; each branch says its kind and carries its planner's choices.
    expect(planUnion(parseStatement(MIXED), session('PARTITIONED'), metadata, { ...partitioned.choices, split: [true] })).to.equal(undefined);
    expect(partitioned.choices.branches!.map((b) => b.kind)).to.deep.equal(['fixed', 'fixed', 'single', 'join']);
    const branches = partitioned.choices.branches!;
    for (const wrong of [
      { ...partitioned.choices, branches: branches.slice(1) },
      { ...partitioned.choices, branches: [...branches, branches[0]!] },
      { ...partitioned.choices, branches: branches.map((b, i) => (i === 2 ? { ...b, kind: 'fixed' as const } : b)) },
      { ...partitioned.choices, branches: branches.map((b, i) => (i === 0 ? { ...b, choices: { ...b.choices, derived: [b.choices] } } : b)) },
      { ...partitioned.choices, branches: branches.map((b, i) => (i === 3 ? { ...b, choices: { ...b.choices, branches } } : b)) },
      { ...partitioned.choices, branches: branches.map((b, i) => (i === 3 ? { ...b, choices: { ...b.choices, joins: ['BROADCAST' as const, 'BROADCAST' as const] } } : b)) },
      { ...partitioned.choices, semis: [true] },
    ]) expect(planUnion(parseStatement(MIXED), session('PARTITIONED'), metadata, wrong), JSON.stringify(wrong)).to.equal(undefined);
  });

  it('keeps every field of a branch\'s choices (sub-plans, correlated subqueries): a worker derives the same fragments', () => {
    const plan = planUnion(parseStatement(SUB_PLANS), session(), metadata)!;
    const branches = plan.choices.branches!;
    expect(branches.map((b) => b.kind)).to.deep.equal(['join', 'join', 'join']);
    expect(branches.map((b) => Object.keys(b.choices).filter((k) => k === 'derived' || k === 'correlated'))).to.deep.equal([['derived'], ['correlated'], ['derived']]);
    const sent = JSON.parse(JSON.stringify(plan.choices)) as PlanChoices;
    expect(planUnion(parseStatement(SUB_PLANS), session(), tinyMetadata(() => false), sent)).to.deep.equal(plan);
    // A branch's sub-plan choices that do not fit its query.
    const dropped = { ...sent, branches: sent.branches!.map((b, i) => (i === 0 ? { ...b, choices: { ...b.choices, derived: [] } } : b)) };
    expect(planUnion(parseStatement(SUB_PLANS), session(), metadata, dropped)).to.equal(undefined);
  });

  it('keeps a partial TopN in each branch under ORDER BY ... LIMIT over output columns, and none for an expression', () => {
    const plan = planUnion(parseStatement(CASES['scans over splits, ORDER BY ... LIMIT in the root']!.sql), session(), metadata)!;
    for (const f of plan.fragments.slice(1)) expect(f.sql).to.match(/ORDER BY vivace_u1 DESC, vivace_u0 LIMIT 10$/);
    const limited = planUnion(parseStatement('SELECT orderkey FROM orders UNION SELECT orderkey FROM lineitem LIMIT 4'), session(), metadata)!;
    for (const f of limited.fragments.slice(1)) expect(f.sql).to.match(/^SELECT DISTINCT .* LIMIT 4$/);
    const computed = planUnion(parseStatement('SELECT orderkey AS k FROM orders UNION ALL SELECT orderkey FROM lineitem ORDER BY k % 7 LIMIT 4'), session(), metadata)!;
    for (const f of computed.fragments.slice(1)) expect(f.sql).to.not.include('LIMIT');
  });

  it('leaves to the planners before: a branch that sorts or limits, `*` over a join, too many branches, a table outside the metadata, nothing that splits', () => {
    for (const sql of [
      'SELECT orderkey FROM orders UNION ALL (SELECT orderkey FROM lineitem ORDER BY 1 LIMIT 3)',
      'SELECT * FROM orders o JOIN lineitem l ON l.orderkey = o.orderkey UNION ALL SELECT * FROM orders o JOIN lineitem l ON l.orderkey = o.orderkey',
      'SELECT orderkey FROM orders UNION ALL SELECT a FROM memory.default.t',
      'SELECT nationkey FROM nation UNION ALL SELECT regionkey FROM region',
      'SELECT orderkey FROM orders UNION ALL SELECT orderkey FROM lineitem ORDER BY 1 OFFSET 2',
      // More branches than a task request carries fragments for.
      Array.from({ length: 256 }, (_, i) => `SELECT orderkey FROM orders WHERE custkey = ${i}`).join(' UNION ALL '),
    ]) expect(planUnion(parseStatement(sql), session(), metadata), sql).to.equal(undefined);
  });
});

describe('union stages: generated set operations over small random tables give the one-task answer', function () {
  this.timeout(120_000);
  const table = (name: string) => `CREATE TABLE lake.s.${name} AS SELECT ${randomInts('k', 6, 0.1)}, ${randomLetters('g', 3, 0.1)}, ${randomInts('v', 10, 0.1, 'BIGINT')} FROM range(30)`;
  const connection = withLakeDuckDb(0.17, ['a', 'b', 'c'].map(table));
  const lake: PlannerMetadata = {
    table: (t) => (t.catalog === 'lake' && t.schema === 's' && ['a', 'b', 'c'].includes(t.table)
      ? { columns: [{ name: 'k', type: 'integer' }, { name: 'g', type: 'varchar' }, { name: 'v', type: 'bigint' }], splits: t.table !== 'c', rows: 30 }
      : undefined),
  };
  // Branches of every kind, each giving (integer, bigint) rows.
  const BRANCHES = [
    'SELECT k, v FROM a WHERE v > 3',
    'SELECT k, count(*) FROM b GROUP BY k',
    'SELECT k, sum(v) FROM a WHERE g <> \'b\' GROUP BY k',
    'SELECT k, v FROM c',
    'SELECT a.k, b.v FROM a JOIN b ON a.g = b.g WHERE a.v < 4',
    'SELECT k, row_number() OVER (PARTITION BY g ORDER BY v, k) FROM b',
    'SELECT 7, CAST(NULL AS bigint)',
    'SELECT DISTINCT k, v FROM b',
  ];
  const queries = fc.record({
    branches: fc.array(fc.constantFrom(...BRANCHES), { minLength: 2, maxLength: 4 }),
    operators: fc.array(fc.constantFrom('UNION', 'UNION ALL', 'INTERSECT', 'INTERSECT ALL', 'EXCEPT', 'EXCEPT ALL'), { minLength: 3, maxLength: 3 }),
    limit: fc.option(fc.integer({ min: 1, max: 15 })),
    mode: fc.constantFrom('BROADCAST', 'PARTITIONED', 'AUTOMATIC') as fc.Arbitrary<PlannerSession['joinDistribution']>,
    tasks: fc.integer({ min: 1, max: 4 }),
  });

  it('holds for 60 generated queries', async () => {
    await fc.assert(fc.asyncProperty(queries, async (q) => {
      // Sorted by both columns: the first rows are the same rows whatever the ties.
      const sql = `${q.branches.map((b, i) => (i === 0 ? b : ` ${q.operators[i - 1]!} ${b}`)).join('')}${q.limit === null ? '' : ` ORDER BY 1 NULLS FIRST, 2 NULLS FIRST LIMIT ${q.limit}`}`;
      const plan = planUnion(parseStatement(sql), { catalog: 'lake', schema: 's', joinDistribution: q.mode, maxBroadcastBytes: 100 * 1024 * 1024 }, lake);
      if (q.branches.every((b) => b.includes('FROM c') || !b.includes('FROM'))) return;
      expect(plan, sql).to.not.equal(undefined);
      const { actual, expected } = await planAnswers(connection(), sql, plan!, { tasks: q.tasks, catalog: 'lake', schema: 's' }, q.limit !== null);
      expect(actual, `${sql} (${q.mode}, ${q.tasks} tasks)`).to.deep.equal(expected);
    }), { numRuns: 60, seed: 20261129 });
  });
});
