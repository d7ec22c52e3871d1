// Values and their types as Trino sends them, through HTTP (X-Trino- headers): the JSON text of each value,
// the `type` string and the `typeSignature` (issue 20): bounded strings cut and padded, constructors typed
// with their elements' declared types, anonymous row fields.
import { expect } from 'chai';
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

  it('types ROW(...) with anonymous fields as Trino: no field name in the type or its signature', async () => {
    const field = (typeSignature: unknown) => ({ kind: 'NAMED_TYPE', value: { typeSignature } });
    expect(await single('SELECT ROW(1, 1.5)')).to.deep.equal({
      json: '[1,"1.5"]',
      type: 'row(integer, decimal(2,1))',
      signature: { rawType: 'row', arguments: [field(plain('integer')), field({ rawType: 'decimal', arguments: [long(2), long(1)] })] },
    });
    expect(await single("SELECT ROW(1, 'ab')")).to.deep.include({ type: 'row(integer, varchar(2))' });
  });
});
