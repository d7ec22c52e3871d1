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
    // One group per instant, shown in one of its rows' zones (Trino: its first row's).
    const groups = (await rows(`SELECT x, count(*) AS n FROM ${values} GROUP BY x ORDER BY x`)) as [string, number][];
    expect(groups.map(([, n]) => n)).to.deep.equal([2, 1]);
    expect(['2020-01-01 09:00:00 Asia/Tokyo', '2020-01-01 00:00:00 UTC']).to.include(groups[0]![0]);
    expect(await rows(`SELECT count(*) FROM (SELECT DISTINCT x FROM ${values})`)).to.deep.equal([[2]]);
    expect(await rows(`SELECT count(DISTINCT x), count(x) FROM ${values}`)).to.deep.equal([[2, 3]]);
    expect(await rows(`SELECT count(*) OVER (PARTITION BY x) FROM ${values} ORDER BY 1`)).to.deep.equal([[1], [2], [2]]);
    expect(await rows(`SELECT hour(x), count(*) FROM ${values} GROUP BY 1 ORDER BY 1`)).to.deep.equal([[0, 1], [9, 1], [23, 1]]);
  });

  it('reads instants in IN and ANY subqueries, simple CASE and nullif', async () => {
    const utc = "TIMESTAMP '2020-01-01 00:00:00 UTC'";
    const paris = "TIMESTAMP '2020-01-01 01:00:00 Europe/Paris'";
    expect(await rows(`SELECT ${utc} IN (SELECT ${paris}), ${utc} = ANY (SELECT ${paris}), ${utc} > ALL (SELECT ${paris})`)).to.deep.equal([[true, true, false]]);
    expect(await rows(`SELECT CASE ${utc} WHEN ${paris} THEN 'same' ELSE 'other' END, nullif(${utc}, ${paris}) IS NULL`)).to.deep.equal([['same', true]]);
  });

  it('names constant zones as Trino does: UTC for its aliases, regions in their canonical case', async () => {
    expect(await rows("SELECT TIMESTAMP '2020-01-01 00:00:00 america/new_york', at_timezone(TIMESTAMP '2020-01-01 00:00:00 UTC', 'GMT'), with_timezone(TIMESTAMP '2020-01-01 00:00:00', 'Etc/UTC')"))
      .to.deep.equal([['2020-01-01 00:00:00 America/New_York', '2020-01-01 00:00:00 UTC', '2020-01-01 00:00:00 UTC']]);
    expect(await rows('SELECT CAST(current_timestamp AS varchar) LIKE \'% Asia/Tokyo\'', testSession({ timeZone: 'asia/tokyo' }))).to.deep.equal([[true]]);
  });

  it('works in a zone the statement states as constant-zone SQL: NULLs stay NULL, groups need no instant key', async () => {
    const out = await rows(
      "SELECT t AT TIME ZONE 'Asia/Tokyo', date_trunc('day', t AT TIME ZONE 'Asia/Tokyo'), at_timezone(t, '+01:00'), with_timezone(t, 'Europe/Paris') " +
        "FROM (VALUES CAST('2020-01-01 20:00:00' AS timestamp), CAST(NULL AS timestamp)) v(t)",
    );
    expect(out).to.deep.equal([
      ['2020-01-02 05:00:00.000 Asia/Tokyo', '2020-01-02 00:00:00.000 Asia/Tokyo', '2020-01-01 21:00:00.000 +01:00', '2020-01-01 20:00:00.000 Europe/Paris'],
      [null, null, null, null],
    ]);
    const plan = String((await rows("EXPLAIN SELECT date_trunc('month', CAST(d AS timestamp) AT TIME ZONE 'America/New_York'), count(*) FROM (VALUES DATE '2020-01-31') t(d) GROUP BY 1"))[0]![0]);
    expect(plan).to.not.contain('any_value');
  });

  it('groups other types as before, without an aggregate for their keys', async () => {
    await runSql(engine, "CREATE TABLE memory.default.mixed AS SELECT * FROM (VALUES (1, 'a', TIMESTAMP '2020-01-01 00:00:00 UTC'), (1, 'a', TIMESTAMP '2020-01-01 02:00:00 +02:00'), (2, 'b', NULL)) t(id, s, ts)");
    expect(await rows('SELECT id, s, count(*) FROM memory.default.mixed GROUP BY id, s ORDER BY id')).to.deep.equal([[1, 'a', 2], [2, 'b', 1]]);
    expect(await rows('SELECT DISTINCT s, id + 1 FROM memory.default.mixed ORDER BY 1')).to.deep.equal([['a', 2], ['b', 3]]);
    expect(await rows('SELECT s, count(DISTINCT ts), max(ts) IS NULL FROM memory.default.mixed GROUP BY s HAVING s <> \'z\' ORDER BY s')).to.deep.equal([['a', 1, false], ['b', 0, true]]);
    expect(await rows('SELECT id, ts FROM memory.default.mixed GROUP BY id, ts ORDER BY id')).to.have.length(2);
    // A column grouped by one name and selected by the other (t.c and c) is one group expression.
    expect(await rows('SELECT m.ts, count(*) FROM memory.default.mixed m GROUP BY ts ORDER BY 2')).to.have.length(2);
    expect(await rows('SELECT ts, count(*) FROM memory.default.mixed m GROUP BY m.ts ORDER BY 2')).to.have.length(2);
    // DuckDB's plan: a varchar key is grouped as it is, a zoned one keeps one row's value (any_value).
    const explain = async (sql: string) => String((await rows(`EXPLAIN ${sql}`))[0]![0]);
    expect(await explain('SELECT s, count(*) FROM memory.default.mixed GROUP BY s')).to.contain('count_star()').and.not.contain('any_value');
    expect(await explain('SELECT ts, count(*) FROM memory.default.mixed GROUP BY ts')).to.contain('any_value(');
  });

  it('adds intervals on the instant, and months in the value\'s calendar', async () => {
    // 2020-03-08 is New York's spring change: a day later by the instant is 24 hours, by date_add a calendar day.
    const x = "TIMESTAMP '2020-03-07 12:00:00.000 America/New_York'";
    expect(await rows(`SELECT ${x} + INTERVAL '1' DAY, date_add('day', 1, ${x}), ${x} + INTERVAL '1' MONTH, ${x} - INTERVAL '1' HOUR`)).to.deep.equal([[
      '2020-03-08 13:00:00.000 America/New_York', '2020-03-08 12:00:00.000 America/New_York', '2020-04-07 12:00:00.000 America/New_York', '2020-03-07 11:00:00.000 America/New_York',
    ]]);
    expect(await rows(`SELECT TIMESTAMP '2020-01-02 00:00:00 UTC' - TIMESTAMP '2020-01-01 00:00:00 +05:00'`)).to.deep.equal([['1 05:00:00.000']]);
    // date_diff: hours on the instants (23 across the spring change), days on the local calendar.
    const later = "TIMESTAMP '2020-03-08 12:00:00.000 America/New_York'";
    expect(await rows(`SELECT date_diff('hour', ${x}, ${later}), date_diff('day', ${x}, ${later})`)).to.deep.equal([[23, 1]]);
    // Intervals the text does not show as such: arithmetic, and columns.
    expect(await rows(`SELECT ${x} + 2 * INTERVAL '1' HOUR, INTERVAL '1' DAY * 2 + ${x}, ${x} - n * INTERVAL '1' MINUTE FROM (VALUES 30) t(n)`)).to.deep.equal([[
      '2020-03-07 14:00:00.000 America/New_York', '2020-03-09 13:00:00.000 America/New_York', '2020-03-07 11:30:00.000 America/New_York',
    ]]);
    expect(await rows(`SELECT a - b, a + d FROM (VALUES (${x}, TIMESTAMP '2020-03-07 12:00:00 UTC', INTERVAL '1' HOUR)) t(a, b, d)`)).to.deep.equal([[
      '0 05:00:00.000', '2020-03-07 13:00:00.000 America/New_York',
    ]]);
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

  it('reads the query\'s start (the session\'s) for current_timestamp and its kin, each query its own though the text repeats', async () => {
    const sql = 'SELECT current_timestamp, now(), current_date, current_time, localtime, localtimestamp, localtimestamp(6) FROM (VALUES 1, 2) t(x)';
    const at = (ms: number) => testSession({ timeZone: 'Asia/Tokyo', startTime: ms });
    // 2025-11-29 20:00:00.123 UTC is 2025-11-30 05:00:00.123 in Tokyo (Trino's types: precision 3 unless given).
    const first = Date.UTC(2025, 10, 29, 20, 0, 0, 123);
    const out = await runSql(engine, sql, at(first));
    expect(out.plan.columns.map((c) => c.type)).to.deep.equal([tstz(3), tstz(3), { base: 'date' }, { base: 'time with time zone', precision: 3 }, { base: 'time', precision: 3 }, { base: 'timestamp', precision: 3 }, { base: 'timestamp', precision: 6 }]);
    const row = ['2025-11-30 05:00:00.123 Asia/Tokyo', '2025-11-30 05:00:00.123 Asia/Tokyo', '2025-11-30', '05:00:00.123+09:00', '05:00:00.123', '2025-11-30 05:00:00.123', '2025-11-30 05:00:00.123000'];
    expect(out.rows).to.deep.equal([row, row]);
    // The same text again, a day and a second later: its own start, not the cached plan's.
    const second = first + 86_401_000;
    expect((await rows(sql, at(second)))[0]!.slice(0, 3)).to.deep.equal(['2025-12-01 05:00:01.123 Asia/Tokyo', '2025-12-01 05:00:01.123 Asia/Tokyo', '2025-12-01']);
    expect((await rows(sql, at(first)))[0]).to.deep.equal(row);
    // A view keeps its query: it reads the time when read, never its creating query's start.
    await runSql(engine, 'CREATE VIEW memory.default.started AS SELECT now() AS n FROM (VALUES 1) t(x)', at(first));
    const [[viewed]] = (await rows('SELECT to_unixtime(n) FROM memory.default.started', at(second))) as [[number]];
    expect(Math.abs(viewed * 1000 - Date.now())).to.be.below(60_000);
    await runSql(engine, 'DROP VIEW memory.default.started');
    // A session with no start (0: a worker of an older coordinator) reads DuckDB's transaction start.
    const [[now]] = (await rows('SELECT to_unixtime(now())', at(0))) as [[number]];
    expect(Math.abs(now * 1000 - Date.now())).to.be.below(60_000);
  });

  it('casts to other precisions (rounding through microseconds) and to time with time zone', async () => {
    const x = "TIMESTAMP '2020-01-01 10:00:00.789 America/New_York'";
    expect(await rows(`SELECT CAST(${x} AS timestamp(0) with time zone), CAST(${x} AS timestamp(6) with time zone), to_iso8601(${x})`)).to.deep.equal([[
      '2020-01-01 10:00:01 America/New_York', '2020-01-01 10:00:00.789000 America/New_York', '2020-01-01T10:00:00.789-05:00',
    ]]);
    expect((await runSql(engine, `SELECT CAST(${x} AS time with time zone)`)).json).to.contain('10:00:00.789-05');
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

  it('binds zoned reads nested in each other without a rebind per level (twice the levels: under 8x the time, not 256x)', async function () {
    this.timeout(60_000);
    const nested = (levels: number) => {
      let text = "'2020-01-01 00:00:00 Asia/Tokyo'";
      let keyed = "TIMESTAMP '2020-01-01 00:00:00 UTC'";
      for (let i = 0; i < levels; i++) {
        text = `CAST(CAST(${text} AS timestamp with time zone) AS varchar)`;
        // Each level holds the one below once: the text grows linearly.
        keyed = `date_trunc('day', TIMESTAMP '2020-01-01 00:00:00 UTC' + hour(CASE WHEN ${keyed} = TIMESTAMP '2020-01-01 00:00:00 UTC' THEN current_timestamp END) * INTERVAL '1' HOUR)`;
      }
      return { text, keyed };
    };
    const timed = async (levels: number) => {
      const { text, keyed } = nested(levels);
      const start = performance.now();
      expect(await rows(`SELECT ${text}`)).to.deep.equal([['2020-01-01 00:00:00.000 Asia/Tokyo']]);
      expect(await rows(`SELECT ${keyed}`)).to.have.length(1);
      return performance.now() - start;
    };
    // Twice the levels: DuckDB's binding here costs ~4x (1.0 s and 3.9 s alone), a rebind per level 2^8 = 256x. The best of up to three
    // runs each, so a pause on a loaded machine does not count as growth.
    let [eight, sixteen] = [await timed(8), await timed(16)];
    for (let retry = 0; retry < 2 && sixteen > eight * 8 + 200; retry++) {
      eight = Math.min(eight, await timed(8));
      sixteen = Math.min(sixteen, await timed(16));
    }
    expect(sixteen, `8 levels ${eight.toFixed(0)} ms, 16 levels ${sixteen.toFixed(0)} ms`).to.be.below(eight * 8 + 200);
  });

  it('compares a correlated column of a memory table in a subquery (EXISTS, IN, scalar), zoned or not', async () => {
    // DuckDB cannot choose a typed macro's overload for an outer query's column read in a subquery.
    await runSql(engine, "CREATE TABLE memory.default.corr AS SELECT * FROM (VALUES (1, BIGINT '10', TIMESTAMP '2020-01-01 00:00:00 UTC'), (2, BIGINT '20', TIMESTAMP '2020-01-01 09:00:00 Asia/Tokyo'), (3, BIGINT '10', TIMESTAMP '2020-01-02 00:00:00 UTC')) t(id, k, ts)");
    expect(await rows('SELECT id FROM memory.default.corr a WHERE EXISTS (SELECT 1 FROM memory.default.corr b WHERE b.k = a.k AND b.id <> a.id) ORDER BY id')).to.deep.equal([[1], [3]]);
    expect(await rows('SELECT id FROM memory.default.corr a WHERE a.ts = (SELECT min(b.ts) FROM memory.default.corr b WHERE b.k = a.k) ORDER BY id')).to.deep.equal([[1], [2]]);
    expect(await rows('SELECT id FROM memory.default.corr a WHERE a.k IN (SELECT b.k FROM memory.default.corr b WHERE b.ts > a.ts) ORDER BY id')).to.deep.equal([[1]]);
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
