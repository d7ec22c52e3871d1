// Property: for generated join queries over small random tables, the distributed plan's answer (run by
// fragment-runner.ts: slices, buckets, broadcasts) equals the one-task answer, under every distribution.
// Explicit joins may be LEFT, RIGHT or FULL OUTER (inner ones first, as outer-joins.ts plans them; a RIGHT
// join after others flips or partitions), with an extra ON conjunct on either side; and grouped again above,
// as a derived table (derived-relations.ts); with stand-alone subqueries in the select list and HAVING
// (scalar-values.ts).
import { expect } from 'chai';
import fc from 'fast-check';
import type { DuckDBConnection } from '@duckdb/node-api';
import { parseStatement } from '../../lib/sql/index.js';
import { planDistributed } from '../../lib/planner/distributed-planner.js';
import type { PlannerSession } from '../../lib/planner/planner.types.js';
import { createSmallLakeTables, plannerDuckDb, rowsOf, runPlan, smallLakeMetadata, sortedRows, translate } from './fragment-runner.js';

const TABLES = ['a', 'b', 'c'] as const;
const metadata = smallLakeMetadata(TABLES, (t) => t !== 'c');

/** A generated query: a chain of tables joined on k (or g), filters, and one of a few output shapes. */
const queries = fc.record({
  tables: fc.uniqueArray(fc.constantFrom(...TABLES), { minLength: 2, maxLength: 3 }),
  onG: fc.boolean(),
  explicit: fc.boolean(),
  joins: fc.array(fc.constantFrom('JOIN', 'LEFT JOIN', 'RIGHT JOIN', 'FULL JOIN'), { minLength: 2, maxLength: 2 }),
  onExtra: fc.constantFrom('', 'joined', 'first'),
  filter: fc.option(fc.integer({ min: -3, max: 8 })),
  residual: fc.boolean(),
  shape: fc.constantFrom('count', 'group', 'rows', 'distinct', 'minmax', 'topn', 'in', 'notin', 'ingroup', 'exists', 'notexists', 'scalar', 'derived', 'selectscalar', 'havingscalar', 'distinctscalar', 'insidescalar', 'selectdistinct', 'offset', 'offsetscalar', 'offsetgroup', 'offsetonly'),
  mode: fc.constantFrom('BROADCAST', 'PARTITIONED', 'AUTOMATIC') as fc.Arbitrary<PlannerSession['joinDistribution']>,
  tasks: fc.integer({ min: 1, max: 4 }),
});

/** The joins as the planner takes them: inner ones first, then outer ones (a RIGHT or FULL join after inner ones too). */
function joinTypes(written: readonly string[], count: number): string[] {
  const out: string[] = [];
  for (const j of written.slice(0, count)) {
    const outerBefore = out.some((x) => x !== 'JOIN');
    out.push(j === 'JOIN' && outerBefore ? 'LEFT JOIN' : j);
  }
  return out;
}

function sqlOf(q: { tables: string[]; onG: boolean; explicit: boolean; joins: string[]; onExtra: string; filter: number | null; residual: boolean; shape: string }): string {
  const [first, ...rest] = q.tables;
  const key = q.onG ? 'g' : 'k';
  const on = (t: string) => `${first}.${key} = ${t}.${key}${q.onExtra === 'joined' ? ` AND ${t}.v > 2` : q.onExtra === 'first' ? ` AND ${first}.v < 8` : ''}`;
  const types = joinTypes(q.joins, rest.length);
  const from = q.explicit
    ? `${first} ${rest.map((t, i) => `${types[i]} ${t} ON ${on(t)}`).join(' ')}`
    : `${q.tables.join(', ')}`;
  const where = [
    ...(q.explicit ? [] : rest.map(on)),
    ...(q.filter === null ? [] : [`${first}.v > ${q.filter}`]),
    ...(q.residual ? [`${first}.v + ${rest[0]}.v <> 7`] : []),
  ];
  const whereText = where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '';
  const last = rest[rest.length - 1];
  switch (q.shape) {
    case 'count': return `SELECT count(*), sum(${last}.v) FROM ${from}${whereText}`;
    case 'group': return `SELECT ${first}.g, count(*) AS n, sum(${last}.v) AS s, avg(${first}.v) AS m FROM ${from}${whereText} GROUP BY ${first}.g ORDER BY 1`;
    case 'distinct': return `SELECT ${first}.k % 3 AS r, count(DISTINCT ${last}.v) AS d FROM ${from}${whereText} GROUP BY 1 ORDER BY 1`;
    // The output is the sort keys, so the first rows are the same rows whatever the ties.
    case 'topn': return `SELECT ${first}.k, ${last}.v FROM ${from}${whereText} ORDER BY 1 DESC NULLS FIRST, 2 LIMIT 5`;
    // Stand-alone subqueries as semi-joins; NOT IN over c.k, which holds NULLs (no row passes then).
    case 'in': return `SELECT count(*), sum(${last}.v) FROM ${from}${whereText}${where.length > 0 ? ' AND' : ' WHERE'} ${first}.v IN (SELECT c.v FROM c WHERE c.g <> 'a')`;
    case 'notin': return `SELECT count(*) FROM ${from}${whereText}${where.length > 0 ? ' AND' : ' WHERE'} ${first}.k NOT IN (SELECT x.k FROM c x WHERE x.v > ${q.filter ?? 5})`;
    // An aggregating subquery over a table that splits: its two stages broadcast their rows.
    case 'ingroup': return `SELECT count(*) FROM ${from}${whereText}${where.length > 0 ? ' AND' : ' WHERE'} ${first}.k IN (SELECT y.k FROM a y GROUP BY y.k HAVING count(*) > 3)`;
    // Correlated by one equality on k (NULLs included): decorrelated into [NOT] IN.
    case 'exists': return `SELECT count(*), sum(${last}.v) FROM ${from}${whereText}${where.length > 0 ? ' AND' : ' WHERE'} EXISTS (SELECT 1 FROM c z WHERE z.k = ${first}.k AND z.v > 2)`;
    // One table with its NULL keys (a join on k would drop them): NOT EXISTS keeps a row whose k is NULL.
    case 'notexists': return `SELECT count(*), sum(a.v) FROM a WHERE NOT EXISTS (SELECT z.g FROM c z WHERE z.v < ${q.filter ?? 4} AND a.k = z.k)`;
    case 'scalar': return `SELECT count(*) FROM ${from}${whereText}${where.length > 0 ? ' AND' : ' WHERE'} ${first}.v >= (SELECT avg(z.v) FROM a z WHERE z.g <> 'c')`;
    // Stand-alone subqueries in the select list and HAVING, read by the final aggregation (scalar-values.ts); an empty source's NULL.
    case 'selectscalar': return `SELECT ${first}.g, sum(${last}.v) - (SELECT min(z.v) FROM a z WHERE z.g <> 'b') AS s, (SELECT max(z.v) FROM c z WHERE z.v > 100) AS e FROM ${from}${whereText} GROUP BY ${first}.g`;
    case 'havingscalar': return `SELECT ${first}.k % 4 AS r, count(*) AS n FROM ${from}${whereText} GROUP BY 1 HAVING count(*) * 3 > (SELECT count(*) FROM c z WHERE z.v < ${q.filter ?? 5}) / 4`;
    // A DISTINCT as an aggregation (distinct-groups.ts), a subquery among its items or in an aggregate's argument read by the partial in the last join's tasks.
    case 'distinctscalar': return `SELECT DISTINCT ${first}.g, ${last}.v > (SELECT avg(z.v) FROM a z WHERE z.g <> 'c') AS big, (SELECT max(z.v) FROM c z WHERE z.v > 100) AS e FROM ${from}${whereText}`;
    case 'insidescalar': return `SELECT ${first}.g, sum(${last}.v - (SELECT min(z.v) FROM a z WHERE z.g <> 'b')) AS s, count(*) AS n FROM ${from}${whereText} GROUP BY ${first}.g`;
    case 'selectdistinct': return `SELECT DISTINCT ${first}.k % 5 AS r, ${last}.g FROM ${from}${whereText} ORDER BY 1 NULLS FIRST, 2 NULLS FIRST LIMIT 6`;
    // OFFSET in the root after each task's first m + n rows (partial-top-n.ts); the output is the sort keys, so ties are alike.
    case 'offset': return `SELECT ${first}.k, ${last}.v FROM ${from}${whereText} ORDER BY 1 DESC NULLS FIRST, 2 OFFSET 3 LIMIT 5`;
    case 'offsetscalar': return `SELECT ${first}.k, ${last}.v - (SELECT min(z.v) FROM a z WHERE z.g <> 'b') AS d FROM ${from}${whereText} ORDER BY 1 NULLS FIRST, d NULLS FIRST OFFSET 2 LIMIT 4`;
    // A split aggregation under OFFSET: its final (a HASH stage or the root) keeps m + n groups, the root offsets.
    case 'offsetgroup': return `SELECT ${first}.g, count(*) AS n, sum(${last}.v) AS s FROM ${from}${whereText} GROUP BY ${first}.g ORDER BY 1 NULLS FIRST OFFSET 1 LIMIT 2`;
    case 'offsetonly': return `SELECT ${first}.k % 4 AS r, count(*) AS n FROM ${from}${whereText} GROUP BY 1 ORDER BY 1 NULLS FIRST OFFSET 2`;
    // TPC-H Q13's shape: the joins grouped in a derived table with column aliases, grouped again above.
    case 'derived': return `SELECT t.c, count(*) AS n, sum(t.s) AS s FROM (SELECT ${first}.${key}, count(${last}.v), sum(${last}.v) FROM ${from}${whereText} GROUP BY 1) AS t (x, c, s) GROUP BY t.c`;
    case 'minmax': return `SELECT min(${last}.g) AS lo, max(${first}.v) AS hi FROM ${from}${whereText}`;
    default: return `SELECT ${first}.k, ${last}.v, ${last}.g FROM ${from}${whereText}`;
  }
}

describe('distributed planner: generated joins give the one-task answer', function () {
  this.timeout(120_000);
  let connection: DuckDBConnection;
  let close: () => void;

  before(async () => {
    ({ connection, close } = await plannerDuckDb());
    await createSmallLakeTables(connection, TABLES, 0.42);
  });
  after(() => close?.());

  it('holds for 200 generated queries', async () => {
    await fc.assert(fc.asyncProperty(queries, async (q) => {
      const sql = sqlOf(q);
      const options = { tasks: q.tasks, catalog: 'lake', schema: 's' };
      const session: PlannerSession = { catalog: 'lake', schema: 's', joinDistribution: q.mode, maxBroadcastBytes: 100 * 1024 * 1024 };
      const plan = planDistributed(parseStatement(sql), session, metadata);
      expect(plan, sql).to.not.equal(undefined);
      const expected = sortedRows(await rowsOf(connection, translate(sql, options)));
      const actual = sortedRows(await runPlan(connection, plan!, options));
      expect(actual, `${sql} (${q.mode}, ${q.tasks} tasks)`).to.deep.equal(expected);
    }), { numRuns: 200, seed: 20261129 });
  });
});
