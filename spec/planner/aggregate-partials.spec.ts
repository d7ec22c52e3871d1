// Partial and final aggregation of one table's aggregates beyond count, sum, min, max and avg
// (aggregate-stages.ts): bool_and/every, bool_or, arbitrary/any_value, count_if, max_by/min_by, with
// count(DISTINCT) and approx_distinct still split. The two stages, run as fragments over slices of tpch.tiny
// (fragment-runner.ts), give the one-task answer; a property over small random tables with NULLs holds
// for any number of tasks. What does not decompose exactly stays one task.
import { expect } from 'chai';
import fc from 'fast-check';
import type { DuckDBConnection } from '@duckdb/node-api';
import { parseStatement } from '../../lib/sql/index.js';
import { planStages } from '../../lib/planner/aggregate-stages.js';
import { fragmentsOfStages } from '../../lib/cluster/distributed-plan.js';
import { randomInts, randomLetters, withLakeDuckDb } from './lake-tables.js';
import { rowsOf, runPlan, sortedRows, translate, withTinyDuckDb } from './fragment-runner.js';

const TPCH = new Set(['tpch']);
const tiny = { catalog: 'tpch', schema: 'tiny' };

/** The fragments' answer and the one-task answer of `sql`, in canonical order. */
async function bothAnswers(connection: DuckDBConnection, sql: string, catalogs: ReadonlySet<string>, options: { tasks: number; catalog: string; schema: string }) {
  const stages = planStages(parseStatement(sql), options, catalogs);
  expect(stages, sql).to.not.equal(undefined);
  const actual = sortedRows(await runPlan(connection, fragmentsOfStages(stages!), options));
  const expected = sortedRows(await rowsOf(connection, translate(sql, options)));
  return { actual, expected, stages: stages! };
}

describe('aggregate stages: more aggregates split into partial and final', function () {
  this.timeout(120_000);
  const connection = withTinyDuckDb();

  const SPLIT: Record<string, string> = {
    'bool_and, every and bool_or': `SELECT orderstatus, bool_and(totalprice > 1000) AS a, every(orderpriority <> '1-URGENT') AS e, bool_or(totalprice > 500000) AS o
      FROM orders GROUP BY orderstatus`,
    'count_if, global and grouped': 'SELECT count_if(quantity > 40) AS n, count_if(discount = 0) + 1 AS z FROM lineitem',
    'count_if under GROUP BY with HAVING and ORDER BY': `SELECT returnflag, count_if(quantity > 40) AS n FROM lineitem GROUP BY returnflag
      HAVING count_if(quantity > 45) > 10 ORDER BY n DESC`,
    // orderkey is unique in orders, so the best key has one value.
    'max_by and min_by': `SELECT orderpriority, max_by(clerk, orderkey) AS last_clerk, min_by(totalprice, orderkey) AS first_price,
      max_by(orderdate, orderkey * 2) AS d FROM orders WHERE custkey % 3 = 1 GROUP BY orderpriority`,
    // A key that decides the group: any one value is every value.
    'arbitrary and any_value': 'SELECT orderstatus, arbitrary(orderstatus) AS a, any_value(upper(orderstatus)) AS v, count(*) AS n FROM orders GROUP BY 1',
    'count(DISTINCT) and approx_distinct, still': 'SELECT linestatus, count(DISTINCT suppkey) AS s, approx_distinct(suppkey) AS a FROM lineitem GROUP BY linestatus',
  };
  for (const [name, sql] of Object.entries(SPLIT)) {
    it(`${name}: the one-task answer from two stages over 3 slices`, async () => {
      const { actual, expected } = await bothAnswers(connection(), sql, TPCH, { ...tiny, tasks: 3 });
      expect(actual).to.deep.equal(expected);
      expect(actual.length).to.be.greaterThan(0);
    });
  }

  it('max_by keeps the key it took its value at (a leaf\'s best key over rows whose value is NULL does not count)', () => {
    const stages = planStages(parseStatement('SELECT max_by(x, y) FROM t'), { catalog: 'lake', schema: 's' }, new Set(['lake']))!;
    expect(stages.leafSql).to.equal('SELECT max_by(x, y) AS vivace_a0, max(CASE WHEN (x) IS NOT NULL THEN y END) AS vivace_a1 FROM t');
    expect(stages.rootSql).to.equal('SELECT max_by(vivace_a0, vivace_a1) FROM vivace_stage.exchange.f1');
  });

  it('leaves what does not decompose exactly to one task: max_by with n, DISTINCT, FILTER, ORDER BY in the call', () => {
    for (const sql of [
      'SELECT max_by(clerk, orderkey, 2) FROM orders',
      'SELECT bool_and(DISTINCT totalprice > 5) FROM orders',
      'SELECT count_if(totalprice > 5) FILTER (WHERE custkey > 3) FROM orders',
      'SELECT arbitrary(clerk ORDER BY orderkey) FROM orders',
      'SELECT array_agg(clerk) FROM orders',
    ]) expect(planStages(parseStatement(sql), tiny, TPCH), sql).to.equal(undefined);
  });
});

describe('aggregate stages: generated aggregates over small random tables give the one-task answer', function () {
  this.timeout(120_000);
  // u is unique (max_by's key has one best row); k, g, v and b have NULLs and repeats.
  const connection = withLakeDuckDb(0.29, [`CREATE TABLE lake.s.t AS SELECT ${randomInts('k', 5, 0.1)}, ${randomLetters('g', 3, 0.15)}, ${randomInts('v', 10, 0.1, 'BIGINT')},
    CASE WHEN random() < 0.2 THEN NULL ELSE random() < 0.7 END AS b, CAST(i * 7919 % 101 AS BIGINT) AS u FROM range(60) r(i)`]);

  const AGGREGATES = [
    'bool_and(b)', 'every(v > 1)', 'bool_or(b)', 'bool_or(v > 8)', 'count_if(b)', 'count_if(v > 4)',
    'max_by(v, u)', 'min_by(g, u)', 'max_by(k, -u)', 'min_by(b, u)', 'count(DISTINCT v)', 'count(*)', 'sum(v)',
  ];
  const queries = fc.record({
    aggregates: fc.uniqueArray(fc.constantFrom(...AGGREGATES), { minLength: 1, maxLength: 4 }),
    key: fc.constantFrom('', 'k', 'g', 'k % 2'),
    filter: fc.option(fc.integer({ min: -1, max: 9 })),
    tasks: fc.integer({ min: 1, max: 4 }),
  });

  it('holds for 60 generated queries', async () => {
    await fc.assert(fc.asyncProperty(queries, async (q) => {
      // Only the distinct aggregates of one argument split: keep count(DISTINCT v) as the only one.
      const select = [...(q.key ? [`${q.key} AS key`] : []), ...q.aggregates];
      const sql = `SELECT ${select.join(', ')} FROM t${q.filter === null ? '' : ` WHERE v <> ${q.filter} OR v IS NULL`}${q.key ? ` GROUP BY ${q.key}` : ''}`;
      const { actual, expected } = await bothAnswers(connection(), sql, new Set(['lake']), { tasks: q.tasks, catalog: 'lake', schema: 's' });
      expect(actual, `${sql} (${q.tasks} tasks)`).to.deep.equal(expected);
    }), { numRuns: 60, seed: 20261129 });
  });
});
