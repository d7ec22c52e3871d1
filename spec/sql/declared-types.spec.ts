// What a query's output columns declare beyond DuckDB's types: literal and cast types, and the
// declared types of table columns (tpch's varchar bounds) read through the FROM clause, its subqueries
// and WITH queries.
import { expect } from 'chai';
import fc from 'fast-check';
import { parseStatement } from '../../lib/sql/parser.js';
import { declaredOutputs, UNDECLARED, type DeclaredContext } from '../../lib/sql/declared-types.js';
import type { PrestoType } from '../../lib/protocol/types.js';

const NATION = new Map<string, PrestoType>([
  ['nationkey', { base: 'bigint' }], ['name', { base: 'varchar', length: 25 }], ['regionkey', { base: 'bigint' }], ['comment', { base: 'varchar', length: 152 }],
]);
const REGION = new Map<string, PrestoType>([['regionkey', { base: 'bigint' }], ['name', { base: 'varchar', length: 25 }], ['comment', { base: 'varchar', length: 152 }]]);

const context: DeclaredContext = {
  catalog: 'tpch',
  schema: 'tiny',
  tableColumns: (t) => (t.catalog === 'tpch' && t.schema === 'tiny' ? (t.table === 'nation' ? NATION : t.table === 'region' ? REGION : undefined) : undefined),
};
const types = (sql: string, names: string[] = []) => declaredOutputs(parseStatement(sql), context, names)?.map((d) => d.type);

describe('declared output types', () => {
  it('reads column references through tables, aliases and joins, where exactly one table has the column', () => {
    expect(types('SELECT name, n.comment, nationkey + 1 FROM nation n')).to.deep.equal([{ base: 'varchar', length: 25 }, { base: 'varchar', length: 152 }, undefined]);
    expect(types('SELECT n.name, r.name, nationkey, comment FROM tpch.tiny.nation n JOIN region r ON true')).to.deep.equal([
      { base: 'varchar', length: 25 }, { base: 'varchar', length: 25 }, { base: 'bigint' }, undefined,
    ]);
  });

  it('gives a lone * over one known table its columns by output name', () => {
    expect(types('SELECT * FROM nation', ['nationkey', 'name', 'regionkey', 'comment'])).to.deep.equal([...NATION.values()]);
  });

  it('reads column references through subqueries and WITH queries, as Trino types them', () => {
    const v25 = { base: 'varchar', length: 25 };
    expect(types('SELECT name FROM (SELECT name FROM nation) t')).to.deep.equal([v25]);
    expect(types('SELECT t.n, x FROM (SELECT r.name AS n, 1 AS x FROM region r) AS t')).to.deep.equal([v25, undefined]);
    expect(types('WITH a AS (SELECT name FROM nation), b AS (SELECT *, 1 AS one FROM a) SELECT name, one FROM b')).to.deep.equal([v25, undefined]);
    expect(types('WITH a AS (WITH i AS (SELECT name FROM region) SELECT * FROM i) SELECT a.name FROM a')).to.deep.equal([v25]);
    expect(types('WITH a AS (SELECT n.* FROM nation n) SELECT * FROM a', ['nationkey', 'name', 'regionkey', 'comment'])).to.deep.equal([...NATION.values()]);
    // A subquery whose columns are only partly known (its own FROM is an UNNEST) beside a table, as Malloy joins.
    expect(types('SELECT name FROM region CROSS JOIN (SELECT row_number() OVER () - 1 AS g FROM UNNEST(sequence(0, 1)))')).to.deep.equal([v25]);
    // A parenthesized query body, and a CTE that names a table it shadows (its own query sees the table).
    expect(types('WITH nation AS (SELECT name FROM nation) SELECT name FROM ((SELECT name FROM nation)) t')).to.deep.equal([v25]);
  });

  it('keeps a column\'s type through any nesting of subqueries, WITH queries, parentheses and `*`', () => {
    // Each layer wraps the query so far, whose one column is nation.name under the name `name`.
    const layer = fc.constantFrom(
      (q: string, i: number) => `SELECT name FROM (${q}) t${i}`,
      (q: string, i: number) => `SELECT t${i}.name FROM (${q}) AS t${i}`,
      (q: string, i: number) => `WITH w${i} AS (${q}) SELECT name FROM w${i}`,
      (q: string, i: number) => `WITH w${i} AS (${q}) SELECT *, 1 AS one${i} FROM w${i}`,
      (q: string, i: number) => `SELECT * FROM (${q}) CROSS JOIN (SELECT 2 AS two${i})`,
      (q: string) => `SELECT * FROM ((${q}))`,
    );
    fc.assert(
      fc.property(fc.array(layer, { maxLength: 8 }), (layers) => {
        const sql = layers.reduce((q, wrap, i) => wrap(q, i), 'SELECT name FROM nation');
        expect(types(`SELECT name FROM (${sql}) outer_t`), sql).to.deep.equal([{ base: 'varchar', length: 25 }]);
      }),
    );
  });

  it('declares nothing through relations it cannot see into, nor where a name is ambiguous', () => {
    expect(types('WITH nation AS (SELECT 1 AS name) SELECT name FROM nation')).to.deep.equal([undefined]);
    expect(types('SELECT name FROM nation JOIN region USING (regionkey)')).to.deep.equal([undefined]);
    expect(types('SELECT name FROM (SELECT name FROM nation UNION ALL SELECT name FROM region) t')).to.deep.equal([undefined]);
    expect(types('SELECT name FROM (SELECT name FROM nation) t (name)')).to.deep.equal([undefined]);
    expect(types('WITH RECURSIVE a AS (SELECT name FROM nation) SELECT name FROM a')).to.deep.equal([undefined]);
    expect(types('WITH a (n) AS (SELECT name FROM nation) SELECT n FROM a')).to.deep.equal([undefined]);
    // Two columns of one name in a subquery: a reference to it is ambiguous, so no type is taken from either.
    expect(types("SELECT name FROM (SELECT n.name, r.name FROM nation n JOIN region r ON true) t")).to.deep.equal([undefined]);
    expect(types("SELECT name FROM (SELECT name, 'ab' AS name FROM nation) t")).to.deep.equal([undefined]);
    expect(types('SELECT name FROM nation CROSS JOIN (SELECT comment AS name FROM region) t')).to.deep.equal([undefined]);
    expect(types('SELECT name FROM nation', [])).to.deep.equal([{ base: 'varchar', length: 25 }]);
    expect(declaredOutputs(parseStatement('SELECT name FROM nation'), { tableColumns: context.tableColumns })?.[0]?.type).to.equal(undefined);
  });

  it('builds at most 100,000 column entries per statement, then leaves the rest to DuckDB', () => {
    // Every `SELECT *, x` copies the columns before it: 50 columns through n WITH queries is 50n entries.
    const chain = (n: number) => {
      const columns = Array.from({ length: 49 }, (_, i) => `1 AS c${i}`).join(', ');
      let sql = `WITH q0 AS (SELECT name, ${columns} FROM nation)`;
      for (let i = 1; i < n; i++) sql += `, q${i} AS (SELECT *, ${i} AS x${i} FROM q${i - 1})`;
      return `${sql} SELECT name FROM q${n - 1}`;
    };
    expect(types(chain(100))).to.deep.equal([{ base: 'varchar', length: 25 }]);
    expect(types(chain(2500))).to.deep.equal([undefined]);
  });

  it('prefers what a literal or cast declares', () => {
    expect(types("SELECT CAST(name AS varchar(3)), 'ab', NULL FROM nation")).to.deep.equal([{ base: 'varchar', length: 3 }, { base: 'varchar', length: 2 }, { base: 'unknown' }]);
  });

  it('types constructors by their elements, leaving to the engine what the tree does not type', () => {
    const v = (length: number) => ({ base: 'varchar', length });
    expect(types("SELECT ARRAY['a', NULL, 'abc'], ARRAY[name, 'a'], ARRAY[1], ARRAY[] FROM nation")).to.deep.equal([
      { base: 'array', params: [v(3)] }, { base: 'array', params: [v(25)] }, undefined, { base: 'array', params: [{ base: 'unknown' }] },
    ]);
    expect(types("SELECT MAP(ARRAY['a'], ARRAY[1]), ROW(1, CAST('x' AS char(2))), ARRAY[nationkey, NULL], ARRAY[comment, CAST(NULL AS varchar)] FROM nation")).to.deep.equal([
      { base: 'map', params: [v(1), UNDECLARED] },
      { base: 'row', params: [UNDECLARED, { base: 'char', length: 2 }], fieldNames: [undefined, undefined] },
      undefined,
      undefined,
    ]);
    // Temporal elements are the engine's to type (it renders their digits).
    expect(types("SELECT ARRAY[TIMESTAMP '2020-01-01 00:00:00']")).to.deep.equal([undefined]);
  });
});
