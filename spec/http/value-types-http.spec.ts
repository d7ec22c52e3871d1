// Values and their types as Trino sends them, through HTTP (X-Trino- headers): the JSON text of each value,
// the `type` string and the `typeSignature` (issue 20): bounded strings cut and padded, constructors typed
// with their elements' declared types, anonymous row fields, reals and doubles as Java writes them.
import { expect } from 'chai';
import fc from 'fast-check';
import { javaDoubleText, javaFloatText } from '../../lib/protocol/java-float-text.js';
import { createTestEngine } from '../support/duckdb.js';
import { startTestServer, type TestServer } from '../support/http.js';
import { PrestoSession } from '../support/presto-session.js';

const long = (value: number) => ({ kind: 'LONG', value });
const plain = (rawType: string) => ({ rawType, arguments: [] });
const varchar = (n: number) => ({ rawType: 'varchar', arguments: [long(n)] });
const char = (n: number) => ({ rawType: 'char', arguments: [long(n)] });
const of = (value: unknown) => ({ kind: 'TYPE', value });

describe('value types over HTTP', function () {
  this.timeout(60_000);
  let server: TestServer;
  let trino: PrestoSession;

  before(async () => {
    server = await startTestServer({ engine: await createTestEngine(2, { tpch: false }) });
    trino = new PrestoSession(server.url, { prefix: 'X-Trino-', catalog: 'memory', schema: 'default', timeZone: 'UTC' });
  });
  after(() => server.stop());

  /** The JSON text, type and signature of each column of a one-row SELECT. */
  async function columns(sql: string): Promise<{ json: string; type: string; signature: unknown }[]> {
    const out = await trino.ok(sql);
    expect(out.rows, sql).to.have.length(1);
    const values = JSON.parse(out.dataText) as unknown[][];
    return out.columns!.map((c, i) => ({ json: JSON.stringify(values[0]![i]), type: c.type, signature: c.typeSignature }));
  }
  const single = async (sql: string) => (await columns(sql))[0]!;

  it('cuts a cast to varchar(n) to n code points, as Trino', async () => {
    expect(await single("SELECT CAST('bbb' AS VARCHAR(1))")).to.deep.equal({ json: '"b"', type: 'varchar(1)', signature: varchar(1) });
    expect(await single("SELECT TRY_CAST('😂xy' AS VARCHAR(2))")).to.deep.equal({ json: '"😂x"', type: 'varchar(2)', signature: varchar(2) });
    expect(await single('SELECT CAST(NULL AS VARCHAR(1))')).to.deep.equal({ json: 'null', type: 'varchar(1)', signature: varchar(1) });
  });

  it('cuts and pads a cast to char(n), and compares char values without their padding', async () => {
    expect(await single("SELECT CAST('ccc' AS CHAR)")).to.deep.equal({ json: '"c"', type: 'char(1)', signature: char(1) });
    expect(await single("SELECT CAST('ab' AS CHAR(4))")).to.deep.equal({ json: '"ab  "', type: 'char(4)', signature: char(4) });
    expect((await single("SELECT CAST('ab ' AS CHAR(3)) = CAST('ab' AS CHAR(3))")).json).to.equal('true');
  });

  it('refuses an INSERT of a value longer than a varchar(n) or char(n) column but for trailing spaces, as Trino', async () => {
    await trino.ok('CREATE TABLE bounded (v varchar(3), c char(3), n integer)');
    for (const [values, target] of [["('abcd', 'x', 1)", 'varchar(3)'], ["('ab', 'wxyz', 1)", 'char(3)']] as const) {
      const refused = await trino.execute(`INSERT INTO bounded VALUES ${values}`);
      expect(refused.error, values).to.include({ errorName: 'GENERIC_USER_ERROR', message: `Cannot truncate non-space characters when casting from varchar(4) to ${target} on INSERT` });
    }
    await trino.ok("INSERT INTO bounded VALUES ('abc  ', 'xy  ', 2)");
    await trino.ok('INSERT INTO bounded (n) VALUES (3)');
    expect(await columns('SELECT c, n FROM bounded WHERE n = 2')).to.deep.equal([
      { json: '"xy "', type: 'char(3)', signature: char(3) },
      { json: '2', type: 'integer', signature: plain('integer') },
    ]);
    expect((await trino.ok('SELECT count(*) FROM bounded')).rows).to.deep.equal([[2]]);
  });

  it('types ARRAY[...] by its elements, char(n) elements padded', async () => {
    expect(await single("SELECT ARRAY[CAST('a' AS CHAR(3)), null]")).to.deep.equal({ json: '["a  ",null]', type: 'array(char(3))', signature: { rawType: 'array', arguments: [of(char(3))] } });
    expect(await single("SELECT ARRAY['a', 'bbb']")).to.deep.equal({ json: '["a","bbb"]', type: 'array(varchar(3))', signature: { rawType: 'array', arguments: [of(varchar(3))] } });
    expect(await single("SELECT ARRAY[ARRAY['a'], NULL, ARRAY['bb', NULL]]")).to.deep.include({ type: 'array(array(varchar(2)))' });
    expect(await single('SELECT ARRAY[]')).to.deep.equal({ json: '[]', type: 'array(unknown)', signature: { rawType: 'array', arguments: [of(plain('unknown'))] } });
    // An element the tree does not type (a column, a number) leaves the type to the engine.
    expect(await single('SELECT ARRAY[1, 2]')).to.deep.include({ type: 'array(integer)' });
    expect(await single("SELECT ARRAY[x, 'a'] FROM (VALUES CAST('bbb' AS VARCHAR)) AS t (x)")).to.deep.include({ type: 'array(varchar)' });
  });

  it('types MAP(ARRAY[...], ARRAY[...]) by its keys and values, char(n) keys and values padded', async () => {
    expect(await single("SELECT MAP(ARRAY['a'], ARRAY[1])")).to.deep.equal({
      json: '{"a":1}', type: 'map(varchar(1), integer)', signature: { rawType: 'map', arguments: [of(varchar(1)), of(plain('integer'))] },
    });
    expect(await single("SELECT MAP(ARRAY[CAST('a' AS CHAR(4)), CAST('null' AS CHAR(4))], ARRAY[CAST('a' AS CHAR), null])")).to.deep.equal({
      json: '{"a   ":"a","null":null}', type: 'map(char(4), char(1))', signature: { rawType: 'map', arguments: [of(char(4)), of(char(1))] },
    });
  });

  it('writes map keys as Trino: the text of the key\'s Java value, varbinary in base64, reals and doubles as Java writes them', async () => {
    const varbinary = plain('varbinary');
    expect(await single("SELECT MAP(ARRAY[X'', X'65683F', X'00'], ARRAY[X'', X'65683F', null])")).to.deep.equal({
      json: '{"":"","ZWg/":"ZWg/","AA==":null}', type: 'map(varbinary, varbinary)', signature: { rawType: 'map', arguments: [of(varbinary), of(varbinary)] },
    });
    const out = await trino.ok("SELECT MAP(ARRAY[CAST('NaN' AS REAL), CAST(1.4E-45 AS REAL), CAST(1 AS REAL)], ARRAY[1, 2, 3]), MAP(ARRAY[4.9E-324, -infinity()], ARRAY['a', 'b'])");
    expect(out.dataText).to.equal('[[{"NaN":1,"1.4E-45":2,"1.0":3},{"4.9E-324":"a","-Infinity":"b"}]]');
    expect(out.columns!.map((c) => c.type)).to.deep.equal(['map(real, integer)', 'map(double, varchar(1))']);
  });

  it('casts a varchar to a JSON string and other values to their JSON, as Trino; JSON literals are parsed', async () => {
    const json = { type: 'json', signature: plain('json') };
    const cells = await columns("SELECT CAST('a string' AS JSON), CAST('{}' AS JSON), CAST('a \" complex '' string :' AS JSON), CAST(NULL AS JSON), JSON '3.14', JSON '\"s\"', CAST(ARRAY[1, 2] AS JSON), CAST(MAP(ARRAY['a'], ARRAY[1.5e0]) AS JSON)");
    expect(cells).to.deep.equal(['"a string"', '"{}"', '"a \\" complex \' string :"', null, '3.14', '"s"', '[1,2]', '{"a":1.5}'].map((text) => ({ json: JSON.stringify(text), ...json })));
  });

  it("reads Trino's JSON paths in json_extract, json_extract_scalar and json_size, and refuses what Trino refuses", async () => {
    const doc = `json_parse('{"a":{"c":1},"100":{"z":200},"foo-bar":[5,6],"x/y":"s"}')`;
    const cells = await columns(`SELECT json_extract(${doc}, '$["a"]["c"]'), json_extract(${doc}, '$[100].z'), json_extract(${doc}, '$["foo-bar"][1]'), json_extract_scalar(${doc}, '$["x/y"]'), json_size(${doc}, '$.a'), json_extract(${doc}, '$.nope')`);
    expect(cells.map((c) => [c.json, c.type])).to.deep.equal([['"1"', 'json'], ['"200"', 'json'], ['"6"', 'json'], ['"s"', 'varchar'], ['1', 'bigint'], ['null', 'json']]);
    const refused = await trino.execute("SELECT json_extract('{}', '$.')");
    expect(refused.error).to.include({ errorName: 'INVALID_FUNCTION_ARGUMENT', message: "Invalid JSON path: '$.'" });
    // A path given as an EXECUTE parameter, as the SQLAlchemy dialect sends one.
    trino.preparedStatements.set('path', `SELECT json_extract(${doc}, ?)`);
    expect((await single(`EXECUTE path USING '$["foo-bar"][0]'`)).json).to.equal('"5"');
  });

  it("types Trino's sketches as Trino spells them, held as their bytes and sent in base64; qdigest's functions are not supported", async () => {
    const cells = await columns("SELECT CAST(null AS HyperLogLog), CAST(null AS P4HyperLogLog), CAST(null AS SetDigest), CAST(null AS QDigest(BIGINT)), CAST(null AS TDigest), CAST(X'020C0100800344' AS HyperLogLog)");
    expect(cells).to.deep.equal([
      { json: 'null', type: 'HyperLogLog', signature: plain('HyperLogLog') },
      { json: 'null', type: 'P4HyperLogLog', signature: plain('P4HyperLogLog') },
      { json: 'null', type: 'SetDigest', signature: plain('SetDigest') },
      { json: 'null', type: 'qdigest(bigint)', signature: { rawType: 'qdigest', arguments: [of(plain('bigint'))] } },
      { json: 'null', type: 'tdigest', signature: plain('tdigest') },
      { json: '"AgwBAIADRA=="', type: 'HyperLogLog', signature: plain('HyperLogLog') },
    ]);
    await trino.ok('CREATE TABLE sketches (h HyperLogLog, q qdigest(double))');
    await trino.ok("INSERT INTO sketches VALUES (CAST(X'01' AS HyperLogLog), NULL)");
    expect((await columns('SELECT h, q FROM sketches')).map((c) => [c.json, c.type])).to.deep.equal([['"AQ=="', 'HyperLogLog'], ['null', 'qdigest(double)']]);
    // The functions computing sketches: spec/http/sketch-functions-http.spec.ts; qdigest's are not computed.
    for (const call of ['qdigest_agg(1)', 'scale_tdigest(tdigest_agg(1), 2)']) {
      const refused = await trino.execute(`SELECT ${call}`);
      expect(refused.error, call).to.include({ errorName: 'NOT_SUPPORTED' });
    }
    expect((await trino.execute("SELECT HyperLogLog 'x'")).error).to.include({ errorName: 'TYPE_NOT_FOUND', message: 'line 1:8: Unknown type: hyperloglog' });
  });

  it('types ROW(...) with anonymous fields as Trino: no field name in the type or its signature', async () => {
    const field = (typeSignature: unknown) => ({ kind: 'NAMED_TYPE', value: { typeSignature } });
    expect(await single('SELECT ROW(1, 1.5)')).to.deep.equal({
      json: '[1,"1.5"]',
      // Trino's ProtocolUtil.createColumn: formatSql, ', ' between every argument.
      type: 'row(integer, decimal(2, 1))',
      signature: { rawType: 'row', arguments: [field(plain('integer')), field({ rawType: 'decimal', arguments: [long(2), long(1)] })] },
    });
    expect(await single("SELECT ROW(1, 'ab')")).to.deep.include({ type: 'row(integer, varchar(2))' });
  });

  it('writes reals and doubles as Java does, the tiny subnormals with two digits, non-finite ones as strings in arrays and maps', async () => {
    const real = { type: 'real', signature: plain('real') };
    const double = { type: 'double', signature: plain('double') };
    expect(await columns('SELECT CAST(1.4E-45 AS REAL), -CAST(1.4E-45 AS REAL), CAST(4.9E-324 AS DOUBLE), CAST(3.4028235E38 AS REAL), 1e7')).to.deep.equal([
      { json: '1.4e-45', ...real }, { json: '-1.4e-45', ...real }, { json: '5e-324', ...double }, { json: '3.4028235e+38', ...real }, { json: '10000000', ...double },
    ]);
    const out = await trino.ok("SELECT CAST(1.4E-45 AS REAL), CAST(4.9E-324 AS DOUBLE), ARRAY[CAST('NaN' AS REAL), CAST('-Infinity' AS REAL), CAST(1.4E-45 AS REAL), null], MAP(ARRAY[CAST(1.4E-45 AS REAL)], ARRAY[infinity()])");
    expect(out.dataText).to.equal('[[1.4E-45,4.9E-324,["NaN","-Infinity",1.4E-45,null],{"1.4E-45":"Infinity"}]]');
    expect(out.columns!.map((c) => c.type)).to.deep.equal(['real', 'double', 'array(real)', 'map(real, double)']);
    // DuckDB writes these reals with all their digits (3984802.75, 685135168.0); Java with the fewest that read back.
    // -43129152 is a tie one digit shorter (43129150 reads back to the even float): DuckDB writes 8 digits, Java 7.
    const exact = await trino.ok('SELECT CAST(3984802.75e0 AS REAL), CAST(685135168e0 AS REAL), CAST(2672502.25e0 AS REAL), ARRAY[CAST(1e8 AS REAL), CAST(2.8e-45 AS REAL)], CAST(-43129152e0 AS REAL)');
    expect(exact.dataText).to.equal('[[3984802.8,6.8513517E8,2672502.2,[1.0E8,2.8E-45],-4.312915E7]]');
    // As Trino: nan() and infinity() are doubles, so an array of them and a real is array(double).
    expect(await single('SELECT ARRAY[nan(), infinity(), -infinity(), CAST(1.4E-45 AS REAL)]')).to.deep.include({ type: 'array(double)' });
  });

  it('writes any real and double as Java\'s Float.toString and Double.toString', async () => {
    const literal = (x: number) => (Object.is(x, -0) ? '-0e0' : x.toExponential());
    await fc.assert(
      fc.asyncProperty(fc.array(fc.float({ noNaN: true, noDefaultInfinity: true }), { minLength: 15, maxLength: 15 }), fc.array(fc.double({ noNaN: true, noDefaultInfinity: true }), { minLength: 15, maxLength: 15 }), async (reals, doubles) => {
          const items = [...reals.map((f) => `CAST(${literal(f)} AS REAL)`), ...doubles.map((d) => literal(d))];
          const out = await trino.ok(`SELECT ${items.join(', ')}`);
          expect(out.dataText).to.equal(`[[${[...reals.map(javaFloatText), ...doubles.map(javaDoubleText)].join(',')}]]`);
        },
      ),
      { numRuns: 8 },
    );
  });
});
