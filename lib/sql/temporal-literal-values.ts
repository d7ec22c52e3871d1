// What a DATE, TIME or TIMESTAMP literal is: checked as Trino checks it, the DuckDB SQL of its value, and
// its value as Trino renders it. DuckDB holds dates and timestamps from about 290309 BC (dates 5877642 BC)
// and fractions down to nanoseconds (TIME WITH TIME ZONE: microseconds); a literal with more digits is
// rounded half up to what DuckDB holds (as Trino rounds a cast to a lower precision), and its exact
// text, every digit up to 12, goes beside it (declared-types.ts: a select item that is a literal renders
// as that text). Pure: the text is parsed field by field (temporal-text.ts), never pasted into SQL.
import type { Expression } from './ast.js';
import { fold } from './names.js';
import { numeric } from './duckdb-type-names.js';
import { quoteString } from './sql-formatter.js';
import {
  civilDate, dateTimeOf, epochDay, epochSecond, formatDate, formatOffset, formatTime, formatTimestamp, parseDateText, parseTimeText, parseTimestampText,
  roundPicos, type CivilDate, type TimeOfDay,
} from './temporal-text.js';
import { knownZone } from './time-zones.js';
import { instantOf } from './zone-rules.js';
import { duckdbTimestamp } from './temporal-literals.js';
import { zonedValue } from './zoned-timestamps.js';

/** A literal's DuckDB SQL and Trino's text of its value; or why Trino refuses it. */
export type LiteralValue = { sql: string; text: string } | { error: 'invalid' | 'gap' };

const pad = (n: number, width: number) => String(n).padStart(width, '0');

/** DuckDB's DATE range: 5877642-06-25 (BC) to 5881580-07-10 (Trino's, its int of days, is a day or two wider). */
const MIN_DAY = epochDay({ year: -5_877_641, month: 6, day: 25 });
const MAX_DAY = epochDay({ year: 5_881_580, month: 7, day: 10 });

/** DuckDB's TIMESTAMP: microseconds in a signed 64-bit integer (about 290309 BC to 294247 AD). */
const MAX_TIMESTAMP_SECONDS = 9_223_372_036_853;

/** TIMESTAMP_NS: nanoseconds in a signed 64-bit integer (1677-09-21 to 2262-04-11). */
const MIN_NS_SECONDS = -9_223_372_036;
const MAX_NS_SECONDS = 9_223_372_035;

/** A date as DuckDB reads it: years before 1 as `YYYY-MM-DD (BC)` (ISO year 0 is 1 BC). */
function duckdbDate(d: CivilDate): string {
  const year = d.year > 0 ? pad(d.year, 4) : pad(1 - d.year, 4);
  return `${year}-${pad(d.month, 2)}-${pad(d.day, 2)}${d.year > 0 ? '' : ' (BC)'}`;
}

/** DuckDB's text of a date and time with `digits` fraction digits. */
const duckdbDateTime = (t: CivilDate & Omit<TimeOfDay, 'precision'>, digits: number) => {
  const date = duckdbDate(t);
  const time = formatTime(t, digits);
  return date.endsWith(' (BC)') ? `${date.slice(0, -5)} (BC) ${time}` : `${date} ${time}`;
};

/** DATE 'text': Trino reads a signed year of up to 9 digits; DuckDB holds days of a 32-bit range. */
export function dateLiteral(value: string): LiteralValue {
  const date = parseDateText(value);
  const day = date && epochDay(date);
  if (!date || day === undefined || day < MIN_DAY || day > MAX_DAY) return { error: 'invalid' };
  return { sql: `DATE ${quoteString(duckdbDate(date))}`, text: formatDate(date) };
}

/** TIME 'text' (with an offset: time with time zone), Trino's TIME_PATTERN; the value wraps at midnight when rounded. */
export function timeLiteral(value: string): LiteralValue {
  const time = parseTimeText(value);
  if (!time) return { error: 'invalid' };
  const zoned = time.offsetMinutes !== undefined;
  // DuckDB's TIME and TIMETZ hold microseconds, TIME_NS nanoseconds.
  const digits = zoned || time.precision <= 6 ? Math.min(time.precision, 6) : Math.min(time.precision, 9);
  const rounded = roundPicos(time.hour * 3600 + time.minute * 60 + time.second, time.picos, digits);
  const held = formatTime(dateTimeOf(rounded.seconds % 86_400, rounded.picos), digits);
  const text = formatTime(time, time.precision);
  if (zoned) {
    const offset = formatOffset(time.offsetMinutes!);
    return { sql: `CAST(${quoteString(held + offset)} AS TIMETZ)`, text: text + offset };
  }
  return { sql: `CAST(${quoteString(held)} AS ${time.precision > 6 ? 'TIME_NS' : 'TIME'})`, text };
}

/**
 * TIMESTAMP 'text', Trino's DATETIME_PATTERN. With a zone, a zoned value (zoned-timestamps.ts) of its
 * instant: the local time read at the first offset valid then, refused in a gap (Trino: `Invalid
 * TIMESTAMP due to daylight savings transition`); the zone named as Trino names it (`UTC-05:30` is
 * `-05:30`, `GMT` is `UTC`, regions in their canonical case).
 */
export function timestampLiteral(value: string): LiteralValue {
  const t = parseTimestampText(value);
  if (!t) return { error: 'invalid' };
  const p = t.precision;
  const digits = Math.min(p, 9);
  const local = epochSecond(t);
  if (t.zone === undefined) {
    const rounded = roundPicos(local, t.picos, digits);
    if (Math.abs(rounded.seconds) > MAX_TIMESTAMP_SECONDS) return { error: 'invalid' };
    // TIMESTAMP_NS ends in 1677 and 2262: beyond, the value is held in microseconds.
    const ns = rounded.seconds >= MIN_NS_SECONDS && rounded.seconds <= MAX_NS_SECONDS;
    const held = p > 6 && !ns ? roundPicos(local, t.picos, 6) : rounded;
    const type = p > 6 && !ns ? 'TIMESTAMP' : duckdbTimestamp(p);
    return { sql: `CAST(${quoteString(duckdbDateTime(dateTimeOf(held.seconds, held.picos), Math.min(digits, type === 'TIMESTAMP' ? 6 : 9)))} AS ${type})`, text: formatTimestamp(t, p) };
  }
  const zone = knownZone(t.zone);
  if (!zone) return { error: 'invalid' };
  const instant = instantOf(local, zone);
  if (instant === 'gap') return { error: 'gap' };
  const text = `${formatTimestamp(t, p)} ${zone.name}`;
  if (instant === undefined) {
    // Rules out of Intl's reach (a year past Date's range): DuckDB reads the local time in the zone.
    const l = roundPicos(local, t.picos, digits);
    const localSql = `CAST(${quoteString(duckdbDateTime(dateTimeOf(l.seconds, l.picos), digits))} AS ${duckdbTimestamp(p)})`;
    return { sql: zonedValue(`vivace_utc_of(${localSql}, ${quoteString(zone.name)})`, quoteString(zone.name), p), text };
  }
  const utc = roundPicos(instant, t.picos, digits);
  if (Math.abs(utc.seconds) > MAX_TIMESTAMP_SECONDS || (p > 6 && (utc.seconds < MIN_NS_SECONDS || utc.seconds > MAX_NS_SECONDS))) return { error: 'invalid' };
  const utcSql = `CAST(${quoteString(duckdbDateTime(dateTimeOf(utc.seconds, utc.picos), digits))} AS ${duckdbTimestamp(p)})`;
  return { sql: zonedValue(utcSql, quoteString(zone.name), p), text };
}

/** The first day DuckDB's DATE holds, for specs. */
export const DUCKDB_DATE_RANGE = { min: civilDate(MIN_DAY), max: civilDate(MAX_DAY) } as const;

/**
 * CAST(literal AS time(p) / timestamp(p) [with time zone]) where the literal is of that kind: the literal's
 * value rounded half up to p digits (Trino rounds so when it lowers a precision; a time wraps at
 * midnight), as a literal of precision p. Undefined for another cast (another kind, a zone added or
 * dropped, a precision past 12) or a literal Trino refuses: the cast is then DuckDB's.
 */
export function castLiteral(type: 'time' | 'timestamp', value: string, withTimeZone: boolean, p: number): LiteralValue | undefined {
  if (!Number.isInteger(p) || p < 0 || p > 12) return undefined;
  if (type === 'time') {
    const t = parseTimeText(value);
    if (!t || (t.offsetMinutes !== undefined) !== withTimeZone) return undefined;
    const r = roundPicos(t.hour * 3600 + t.minute * 60 + t.second, t.picos, p);
    const offset = t.offsetMinutes === undefined ? '' : ` ${formatOffset(t.offsetMinutes)}`;
    return timeLiteral(formatTime(dateTimeOf(r.seconds % 86_400, r.picos), p) + offset);
  }
  const t = parseTimestampText(value);
  if (!t || (t.zone !== undefined) !== withTimeZone) return undefined;
  const r = roundPicos(epochSecond(t), t.picos, p);
  const rounded = timestampLiteral(formatTimestamp(dateTimeOf(r.seconds, r.picos), p) + (t.zone === undefined ? '' : ` ${t.zone}`));
  // Rounded into a DST gap (Trino rounds the instant): left to DuckDB.
  return 'sql' in rounded ? rounded : undefined;
}

/** A cast (not TRY_CAST) of a TIME or TIMESTAMP literal to its own kind (castLiteral), or undefined. */
export function temporalLiteralCast(e: Extract<Expression, { type: 'Cast' }>): LiteralValue | undefined {
  const literal = e.expression;
  const target = e.targetType;
  if (e.safe || literal.type !== 'GenericLiteral' || target.type !== 'DateTimeDataType') return undefined;
  const type = fold(literal.typeName.value);
  if (type !== target.kind.toLowerCase()) return undefined;
  return castLiteral(type as 'time' | 'timestamp', literal.value, target.withTimeZone, numeric(target.precision) ?? 3);
}
