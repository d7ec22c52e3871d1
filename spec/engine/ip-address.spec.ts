// Trino's ipaddress through the engine: literals, casts from text and bytes, Trino's text rendering
// (IPv4-mapped as IPv4, IPv6 compressed per RFC 5952), order by the 16 bytes, table columns, nesting,
// and Trino's errors for values and types the cast refuses.
import { expect } from 'chai';
import fc from 'fast-check';
import type { Engine } from '../../lib/engine/engine.types.js';
import { VivaceError } from '../../lib/protocol/vivace-error.js';
import { formatIpAddress } from '../../lib/sql/ip-address.js';
import { newEngine, runSql } from './engine-helpers.js';

describe('ipaddress in the engine', function () {
  this.timeout(30_000);
  let engine: Engine;
  before(async () => {
    engine = await newEngine(2);
  });
  after(() => engine.close());

  const failure = (sql: string) => runSql(engine, sql).then(() => undefined, (e: unknown) => e as VivaceError);

  it('reads literals and casts from text, and renders them as Trino does', async () => {
    const { rows, plan } = await runSql(engine, `SELECT IPADDRESS '10.0.0.1', CAST('::ffff:1.2.3.4' AS ipaddress), IPADDRESS '2001:0DB8:0:0:1:0:0:1',
      CAST('1:0:0:2:0:0:0:3' AS ipaddress), IPADDRESS '::', IPADDRESS '::1.2.3.4', CAST(NULL AS ipaddress)`);
    expect(plan.columns.map((c) => c.type)).to.deep.equal(Array(7).fill({ base: 'ipaddress' }));
    expect((await runSql(engine, "SELECT typeof(IPADDRESS '::1'), typeof(ARRAY[IPADDRESS '::1'])")).rows).to.deep.equal([['ipaddress', 'array(ipaddress)']]);
    expect(rows).to.deep.equal([['10.0.0.1', '1.2.3.4', '2001:db8::1:0:0:1', '1:0:0:2::3', '::', '::102:304', null]]);
  });

  it('casts column values at run time, TRY_CAST answering NULL for text it refuses', async () => {
    const { rows } = await runSql(engine, `SELECT CAST(t AS ipaddress), TRY_CAST(t AS ipaddress) FROM (VALUES ('192.168.0.1'), ('fe80::1%2'), (NULL)) v(t)`);
    expect(rows).to.deep.equal([['192.168.0.1', '192.168.0.1'], ['fe80::1', 'fe80::1'], [null, null]]);
    const tried = await runSql(engine, `SELECT TRY_CAST(t AS ipaddress) FROM (VALUES ('1.2.3'), ('x')) v(t)`);
    expect(tried.rows).to.deep.equal([[null], [null]]);
  });

  it('casts 4 or 16 bytes of varbinary, and an ipaddress to varchar', async () => {
    const { rows, plan } = await runSql(engine, `SELECT CAST(X'0A000001' AS ipaddress), CAST(X'20010DB8000000000000000000000001' AS ipaddress),
      CAST(IPADDRESS '::ffff:a00:1' AS varchar), CAST(CAST('2001:db8::0:1' AS ipaddress) AS varchar)`);
    expect(rows).to.deep.equal([['10.0.0.1', '2001:db8::1', '10.0.0.1', '2001:db8::1']]);
    expect(plan.columns.map((c) => c.type.base)).to.deep.equal(['ipaddress', 'ipaddress', 'varchar', 'varchar']);
  });

  it('casts columns holding ipaddresses to varchar and varbinary, and leaves other columns\' casts as they were', async () => {
    const { rows } = await runSql(engine, `SELECT CAST(ip AS varchar), CAST(r.ip AS varchar), CAST(ip AS varbinary), CAST(n AS varchar), CAST(s AS varbinary),
      transform(ARRAY[ip], x -> CAST(x AS varchar)), transform(ARRAY[n], x -> CAST(x AS varchar))
      FROM (SELECT ip, CAST(ROW(ip) AS ROW(ip ipaddress)) AS r, 7 AS n, 'ab' AS s FROM (VALUES (IPADDRESS '2001:db8::1'), (IPADDRESS '10.0.0.1')) v(ip))`);
    expect(rows).to.deep.equal([
      ['2001:db8::1', '2001:db8::1', 'IAENuAAAAAAAAAAAAAAAAQ==', '7', 'YWI=', ['2001:db8::1'], ['7']],
      ['10.0.0.1', '10.0.0.1', 'AAAAAAAAAAAAAP//CgAAAQ==', '7', 'YWI=', ['10.0.0.1'], ['7']],
    ]);
    const known = await runSql(engine, "SELECT CAST(IPADDRESS '::ffff:1.2.3.4' AS varbinary), CAST(IPADDRESS '::1' AS varchar)");
    expect(known.rows).to.deep.equal([['AAAAAAAAAAAAAP//AQIDBA==', '::1']]);
  });

  it('compares and orders by the 16 bytes (IPv4 after every address below ::ffff:0:0)', async () => {
    const { rows } = await runSql(engine, `SELECT CAST(t AS ipaddress) AS ip FROM (VALUES ('10.0.0.2'), ('9.255.255.255'), ('::1'), ('ffff::'), ('10.0.0.10')) v(t) ORDER BY ip`);
    expect(rows.map((r) => r[0])).to.deep.equal(['::1', '9.255.255.255', '10.0.0.2', '10.0.0.10', 'ffff::']);
    const compared = await runSql(engine, `SELECT IPADDRESS '10.0.0.1' = IPADDRESS '::ffff:10.0.0.1', IPADDRESS '10.0.0.1' < IPADDRESS '10.0.0.2',
      count(DISTINCT ip) FROM (VALUES (IPADDRESS '1.2.3.4'), (IPADDRESS '::ffff:102:304')) v(ip)`);
    expect(compared.rows).to.deep.equal([[true, true, 1]]);
  });

  it('keeps its type in tables, arrays, rows and maps', async () => {
    await runSql(engine, 'CREATE TABLE hosts (name varchar, ip ipaddress)');
    await runSql(engine, `INSERT INTO hosts VALUES ('a', IPADDRESS '10.0.0.1'), ('b', CAST('2001:db8::1' AS ipaddress)), ('c', NULL)`);
    const { rows, plan } = await runSql(engine, 'SELECT ip, ARRAY[ip], ROW(ip, name), MAP(ARRAY[name], ARRAY[ip]) FROM hosts ORDER BY name');
    expect(plan.columns.map((c) => c.type)).to.deep.equal([
      { base: 'ipaddress' }, { base: 'array', params: [{ base: 'ipaddress' }] },
      { base: 'row', params: [{ base: 'ipaddress' }, { base: 'varchar' }], fieldNames: [undefined, undefined] },
      { base: 'map', params: [{ base: 'varchar' }, { base: 'ipaddress' }] },
    ]);
    expect(rows).to.deep.equal([
      ['10.0.0.1', ['10.0.0.1'], ['10.0.0.1', 'a'], { a: '10.0.0.1' }],
      ['2001:db8::1', ['2001:db8::1'], ['2001:db8::1', 'b'], { b: '2001:db8::1' }],
      [null, [null], [null, 'c'], { c: null }],
    ]);
    const described = await runSql(engine, 'DESCRIBE hosts');
    expect(described.rows.map((r) => [r[0], r[1]])).to.deep.equal([['name', 'varchar'], ['ip', 'ipaddress']]);
    const listed = await runSql(engine, "SELECT data_type FROM information_schema.columns WHERE table_name = 'hosts' AND column_name = 'ip'");
    expect(listed.rows).to.deep.equal([['ipaddress']]);
  });

  it('casts any address text through DuckDB to the value and text the parser gives (property)', async () => {
    const value = fc.bigInt({ min: 0n, max: (1n << 128n) - 1n });
    await fc.assert(fc.asyncProperty(fc.array(value, { minLength: 1, maxLength: 20 }), async (values) => {
      const texts = values.map(formatIpAddress);
      const list = texts.map((t) => `('${t}')`).join(', ');
      const { rows } = await runSql(engine, `SELECT CAST(CAST(t AS ipaddress) AS varchar), CAST(t AS ipaddress) FROM (VALUES ${list}) v(t)`);
      expect(rows).to.deep.equal(texts.map((t) => [t, t]));
      const sorted = await runSql(engine, `SELECT CAST(t AS ipaddress) AS ip FROM (VALUES ${list}) v(t) ORDER BY ip`);
      expect(sorted.rows.map((r) => r[0])).to.deep.equal([...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).map(formatIpAddress));
    }), { numRuns: 25 });
  });

  it('refuses text and bytes as Trino: INVALID_CAST_ARGUMENT with its message; other types are a TYPE_MISMATCH', async () => {
    const literal = await failure("SELECT IPADDRESS '1.2.3.256'");
    expect(literal?.errorName).to.equal('INVALID_CAST_ARGUMENT');
    expect(literal?.message).to.match(/Cannot cast value to IPADDRESS: 1\.2\.3\.256$/);
    const cast = await failure(`SELECT CAST(t AS ipaddress) FROM (VALUES ('10.0.0.1'), ('not an ip')) v(t)`);
    expect(cast?.errorName).to.equal('INVALID_CAST_ARGUMENT');
    expect(cast?.message).to.equal('Cannot cast value to IPADDRESS: not an ip');
    const bytes = await failure("SELECT CAST(X'010203' AS ipaddress)");
    expect(bytes?.errorName).to.equal('INVALID_CAST_ARGUMENT');
    expect(bytes?.message).to.equal('Invalid IP address binary length: 3');
    const number = await failure('SELECT CAST(x AS ipaddress) FROM (VALUES (1)) v(x)');
    expect(number?.errorName).to.equal('TYPE_MISMATCH');
    const back = await failure("SELECT CAST(IPADDRESS '::1' AS bigint)");
    expect(back?.errorName).to.equal('TYPE_MISMATCH');
    expect(back?.message).to.match(/Cannot cast ipaddress to bigint$/);
  });
});
