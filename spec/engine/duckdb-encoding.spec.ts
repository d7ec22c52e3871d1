// Presto types and JSON encodings of every DuckDB type the engine maps (protocol.md section 9).
import { expect } from 'chai';
import type { Engine } from '../../lib/engine/engine.types.js';
import { newEngine, rowText, runSql, testSession } from './engine-helpers.js';

describe('duckdb engine: types and encodings', () => {
  let engine: Engine;
  before(async () => {
    engine = await newEngine();
  });
  after(() => engine.close());

  // Statements as a user sends them: Trino SQL, through the gate.
  const cases: [string, unknown, string][] = [
    ['true', { base: 'boolean' }, 'true'],
    ['CAST(1 AS tinyint)', { base: 'tinyint' }, '1'],
    ['CAST(1 AS smallint)', { base: 'smallint' }, '1'],
    ['1', { base: 'integer' }, '1'],
    ['9223372036854775807', { base: 'bigint' }, '9223372036854775807'],
    ['CAST(-9007199254740993 AS bigint)', { base: 'bigint' }, '-9007199254740993'],
    // HUGEINT is what DuckDB types sum(integer) and sum(bigint); Presto's sum is bigint
    ['sum(x) FROM (VALUES (-9223372036854775807 - 1)) t(x)', { base: 'bigint' }, '-9223372036854775808'],
    ['sum(x) FROM (VALUES (2147483647), (2147483647)) t(x)', { base: 'bigint' }, '4294967294'],
    ["REAL '1.1'", { base: 'real' }, '1.1'],
    ['1e0', { base: 'double' }, '1.0'],
    ['1.5e0', { base: 'double' }, '1.5'],
    ['1e10', { base: 'double' }, '1.0E10'],
    ['1e7', { base: 'double' }, '1.0E7'],
    ['9999999e0', { base: 'double' }, '9999999.0'],
    ['1.2345e-5', { base: 'double' }, '1.2345E-5'],
    ['0.001e0', { base: 'double' }, '0.001'],
    ['-123456789.25e0', { base: 'double' }, '-1.2345678925E8'],
    ['1e300', { base: 'double' }, '1.0E300'],
    ['nan()', { base: 'double' }, '"NaN"'],
    ['infinity()', { base: 'double' }, '"Infinity"'],
    ['-infinity()', { base: 'double' }, '"-Infinity"'],
    ['CAST(12.30 AS DECIMAL(5,2))', { base: 'decimal', precision: 5, scale: 2 }, '"12.30"'],
    // Trino's decimal literal type: leading zeros do not count (Decimals.parse), so 0.05 is decimal(2,2).
    ['-0.05', { base: 'decimal', precision: 2, scale: 2 }, '"-0.05"'],
    // Trino types a string literal varchar(n), n its length.
    ["'a\"b\\c\n\u00e9'", { base: 'varchar', length: 7 }, '"a\\"b\\\\c\\n\u00e9"'],
    ["X'AABB'", { base: 'varbinary' }, '"qrs="'],
    ["DATE '2001-08-22'", { base: 'date' }, '"2001-08-22"'],
    // A literal's precision is its digits (Trino).
    ["TIME '01:02:03.5'", { base: 'time', precision: 1 }, '"01:02:03.5"'],
    ["TIMESTAMP '2001-01-01 01:02:03.5'", { base: 'timestamp', precision: 1 }, '"2001-01-01 01:02:03.5"'],
    ["TIMESTAMP '2001-01-01 01:02:03'", { base: 'timestamp', precision: 0 }, '"2001-01-01 01:02:03"'],
    ["TIMESTAMP '2001-01-01 01:02:03.123456789'", { base: 'timestamp', precision: 9 }, '"2001-01-01 01:02:03.123456789"'],
    ["CAST(TIMESTAMP '2001-01-01 01:02:03.5' AS TIMESTAMP)", { base: 'timestamp', precision: 3 }, '"2001-01-01 01:02:03.500"'],
    ["CAST('01:02:03.25' AS TIME(2))", { base: 'time', precision: 2 }, '"01:02:03.25"'],
    ["CAST('a' AS char(3))", { base: 'char', length: 3 }, '"a  "'],
    ["CAST('abc' AS varchar(5))", { base: 'varchar', length: 5 }, '"abc"'],
    ["INTERVAL '3' MONTH", { base: 'interval year to month' }, '"0-3"'],
    ["INTERVAL -'1-2' YEAR TO MONTH", { base: 'interval year to month' }, '"-1-2"'],
    ["CAST(-0.05 AS decimal(38,38))", { base: 'decimal', precision: 38, scale: 38 }, '"-0.05000000000000000000000000000000000000"'],
    // DuckDB's TIMESTAMP_MS, TIMESTAMP_S and TIMESTAMPTZ
    ["CAST(TIMESTAMP '2001-01-01 01:02:03.5' AS TIMESTAMP(3))", { base: 'timestamp', precision: 3 }, '"2001-01-01 01:02:03.500"'],
    ["CAST(TIMESTAMP '2001-01-01 01:02:03' AS TIMESTAMP(0))", { base: 'timestamp', precision: 0 }, '"2001-01-01 01:02:03"'],
    ["with_timezone(TIMESTAMP '2001-01-01 01:02:03.5', 'UTC')", { base: 'timestamp with time zone', precision: 1 }, '"2001-01-01 01:02:03.5 UTC"'],
    [
      "INTERVAL '1' DAY + INTERVAL '2' HOUR + INTERVAL '3' MINUTE + INTERVAL '4.567' SECOND",
      { base: 'interval day to second' },
      '"1 02:03:04.567"',
    ],
    ["-INTERVAL '1' SECOND", { base: 'interval day to second' }, '"-0 00:00:01.000"'],
    ["UUID '8c3c6a2e-6f0b-4a8e-9b8f-2c3b8e8f9a10'", { base: 'uuid' }, '"8c3c6a2e-6f0b-4a8e-9b8f-2c3b8e8f9a10"'],
    ["CAST('8c3c6a2e-6f0b-4a8e-9b8f-2c3b8e8f9a10' AS uuid)", { base: 'uuid' }, '"8c3c6a2e-6f0b-4a8e-9b8f-2c3b8e8f9a10"'],
    ['ARRAY[1, NULL, 3]', { base: 'array', params: [{ base: 'integer' }] }, '[1,null,3]'],
    ['ARRAY[ARRAY[1], ARRAY[2, 3], ARRAY[]]', { base: 'array', params: [{ base: 'array', params: [{ base: 'integer' }] }] }, '[[1],[2,3],[]]'],
    ["MAP(ARRAY[1, 2], ARRAY['a', NULL])", { base: 'map', params: [{ base: 'integer' }, { base: 'varchar', length: 1 }] }, '{"1":"a","2":null}'],
    [
      "CAST(ROW(1, ARRAY[DATE '2001-08-22']) AS ROW(a integer, b date ARRAY))",
      { base: 'row', params: [{ base: 'integer' }, { base: 'array', params: [{ base: 'date' }] }], fieldNames: ['a', 'b'] },
      '[1,["2001-08-22"]]',
    ],
    ["ROW(1, 'x')", { base: 'row', params: [{ base: 'integer' }, { base: 'varchar', length: 1 }], fieldNames: [undefined, undefined] }, '[1,"x"]'],
    ['CAST(NULL AS integer ARRAY)', { base: 'array', params: [{ base: 'integer' }] }, 'null'],
    ['CAST(NULL AS ROW(a integer))', { base: 'row', params: [{ base: 'integer' }], fieldNames: ['a'] }, 'null'],
    // DuckDB types a bare NULL as INTEGER (Presto says unknown); the value is what matters.
    // Trino types a bare NULL unknown.
    ['NULL', { base: 'unknown' }, 'null'],
  ];

  for (const [expression, type, json] of cases) {
    it(`${expression} -> ${json}`, async () => {
      const { plan, json: text } = await runSql(engine, `SELECT ${expression}`);
      expect(plan.columns).to.deep.equal([{ name: '_col0', type }]);
      expect(text).to.equal(`[[${json}]]`);
    });
  }

  it('renders NULL as null for every scalar type', async () => {
    const types = [
      'BOOLEAN', 'BIGINT', 'DOUBLE', 'REAL', 'DECIMAL(5,2)', 'VARCHAR', 'VARBINARY', 'DATE', 'TIME', 'TIMESTAMP',
      'TIMESTAMP WITH TIME ZONE', 'INTERVAL DAY TO SECOND', 'UUID', 'JSON',
    ];
    // sum(bigint) is DuckDB's HUGEINT
    const { plan, json } = await runSql(engine, `SELECT ${types.map((t) => `CAST(NULL AS ${t})`).join(', ')}, sum(CAST(NULL AS bigint))`);
    expect(plan.columns).to.have.length(types.length + 1);
    expect(json).to.equal(`[[${[...types, 'HUGEINT'].map(() => 'null').join(',')}]]`);
  });

  it('renders timestamp with time zone in the session time zone', async () => {
    // 978350400 is 2001-01-01 12:00:00 UTC
    const text = await rowText(engine, 'SELECT from_unixtime(978350400)', testSession({ timeZone: 'America/New_York' }));
    expect(text).to.equal('"2001-01-01 07:00:00.000 America/New_York"');
  });

  it('keeps bigints beyond 2^53 exact in the JSON text', async () => {
    const { json } = await runSql(engine, 'SELECT 9007199254740993, CAST(-9223372036854775808 AS BIGINT)');
    expect(json).to.equal('[[9007199254740993,-9223372036854775808]]');
  });
});

// The row encoding of DuckDB types Presto SQL cannot spell: unsigned integers, ENUM, BIT, DuckDB's
// fixed-size ARRAY (Trino's arrays are DuckDB lists), and DuckDB's JSON type holding its text as written
// (Trino's JSON literal and json_parse canonicalise the text; json_parse is in presto-functions.spec.ts).
// The gate refuses these spellings, so the statements are planned as the project's own SQL (ownSql): what
// is tested here is the renderer, not what a user may send.
describe('duckdb engine: encodings of DuckDB types Presto SQL cannot spell (own SQL)', () => {
  let engine: Engine;
  before(async () => {
    engine = await newEngine(1, { ownSql: true });
  });
  after(() => engine.close());

  const cases: [string, unknown, string][] = [
    ['255::UTINYINT', { base: 'smallint' }, '255'],
    ['65535::USMALLINT', { base: 'integer' }, '65535'],
    ['4294967295::UINTEGER', { base: 'bigint' }, '4294967295'],
    ['18446744073709551615::UBIGINT', { base: 'decimal', precision: 20, scale: 0 }, '"18446744073709551615"'],
    ['\'{"a": [1, 2]}\'::JSON', { base: 'json' }, '"{\\"a\\": [1, 2]}"'],
    ["'x'::ENUM('x', 'y')", { base: 'varchar' }, '"x"'],
    ["'101'::BIT", { base: 'varchar' }, '"101"'],
    // DuckDB's fixed-size ARRAY, not its LIST
    ['[1.5e0]::DOUBLE[1]', { base: 'array', params: [{ base: 'double' }] }, '[1.5]'],
  ];

  for (const [expression, type, json] of cases) {
    it(`${expression} -> ${json}`, async () => {
      // The project's own SQL names its columns: DuckDB's names are kept as they are.
      const { plan, json: text } = await runSql(engine, `SELECT ${expression} AS _col0`);
      expect(plan.columns).to.deep.equal([{ name: '_col0', type }]);
      expect(text).to.equal(`[[${json}]]`);
    });
  }

  it('renders NULL as null for the types Presto SQL cannot spell', async () => {
    const types = ['UTINYINT', 'USMALLINT', 'UINTEGER', 'UBIGINT', "ENUM('x')", 'BIT', 'DOUBLE[1]'];
    expect(await rowText(engine, `SELECT ${types.map((t) => `NULL::${t}`).join(', ')}`)).to.equal(types.map(() => 'null').join(','));
  });
});
