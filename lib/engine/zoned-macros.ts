// TEMP macros over zoned values (lib/sql/zoned-timestamps.ts: a STRUCT of the UTC wall time and the zone),
// created on every connection. The translation reads a value that may be zoned through them: each has an
// overload per zoned precision and passes anything else on as it is (or to DuckDB's builtin), so one
// translation serves a column of any type. Typed macros of presto-functions.ts (date_trunc, date_add,
// interval arithmetic, to_iso8601) take zoned values themselves (zoned-overloads.ts). Work in a value's
// zone happens on its local time: local = utc shifted by the zone's offset at that instant (ICU for
// regions, arithmetic for fixed offsets such as `+05:30`, which ICU does not name).
// A typed overload list that has a TIMESTAMPTZ overload also lists every naive type: DuckDB would
// otherwise cast a DATE or TIMESTAMP argument to TIMESTAMPTZ rather than take the untyped overload.
import { once, typed, INVALID_ARGUMENT_TAG } from './presto-functions.js';
import { ZONED_PRECISIONS, ZONED_UTC, ZONED_ZONE, zonedType, zonedValue } from '../sql/zoned-timestamps.js';
import { duckdbTimestamp } from '../sql/temporal-literals.js';
import { FRACTION, localOf, offsetText, perPrecision, utcOf, zonedInterval, zoneOf } from './zoned-overloads.js';

const macro = (name: string, ...overloads: string[]) => `CREATE OR REPLACE TEMP MACRO ${name} ${overloads.join(',\n  ')}`;

/** `body`, or NULL when `x` is (a zoned value of a NULL would be a row of NULLs). */
const orNull = (x: string, body: string) => `CASE WHEN ${x} IS NULL THEN NULL ELSE ${body} END`;
const NAIVE = ['DATE', 'TIMESTAMP_S', 'TIMESTAMP_MS', 'TIMESTAMP', 'TIMESTAMP_NS', 'TIME'];
/** A BIGINT failing with INVALID_FUNCTION_ARGUMENT `message` followed by the text of `z` (presto-functions.ts invalidArgument). */
const failing = (message: string, z: string) => `('${INVALID_ARGUMENT_TAG}${message}' || ${z})::BIGINT`;

/** Untyped helpers, created before presto-functions.ts's macros (zoned-overloads.ts calls them). */
export const ZONED_HELPERS_SQL: readonly string[] = [
  // Minutes east of UTC of a fixed offset as the zoned values name it: `+05:30`.
  macro('vivace_zone_offset', `(z) AS (CASE WHEN z[1] = '-' THEN -1 ELSE 1 END) * (z[2:3]::INTEGER * 60 + z[5:6]::INTEGER)`),
  // The local time in zone z of naive UTC time u, and the naive UTC time of local time l in zone z.
  // UTC first: no ICU calendar per row (measured: 1M zoned UTC values render ~1.5x faster).
  macro('vivace_local_us', `(u, z) AS CASE WHEN z = 'UTC' THEN u::TIMESTAMP WHEN z[1] IN ('+', '-') THEN u::TIMESTAMP + to_minutes(vivace_zone_offset(z)) ELSE timezone(z, timezone('UTC', u::TIMESTAMP)) END`),
  macro('vivace_utc_of', `(l, z) AS CASE WHEN z = 'UTC' THEN l::TIMESTAMP WHEN z[1] IN ('+', '-') THEN l::TIMESTAMP - to_minutes(vivace_zone_offset(z)) ELSE timezone('UTC', timezone(z, l::TIMESTAMP)) END`),
  // A fixed offset as Trino names it (+H, +HH, +HHMM, +HH:MM -> +HH:MM; zero is UTC), within 14 hours.
  macro('vivace_offset_name', `(z) AS ${once('offset_name', ['z'], ({ z }) => `list_transform([CASE
      WHEN NOT regexp_full_match(${z}, '[+-][0-9]{1,2}(:?[0-9]{2})?') THEN ${failing('Time zone not supported: ', z)}
      WHEN length(replace(${z}, ':', '')) <= 3 THEN ${z}[2:]::INTEGER * 60
      ELSE replace(${z}, ':', '')[2:3]::INTEGER * 60 + CASE WHEN replace(${z}, ':', '')[4:5]::INTEGER > 59 THEN ${failing('Time zone not supported: ', z)} ELSE replace(${z}, ':', '')[4:5]::INTEGER END END],
    m -> CASE WHEN m = 0 THEN 'UTC' WHEN m > 840 THEN ${failing('Time zone not supported: ', z)}::VARCHAR
      ELSE ${z}[1] || lpad((m // 60)::VARCHAR, 2, '0') || ':' || lpad((m % 60)::VARCHAR, 2, '0') END)[1]`)}`),
  // A zone as a user wrote it, as Trino names it: UTC's aliases are UTC, offsets +HH:MM; regions as written
  // (DuckDB's ICU checks them where a value is read in its zone).
  macro('vivace_zone_name', `(z) AS ${once('zone_name', ['z'], ({ z }) => `CASE
      WHEN ${z} IS NULL THEN NULL
      WHEN lower(trim(${z})) IN ('utc', 'z', 'ut', 'gmt', 'etc/utc', 'etc/gmt', 'uct', 'etc/uct', 'zulu', 'etc/zulu', 'universal', 'etc/universal', 'greenwich', 'etc/greenwich') THEN 'UTC'
      WHEN trim(${z})[1] IN ('+', '-') THEN vivace_offset_name(trim(${z}))
      WHEN length(trim(${z})) BETWEEN 1 AND 64 AND regexp_full_match(trim(${z}), '[A-Za-z0-9/_+-]+') THEN trim(${z})
      ELSE ${failing('Time zone not supported: ', z)}::VARCHAR END`)}`),
  // The zone of a timestamp text after its time of day (`... 03:04:05.123 America/New_York`, `...T03:04:05Z`,
  // `...05+02:00`), or '' when it has none. RE2: linear in the text.
  macro('vivace_text_zone', `(s) AS regexp_extract(s, ':[0-9]{2}(?:[.,][0-9]+)?(?::[0-9]{2}(?:[.,][0-9]+)?)?\\s*(Z|[+-][0-9]{1,2}(?::?[0-9]{2})?|[A-Za-z][A-Za-z0-9/_+-]*)\\s*$', 1)`),
  // A zoned value with another zone (AT TIME ZONE, at_timezone): the same instant and precision.
  macro('vivace_set_zone', `(v, z) AS ${once('set_zone', ['v', 'z'], ({ v, z }) =>
    `CASE WHEN ${v} IS NULL OR ${z} IS NULL THEN NULL ELSE struct_pack(${ZONED_UTC} := ${utcOf(v)}, ${ZONED_ZONE} := ${z}) END`)}`),
];

/** Typed macros reading values that may be zoned, created after presto-functions.ts's. */
export const ZONED_MACROS_SQL: readonly string[] = [
  // The local time of a zoned value in its zone (a TIMESTAMPTZ's in the session's zone s); others as they are.
  ...typed(
    'vivace_local',
    [
      ...perPrecision((t) => `x ${t}, s`, (p) => localOf('x', p)),
      `(x TIMESTAMP WITH TIME ZONE, s) AS vivace_local_us(timezone('UTC', x), s)`,
      ...NAIVE.map((t) => `(x ${t}, s) AS x`),
      `(x, s) AS x`,
    ],
    { params: ['x', 's'], bound: ['x'] },
  ),
  // What comparisons, ordering and differences read: the instant, as a naive UTC time; others as they are.
  ...typed(
    'vivace_instant_key',
    [
      ...perPrecision((t) => `x ${t}`, () => utcOf('x')),
      `(x TIMESTAMP WITH TIME ZONE) AS timezone('UTC', x)`,
      ...NAIVE.map((t) => `(x ${t}) AS x`),
      `(x) AS x`,
    ],
    { params: ['x'], bound: ['x'] },
  ),
  // A value as a zoned one (CAST to timestamp with time zone, AT TIME ZONE, with_timezone): a timestamp or
  // date is read in zone s, a text in the zone it names (else in s).
  ...typed(
    'vivace_zoned',
    [
      ...perPrecision((t) => `x ${t}, s VARCHAR`, () => 'x'),
      `(x TIMESTAMP WITH TIME ZONE, s VARCHAR) AS ${orNull('x', zonedValue(`timezone('UTC', x)`, 's', 6))}`,
      ...ZONED_PRECISIONS.map((p) => `(x ${duckdbTimestamp(p)}, s VARCHAR) AS ${orNull('x', zonedValue(p === 9 ? `x + (vivace_utc_of(x, s) - x::TIMESTAMP)` : `vivace_utc_of(x, s)`, 's', p))}`),
      `(x DATE, s VARCHAR) AS ${orNull('x', zonedValue(`vivace_utc_of(x::TIMESTAMP, s)`, 's', 3))}`,
      `(x VARCHAR, s VARCHAR) AS CASE WHEN x IS NULL THEN NULL WHEN coalesce(vivace_text_zone(x), '') = '' THEN ${zonedValue(`vivace_utc_of(x::TIMESTAMP, s)`, 's', 6)}
        ELSE ${zonedValue(`timezone('UTC', x::TIMESTAMPTZ)`, 'vivace_zone_name(vivace_text_zone(x))', 6)} END`,
      `(x, s) AS x`,
    ],
    { params: ['x', 's'], bound: ['x', 's'] },
  ),
  // a +/- b where the translation cannot tell an interval from its text (`x + n * INTERVAL '1' HOUR`, a
  // column): a zoned value and an interval move the value (as vivace_plus_interval), two zoned values (or
  // one and a TIMESTAMPTZ) subtract their instants; anything else is DuckDB's + or -.
  ...typed(
    'vivace_zoned_plus',
    [
      ...zonedInterval('+'),
      ...zonedInterval('+', true),
      `(a, b) AS a + b`,
    ],
    { params: ['a', 'b'], bound: ['a', 'b'] },
  ),
  ...typed(
    'vivace_zoned_minus',
    [
      ...zonedInterval('-'),
      ...ZONED_PRECISIONS.flatMap((p) => ZONED_PRECISIONS.map((q) => `(a ${zonedType(p)}, b ${zonedType(q)}) AS ${utcOf('a')} - ${utcOf('b')}`)),
      ...perPrecision((t) => `a ${t}, b TIMESTAMP WITH TIME ZONE`, () => `${utcOf('a')} - timezone('UTC', b)`),
      ...perPrecision((t) => `a TIMESTAMP WITH TIME ZONE, b ${t}`, () => `timezone('UTC', a) - ${utcOf('b')}`),
      `(a, b) AS a - b`,
    ],
    { params: ['a', 'b'], bound: ['a', 'b'] },
  ),
  // timezone_hour / timezone_minute: the offset of the value's zone at its instant (a TIMESTAMPTZ's: of the session's zone s).
  ...(['hour', 'minute'] as const).flatMap((unit) => {
    const part = (seconds: string) => `CAST(trunc(${unit === 'hour' ? `${seconds} / 3600` : `(${seconds} % 3600) / 60`}) AS BIGINT)`;
    const offset = (utc: string, zone: string) => part(`(epoch(vivace_local_us(${utc}, ${zone})) - epoch(${utc}::TIMESTAMP))`);
    return typed(
      `vivace_timezone_${unit}`,
      [
        ...perPrecision((t) => `x ${t}, s`, () => offset(utcOf('x'), zoneOf('x'))),
        `(x TIMESTAMP WITH TIME ZONE, s) AS ${offset(`timezone('UTC', x)`, 's')}`,
        `(x, s) AS timezone_${unit}(x)`,
      ],
      { params: ['x', 's'], bound: ['x'] },
    );
  }),
  // A group's value (zoned-grouping.ts): with k, the group's instant key, a zoned value is any of its group's
  // (any_value); anything else is k itself, which DuckDB matches to the GROUP BY key: no aggregate at all.
  macro(
    'vivace_group_value',
    ...perPrecision((t) => `k, x ${t}`, () => 'any_value(x)'),
    `(k, x TIMESTAMP WITH TIME ZONE) AS any_value(x)`,
    ...NAIVE.map((t) => `(k, x ${t}) AS k`),
    `(k, x) AS k`,
  ),
  // CAST(x AS time with time zone): the local time of day and the zone's offset then; others as they are.
  ...typed(
    'vivace_zoned_timetz',
    [...perPrecision((t) => `x ${t}`, (p) => `strftime(${localOf('x', p)}, '%H:%M:%S.%f') || ${offsetText('x', false)}`), `(x) AS x`],
    { params: ['x'], bound: ['x'] },
  ),
  // CAST(x AS varchar): Trino's text of a zoned value, `2020-01-02 03:04:05.000 America/New_York`; others as they are.
  ...typed(
    'vivace_zoned_text',
    [...perPrecision((t) => `x ${t}`, (p) => `strftime(${localOf('x', p)}, '%Y-%m-%d %H:%M:%S${FRACTION[p]}') || ' ' || ${zoneOf('x')}`), `(x) AS x`],
    { params: ['x'], bound: ['x'] },
  ),
];

