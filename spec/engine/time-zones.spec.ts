// Time zones as Trino keeps them: a timestamp with time zone renders in its own zone, AT TIME ZONE reads a
// timestamp without zone in the session's zone, and date_trunc, fields and casts work in the value's zone.
// Month buckets in three zones, across DST changes, are checked against luxon's independent answers.
import { expect } from 'chai';
import { DateTime } from 'luxon';
import type { Engine } from '../../lib/engine/engine.types.js';
import { newEngine, runSql, testSession } from './engine-helpers.js';

/** Instants around DST changes in 2024 (UTC text): New York Mar 10 / Nov 3, Paris Mar 31 / Oct 27, and month ends. */
const INSTANTS = [
  '2024-01-31 23:30:00', '2024-02-01 04:59:00', '2024-02-01 05:00:00', '2024-03-01 04:30:00', '2024-03-10 06:59:00',
  '2024-03-10 07:00:00', '2024-03-31 00:59:00', '2024-03-31 01:00:00', '2024-03-31 22:30:00', '2024-04-01 03:59:00',
  '2024-04-30 22:00:00', '2024-10-27 00:30:00', '2024-10-31 23:30:00', '2024-11-01 03:30:00', '2024-11-03 05:30:00',
  '2024-11-30 18:31:00', '2024-12-31 23:59:00',
];
const ZONES = ['America/New_York', 'Europe/Paris', 'Asia/Kolkata'];

describe('duckdb engine: time zones', () => {
  let engine: Engine;
  before(async () => {
    engine = await newEngine(2);
    await runSql(engine, 'CREATE TABLE memory.default.events (ts timestamp(3))');
    await runSql(engine, `INSERT INTO memory.default.events VALUES ${INSTANTS.map((t) => `(TIMESTAMP '${t}')`).join(', ')}`);
  });
  after(() => engine.close());

  for (const zone of ZONES) {
    it(`buckets by month in ${zone} as luxon does`, async () => {
      const out = await runSql(
        engine,
        `SELECT date_trunc('month', ts AT TIME ZONE '${zone}') AS m, count(*) AS n FROM memory.default.events GROUP BY 1 ORDER BY 1`,
      );
      expect(out.plan.columns[0]!.type).to.deep.equal({ base: 'timestamp with time zone', precision: 3 });
      const expected = new Map<string, number>();
      for (const t of INSTANTS) {
        const month = DateTime.fromSQL(t, { zone: 'UTC' }).setZone(zone).startOf('month').toFormat('yyyy-MM-dd HH:mm:ss.SSS');
        expected.set(`${month} ${zone}`, (expected.get(`${month} ${zone}`) ?? 0) + 1);
      }
      expect(out.rows).to.deep.equal([...expected.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([m, n]) => [m, n]));
    });
  }

  it('reads a timestamp without zone in the session zone, and renders the value in the zone it was given', async () => {
    const utc = await runSql(engine, "SELECT CAST(DATE '1995-02-01' AS TIMESTAMP) AT TIME ZONE 'America/New_York'");
    expect(utc.rows).to.deep.equal([['1995-01-31 19:00:00.000 America/New_York']]);
    const paris = testSession({ timeZone: 'Europe/Paris' });
    const fromParis = await runSql(engine, "SELECT CAST(DATE '1995-02-01' AS TIMESTAMP) AT TIME ZONE 'America/New_York'", paris);
    expect(fromParis.rows).to.deep.equal([['1995-01-31 18:00:00.000 America/New_York']]);
    const offset = testSession({ timeZone: '+05:30' });
    expect((await runSql(engine, "SELECT TIMESTAMP '2020-01-01 00:00:00' AT TIME ZONE 'UTC'", offset)).rows).to.deep.equal([['2019-12-31 18:30:00 UTC']]);
  });

  it('keeps a literal\'s zone and precision, and gives fields, offsets and casts in the value\'s zone', async () => {
    const out = await runSql(
      engine,
      "SELECT TIMESTAMP '2020-07-01 03:04:05.123 America/Mexico_City', TIMESTAMP '2020-01-02 03:04:05+02:00', " +
        "timezone_hour(CAST(DATE '1995-02-01' AS TIMESTAMP) AT TIME ZONE 'America/New_York'), " +
        "timezone_minute(TIMESTAMP '2020-01-02 03:04:05 Asia/Kolkata'), hour(TIMESTAMP '2020-01-02 03:04:05 Asia/Kolkata'), " +
        "CAST(TIMESTAMP '2020-01-02 01:00:00 Asia/Tokyo' AS date), CAST(TIMESTAMP '2020-01-02 01:00:00 Asia/Tokyo' AS timestamp), " +
        "EXTRACT(DAY FROM TIMESTAMP '2020-01-02 01:00:00 Asia/Tokyo'), with_timezone(TIMESTAMP '2020-06-01 12:00:00', 'Europe/Paris')",
    );
    expect(out.plan.columns.map((c) => c.type)).to.deep.include.members([{ base: 'timestamp with time zone', precision: 3 }, { base: 'timestamp with time zone', precision: 0 }]);
    expect(out.rows).to.deep.equal([[
      '2020-07-01 03:04:05.123 America/Mexico_City', '2020-01-02 03:04:05 +02:00', -5, 30, 3, '2020-01-02', '2020-01-02 01:00:00.000', 2,
      '2020-06-01 12:00:00 Europe/Paris',
    ]]);
  });

  it('compares values with zones by their instants', async () => {
    const out = await runSql(engine, "SELECT TIMESTAMP '2020-01-02 03:00:00 UTC' = TIMESTAMP '2020-01-01 22:00:00 America/New_York'");
    expect(out.rows).to.deep.equal([[true]]);
  });
});
