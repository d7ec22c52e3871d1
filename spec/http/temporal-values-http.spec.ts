// Dates, times and timestamps through HTTP as Trino sends them: every fraction digit of the declared
// precision up to 12 (DuckDB holds 9, 6 beside an offset), zones named as Trino names them (`UTC-05:30` is
// -05:30), a local time in a DST gap refused, ISO years (`-2001-08-22`, `+10000-01-01`) and Trino's
// whole range of dates. Value, type string and typeSignature; every body is validated against its schema.
import { expect } from 'chai';
import { createTestEngine } from '../support/duckdb.js';
import { startTestServer, type TestServer } from '../support/http.js';
import { PrestoSession } from '../support/presto-session.js';

describe('temporal values over HTTP', function () {
  this.timeout(60_000);
  let server: TestServer;
  let trino: PrestoSession;
  let presto: PrestoSession;

  before(async () => {
    server = await startTestServer({ engine: await createTestEngine(2, { tpch: false }) });
    trino = new PrestoSession(server.url, { prefix: 'X-Trino-', catalog: 'memory', schema: 'default' });
    presto = new PrestoSession(server.url, { prefix: 'X-Presto-', catalog: 'memory', schema: 'default' });
  });
  after(() => server.stop());

  /** The one row of `sql`: per column its type, its typeSignature's precision argument, and its value. */
  async function one(sql: string) {
    const out = await trino.ok(sql);
    return out.columns!.map((c, i) => ({ type: c.type, arguments: (c.typeSignature as { arguments: unknown[] }).arguments, value: out.rows[0]![i] }));
  }

  it('writes time with time zone inside maps and arrays as Trino (+HH:MM), and zoned timestamp keys as their text', async () => {
    const out = await trino.ok("SELECT MAP(ARRAY[TIME '23:59:59 -05:00'], ARRAY[TIME '01:01:01.5 +05:30']), ARRAY[ARRAY[TIME '01:02:03 +01:00']], "
      + "MAP(ARRAY[TIMESTAMP '2001-01-01 01:02:03 -05:00', TIMESTAMP '2023-01-01 23:59:59 America/Los_Angeles'], ARRAY[1, 2])");
    // The nested type is the engine's, time(6) with time zone: six digits. The keys were DuckDB's TIMETZ
    // text ("23:59:59-05") and the zoned timestamps' STRUCT text, which the Trino Python client cannot read.
    expect(out.dataText).to.equal('[[{"23:59:59.000000-05:00":"01:01:01.500000+05:30"},[["01:02:03.000000+01:00"]],'
      + '{"2001-01-01 01:02:03 -05:00":1,"2023-01-01 23:59:59 America/Los_Angeles":2}]]');
  });

  it('sends every fraction digit of a literal, up to 12, at its precision', async () => {
    const got = await one(
      "SELECT TIME '00:00:00.000000500001', TIME '12:34:56.123456789 +08:00', TIMESTAMP '2001-08-22 00:00:00.000000500001', " +
        "TIMESTAMP '2001-08-22 12:34:56.123456789 -08:00', TIMESTAMP '2022-03-27 01:59:59.999999999 Europe/Brussels', TIME '23:59:59.9999995'",
    );
    expect(got).to.deep.equal([
      { type: 'time(12)', arguments: [{ kind: 'LONG', value: 12 }], value: '00:00:00.000000500001' },
      { type: 'time(9) with time zone', arguments: [{ kind: 'LONG', value: 9 }], value: '12:34:56.123456789+08:00' },
      { type: 'timestamp(12)', arguments: [{ kind: 'LONG', value: 12 }], value: '2001-08-22 00:00:00.000000500001' },
      { type: 'timestamp(9) with time zone', arguments: [{ kind: 'LONG', value: 9 }], value: '2001-08-22 12:34:56.123456789 -08:00' },
      { type: 'timestamp(9) with time zone', arguments: [{ kind: 'LONG', value: 9 }], value: '2022-03-27 01:59:59.999999999 Europe/Brussels' },
      { type: 'time(7)', arguments: [{ kind: 'LONG', value: 7 }], value: '23:59:59.9999995' },
    ]);
  });

  it('keeps a parameter\'s digits and reads a zone written UTC-05:30 as Trino names it', async () => {
    const got = await one("EXECUTE IMMEDIATE 'SELECT ?, ?' USING TIMESTAMP '2020-01-01 16:43:22.320000 UTC-05:30', TIMESTAMP '2001-08-22 00:00:00.000000500001'");
    expect(got).to.deep.equal([
      { type: 'timestamp(6) with time zone', arguments: [{ kind: 'LONG', value: 6 }], value: '2020-01-01 16:43:22.320000 -05:30' },
      { type: 'timestamp(12)', arguments: [{ kind: 'LONG', value: 12 }], value: '2001-08-22 00:00:00.000000500001' },
    ]);
    expect((await one("SELECT TIMESTAMP '2020-01-01 00:00 GMT+1', TIMESTAMP '2020-01-01 00:00 UT-3', TIMESTAMP '2020-01-01 00:00 Etc/GMT+5'")).map((c) => c.value))
      .to.deep.equal(['2020-01-01 00:00:00 +01:00', '2020-01-01 00:00:00 -03:00', '2020-01-01 00:00:00 -05:00']);
  });

  it('pads values DuckDB holds to fewer digits with zeros, at the declared precision', async () => {
    const got = await one("SELECT CAST(TIMESTAMP '2001-08-22 00:00:00.123456789' AS TIMESTAMP(12)), CAST(TIME '01:02:03.1234567' AS TIME(12)), CAST(NULL AS TIME WITH TIME ZONE)");
    expect(got).to.deep.equal([
      { type: 'timestamp(12)', arguments: [{ kind: 'LONG', value: 12 }], value: '2001-08-22 00:00:00.123456789000' },
      { type: 'time(12)', arguments: [{ kind: 'LONG', value: 12 }], value: '01:02:03.123456700000' },
      { type: 'time(3) with time zone', arguments: [{ kind: 'LONG', value: 3 }], value: null },
    ]);
  });

  it('rounds a literal cast to a lower precision half up, as Trino does', async () => {
    const got = await one(
      "SELECT CAST(TIMESTAMP '2001-08-22 00:00:00.123456789' AS TIMESTAMP(7)), CAST(TIMESTAMP '2001-08-22 23:59:59.9999995' AS TIMESTAMP(6)), " +
        "CAST(TIME '23:59:59.9999995' AS TIME(6)), CAST(TIMESTAMP '2001-08-22 12:34:56.999' AS TIMESTAMP(0)), CAST(TIMESTAMP '2001-08-22 12:34:56.5 America/New_York' AS TIMESTAMP(0) WITH TIME ZONE)",
    );
    expect(got.map((c) => [c.type, c.value])).to.deep.equal([
      ['timestamp(7)', '2001-08-22 00:00:00.1234568'], ['timestamp(6)', '2001-08-23 00:00:00.000000'], ['time(6)', '00:00:00.000000'],
      ['timestamp(0)', '2001-08-22 12:34:57'], ['timestamp(0) with time zone', '2001-08-22 12:34:57 America/New_York'],
    ]);
    // Inside VALUES (no text beside it), DuckDB's value itself is rounded.
    expect((await one("SELECT x FROM (VALUES CAST(TIMESTAMP '2001-08-22 12:34:56.999' AS TIMESTAMP(0))) t(x)"))[0]!.value).to.equal('2001-08-22 12:34:57');
  });

  it('rounds a column cast to a lower precision half up, as Trino does, in a memory table too', async () => {
    await trino.ok('CREATE TABLE rounding (x TIMESTAMP(9), y TIMESTAMP(3))');
    await trino.ok("INSERT INTO rounding VALUES (TIMESTAMP '2001-08-22 23:59:59.9999995', TIMESTAMP '1969-12-31 23:59:59.995')");
    const got = await one('SELECT CAST(x AS TIMESTAMP(6)), CAST(x AS TIMESTAMP(8)), CAST(x AS TIMESTAMP(0)), CAST(y AS TIMESTAMP(2)), CAST(y AS TIMESTAMP(0)), x FROM rounding');
    expect(got.map((c) => [c.type, c.value])).to.deep.equal([
      ['timestamp(6)', '2001-08-23 00:00:00.000000'], ['timestamp(8)', '2001-08-22 23:59:59.99999950'], ['timestamp(0)', '2001-08-23 00:00:00'],
      ['timestamp(2)', '1970-01-01 00:00:00.00'], ['timestamp(0)', '1970-01-01 00:00:00'], ['timestamp(9)', '2001-08-22 23:59:59.999999500'],
    ]);
  });

  it('keeps the nanoseconds of a zoned value read per row, in its own zone', async () => {
    const got = await one("SELECT x, to_iso8601(x) FROM (VALUES TIMESTAMP '2022-10-30 02:59:59.999999999 Europe/Brussels') t(x)");
    expect(got.map((c) => c.value)).to.deep.equal(['2022-10-30 02:59:59.999999999 Europe/Brussels', '2022-10-30T02:59:59.999999999+02:00']);
  });

  it('refuses a local time in a daylight saving gap, as Trino does', async () => {
    const failed = await trino.execute("SELECT TIMESTAMP '2022-03-27 02:30:00 Europe/Brussels'");
    expect(failed.error).to.include({ errorName: 'INVALID_LITERAL', message: "line 1:8: '2022-03-27 02:30:00 Europe/Brussels' is not a valid TIMESTAMP literal" });
    const parameter = await trino.execute("EXECUTE IMMEDIATE 'SELECT ?' USING TIMESTAMP '2021-03-28 02:30:00.000000 Europe/Brussels'");
    expect(parameter.error?.errorName).to.equal('INVALID_LITERAL');
  });

  it('writes ISO years before 1 and after 9999, literals and computed values, over Trino\'s whole range', async () => {
    const got = await one(
      "SELECT DATE '-2001-08-22', DATE '0000-01-01', DATE '10000-01-01', DATE '-4999999-01-01', DATE '5000000-12-31', " +
        "DATE '0001-01-01' - INTERVAL '1' DAY, x, TIMESTAMP '-0001-01-01 01:02:03' FROM (VALUES DATE '-0044-03-15') t(x)",
    );
    expect(got.map((c) => c.value)).to.deep.equal([
      '-2001-08-22', '0000-01-01', '+10000-01-01', '-4999999-01-01', '+5000000-12-31', '0000-12-31', '-0044-03-15', '-0001-01-01 01:02:03',
    ]);
    expect(got[0]!.type).to.equal('date');
    const computed = await one("SELECT x + INTERVAL '1' SECOND FROM (VALUES TIMESTAMP '10000-01-01 00:00:00.000000') t(x)");
    expect(computed[0]!.value).to.equal('+10000-01-01 00:00:01.000000');
  });

  it('answers a Presto client in milliseconds, a literal\'s digits too', async () => {
    const out = await presto.ok("SELECT TIMESTAMP '2001-08-22 00:00:00.123456789'");
    expect(out.rows).to.deep.equal([['2001-08-22 00:00:00.123']]);
  });
});
