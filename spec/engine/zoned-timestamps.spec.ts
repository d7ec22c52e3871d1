// A timestamp with time zone keeps its zone per value, as in Trino: through VALUES, CASE, UNION, a zone
// column, a stored table; fields, offsets, truncation and casts read each value in its own zone; equality,
// ordering and grouping read the instant. Expected values are Trino's (TimestampWithTimeZoneOperators,
// DateTimeFunctions) or computed independently with luxon.
import { expect } from 'chai';
import fc from 'fast-check';
import { DateTime } from 'luxon';
import type { Engine } from '../../lib/engine/engine.types.js';
import { VivaceError } from '../../lib/protocol/vivace-error.js';
import { newEngine, runSql, testSession } from './engine-helpers.js';

const tstz = (precision: number) => ({ base: 'timestamp with time zone', precision });

describe('duckdb engine: timestamp with time zone keeps its zone per value', () => {
  let engine: Engine;
  before(async () => {
    engine = await newEngine(2);
  });
  after(() => engine.close());

  const rows = async (sql: string, session = testSession()) => (await runSql(engine, sql, session)).rows;

  it('renders each row of VALUES in its own zone, typed by the literals', async () => {
    const out = await runSql(engine, "SELECT x FROM (VALUES TIMESTAMP '2020-01-02 03:04:05 America/New_York', TIMESTAMP '2020-01-02 03:04:05 Asia/Tokyo', TIMESTAMP '2020-01-02 03:04:05+05:30') t(x)");
    expect(out.plan.columns[0]!.type).to.deep.equal(tstz(0));
    expect(out.rows).to.deep.equal([['2020-01-02 03:04:05 America/New_York'], ['2020-01-02 03:04:05 Asia/Tokyo'], ['2020-01-02 03:04:05 +05:30']]);
  });

  it('keeps the zone of the branch taken: CASE, UNION ALL, COALESCE', async () => {
    const ts = "TIMESTAMP '2020-06-01 12:00:00'";
    expect(await rows(`SELECT CASE WHEN n = 1 THEN ${ts} AT TIME ZONE 'Asia/Tokyo' ELSE ${ts} AT TIME ZONE 'UTC' END FROM (VALUES 1, 2) t(n)`))
      .to.deep.equal([['2020-06-01 21:00:00 Asia/Tokyo'], ['2020-06-01 12:00:00 UTC']]);
    expect(await rows(`SELECT x FROM (SELECT ${ts} AT TIME ZONE 'Europe/Paris' AS x UNION ALL SELECT TIMESTAMP '2020-06-01 11:00:00' AT TIME ZONE '-08:00') ORDER BY 1`))
      .to.deep.equal([['2020-06-01 03:00:00 -08:00'], ['2020-06-01 14:00:00 Europe/Paris']]);
    expect(await rows("SELECT coalesce(NULL, TIMESTAMP '2020-01-01 00:00:00.123 Asia/Kolkata')")).to.deep.equal([['2020-01-01 00:00:00.123 Asia/Kolkata']]);
  });

  it('takes the zone from a column (at_timezone, with_timezone) or an interval (AT TIME ZONE)', async () => {
    const zones = "(VALUES 'America/New_York', 'Asia/Tokyo', '+02:00', 'utc') z(zone)";
    expect(await rows(`SELECT at_timezone(TIMESTAMP '2020-01-01 12:00:00.000 UTC', zone) FROM ${zones}`)).to.deep.equal([
      ['2020-01-01 07:00:00.000 America/New_York'], ['2020-01-01 21:00:00.000 Asia/Tokyo'], ['2020-01-01 14:00:00.000 +02:00'], ['2020-01-01 12:00:00.000 UTC'],
    ]);
    expect(await rows("SELECT TIMESTAMP '2020-01-01 12:00:00 UTC' AT TIME ZONE INTERVAL '-03:30' HOUR TO MINUTE")).to.deep.equal([['2020-01-01 08:30:00 -03:30']]);
    expect(await rows(`SELECT with_timezone(TIMESTAMP '2020-01-01 12:00:00', zone) FROM ${zones}`)).to.deep.equal([
      ['2020-01-01 12:00:00 America/New_York'], ['2020-01-01 12:00:00 Asia/Tokyo'], ['2020-01-01 12:00:00 +02:00'], ['2020-01-01 12:00:00 UTC'],
    ]);
  });

  it('reads fields, offsets, truncation and casts in each value\'s zone', async () => {
    const out = await runSql(
      engine,
      'SELECT hour(x), timezone_hour(x), timezone_minute(x), day(x), EXTRACT(HOUR FROM x), CAST(x AS date), CAST(x AS timestamp), ' +
        "date_trunc('month', x), CAST(x AS varchar), to_unixtime(x), date_format(x, '%H:%i') " +
        "FROM (VALUES TIMESTAMP '2020-03-01 01:30:00.000 America/New_York', TIMESTAMP '2020-03-01 01:30:00.000 Asia/Kolkata') t(x)",
    );
    expect(out.plan.columns[7]!.type).to.deep.equal(tstz(3));
    expect(out.rows).to.deep.equal([
      [1, -5, 0, 1, 1, '2020-03-01', '2020-03-01 01:30:00.000', '2020-03-01 00:00:00.000 America/New_York', '2020-03-01 01:30:00.000 America/New_York', 1583044200, '01:30'],
      [1, 5, 30, 1, 1, '2020-03-01', '2020-03-01 01:30:00.000', '2020-03-01 00:00:00.000 Asia/Kolkata', '2020-03-01 01:30:00.000 Asia/Kolkata', 1583006400, '01:30'],
    ]);
  });

  it('keeps zones per row in a memory table: CREATE TABLE AS, INSERT, and what the catalog says of the column', async () => {
    await runSql(engine, "CREATE TABLE memory.default.zoned AS SELECT * FROM (VALUES (1, TIMESTAMP '2020-01-02 03:04:05.678 America/New_York'), (2, TIMESTAMP '2020-01-02 03:04:05.678 Asia/Tokyo')) t(id, ts)");
    await runSql(engine, 'CREATE TABLE memory.default.declared (id integer, ts timestamp(3) with time zone)');
    await runSql(engine, "INSERT INTO memory.default.declared VALUES (1, TIMESTAMP '2021-07-01 10:00:00 Europe/Paris'), (2, current_timestamp), (3, NULL)");
    const read = await runSql(engine, 'SELECT ts FROM memory.default.zoned ORDER BY id');
    expect(read.plan.columns[0]!.type).to.deep.equal(tstz(3));
    expect(read.rows).to.deep.equal([['2020-01-02 03:04:05.678 America/New_York'], ['2020-01-02 03:04:05.678 Asia/Tokyo']]);
    const declared = await runSql(engine, 'SELECT * FROM memory.default.declared WHERE id <> 2 ORDER BY id');
    expect(declared.plan.columns[1]!.type).to.deep.equal(tstz(3));
    expect(declared.rows).to.deep.equal([[1, '2021-07-01 10:00:00.000 Europe/Paris'], [3, null]]);
    expect(await rows("SELECT data_type FROM memory.information_schema.columns WHERE table_name IN ('zoned', 'declared') AND column_name = 'ts'"))
      .to.deep.equal([['timestamp(3) with time zone'], ['timestamp(3) with time zone']]);
    expect((await rows('DESCRIBE memory.default.zoned'))[1]!.slice(0, 2)).to.deep.equal(['ts', 'timestamp(3) with time zone']);
    expect(await rows('SELECT hour(ts), timezone_hour(ts) FROM memory.default.zoned ORDER BY id')).to.deep.equal([[3, -5], [3, 9]]);
  });

  it('compares, orders and groups by the instant only', async () => {
    expect(await rows("SELECT TIMESTAMP '2020-01-01 00:00 UTC' = TIMESTAMP '2020-01-01 01:00 +01:00', TIMESTAMP '2020-01-01 00:00 UTC' < TIMESTAMP '2020-01-01 00:30 +01:00'"))
      .to.deep.equal([[true, false]]);
    const values = "(VALUES TIMESTAMP '2020-01-01 09:00:00 Asia/Tokyo', TIMESTAMP '2020-01-01 00:00:00 UTC', TIMESTAMP '2019-12-31 23:00:00 -02:00') t(x)";
    // Two values name one instant: they sort together (in either order, as in Trino), before the later one.
    const sorted = await rows(`SELECT x FROM ${values} ORDER BY x`);
    expect(sorted.slice(0, 2)).to.have.deep.members([['2020-01-01 09:00:00 Asia/Tokyo'], ['2020-01-01 00:00:00 UTC']]);
    expect(sorted[2]).to.deep.equal(['2019-12-31 23:00:00 -02:00']);
    expect(await rows(`SELECT count(*) FROM ${values} WHERE x = TIMESTAMP '2020-01-01 00:00:00 UTC'`)).to.deep.equal([[2]]);
    expect(await rows(`SELECT count(*) FROM ${values} WHERE x BETWEEN TIMESTAMP '2020-01-01 09:00:00 Asia/Tokyo' AND TIMESTAMP '2020-01-01 00:00:00 UTC'`)).to.deep.equal([[2]]);
    expect(await rows(`SELECT min(x), max(x) FROM ${values}`)).to.deep.equal([['2020-01-01 09:00:00 Asia/Tokyo', '2019-12-31 23:00:00 -02:00']]);
  });

  it('adds intervals on the instant, and months in the value\'s calendar', async () => {
    // 2020-03-08 is New York's spring change: a day later by the instant is 24 hours, by date_add a calendar day.
    const x = "TIMESTAMP '2020-03-07 12:00:00.000 America/New_York'";
    expect(await rows(`SELECT ${x} + INTERVAL '1' DAY, date_add('day', 1, ${x}), ${x} + INTERVAL '1' MONTH, ${x} - INTERVAL '1' HOUR`)).to.deep.equal([[
      '2020-03-08 13:00:00.000 America/New_York', '2020-03-08 12:00:00.000 America/New_York', '2020-04-07 12:00:00.000 America/New_York', '2020-03-07 11:00:00.000 America/New_York',
    ]]);
    expect(await rows(`SELECT TIMESTAMP '2020-01-02 00:00:00 UTC' - TIMESTAMP '2020-01-01 00:00:00 +05:00'`)).to.deep.equal([['1 05:00:00.000']]);
  });

  it('makes current_timestamp, now() and from_unixtime in the session zone, casts text in its own zone', async () => {
    const tokyo = testSession({ timeZone: 'Asia/Tokyo' });
    const [[now, zone]] = (await rows('SELECT CAST(current_timestamp AS varchar), timezone_hour(now())', tokyo)) as [[string, number]];
    expect(now.endsWith(' Asia/Tokyo')).to.equal(true);
    expect(zone).to.equal(9);
    expect(await rows('SELECT from_unixtime(0), from_unixtime(0, \'America/New_York\'), from_unixtime(0, 5, 30)', tokyo)).to.deep.equal([[
      '1970-01-01 09:00:00.000 Asia/Tokyo', '1969-12-31 19:00:00.000 America/New_York', '1970-01-01 05:30:00.000 +05:30',
    ]]);
    expect(await rows("SELECT CAST(s AS timestamp(3) with time zone) FROM (VALUES '2020-01-02 03:04:05.5 Europe/Paris', '2020-01-02 03:04:05') t(s)", tokyo))
      .to.deep.equal([['2020-01-02 03:04:05.500 Europe/Paris'], ['2020-01-02 03:04:05.000 Asia/Tokyo']]);
    expect(await rows("SELECT from_iso8601_timestamp('2020-05-11T11:15:05.055+02:00'), to_iso8601(TIMESTAMP '2020-05-11 11:15:05.055 America/New_York')", tokyo))
      .to.deep.equal([['2020-05-11 11:15:05.055 +02:00', '2020-05-11T11:15:05.055-04:00']]);
  });

  it('renders zoned values inside arrays and rows', async () => {
    expect(await rows("SELECT ARRAY[TIMESTAMP '2020-01-01 00:00:00 UTC', TIMESTAMP '2020-01-01 00:00:00 Asia/Tokyo'], ROW(1, TIMESTAMP '2020-01-01 00:00:00.1 -03:00')"))
      .to.deep.equal([[['2020-01-01 00:00:00 UTC', '2020-01-01 00:00:00 Asia/Tokyo'], [1, '2020-01-01 00:00:00.100 -03:00']]]);
  });

  it('answers hostile zones with a clear error, never a crash', async () => {
    for (const zone of ["'x\"y'", "'+99:00'", "'Not/AZone'", "''", `'${'a/'.repeat(200)}'`]) {
      const failure = await runSql(engine, `SELECT at_timezone(TIMESTAMP '2020-01-01 00:00:00 UTC', z) FROM (VALUES ${zone}) t(z)`).then(() => undefined, (e: Error) => e);
      expect((failure as VivaceError).errorName, zone).to.be.oneOf(['INVALID_FUNCTION_ARGUMENT', 'NOT_SUPPORTED']);
    }
    for (const sql of ["SELECT at_timezone(TIMESTAMP '2020-01-01 00:00:00 UTC', 'Not/AZone')", "SELECT TIMESTAMP '2020-01-01 00:00:00 UTC' AT TIME ZONE 'x''y'"]) {
      const failure = await runSql(engine, sql).then(() => undefined, (e: Error) => e);
      expect(failure, sql).to.be.instanceOf(VivaceError).and.to.include({ errorName: 'INVALID_FUNCTION_ARGUMENT' });
      expect(failure!.message, sql).to.match(/^line 1:\d+: Time zone not supported: /);
    }
    const literal = await runSql(engine, "SELECT TIMESTAMP '2020-01-01 00:00:00 Mars/Olympus'").then(() => undefined, (e: Error) => e);
    expect(literal).to.be.instanceOf(VivaceError).and.to.include({ errorName: 'INVALID_LITERAL' });
    expect(await rows("SELECT TRY_CAST('garbage' AS timestamp with time zone)")).to.deep.equal([[null]]);
  });

  it('keeps every instant and zone of generated values (luxon)', async () => {
    const ZONES = ['America/New_York', 'Europe/Paris', 'Asia/Kolkata', 'Australia/Lord_Howe', 'UTC', '+05:45', '-09:30'];
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.integer({ min: 0, max: 4_000_000_000 }), fc.constantFrom(...ZONES)), { minLength: 1, maxLength: 8 }), async (values) => {
        const sql = `SELECT from_unixtime(s, z), hour(from_unixtime(s, z)) FROM (VALUES ${values.map(([s, z]) => `(${s}, '${z}')`).join(', ')}) t(s, z)`;
        const expected = values.map(([s, z]) => {
          const local = DateTime.fromSeconds(s, { zone: z.startsWith('+') || z.startsWith('-') ? `UTC${z}` : z });
          return [`${local.toFormat('yyyy-MM-dd HH:mm:ss.SSS')} ${z}`, local.hour];
        });
        expect(await rows(sql)).to.deep.equal(expected);
      }),
      { numRuns: 15 },
    );
  });
});
