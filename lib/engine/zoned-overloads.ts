// Overloads over zoned values (lib/sql/zoned-timestamps.ts: a STRUCT of the UTC wall time and the zone)
// for the typed macros of presto-functions.ts that take a timestamp with time zone (date_trunc, date_add,
// interval arithmetic, to_iso8601), so a call on a zoned value works in that value's zone whatever the
// argument is (a literal, a column, a subquery's). Bodies call the helpers of zoned-macros.ts, created
// before presto-functions.ts's macros. Pure text, and no import of presto-functions.ts (which imports this).
import { ZONED_PRECISIONS, ZONED_UTC, ZONED_ZONE, zonedType, zonedValue } from '../sql/zoned-timestamps.js';

export const utcOf = (x: string): string => `struct_extract(${x}, '${ZONED_UTC}')`;
export const zoneOf = (x: string): string => `struct_extract(${x}, '${ZONED_ZONE}')`;

/** The local time (µs) of zoned `x` in its zone; of precision 9, with its nanoseconds. */
export const localOf = (x: string, p: number): string =>
  p === 9
    // In nanoseconds: DuckDB's TIMESTAMP_NS + INTERVAL is a TIMESTAMP, which dropped the last 3 digits.
    ? `make_timestamp_ns(epoch_ns(${utcOf(x)}) + 1000 * (epoch_us(vivace_local_us(${utcOf(x)}, ${zoneOf(x)})) - epoch_us(${utcOf(x)}::TIMESTAMP)))`
    : `vivace_local_us(${utcOf(x)}, ${zoneOf(x)})`;

/** The fraction of strftime formats for p digits (0, 3, 6, 9). */
export const FRACTION: Readonly<Record<number, string>> = { 0: '', 3: '.%g', 6: '.%f', 9: '.%n' };

/** Per zoned precision: `(params) AS body`, params naming the zoned parameter's type. */
export const perPrecision = (params: (type: string) => string, body: (p: number) => string): string[] =>
  ZONED_PRECISIONS.map((p) => `(${params(zonedType(p))}) AS ${body(p)}`);

/** A value of zoned `x`'s zone and precision at naive UTC time `utc`; NULL when x is. */
const sameZoned = (x: string, p: number, utc: string): string => `CASE WHEN ${x} IS NULL THEN NULL ELSE ${zonedValue(utc, zoneOf(x), p)} END`;

/** date_trunc(u, t): truncated in the value's zone, keeping zone and precision. */
export const ZONED_TRUNC = perPrecision((t) => `u VARCHAR, t ${t}`, (p) => sameZoned('t', p, `vivace_utc_of(system.main.date_trunc(u, ${localOf('t', p)}), ${zoneOf('t')})`));

/** date_add(u, v, t): units of a day or more in the value's local calendar, shorter ones on the instant (Trino's chronology fields). */
export const ZONED_DATE_ADD = perPrecision((t) => `u VARCHAR, v BIGINT, t ${t}`, (p) => sameZoned('t', p, `CASE WHEN lower(u) IN ('millisecond', 'second', 'minute', 'hour')
  THEN ${utcOf('t')} + vivace_unit_interval(u, v) ELSE vivace_utc_of(${localOf('t', p)} + vivace_unit_interval(u, v), ${zoneOf('t')}) END`));

/** a +/- b: a day-to-second interval moves the instant, a year-to-month one the local calendar (Trino). `intervalFirst`: b + a. */
export const zonedInterval = (o: '+' | '-', intervalFirst = false): string[] =>
  perPrecision((t) => (intervalFirst ? `b INTERVAL, a ${t}` : `a ${t}, b INTERVAL`), (p) => `CASE WHEN b IS NULL THEN NULL ELSE ${sameZoned('a', p, `CASE WHEN datepart('year', b) * 12 + datepart('month', b) = 0
    THEN ${utcOf('a')} ${o} b ELSE vivace_utc_of(${localOf('a', p)} ${o} b, ${zoneOf('a')}) END`)} END`);

/** SQL text of zoned `x`'s offset at its instant, `+HH:MM` (`Z` for none when `zeroAsZ`). */
export const offsetText = (x: string, zeroAsZ: boolean): string => `list_transform(
  [(epoch(vivace_local_us(${utcOf(x)}, ${zoneOf(x)})) - epoch(${utcOf(x)}::TIMESTAMP))::BIGINT],
  o -> CASE WHEN o = 0 AND ${zeroAsZ} THEN 'Z' ELSE CASE WHEN o < 0 THEN '-' ELSE '+' END || lpad((abs(o) // 3600)::VARCHAR, 2, '0') || ':' || lpad((abs(o) % 3600 // 60)::VARCHAR, 2, '0') END)[1]`;

/** to_iso8601(t): the local time and the zone's offset at that instant (`Z` for none). */
export const ZONED_ISO8601 = perPrecision((t) => `t ${t}`, (p) => `strftime(${localOf('t', p)}, '%Y-%m-%dT%H:%M:%S${FRACTION[p]}') || ${offsetText('t', true)}`);
