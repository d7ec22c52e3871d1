// Every Trino type through HTTP (X-Trino- headers): as a literal, as a cast and as a table column (a memory
// table keeps the declared types DuckDB's column types lose: lib/engine/catalogs/declared-columns.ts), with
// the `type` string, the `typeSignature` and the JSON value as Trino renders them (client protocol v1:
// decimals, dates, times, intervals, varbinary (base64) and json as strings; rows as arrays).
// Decimals: property-based round trips of literals and EXECUTE parameters of every precision and scale.
import { expect } from 'chai';
import fc from 'fast-check';
import { createTestEngine } from '../support/duckdb.js';
import { startTestServer, type TestServer } from '../support/http.js';
import { PrestoSession } from '../support/presto-session.js';

const long = (value: number) => ({ kind: 'LONG', value });
const plain = (rawType: string) => ({ rawType, arguments: [] });
const VARCHAR = { rawType: 'varchar', arguments: [long(2147483647)] };

interface TypeCase {
  /** The Trino type as a column definition, and the same as `type` in the response. */
  type: string;
  signature: unknown;
  literal?: string;
  cast: string;
  /** The JSON text Trino sends for the value. */
  json: string;
}

const CASES: TypeCase[] = [
  { type: 'boolean', signature: plain('boolean'), literal: 'true', cast: "CAST('true' AS boolean)", json: 'true' },
  { type: 'tinyint', signature: plain('tinyint'), cast: "CAST('-7' AS tinyint)", json: '-7' },
  { type: 'smallint', signature: plain('smallint'), cast: "CAST('300' AS smallint)", json: '300' },
  { type: 'integer', signature: plain('integer'), literal: '42', cast: "CAST('42' AS integer)", json: '42' },
  { type: 'bigint', signature: plain('bigint'), literal: '10000000000', cast: "CAST('10000000000' AS bigint)", json: '10000000000' },
  { type: 'real', signature: plain('real'), literal: "REAL '1.5'", cast: "CAST('1.5' AS real)", json: '1.5' },
  { type: 'double', signature: plain('double'), literal: '1.5E0', cast: "CAST('1.5' AS double)", json: '1.5' },
  // Trino's column `type` joins every argument with ", " (ProtocolUtil.formatType); typeof and DESCRIBE say decimal(5,2).
  { type: 'decimal(5, 2)', signature: { rawType: 'decimal', arguments: [long(5), long(2)] }, literal: "DECIMAL '123.45'", cast: "CAST('123.45' AS decimal(5,2))", json: '"123.45"' },
  { type: 'decimal(38, 0)', signature: { rawType: 'decimal', arguments: [long(38), long(0)] }, cast: "CAST('12345678901234567890123456789012345678' AS decimal)", json: '"12345678901234567890123456789012345678"' },
  { type: 'varchar', signature: VARCHAR, cast: "CAST('abc' AS varchar)", json: '"abc"' },
  { type: 'varchar(3)', signature: { rawType: 'varchar', arguments: [long(3)] }, literal: "'abc'", cast: "CAST('abc' AS varchar(3))", json: '"abc"' },
  { type: 'char(3)', signature: { rawType: 'char', arguments: [long(3)] }, literal: "CHAR 'a  '", cast: "CAST('a' AS char(3))", json: '"a  "' },
  { type: 'varbinary', signature: plain('varbinary'), literal: "X'0102'", cast: "CAST(X'0102' AS varbinary)", json: '"AQI="' },
  { type: 'json', signature: plain('json'), literal: `JSON '{"a":1}'`, cast: "CAST(MAP(ARRAY['a'], ARRAY[1]) AS json)", json: '"{\\"a\\":1}"' },
  { type: 'date', signature: plain('date'), literal: "DATE '2020-01-02'", cast: "CAST('2020-01-02' AS date)", json: '"2020-01-02"' },
  { type: 'time(3)', signature: { rawType: 'time', arguments: [long(3)] }, literal: "TIME '01:02:03.456'", cast: "CAST('01:02:03.456' AS time)", json: '"01:02:03.456"' },
  { type: 'timestamp(3)', signature: { rawType: 'timestamp', arguments: [long(3)] }, literal: "TIMESTAMP '2020-01-02 03:04:05.123'", cast: "CAST('2020-01-02 03:04:05.123' AS timestamp)", json: '"2020-01-02 03:04:05.123"' },
  { type: 'timestamp(6)', signature: { rawType: 'timestamp', arguments: [long(6)] }, literal: "TIMESTAMP '2020-01-02 03:04:05.123456'", cast: "CAST('2020-01-02 03:04:05.123456' AS timestamp(6))", json: '"2020-01-02 03:04:05.123456"' },
  {
    type: 'timestamp(3) with time zone', signature: { rawType: 'timestamp with time zone', arguments: [long(3)] },
    literal: "TIMESTAMP '2020-01-02 03:04:05.123 UTC'", cast: "CAST('2020-01-02 03:04:05.123 UTC' AS timestamp(3) with time zone)", json: '"2020-01-02 03:04:05.123 UTC"',
  },
  { type: 'interval day to second', signature: plain('interval day to second'), literal: "INTERVAL '2' DAY", cast: "CAST(INTERVAL '2' DAY AS interval day to second)", json: '"2 00:00:00.000"' },
  { type: 'interval year to month', signature: plain('interval year to month'), literal: "INTERVAL '3' MONTH", cast: "CAST(INTERVAL '3' MONTH AS interval year to month)", json: '"0-3"' },
  { type: 'array(integer)', signature: { rawType: 'array', arguments: [{ kind: 'TYPE', value: plain('integer') }] }, literal: 'ARRAY[1, 2]', cast: "CAST(ARRAY['1', '2'] AS array(integer))", json: '[1,2]' },
  {
    type: 'map(varchar, integer)', signature: { rawType: 'map', arguments: [{ kind: 'TYPE', value: VARCHAR }, { kind: 'TYPE', value: plain('integer') }] },
    cast: "CAST(MAP(ARRAY['a'], ARRAY[1]) AS map(varchar, integer))", json: '{"a":1}',
  },
  {
    type: 'row(x integer, y varchar)',
    signature: {
      rawType: 'row',
      arguments: [
        { kind: 'NAMED_TYPE', value: { fieldName: { name: 'x' }, typeSignature: plain('integer') } },
        { kind: 'NAMED_TYPE', value: { fieldName: { name: 'y' }, typeSignature: VARCHAR } },
      ],
    },
    cast: "CAST(ROW(1, 'a') AS row(x integer, y varchar))", json: '[1,"a"]',
  },
  { type: 'uuid', signature: plain('uuid'), cast: "CAST('12151fd2-7586-11e9-8f9e-2a86e4085a59' AS uuid)", json: '"12151fd2-7586-11e9-8f9e-2a86e4085a59"' },
  // Trino writes an IPv4-mapped address as IPv4, and IPv6 compressed (RFC 5952).
  { type: 'ipaddress', signature: plain('ipaddress'), literal: "IPADDRESS '::ffff:10.0.0.1'", cast: "CAST('10.0.0.1' AS ipaddress)", json: '"10.0.0.1"' },
];


describe('type matrix over HTTP', function () {
  this.timeout(60_000);
  let server: TestServer;
  let trino: PrestoSession;

  before(async () => {
    server = await startTestServer({ engine: await createTestEngine(2, { tpch: false }) });
    trino = new PrestoSession(server.url, { prefix: 'X-Trino-', catalog: 'memory', schema: 'default', timeZone: 'UTC' });
  });
  after(() => server.stop());

  async function single(sql: string): Promise<{ json: string; type: string; signature: unknown }> {
    const out = await trino.ok(sql);
    expect(out.rows, sql).to.have.length(1);
    const column = out.columns![0]!;
    return { json: out.dataText.slice(2, -2), type: column.type, signature: column.typeSignature };
  }

  for (const c of CASES) {
    it(`${c.type}: literal, cast and table column`, async () => {
      const forms = [...(c.literal ? [c.literal] : []), c.cast];
      for (const form of forms) {
        expect(await single(`SELECT ${form}`), form).to.deep.equal({ json: c.json, type: c.type, signature: c.signature });
      }
      const table = `matrix_${c.type.replace(/\W+/g, '_')}`;
      await trino.ok(`CREATE TABLE ${table} (v ${c.type})`);
      await trino.ok(`INSERT INTO ${table} VALUES (${c.cast})`);
      expect(await single(`SELECT v FROM ${table}`), `${c.type} column`).to.deep.equal({ json: c.json, type: c.type, signature: c.signature });
    });
  }

  it('time with time zone literals keep their offset, written as Trino writes it', async () => {
    expect(await single("SELECT TIME '01:02:03 +02:00'")).to.deep.equal({
      json: '"01:02:03+02:00"', type: 'time(0) with time zone', signature: { rawType: 'time with time zone', arguments: [long(0)] },
    });
  });

  it('reads Trino\'s sequence table function: sequential_number, stop inclusive, named or positional arguments', async () => {
    const out = await trino.ok('SELECT * FROM TABLE(sequence(start => 10, stop => 0, step => -5))');
    expect(out.columns!.map((c) => [c.name, c.type])).to.deep.equal([['sequential_number', 'bigint']]);
    expect(out.rows).to.deep.equal([[10], [5], [0]]);
    expect((await trino.ok('SELECT count(*) FROM TABLE(sequence(1, 100000)) AS t (n) WHERE n % 2 = 0')).rows).to.deep.equal([[50000]]);
    expect((await trino.execute('SELECT * FROM TABLE(sequence(start => 1))')).error).to.include({ errorName: 'INVALID_FUNCTION_ARGUMENT', message: 'line 1:15: Missing argument: STOP' });
  });

  it('casts rows to JSON as Trino: anonymous fields as an array, named fields as an object', async () => {
    expect((await single("SELECT CAST(ROW(1, 'a') AS JSON)")).json).to.equal('"[1,\\"a\\"]"');
    expect((await single("SELECT CAST(CAST(ROW(1, 'a') AS ROW(x integer, y varchar)) AS JSON)")).json).to.equal('"{\\"x\\":1,\\"y\\":\\"a\\"}"');
  });

  it('writes an IPv6 ipaddress compressed and lower case, as Trino', async () => {
    for (const form of ["IPADDRESS '2001:0DB8:0:0:1:0:0:1'", "CAST('2001:db8:0::1:0:0:1' AS ipaddress)"]) {
      expect(await single(`SELECT ${form}`), form).to.deep.equal({ json: '"2001:db8::1:0:0:1"', type: 'ipaddress', signature: plain('ipaddress') });
    }
    const refused = await trino.execute("SELECT CAST('10.0.0.1/8' AS ipaddress)");
    expect(refused.error).to.include({ errorName: 'INVALID_CAST_ARGUMENT', message: 'Cannot cast value to IPADDRESS: 10.0.0.1/8' });
  });

  it('takes rows that name a field twice (DuckDB refuses them) as a cast, a subquery output, a table column and in an array', async () => {
    const named = (name: string) => ({ kind: 'NAMED_TYPE', value: { fieldName: { name }, typeSignature: plain('integer') } });
    const twice = { json: '[1,2]', type: 'row(a integer, a integer)', signature: { rawType: 'row', arguments: [named('a'), named('a')] } };
    expect(await single('SELECT CAST(ROW(1, 2) AS ROW(a integer, a integer))')).to.deep.equal(twice);
    expect(await single('SELECT r FROM (SELECT CAST(ROW(1, 2) AS ROW(a integer, a integer)) AS r)')).to.deep.equal(twice);
    // As Trino, an unquoted field name is lower case, so `a` and `A` are one name; a quoted one keeps its case.
    await trino.ok('CREATE TABLE twice (r row(a integer, A integer, b varchar, "A" integer))');
    await trino.ok(`INSERT INTO twice VALUES (CAST(ROW(1, 2, 'x', 3) AS ROW(a integer, A integer, b varchar, "A" integer)))`);
    const column = await single('SELECT r FROM twice');
    expect([column.json, column.type]).to.deep.equal(['[1,2,"x",3]', 'row(a integer, a integer, b varchar, A integer)']);
    expect((await trino.ok('DESCRIBE twice')).rows[0]!.slice(0, 2)).to.deep.equal(['r', 'row(a integer, a integer, b varchar, A integer)']);
    const array = await single('SELECT ARRAY[CAST(ROW(1, 2) AS ROW(a integer, a integer)), NULL]');
    expect([array.json, array.type]).to.deep.equal(['[[1,2],null]', 'array(row(a integer, a integer))']);
    // Trino writes the key as often as the row names it.
    expect((await single('SELECT CAST(CAST(ROW(1, 2) AS ROW(a integer, a integer)) AS JSON)')).json).to.equal('"{\\"a\\":1,\\"a\\":2}"');
  });

  it('types a bare NULL unknown', async () => {
    expect(await single('SELECT NULL')).to.deep.equal({ json: 'null', type: 'unknown', signature: plain('unknown') });
  });

  /** A decimal's text with `precision` digits of which `scale` after the point, from fast-check digits. */
  const decimalText = fc
    .tuple(fc.integer({ min: 1, max: 38 }), fc.boolean(), fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 38, maxLength: 38 }))
    .chain(([precision, negative, digits]) =>
      fc.integer({ min: 0, max: precision }).map((scale) => {
        const all = digits.slice(0, precision).join('');
        const integral = all.slice(0, precision - scale);
        const text = scale === 0 ? all : `${integral}.${all.slice(precision - scale)}`;
        return { precision, scale, text: `${negative ? '-' : ''}${text}` };
      }),
    );

  /** Trino's text of a decimal(p,s) value: at least one integral digit, leading zeros dropped. */
  function rendered(text: string, scale: number): string {
    const negative = text.startsWith('-');
    const [integral, fraction] = (negative ? text.slice(1) : text).split('.');
    const digits = (integral ?? '').replace(/^0+/, '') || '0';
    const body = scale === 0 ? digits : `${digits}.${fraction}`;
    const zero = /^[0.]+$/.test(body);
    return `${negative && !zero ? '-' : ''}${body}`;
  }

  it('round-trips decimal literals and parameters of every precision and scale, digit for digit', async () => {
    await fc.assert(
      fc.asyncProperty(decimalText, async ({ precision, scale, text }) => {
        const literal = await single(`SELECT CAST(DECIMAL '${text}' AS decimal(${precision}, ${scale}))`);
        expect(literal.json, text).to.equal(`"${rendered(text, scale)}"`);
        expect(literal.type).to.equal(`decimal(${precision}, ${scale})`);
        trino.preparedStatements.set('d', `SELECT CAST(? AS decimal(${precision}, ${scale}))`);
        const parameter = await single(`EXECUTE d USING DECIMAL '${text}'`);
        expect(parameter.json, `parameter ${text}`).to.equal(`"${rendered(text, scale)}"`);
        // As the Trino Python client sends a Decimal: the parameter's own type, argument for argument.
        trino.preparedStatements.set('p', 'SELECT ?');
        const bare = await single(`EXECUTE p USING DECIMAL '${text}'`);
        // Trino's Decimals.parse: leading zeros of the integral part count for nothing.
        const [integral = '', fraction = ''] = text.replace('-', '').split('.');
        const digits = Math.max(1, integral.replace(/^0+/, '').length + fraction.length);
        expect([bare.type, bare.signature], `bare parameter ${text}`).to.deep.equal([`decimal(${digits}, ${scale})`, { rawType: 'decimal', arguments: [long(digits), long(scale)] }]);
      }),
      { numRuns: 60 },
    );
  });
});
