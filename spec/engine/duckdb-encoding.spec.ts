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

  const cases: [string, unknown, string][] = [
    ['true', { base: 'boolean' }, 'true'],
    ['1::TINYINT', { base: 'tinyint' }, '1'],
    ['1::SMALLINT', { base: 'smallint' }, '1'],
    ['1', { base: 'integer' }, '1'],
    ['9223372036854775807', { base: 'bigint' }, '9223372036854775807'],
    ['-9007199254740993::BIGINT', { base: 'bigint' }, '-9007199254740993'],
    // HUGEINT is what DuckDB types sum(integer); Presto's sum is bigint
    ['(-9223372036854775807 - 1)::HUGEINT', { base: 'bigint' }, '-9223372036854775808'],
    ['sum(x) FROM (VALUES (2147483647), (2147483647)) t(x)', { base: 'bigint' }, '4294967294'],
    ['255::UTINYINT', { base: 'smallint' }, '255'],
    ['65535::USMALLINT', { base: 'integer' }, '65535'],
    ['4294967295::UINTEGER', { base: 'bigint' }, '4294967295'],
    ['18446744073709551615::UBIGINT', { base: 'decimal', precision: 20, scale: 0 }, '"18446744073709551615"'],
    ['1.1::REAL', { base: 'real' }, '1.1'],
    ['1e0', { base: 'double' }, '1.0'],
    ['1.5e0', { base: 'double' }, '1.5'],
    ['1e10', { base: 'double' }, '1.0E10'],
    ['1e7', { base: 'double' }, '1.0E7'],
    ['9999999e0', { base: 'double' }, '9999999.0'],
    ['1.2345e-5', { base: 'double' }, '1.2345E-5'],
    ['0.001e0', { base: 'double' }, '0.001'],
    ['-123456789.25e0', { base: 'double' }, '-1.2345678925E8'],
    ['1e300', { base: 'double' }, '1.0E300'],
    ["'NaN'::DOUBLE", { base: 'double' }, '"NaN"'],
    ["'Infinity'::DOUBLE", { base: 'double' }, '"Infinity"'],
    ["'-Infinity'::DOUBLE", { base: 'double' }, '"-Infinity"'],
    ['12.30::DECIMAL(5,2)', { base: 'decimal', precision: 5, scale: 2 }, '"12.30"'],
    ['-0.05', { base: 'decimal', precision: 3, scale: 2 }, '"-0.05"'],
    ["'a\"b\\c\n\u00e9'", { base: 'varchar' }, '"a\\"b\\\\c\\n\u00e9"'],
    ["'\\xAA\\xBB'::BLOB", { base: 'varbinary' }, '"qrs="'],
    ["DATE '2001-08-22'", { base: 'date' }, '"2001-08-22"'],
    ["TIME '01:02:03.5'", { base: 'time', precision: 6 }, '"01:02:03.500000"'],
    ["TIMESTAMP '2001-01-01 01:02:03.5'", { base: 'timestamp', precision: 6 }, '"2001-01-01 01:02:03.500000"'],
    ["TIMESTAMP_MS '2001-01-01 01:02:03.5'", { base: 'timestamp', precision: 3 }, '"2001-01-01 01:02:03.500"'],
    ["TIMESTAMP_S '2001-01-01 01:02:03'", { base: 'timestamp', precision: 0 }, '"2001-01-01 01:02:03"'],
    ["TIMESTAMPTZ '2001-01-01 01:02:03.5+00'", { base: 'timestamp with time zone', precision: 6 }, '"2001-01-01 01:02:03.500000 UTC"'],
    ["INTERVAL '1 day 2 hours 3 minutes 4.567 seconds'", { base: 'interval day to second' }, '"1 02:03:04.567"'],
    ["-INTERVAL '1 second'", { base: 'interval day to second' }, '"-0 00:00:01.000"'],
    ["'8c3c6a2e-6f0b-4a8e-9b8f-2c3b8e8f9a10'::UUID", { base: 'uuid' }, '"8c3c6a2e-6f0b-4a8e-9b8f-2c3b8e8f9a10"'],
    ['\'{"a": [1, 2]}\'::JSON', { base: 'json' }, '"{\\"a\\": [1, 2]}"'],
    ["'x'::ENUM('x', 'y')", { base: 'varchar' }, '"x"'],
    ["'101'::BIT", { base: 'varchar' }, '"101"'],
    ['[1, NULL, 3]', { base: 'array', params: [{ base: 'integer' }] }, '[1,null,3]'],
    ['[[1], [2, 3], []]', { base: 'array', params: [{ base: 'array', params: [{ base: 'integer' }] }] }, '[[1],[2,3],[]]'],
    ['[1.5e0]::DOUBLE[1]', { base: 'array', params: [{ base: 'double' }] }, '[1.5]'],
    ["MAP([1, 2], ['a', NULL])", { base: 'map', params: [{ base: 'integer' }, { base: 'varchar' }] }, '{"1":"a","2":null}'],
    [
      "{'a': 1, 'b': [DATE '2001-08-22']}",
      { base: 'row', params: [{ base: 'integer' }, { base: 'array', params: [{ base: 'date' }] }], fieldNames: ['a', 'b'] },
      '[1,["2001-08-22"]]',
    ],
    ["ROW(1, 'x')", { base: 'row', params: [{ base: 'integer' }, { base: 'varchar' }], fieldNames: [undefined, undefined] }, '[1,"x"]'],
    ['NULL::INTEGER[]', { base: 'array', params: [{ base: 'integer' }] }, 'null'],
    ['NULL::STRUCT(a INTEGER)', { base: 'row', params: [{ base: 'integer' }], fieldNames: ['a'] }, 'null'],
    // DuckDB types a bare NULL as INTEGER (Presto says unknown); the value is what matters.
    ['NULL', { base: 'integer' }, 'null'],
  ];

  for (const [expression, type, json] of cases) {
    it(`${expression} -> ${json}`, async () => {
      const { plan, json: text } = await runSql(engine, `SELECT ${expression}`);
      expect(plan.columns).to.deep.equal([{ name: '_col0', type }]);
      expect(text).to.equal(`[[${json}]]`);
    });
  }

  it('renders NULL as null for every scalar type', async () => {
    const types = ['BOOLEAN', 'BIGINT', 'HUGEINT', 'DOUBLE', 'REAL', 'DECIMAL(5,2)', 'VARCHAR', 'BLOB', 'DATE', 'TIME', 'TIMESTAMP', 'TIMESTAMPTZ', 'INTERVAL', 'UUID', 'JSON'];
    const text = await rowText(engine, `SELECT ${types.map((t) => `NULL::${t}`).join(', ')}`);
    expect(text).to.equal(types.map(() => 'null').join(','));
  });

  it('renders timestamp with time zone in the session time zone', async () => {
    const text = await rowText(engine, "SELECT TIMESTAMPTZ '2001-01-01 12:00:00+00'", testSession({ timeZone: 'America/New_York' }));
    expect(text).to.equal('"2001-01-01 07:00:00.000000 America/New_York"');
  });

  it('keeps bigints beyond 2^53 exact in the JSON text', async () => {
    const { json } = await runSql(engine, 'SELECT 9007199254740993, (-9223372036854775808)::BIGINT');
    expect(json).to.equal('[[9007199254740993,-9223372036854775808]]');
  });
});
