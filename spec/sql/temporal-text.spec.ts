// Temporal literal text read as Trino reads it, and values written as Trino writes them: every digit up to
// 12, ISO years, rounding half up, offsets in a zone's rules (a DST gap refused, an overlap read at its
// earlier instant). Properties: what is written reads back the same; hostile text reads in linear time.
import { expect } from 'chai';
import fc from 'fast-check';
import { DateTime } from 'luxon';
import {
  civilDate, dateTimeOf, epochDay, epochSecond, formatDate, formatTimestamp, formatYear, parseDateText, parseTimeText, parseTimestampText, roundPicos,
} from '../../lib/sql/temporal-text.js';
import { castLiteral, dateLiteral, timeLiteral, timestampLiteral } from '../../lib/sql/temporal-literal-values.js';
import { instantOf } from '../../lib/sql/zone-rules.js';
import { expectLinear, hostileText } from '../support/linear-time.js';

const text = (v: ReturnType<typeof timestampLiteral>) => ('text' in v ? v.text : v.error);

describe('temporal literal text', () => {
  it('reads every fraction digit up to 12, and refuses a 13th', () => {
    expect(parseTimestampText('2001-08-22 00:00:00.000000500001')).to.deep.equal({ year: 2001, month: 8, day: 22, hour: 0, minute: 0, second: 0, picos: 500_001, precision: 12 });
    expect(parseTimeText('12:34:56.123456789 +08:00')).to.deep.equal({ hour: 12, minute: 34, second: 56, picos: 123_456_789_000, precision: 9, offsetMinutes: 480 });
    expect(parseTimeText('00:00:00.0000000000001')).to.equal(undefined);
    expect(parseTimestampText('2001-08-22 00:00:00.1234567890123')?.zone).to.equal('00:00:00.1234567890123');
    expect(text(timestampLiteral('2001-08-22 00:00:00.1234567890123'))).to.equal('invalid');
  });

  it('reads dates, times of day and zones as Trino\'s patterns do', () => {
    expect(parseDateText('-4999999-01-01')).to.deep.equal({ year: -4_999_999, month: 1, day: 1 });
    expect(parseDateText('2020-2-29')).to.deep.equal({ year: 2020, month: 2, day: 29 });
    for (const bad of ['2021-02-29', '2020-13-01', '1234567890-01-01', '2020-01-01x', '', '-', '2020--01-01']) expect(parseDateText(bad), bad).to.equal(undefined);
    expect(parseTimestampText('2020-01-01 UTC')).to.deep.include({ hour: 0, zone: 'UTC' });
    expect(parseTimestampText('2020-01-01 1:2')).to.deep.include({ hour: 1, minute: 2, second: 0, precision: 0 });
    expect(parseTimestampText('2020-01-01 01:02:03.5+02:00')).to.deep.include({ picos: 500_000_000_000, zone: '+02:00' });
    // Trino's year has 4 digits at least; its separator is a space.
    for (const bad of ['20-01-01', '2020-01-01T01:02:03', '2020-01-01 24:00:00', '2020-01-01 23:60', '2020-02-30 01:02']) expect(text(timestampLiteral(bad)), bad).to.equal('invalid');
    expect(parseTimeText('01:02:03 +14:01')).to.equal(undefined);
    expect(parseTimeText('01:02:03 +5:00')).to.equal(undefined);
    expect(parseTimeText('24:00:00')).to.equal(undefined);
  });

  it('writes ISO years as java.time does', () => {
    expect([-2001, -1, 0, 1, 9999, 10_000, 5_000_000].map(formatYear)).to.deep.equal(['-2001', '-0001', '0000', '0001', '9999', '+10000', '+5000000']);
    expect(formatDate({ year: -44, month: 3, day: 15 })).to.equal('-0044-03-15');
  });

  it('rounds half up to a lower precision, carrying into the next second', () => {
    expect(roundPicos(10, 500_000, 6)).to.deep.equal({ seconds: 10, picos: 1_000_000 });
    expect(roundPicos(10, 499_999, 6)).to.deep.equal({ seconds: 10, picos: 0 });
    expect(roundPicos(10, 999_999_500_000, 6)).to.deep.equal({ seconds: 11, picos: 0 });
    expect(roundPicos(10, 123_456_789_000, 7)).to.deep.equal({ seconds: 10, picos: 123_456_800_000 });
  });

  it('counts days and seconds in the proleptic Gregorian calendar, both ways', () => {
    expect(epochDay({ year: 1970, month: 1, day: 1 })).to.equal(0);
    expect(epochDay({ year: 2001, month: 8, day: 22 })).to.equal(11_556);
    expect(epochDay({ year: 0, month: 12, day: 31 })).to.equal(-719_163);
    fc.assert(fc.property(fc.integer({ min: -2_147_483_648, max: 2_147_483_647 }), (day) => epochDay(civilDate(day)) === day), { numRuns: 2000 });
  });

  it('reads back what it writes, at every precision', () => {
    const timestamp = fc.record({
      seconds: fc.integer({ min: -9_000_000_000_000, max: 9_000_000_000_000 }), picos: fc.integer({ min: 0, max: 999_999_999_999 }), precision: fc.integer({ min: 0, max: 12 }),
    });
    fc.assert(fc.property(timestamp, ({ seconds, picos, precision }) => {
      const unit = 10 ** (12 - precision);
      const value = dateTimeOf(seconds, Math.floor(picos / unit) * unit);
      const parsed = parseTimestampText(formatTimestamp(value, precision));
      expect(parsed).to.deep.equal({ ...value, precision });
      expect(epochSecond(parsed!)).to.equal(seconds);
    }), { numRuns: 2000 });
  });

  it('reads hostile text in linear time, without throwing', () => {
    const all = (t: string) => [parseDateText(t), parseTimeText(t), parseTimestampText(t), dateLiteral(t), timeLiteral(t), timestampLiteral(t)];
    expectLinear('temporal text', all, (size) => ['1'.repeat(size), `2020-01-01 ${'1'.repeat(size)}`, `01:02:03.${'5'.repeat(size)}`, `2020-01-01 01:02:03 ${'UTC+'.repeat(size / 4)}`, '-'.repeat(size)]);
    fc.assert(fc.property(hostileText(2_000), (t) => {
      all(t);
    }), { numRuns: 50 });
  });
});

describe('temporal literal values', () => {
  it('gives DuckDB what it holds, rounded half up, and Trino\'s text beside it', () => {
    expect(timestampLiteral('2001-08-22 23:59:59.9999999995')).to.deep.equal({ sql: "CAST('2001-08-23 00:00:00.000000000' AS TIMESTAMP_NS)", text: '2001-08-22 23:59:59.9999999995' });
    expect(timeLiteral('23:59:59.9999999995')).to.deep.equal({ sql: "CAST('00:00:00.000000000' AS TIME_NS)", text: '23:59:59.9999999995' });
    expect(timeLiteral('12:34:56.123456789 +08:00')).to.deep.equal({ sql: "CAST('12:34:56.123457+08:00' AS TIMETZ)", text: '12:34:56.123456789+08:00' });
    expect(dateLiteral('-2001-08-22')).to.deep.equal({ sql: "DATE '2002-08-22 (BC)'", text: '-2001-08-22' });
    // A nanosecond timestamp before 1677 is held in microseconds.
    expect(timestampLiteral('1500-01-01 00:00:00.1234567')).to.deep.equal({ sql: "CAST('1500-01-01 00:00:00.123457' AS TIMESTAMP)", text: '1500-01-01 00:00:00.1234567' });
  });

  it('casts a literal to a lower precision of its kind rounding half up, a time wrapping at midnight', () => {
    const cast = (...args: Parameters<typeof castLiteral>) => {
      const v = castLiteral(...args);
      return v && text(v);
    };
    expect(cast('timestamp', '2001-08-22 00:00:00.123456789', false, 7)).to.equal('2001-08-22 00:00:00.1234568');
    expect(cast('timestamp', '2001-08-22 23:59:59.9999995', false, 6)).to.equal('2001-08-23 00:00:00.000000');
    expect(cast('timestamp', '2001-08-22 00:00:00.000000500001', false, 12)).to.equal('2001-08-22 00:00:00.000000500001');
    expect(cast('timestamp', '-0001-12-31 23:59:59.5 UTC-05:30', true, 0)).to.equal('0000-01-01 00:00:00 -05:30');
    expect(cast('time', '23:59:59.9999995', false, 6)).to.equal('00:00:00.000000');
    expect(cast('time', '12:34:56.123456789 +08:00', true, 3)).to.equal('12:34:56.123+08:00');
    // Rounded into a gap, a zone added or dropped, a precision past 12: not this cast's.
    expect(cast('timestamp', '2022-03-27 01:59:59.9 Europe/Brussels', true, 0)).to.equal(undefined);
    expect(cast('timestamp', '2001-08-22 00:00:00.5', true, 0)).to.equal(undefined);
    expect(cast('time', '01:02:03 +08:00', false, 0)).to.equal(undefined);
    expect(cast('timestamp', '2001-08-22 00:00:00.5', false, 13)).to.equal(undefined);
  });

  it('refuses dates DuckDB cannot hold, within a day or two of Trino\'s ends', () => {
    expect(text(dateLiteral('-5877641-06-25'))).to.equal('-5877641-06-25');
    expect(text(dateLiteral('5881580-07-10'))).to.equal('+5881580-07-10');
    expect(text(dateLiteral('-5877641-06-24'))).to.equal('invalid');
    expect(text(dateLiteral('5881580-07-11'))).to.equal('invalid');
  });

  it('names the zone as Trino does, and refuses a local time in a gap', () => {
    expect(text(timestampLiteral('2020-01-01 16:43:22.320000 UTC-05:30'))).to.equal('2020-01-01 16:43:22.320000 -05:30');
    expect(text(timestampLiteral('2020-01-01 00:00 gmt'))).to.equal('2020-01-01 00:00:00 UTC');
    expect(text(timestampLiteral('2020-01-01 00:00 america/new_york'))).to.equal('2020-01-01 00:00:00 America/New_York');
    expect(text(timestampLiteral('2022-03-27 02:30:00 Europe/Brussels'))).to.equal('gap');
    expect(text(timestampLiteral('2022-03-27 01:59:59.999999999999 Europe/Brussels'))).to.equal('2022-03-27 01:59:59.999999999999 Europe/Brussels');
    expect(text(timestampLiteral('2020-01-01 00:00 UTC+05:30:10'))).to.equal('invalid');
  });

  it('reads a local time in a zone at its first valid offset: the earlier instant in an overlap', () => {
    const brussels = { name: 'Europe/Brussels' };
    const at = (t: string) => instantOf(epochSecond(parseTimestampText(t)!), brussels);
    expect(at('2022-10-30 02:30:00')).to.equal(Date.UTC(2022, 9, 30, 0, 30) / 1000);
    expect(at('2022-10-30 03:00:00')).to.equal(Date.UTC(2022, 9, 30, 2, 0) / 1000);
    expect(at('2022-03-27 03:00:00')).to.equal(Date.UTC(2022, 2, 27, 1, 0) / 1000);
    expect(at('2022-03-27 02:00:00')).to.equal('gap');
    // Local mean time before standard time (+00:17:30), as java.time reads it.
    expect(at('1800-01-01 00:00:00')).to.equal(Date.UTC(1799, 11, 31, 23, 42, 30) / 1000);
    expect(instantOf(0, { name: '-05:30', offsetMinutes: -330 })).to.equal(19_800);
  });

  it('finds the earliest instant showing a local time, through its cache of offsets by day (luxon as the oracle)', () => {
    const ZONES = ['Europe/Brussels', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kolkata', 'America/Sao_Paulo', 'Pacific/Apia'];
    // Instants around 1900-2100, many on the same days (the cache's case), and their local times.
    const instant = fc.oneof(fc.integer({ min: -2_208_988_800, max: 4_102_444_800 }), fc.integer({ min: 0, max: 400 }).map((d) => 1_640_995_200 + d * 86_400 + 3_600));
    fc.assert(fc.property(instant, fc.constantFrom(...ZONES), (i, zone) => {
      const local = i + DateTime.fromSeconds(i, { zone }).offset * 60;
      const found = instantOf(local, { name: zone });
      expect(typeof found).to.equal('number');
      expect(found as number).to.be.at.most(i);
      expect((found as number) + DateTime.fromSeconds(found as number, { zone }).offset * 60).to.equal(local);
    }), { numRuns: 3000 });
  });
});
