// The row renderer (row-renderer.ts) on a bare DuckDB connection with the project's macros: Presto's JSON
// for nested values of every shape, and rendering linear in the depth of the type (issue 7, point 4).
import { expect } from 'chai';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { CONNECTION_SETUP_SQL } from '../../lib/engine/presto-macros.js';
import { MAX_ELEMENT_NESTING, MAX_TYPE_DEPTH, renderRowsSql } from '../../lib/engine/row-renderer.js';
import { VivaceError } from '../../lib/protocol/vivace-error.js';

const ZONE = 'America/New_York';

describe('row renderer: nested values', function () {
  this.timeout(60_000);
  let instance: DuckDBInstance;
  let connection: DuckDBConnection;
  before(async () => {
    instance = await DuckDBInstance.create(':memory:', { memory_limit: '1GB', threads: '2' });
    connection = await instance.connect();
    for (const sql of CONNECTION_SETUP_SQL) await connection.run(sql);
    await connection.run(`SET TimeZone = '${ZONE}'`);
  });
  after(() => {
    connection.closeSync();
    instance.closeSync();
  });

  /** The render SQL of `SELECT <expression>`, with the types DuckDB gives it. */
  async function renderSql(expression: string, inner = `SELECT ${expression}`): Promise<string> {
    const prepared = await connection.prepare(inner);
    const types = Array.from({ length: prepared.columnCount }, (_, i) => prepared.columnType(i));
    prepared.destroySync();
    return renderRowsSql(inner, types, ZONE);
  }

  /** Each row of `SELECT <expression> UNION ALL SELECT NULL` rendered: the value's JSON, then null. */
  async function rendered(expression: string): Promise<string[]> {
    const result = await connection.runAndReadAll(await renderSql('', `SELECT ${expression} UNION ALL SELECT NULL`));
    return result.getRows().map((row) => Buffer.from((row[0] as { bytes: Uint8Array }).bytes).toString('utf8').slice(1, -2));
  }

  it('ends every row with the comma between rows, so rows back to back in a chunk are a page as they lie', async () => {
    const result = await connection.runAndReadAll(await renderSql('', "SELECT 1 AS a, 'x,' AS b UNION ALL SELECT NULL, NULL"));
    const texts = result.getRows().map((row) => Buffer.from((row[0] as { bytes: Uint8Array }).bytes).toString('utf8'));
    expect(texts.sort()).to.deep.equal(['[1,"x,"],', '[null,null],']);
  });

  // Outputs of the renderer before it became linear (lambdas nested per level), which these must keep.
  const cases: [string, string][] = [
    ["[1, NULL, 3]", "[1,null,3]"],
    ["[[1], [2, 3], [], NULL]", "[[1],[2,3],[],null]"],
    ["['a\"b\\c{}:,[]' || chr(10) || chr(1) || 'é\"\":', '', '{\"a\":1}']", "[\"a\\\"b\\\\c{}:,[]\\n\\u0001é\\\"\\\":\",\"\",\"{\\\"a\\\":1}\"]"],
    ["[12.30::DECIMAL(5,2), NULL]", "[\"12.30\",null]"],
    ["[DATE '2001-08-22']", "[\"2001-08-22\"]"],
    ["['{\"a\": [1, 2]}'::JSON]", "[\"{\\\"a\\\": [1, 2]}\"]"],
    ["[18446744073709551615::UBIGINT]", "[\"18446744073709551615\"]"],
    ["[(-9223372036854775807 - 1)::HUGEINT]", "[-9223372036854775808]"],
    ["[true, NULL]", "[true,null]"],
    ["[]::INTEGER[]", "[]"],
    ["[1.5e0, NULL, 'nan'::DOUBLE, 1e10]", "[1.5,null,\"NaN\",1.0E10]"],
    ["[1.1::REAL]", "[1.1]"],
    ["['\\xAA\\xBB'::BLOB]", "[\"qrs=\"]"],
    ["[TIMESTAMP '2001-01-01 01:02:03.5']", "[\"2001-01-01 01:02:03.500000\"]"],
    ["[INTERVAL '1 day 2 hours']", "[\"1 02:00:00.000\"]"],
    ["MAP([1, 2], ['a', NULL])", "{\"1\":\"a\",\"2\":null}"],
    ["MAP(['a\"b\\c{}:,[]' || chr(10) || chr(1) || 'é\"\":'], ['a\"b\\c{}:,[]' || chr(10) || chr(1) || 'é\"\":'])", "{\"a\\\"b\\\\c{}:,[]\\n\\u0001é\\\"\\\":\":\"a\\\"b\\\\c{}:,[]\\n\\u0001é\\\"\\\":\"}"],
    // Trino writes a double key as Double.toString.
    ["MAP([1.5e0, 1e20], [1, 2])", "{\"1.5\":1,\"1.0E20\":2}"],
    ["MAP(['a'], [1.5e0])", "{\"a\":1.5}"],
    ["MAP(['a'], [{'x': 1}])", "{\"a\":[1]}"],
    ["MAP([{'k': 1}], [[1]])", "{\"{'k': 1}\":[1]}"],
    ["MAP([]::INTEGER[], []::INTEGER[])", "{}"],
    ["{'a': 1, 'b': [DATE '2001-08-22']}", "[1,[\"2001-08-22\"]]"],
    ["ROW(1, ROW(2, 'a\"b\\c{}:,[]' || chr(10) || chr(1) || 'é\"\":'))", "[1,[2,\"a\\\"b\\\\c{}:,[]\\n\\u0001é\\\"\\\":\"]]"],
    ["{'a': {'b': {'c': NULL}}}", "[[[null]]]"],
    ["[{'a': 1, 'b': 'x'}, NULL, {'a': NULL, 'b': 'a\"b\\c{}:,[]' || chr(10) || chr(1) || 'é\"\":'}]", "[[1,\"x\"],null,[null,\"a\\\"b\\\\c{}:,[]\\n\\u0001é\\\"\\\":\"]]"],
    ["{'a\"b': 1, 'c': '{'}", "[1,\"{\"]"],
    ["[{'a': MAP(['k'], [1])}]", "[[{\"k\":1}]]"],
    ["[{'a': 1.5e0}]", "[[1.5]]"],
    ["[[{'a': 1}], NULL, []]", "[[[1]],null,[]]"],
    ["{'j': '{\"x\":1}'::JSON, 'r': {'h': 1::HUGEINT}}", "[\"{\\\"x\\\":1}\",[1]]"],
    ["[[1.5e0, 2], [3, 4]]::DOUBLE[2][2]", "[[1.5,2.0],[3.0,4.0]]"],
    ["{'x': [1.5e0], 'y': {'z': [TIMESTAMP '2001-01-01']}}", "[[1.5],[[\"2001-01-01 00:00:00.000000\"]]]"],
    ["[[[[[[1.5e0, -0.0, 'nan'::DOUBLE, 'inf'::DOUBLE, 5e-324, 1.2345e-5, NULL]]]]], NULL, []]", "[[[[[[1.5,0.0,\"NaN\",\"Infinity\",4.9E-324,1.2345E-5,null]]]]],null,[]]"],
    ["[[[[[1.1::REAL]]]]]", "[[[[[1.1]]]]]"],
    ["[[[[[TIME '01:02:03.5', NULL]]]]]", "[[[[[\"01:02:03.500000\",null]]]]]"],
    ["[[[[[TIMESTAMP '2001-01-01 01:02:03.5', 'infinity'::TIMESTAMP]]]]]", "[[[[[\"2001-01-01 01:02:03.500000\",\"infinity\"]]]]]"],
    ["[[[[['2001-01-01 01:02:03.123456789'::TIMESTAMP_NS]]]]]", "[[[[[\"2001-01-01 01:02:03.123456789\"]]]]]"],
    ["[[[[[TIMESTAMPTZ '2001-01-01 01:02:03.5+05:30']]]]]", "[[[[[\"2000-12-31 14:32:03.500000 America/New_York\"]]]]]"],
    ["[[[[[INTERVAL '1 year 2 months 3 days 04:05:06.789', -INTERVAL '1 second']]]]]", "[[[[[\"423 04:05:06.789\",\"-0 00:00:01.000\"]]]]]"],
    ["{'a': {'b': {'c': {'d': {'e': [{'f': 'a\"b\\c{}:,[]' || chr(10) || chr(1) || 'é\"\":'}, NULL], 'g': 1::HUGEINT}}}}}", "[[[[[[[\"a\\\"b\\\\c{}:,[]\\n\\u0001é\\\"\\\":\"],null],1]]]]]"],
    ["[[[[[{'a': 12.30::DECIMAL(5,2), 'b': NULL}]]]]]", "[[[[[[\"12.30\",null]]]]]]"],
    ["ROW(ROW(ROW(ROW(ROW(1, 'x'), NULL), 'y'), 'z'), 1)", "[[[[[1,\"x\"],null],\"y\"],\"z\"],1]"],
    ["{'a': {'b': {'c': {'d': {'e': 1.5e0, 'f': MAP(['k'], [[1]])}, 'g': NULL::STRUCT(x DOUBLE)}}}}", "[[[[[1.5,{\"k\":[1]}],null]]]]"],
  ];
  for (const [expression, json] of cases) {
    it(`${expression} -> ${json}`, async () => {
      expect(await rendered(expression)).to.deep.equal([json, 'null']);
    });
  }

  describe('deep values', () => {
    const shapes: Record<string, { value: (depth: number) => string; json: (depth: number) => string }> = {
      'arrays of integers': { value: (d) => wrap(d, '1', (e) => `[${e}]`), json: (d) => wrap(d, '1', (e) => `[${e}]`) },
      rows: { value: (d) => wrap(d, '1', (e) => `ROW(${e}, 'x')`), json: (d) => wrap(d, '1', (e) => `[${e},"x"]`) },
      maps: { value: (d) => wrap(d, '1', (e) => `MAP(['k'], [${e}])`), json: (d) => wrap(d, '1', (e) => `{"k":${e}}`) },
      'arrays of rows': { value: (d) => wrap(d, '1', (e, i) => (i % 2 ? `[${e}]` : `ROW(${e}, 'x')`)), json: (d) => wrap(d, '1', (e, i) => (i % 2 ? `[${e}]` : `[${e},"x"]`)) },
      'arrays of doubles': { value: (d) => wrap(d, '1.5e0', (e) => `[${e}]`), json: (d) => wrap(d, '1.5', (e) => `[${e}]`) },
      'rows holding a double': { value: (d) => wrap(d, '1.5e0', (e) => `ROW(${e}, 'x')`), json: (d) => wrap(d, '1.5', (e) => `[${e},"x"]`) },
      'rows holding a map': { value: (d) => wrap(d, "MAP(['k'], [2.5e0])", (e) => `ROW(${e}, 'x')`), json: (d) => wrap(d, '{"k":2.5}', (e) => `[${e},"x"]`) },
    };
    for (const [shape, { value, json }] of Object.entries(shapes)) {
      for (const depth of [16, 32, 64]) {
        it(`${depth}-deep ${shape} render in well under a second`, async () => {
          const start = performance.now();
          expect(await rendered(value(depth))).to.deep.equal([json(depth), 'null']);
          // Generous: catches exponential work (a 16-deep array took 13-38 s), not speed.
          expect(performance.now() - start).to.be.below(5000);
        });
      }
      it(`the SQL for ${shape} grows linearly with depth`, async () => {
        const [s16, s32, s64] = await Promise.all([16, 32, 64].map((d) => renderSql(value(d)).then((s) => s.length - value(d).length)));
        // Linear: doubling the depth at most doubles the SQL the renderer adds (quadratic would be x4).
        expect(s32 / s16).to.be.below(2.2);
        expect(s64 / s32).to.be.below(2.2);
      });
    }
  });

  describe('depth limits (NOT_SUPPORTED, a USER_ERROR)', () => {
    async function refusal(expression: string): Promise<VivaceError> {
      const err = await renderSql(expression).then(() => undefined, (e: unknown) => e);
      expect(err).to.be.instanceOf(VivaceError);
      return err as VivaceError;
    }

    it(`types nest at most ${MAX_TYPE_DEPTH} levels`, async () => {
      expect(await renderSql(wrap(MAX_TYPE_DEPTH, '1', (e) => `[${e}]`))).to.be.a('string');
      const err = await refusal(wrap(MAX_TYPE_DEPTH + 1, '1', (e) => `[${e}]`));
      expect(err.errorName).to.equal('NOT_SUPPORTED');
      expect(err.message).to.equal(`Result column 1 nests arrays, maps or rows ${MAX_TYPE_DEPTH + 1} levels deep: at most ${MAX_TYPE_DEPTH} are supported`);
    });

    it(`arrays and maps around values formatted one by one nest at most ${MAX_ELEMENT_NESTING} levels`, async () => {
      const around = (d: number) => wrap(d, "ROW(1.5e0, 'x')", (e) => `[${e}]`);
      expect(await rendered(around(MAX_ELEMENT_NESTING - 1))).to.deep.equal([wrap(MAX_ELEMENT_NESTING - 1, '[1.5,"x"]', (e) => `[${e}]`), 'null']);
      const err = await refusal(around(MAX_ELEMENT_NESTING));
      expect(err.errorName).to.equal('NOT_SUPPORTED');
      expect(err.message).to.match(/^Result column 1 nests arrays, maps or rows more than 16 levels deep around maps or values of type real, double/);
    });
  });
});

/** `leaf` wrapped `depth` times by `level` (innermost first; `i` counts from 0 at the innermost). */
function wrap(depth: number, leaf: string, level: (inner: string, i: number) => string): string {
  let text = leaf;
  for (let i = 0; i < depth; i++) text = level(text, i);
  return text;
}
