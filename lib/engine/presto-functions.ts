// Presto functions DuckDB lacks or has with other semantics, as TEMP macros created on every
// connection (presto-macros.ts runs them). A macro named like a DuckDB builtin shadows it; the
// builtin stays reachable as system.main.<name>. Macros cannot take lambdas, choose overloads by
// generic types (ANY[], MAP) or be variadic: those cases are rewritten in the AST (presto-ast.ts).
// No macro here calls error(): it is volatile, and TRY(...) refuses volatile functions; a failing cast
// raises Presto's errors instead (invalidArgument). A macro whose parameter appears more than once binds
// its arguments once (once()). README.md "Presto SQL support" lists what each one does and how it differs.

import { MYSQL_TO_STRFTIME } from '../sql/mysql-date-format.js';
import { IPADDRESS_DUCKDB_TYPE } from '../sql/ip-address.js';
import { SKETCH_FUNCTION_NAMES } from '../sql/sketch-calls.js';
import { ZONED_DATE_ADD, ZONED_ISO8601, ZONED_TRUNC, zonedInterval } from './zoned-overloads.js';
import { ZONED_PRECISIONS, zonedType } from '../sql/zoned-timestamps.js';

const macro = (name: string, ...overloads: string[]) => `CREATE OR REPLACE TEMP MACRO ${name} ${overloads.join(',\n  ')}`;

/**
 * A macro body reading its parameters through one lambda parameter: `list_transform([args], lambda v: body)[1]`.
 * DuckDB expands a macro by pasting each argument wherever its parameter appears, so a parameter used k
 * times pastes its argument k times and calls nested in that argument multiply: slice nested 8 deep took
 * 44 s and 1.1 GB to bind, array_distinct 14 deep 33 s. An argument used inside a lambda nests lambdas,
 * which DuckDB binds in time exponential in their depth. Here the arguments sit outside the lambda and are
 * evaluated once, so nested calls bind in linear time (slice 64 deep: ~0.5 s) and never nest lambdas.
 */
export function once(name: string, params: readonly string[], body: (p: Readonly<Record<string, string>>) => string): string {
  const v = `vivace_${name}`;
  const single = params.length === 1;
  // struct_extract, not v.p: inside a table function's arguments (FROM UNNEST(sequence(...))) DuckDB
  // reads an unresolved dotted name as a string.
  const refs = Object.fromEntries(params.map((p) => [p, single ? v : `struct_extract(${v}, '${p}')`]));
  const args = single ? params[0] : `struct_pack(${params.map((p) => `${p} := ${p}`).join(', ')})`;
  return `list_transform([${args}], lambda ${v}: ${body(refs)})[1]`;
}

/**
 * Typed overloads as `vivace_typed_<name>`, behind an untyped `name` whose `bound` parameters are bound
 * once (once()). DuckDB binds an argument of a typed macro twice (to choose the overload, then in the
 * body), so typed calls nested in arguments cost 2^depth binds (16 deep: 0.9 s, 20: ~14 s); the typed
 * macro here only sees lambda parameters. Unbound parameters (units, constants) are passed as written.
 * CREATE MACRO binds its body with NULL arguments, which match every typed overload, so the wrapper is
 * created over an untyped stand-in that the typed overloads then replace (macros resolve names per use).
 */
export function typed(name: string, overloads: readonly string[], ...signatures: { params: string[]; bound: string[] }[]): string[] {
  const inner = `vivace_typed_${name}`;
  return [
    macro(inner, ...signatures.map(({ params }) => `(${params.join(', ')}) AS NULL`)),
    macro(name, ...signatures.map(({ params, bound }) =>
      `(${params.join(', ')}) AS ${once(name, bound, (p) => `${inner}(${params.map((x) => p[x] ?? x).join(', ')})`)}`)),
    macro(inner, ...overloads),
  ];
}

/**
 * duckdb-errors.ts reports a failed cast of a string starting with this tag as INVALID_FUNCTION_ARGUMENT
 * with the rest of the string as its message.
 */
export const INVALID_ARGUMENT_TAG = 'INVALID_FUNCTION_ARGUMENT: ';

/**
 * A BIGINT expression failing with INVALID_FUNCTION_ARGUMENT and Presto's `message` when DuckDB evaluates
 * it: "Conversion Error: Could not convert string '<tag><message>' to INT64". DuckDB's constant folding
 * leaves a failing expression unfolded, so a guard raises when the statement runs, at once, and a
 * guarded value (its argument: `n + guard`) is never built. TRY(...) turns it into NULL, as Presto's TRY does.
 */
const invalidArgument = (message: string) => `'${INVALID_ARGUMENT_TAG}${message}'::BIGINT`;

const INVALID_ARGUMENT_ERROR = `Conversion Error: Could not convert string '${INVALID_ARGUMENT_TAG}`;
const INVALID_ARGUMENT_END = `' to INT64`;

/**
 * Presto's message in the first line of a DuckDB error raised by invalidArgument(), or undefined when
 * the line is another error: for duckdb-errors.ts, which reports it as INVALID_FUNCTION_ARGUMENT.
 */
export function invalidArgumentMessage(firstLine: string): string | undefined {
  if (!firstLine.startsWith(INVALID_ARGUMENT_ERROR)) return undefined;
  const end = firstLine.lastIndexOf(INVALID_ARGUMENT_END);
  return end < INVALID_ARGUMENT_ERROR.length ? undefined : firstLine.slice(INVALID_ARGUMENT_ERROR.length, end);
}

/** Presto's limits on functions that build large values, and ours (README.md "Presto SQL support"). */
export const VALUE_LIMITS = {
  /** Presto and Trino: entries of a sequence. */
  sequenceEntries: 10_000,
  /** Presto: entries of repeat's array, and bytes of it (Trino: 100,000 entries, 4 MB). */
  repeatEntries: 10_000,
  repeatBytes: 1_000_000,
  /** Ours: Trino allows lpad/rpad to 2,147,483,647 characters; DuckDB builds them while planning. */
  padLength: 1_000_000,
  /** Presto and Trino: cells of levenshtein_distance's table (CPU time). */
  levenshteinCells: 1_000_000,
} as const;

const SEQUENCE_TOO_LONG = invalidArgument(`result of sequence function must not have more than ${VALUE_LIMITS.sequenceEntries} entries`);
const STEP_ZERO = invalidArgument('step must not be zero');
const WRONG_DIRECTION = invalidArgument(
  'sequence stop value should be greater than or equal to start value if step is greater than zero otherwise stop should be less than or equal to start',
);



const mysqlFormat = (() => {
  let e = `replace(f, '%%', chr(1))`;
  for (const [from, to] of MYSQL_TO_STRFTIME) e = `replace(${e}, '%${from}', '${to.replace(/%/g, `' || chr(2) || '`)}')`;
  return `replace(replace(${e}, chr(2), '%'), chr(1), '%%')`;
})();

/** Presto interval from a unit name and a count (date_add). A bad unit fails the cast with its name. */
const UNIT_INTERVAL = (u: string, v: string) => `CASE lower(${u})
    WHEN 'millisecond' THEN to_milliseconds(${v}::DOUBLE) WHEN 'second' THEN to_seconds(${v}::DOUBLE)
    WHEN 'minute' THEN to_minutes(${v}::BIGINT) WHEN 'hour' THEN to_hours(${v}::BIGINT) WHEN 'day' THEN to_days(${v}::INTEGER)
    WHEN 'week' THEN to_weeks(${v}::INTEGER) WHEN 'month' THEN to_months(${v}::INTEGER) WHEN 'quarter' THEN to_months(3 * ${v}::INTEGER)
    WHEN 'year' THEN to_years(${v}::INTEGER) ELSE ('Invalid unit: ' || ${u})::INTERVAL END`;

/** URL parts (Presto url_extract_*): NULL when the part is absent. */
const URL_HEAD = `^[A-Za-z][A-Za-z0-9+.-]*://(?:[^@/?#]*@)?`;
const matchOrNull = (s: string, pattern: string, group: number | string = 1) =>
  `CASE WHEN regexp_matches(${s}, ${pattern}) THEN system.main.regexp_extract(${s}, ${pattern}, ${group}) END`;
const lit = (s: string) => `'${s}'`;

/**
 * DuckDB type names (typeof) -> Presto's, as lib/connectors/duckdb-types.ts reports them; arrays inside maps/rows keep DuckDB's []. Plain
 * replace() in an order where no replacement feeds a later one (chr(1)/chr(2) hold timestamp/time).
 */
const PRESTO_TYPE_NAME = (() => {
  const steps: [string, string][] = [
    // Trino's ipaddress (lib/sql/ip-address.ts) before its struct and uhugeint are renamed.
    [IPADDRESS_DUCKDB_TYPE.replaceAll('"', '').toLowerCase(), 'ipaddress'],
    // Zoned values (lib/sql/zoned-timestamps.ts) first, before their struct and timestamp parts are renamed.
    ...ZONED_PRECISIONS.map((p): [string, string] => [zonedType(p).toLowerCase(), `\u0001(${p}) with \u0002 zone`]),
    ['ubigint', 'decimal(20,0)'], ['uinteger', 'bigint'], ['usmallint', 'integer'], ['utinyint', 'smallint'], ['hugeint', 'decimal(38,0)'],
    ['float', 'real'], ['blob', 'varbinary'], ['struct(', 'row('], ['"null"', 'unknown'], ['interval', 'interval day to second'],
    ['timestamp with time zone', '\u0001(6) with \u0002 zone'], ['timestamp_ns', '\u0001(9)'], ['timestamp_ms', '\u0001(3)'], ['timestamp_s', '\u0001(0)'],
    ['timestamp', '\u0001(6)'], ['time with time zone', '\u0002(6) with \u0002 zone'], ['time', 'time(6)'], ['\u0001', 'timestamp'], ['\u0002', 'time'],
  ];
  // A SQL string literal; the placeholders as chr(1)/chr(2).
  const text = (v: string) => `'${v.replaceAll('\u0001', "' || chr(1) || '").replaceAll('\u0002', "' || chr(2) || '")}'`;
  let e = `lower(t)`;
  for (const [from, to] of steps) e = `replace(${e}, ${text(from)}, ${text(to)})`;
  // Trailing [] pairs become array(...); the lambda binds the name once (a macro parameter used k times is bound k times).
  return `list_transform([${e}], n -> system.main.repeat('array(', (length(n) - length(rtrim(n, '[]'))) // 2) || rtrim(n, '[]') || system.main.repeat(')', (length(n) - length(rtrim(n, '[]'))) // 2))[1]`;
})();

const INTEGER_TYPES = ['TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'HUGEINT'];

/** vivace_sequence_step_check of sequence(a, b, s) on dates or timestamps. */
const sequenceStepCheck = (dates: boolean) =>
  `vivace_sequence_step_check(vivace_interval_months(s), vivace_interval_micros(s), date_sub('month', a, b),
    ${dates ? `(b - a)::HUGEINT * 86400000000` : `epoch_us(b)::HUGEINT - epoch_us(a)`}, ${dates})`;

/** DuckDB's array_to_string (a macro using its list twice) with `list` written once; `separator` a constant. */
const joinList = (list: string, separator: string) =>
  `list_transform([${list}], lambda vivace_join: CASE WHEN len(vivace_join) = 0 THEN '' ELSE list_aggr(vivace_join::VARCHAR[], 'string_agg', ${separator}) END)[1]`;

/** `d`, failing as Presto's split does when it is empty. */
const nonEmptyDelimiter = (d: string) => `CASE WHEN ${d} = '' THEN ${invalidArgument('The delimiter may not be the empty string')}::VARCHAR ELSE ${d} END`;

export const PRESTO_FUNCTIONS_SQL: readonly string[] = [
  // Rewrite targets (presto-ast.ts): division inside TRY(...) is NULL on zero, like Presto's TRY.
  ...typed(
    'vivace_try_divide',
    [
      ...INTEGER_TYPES.map((t) => `(a ${t}, b ${t}) AS CASE WHEN b = 0 THEN NULL ELSE a // b END`),
      `(a DECIMAL(38,10), b DECIMAL(38,10)) AS CASE WHEN b = 0 THEN NULL ELSE a::DOUBLE / b::DOUBLE END`,
      `(a FLOAT, b FLOAT) AS a / b`,
      `(a DOUBLE, b DOUBLE) AS a / b`,
    ],
    { params: ['a', 'b'], bound: ['a', 'b'] },
  ),
  // date +/- interval stays a date in Presto (DuckDB makes it a timestamp).
  ...(['plus', 'minus'] as const).map((op) => {
    const o = op === 'plus' ? '+' : '-';
    return typed(
      `vivace_${op}_interval`,
      [
        `(a DATE, b INTERVAL) AS (a ${o} b)::DATE`,
        `(a TIMESTAMP, b INTERVAL) AS a ${o} b`,
        `(a TIMESTAMP WITH TIME ZONE, b INTERVAL) AS a ${o} b`,
        ...zonedInterval(o),
        `(a TIME, b INTERVAL) AS a ${o} b`,
        `(a, b) AS a ${o} b`,
      ],
      { params: ['a', 'b'], bound: ['a', 'b'] },
    );
  }).flat(),
  // Arrays and maps
  // cardinality: one macro for arrays and maps (macros cannot overload on generic types); via JSON. A BLOB
  // is a sketch (HyperLogLog, SetDigest): the engine's function (sketch-functions.ts, registered before
  // the macros). DuckDB's typeof() (the macro typeof is Trino's) is a constant: DuckDB keeps one branch.
  macro('cardinality', `(x) AS ${once('cardinality', ['x'], ({ x }) => `(CASE WHEN system.main.typeof(${x}) = 'BLOB' THEN ${SKETCH_FUNCTION_NAMES.cardinality}(${x}::BLOB) WHEN json_type(to_json(${x})) = 'OBJECT' THEN len(json_keys(to_json(${x}))) ELSE system.main.json_array_length(to_json(${x})) END)::BIGINT`)}`),
  // x[i]: 1-based, negative from the end, NULL out of range; a map's missing key is NULL.
  macro('element_at', `(c, k) AS c[k]`),
  // array_to_string is a DuckDB macro using its list twice: its body, with the list bound once. The
  // separator must be a constant (string_agg's), so it is not bound.
  macro(
    'array_join',
    `(a, s) AS ${once('array_join', ['a'], ({ a }) => joinList(a, 's'))}`,
    `(a, s, n) AS ${once('array_join', ['a', 'n'], (p) => joinList(`list_transform(${p.a}, x -> coalesce(x::VARCHAR, ${p.n}))`, 's'))}`,
  ),
  // First occurrences in order, one NULL kept (list_distinct drops NULLs and reorders). Quadratic time,
  // constant memory (a slice per element, as before, held n²/2 elements at once).
  macro('array_distinct', `(a) AS ${once('array_distinct', ['a'], ({ a }) => `list_filter(${a}, (x, i) -> list_position(${a}, x) = i)`)}`),
  macro('array_max', `(a) AS ${once('array_max', ['a'], ({ a }) => `CASE WHEN list_position(${a}, NULL) IS NULL THEN list_max(${a}) END`)}`),
  macro('array_min', `(a) AS ${once('array_min', ['a'], ({ a }) => `CASE WHEN list_position(${a}, NULL) IS NULL THEN list_min(${a}) END`)}`),
  macro('array_position', `(a, x) AS coalesce(list_position(a, x), 0)::BIGINT`),
  macro('array_remove', `(a, x) AS ${once('array_remove', ['a', 'x'], (p) => `list_filter(${p.a}, e -> e IS DISTINCT FROM ${p.x})`)}`),
  macro('array_union', `(a, b) AS array_distinct(list_concat(a, b))`),
  macro('array_intersect', `(a, b) AS ${once('array_intersect', ['a', 'b'], (p) => `array_distinct(list_filter(${p.a}, x -> list_contains(${p.b}, x)))`)}`),
  macro('array_except', `(a, b) AS ${once('array_except', ['a', 'b'], (p) => `array_distinct(list_filter(${p.a}, x -> NOT list_contains(${p.b}, x)))`)}`),
  macro('arrays_overlap', `(a, b) AS list_has_any(a, b)`),
  // sequence: Presto's checks, in Presto's order, fail before generate_series builds anything: the check
  // (0, or a failure) is added to the stop argument. Steps in days or months are counted exactly; a
  // DuckDB interval mixing months and days counts months as 28 days (at most that many entries).
  macro('vivace_sequence_check', `(a, b, s) AS CASE WHEN s = 0 THEN ${STEP_ZERO}
    WHEN (s > 0 AND b < a) OR (s < 0 AND b > a) THEN ${WRONG_DIRECTION}
    WHEN (b::HUGEINT - a::HUGEINT) // s >= ${VALUE_LIMITS.sequenceEntries} THEN ${SEQUENCE_TOO_LONG} ELSE 0 END`),
  // m, us: the step's months and microseconds (days included); months, us_between: from start to stop.
  macro('vivace_sequence_step_check', `(m, us, months, us_between, dates) AS CASE
    WHEN dates AND m = 0 AND us % 86400000000 <> 0 THEN ${invalidArgument('sequence step must be a day interval if start and end values are dates')}
    WHEN m = 0 AND us = 0 THEN ${STEP_ZERO}
    WHEN (CASE WHEN m <> 0 THEN m ELSE us END > 0 AND us_between < 0) OR (CASE WHEN m <> 0 THEN m ELSE us END < 0 AND us_between > 0) THEN ${WRONG_DIRECTION}
    WHEN CASE WHEN us = 0 THEN months // m WHEN m = 0 THEN us_between // us ELSE abs(us_between) // (abs(m) * 2419200000000 + abs(us)) END
      >= ${VALUE_LIMITS.sequenceEntries} THEN ${SEQUENCE_TOO_LONG} ELSE 0 END`),
  macro('vivace_interval_months', `(s) AS datepart('year', s) * 12 + datepart('month', s)`),
  macro('vivace_interval_micros', `(s) AS datepart('day', s)::HUGEINT * 86400000000 + datepart('hour', s)::HUGEINT * 3600000000
    + datepart('minute', s)::HUGEINT * 60000000 + datepart('microsecond', s)`),
  ...typed(
    'sequence',
    [
      `(a DATE, b DATE) AS list_transform(generate_series(a::TIMESTAMP,
        b::TIMESTAMP + to_days(vivace_sequence_check(0, b - a, CASE WHEN a <= b THEN 1 ELSE -1 END)::INTEGER),
        CASE WHEN a <= b THEN INTERVAL 1 DAY ELSE INTERVAL (-1) DAY END), x -> x::DATE)`,
      `(a DATE, b DATE, s INTERVAL) AS list_transform(generate_series(a::TIMESTAMP, b::TIMESTAMP + to_microseconds(${sequenceStepCheck(true)}), s), x -> x::DATE)`,
      ...['TIMESTAMP', 'TIMESTAMP WITH TIME ZONE'].map((t) => `(a ${t}, b ${t}, s INTERVAL) AS generate_series(a, b + to_microseconds(${sequenceStepCheck(false)}), s)`),
      `(a, b) AS generate_series(a, b + vivace_sequence_check(a, b, CASE WHEN a <= b THEN 1 ELSE -1 END), CASE WHEN a <= b THEN 1 ELSE -1 END)`,
      `(a, b, s) AS generate_series(a, b + vivace_sequence_check(a, b, s), s)`,
    ],
    { params: ['a', 'b'], bound: ['a', 'b'] },
    { params: ['a', 'b', 's'], bound: ['a', 'b', 's'] },
  ),
  // Presto's repeat builds an array (DuckDB's repeat of a string stays reachable as system.main.repeat).
  // The size check reads the element's text: Presto's is the element's size in its block.
  macro('repeat', `(x, n) AS ${once('repeat', ['x', 'n'], ({ x, n }) => `system.main.repeat([${x}], ${n} + CASE
    WHEN ${n} > ${VALUE_LIMITS.repeatEntries} THEN ${invalidArgument(`count argument of repeat function must be less than or equal to ${VALUE_LIMITS.repeatEntries}`)}
    WHEN ${n} < 0 THEN ${invalidArgument('count argument of repeat function must be greater than or equal to 0')}
    WHEN ${n} > 0 AND strlen(${x}::VARCHAR) + 5 > (${VALUE_LIMITS.repeatBytes} + ${n}) // ${n}
      THEN ${invalidArgument(`result of repeat function must not take more than ${VALUE_LIMITS.repeatBytes} bytes`)} ELSE 0 END)`)}`),
  macro('slice', `(a, s, n) AS ${once('slice', ['a', 's', 'n'], ({ a, s, n }) =>
    `CASE WHEN ${s} > 0 THEN list_slice(${a}, ${s}, ${s} + ${n} - 1) ELSE list_slice(${a}, len(${a}) + ${s} + 1, len(${a}) + ${s} + ${n}) END`)}`),
  macro('zip', `(a, b) AS list_zip(a, b)`, `(a, b, c) AS list_zip(a, b, c)`, `(a, b, c, d) AS list_zip(a, b, c, d)`),
  macro('map_agg', `(k, v) AS map_from_entries(list_filter(list(struct_pack(key := k, value := v)) FILTER (WHERE k IS NOT NULL),
    (e, i) -> list_position(list(k) FILTER (WHERE k IS NOT NULL), e.key) = i))`),
  macro('histogram', `(x) AS map_from_entries(list_transform(map_entries(system.main.histogram(x)), e -> struct_pack(key := e.key, value := e.value::BIGINT)))`),
  macro(
    'split',
    `(s, d) AS ${once('split', ['s', 'd'], ({ s, d }) => `string_split(${s}, ${nonEmptyDelimiter(d)})`)}`,
    // With a limit the delimiter joins the rest again, so it must be a constant: not bound.
    `(s, d, n) AS ${once('split', ['s', 'n'], ({ s, n }) => `list_transform([string_split(${s}, CASE
      WHEN ${n} <= 0 THEN ${invalidArgument('Limit must be positive')}::VARCHAR WHEN ${n} > 2147483647 THEN ${invalidArgument('Limit is too large')}::VARCHAR
      ELSE ${nonEmptyDelimiter('d')} END)],
      parts -> CASE WHEN len(parts) <= ${n} THEN parts ELSE list_concat(parts[1:${n} - 1], [${joinList(`parts[${n}:]`, 'd')}]) END)[1]`)}`,
  ),
  // Aggregates
  // Exact: within Presto's error bounds, and equal to Presto's sketches on small inputs (DuckDB's HLL
  // counts 10 distinct values as 11). Costs memory per group where Presto's sketches do not.
  macro('approx_distinct', `(x) AS count(DISTINCT x)`, `(x, e) AS count(DISTINCT x)`),
  macro('approx_percentile', `(x, p) AS quantile_disc(x, p)`),
  macro('arbitrary', `(x) AS any_value(x)`),
  macro('every', `(x) AS bool_and(x)`),
  macro('count_if', `(x) AS count(*) FILTER (WHERE x)`),
  // Dates and times
  // Called by vivace_typed_date_add with v bound; u, a unit, is pasted as written so that a constant folds.
  macro('vivace_unit_interval', `(u, v) AS ${UNIT_INTERVAL('u', 'v')}`),
  ...typed(
    'date_add',
    [
      `(u VARCHAR, v BIGINT, t DATE) AS (t + vivace_unit_interval(u, v))::DATE`,
      `(u VARCHAR, v BIGINT, t TIMESTAMP) AS t + vivace_unit_interval(u, v)`,
      `(u VARCHAR, v BIGINT, t TIMESTAMP WITH TIME ZONE) AS t + vivace_unit_interval(u, v)`,
      ...ZONED_DATE_ADD,
      `(u VARCHAR, v BIGINT, t TIME) AS t + vivace_unit_interval(u, v)`,
    ],
    { params: ['u', 'v', 't'], bound: ['v', 't'] },
  ),
  // Presto counts whole units elapsed (DuckDB's date_sub), not boundaries crossed (DuckDB's date_diff).
  macro('date_diff', `(u, a, b) AS date_sub(u, a, b)`),
  ...typed(
    'date_trunc',
    [
      `(u VARCHAR, t DATE) AS system.main.date_trunc(u, t)::DATE`,
      `(u VARCHAR, t TIMESTAMP) AS system.main.date_trunc(u, t)`,
      `(u VARCHAR, t TIMESTAMP WITH TIME ZONE) AS system.main.date_trunc(u, t)`,
      ...ZONED_TRUNC,
      `(u, t) AS system.main.date_trunc(u, t)`,
    ],
    { params: ['u', 't'], bound: ['t'] },
  ),
  macro('vivace_mysql_format', `(f) AS ${mysqlFormat}`),
  macro('date_format', `(t, f) AS strftime(t, vivace_mysql_format(f))`),
  macro('format_datetime', `(t, f) AS strftime(t, f)`),
  macro('to_unixtime', `(t) AS epoch(t)::DOUBLE`),
  macro('from_iso8601_date', `(s) AS s::DATE`),
  ...typed(
    'to_iso8601',
    [`(t DATE) AS strftime(t, '%Y-%m-%d')`, `(t TIMESTAMP) AS strftime(t, '%Y-%m-%dT%H:%M:%S.%g')`, `(t TIMESTAMP WITH TIME ZONE) AS strftime(t, '%Y-%m-%dT%H:%M:%S.%gZ')`, ...ZONED_ISO8601],
    { params: ['t'], bound: ['t'] },
  ),
  macro('day_of_week', `(t) AS isodow(t)`),
  macro('dow', `(t) AS isodow(t)`),
  macro('day_of_year', `(t) AS dayofyear(t)`),
  macro('doy', `(t) AS dayofyear(t)`),
  macro('week_of_year', `(t) AS week(t)`),
  macro('year_of_week', `(t) AS isoyear(t)`),
  macro('yow', `(t) AS isoyear(t)`),
  macro('last_day_of_month', `(t) AS last_day(t)`),
  // Strings, regular expressions, binary
  macro('regexp_like', `(s, p) AS regexp_matches(s, p)`),
  macro(
    'regexp_extract',
    // Patterns are not bound: a constant pattern compiles once (and a group must be a constant).
    `(s, p) AS ${once('regexp_extract', ['s'], ({ s }) => matchOrNull(s, 'p', 0))}`,
    `(s, p, g) AS ${once('regexp_extract', ['s'], ({ s }) => matchOrNull(s, 'p', 'g'))}`,
  ),
  // Presto replaces every match and writes groups as $1; RE2 wants \1 and the 'g' flag.
  macro(
    'regexp_replace',
    `(s, p) AS system.main.regexp_replace(s, p, '', 'g')`,
    `(s, p, r) AS system.main.regexp_replace(s, p, system.main.regexp_replace(r, '\\$(\\d)', '\\\\\\1', 'g'), 'g')`,
  ),
  macro('regexp_count', `(s, p) AS len(regexp_extract_all(s, p))::BIGINT`),
  macro('regexp_split', `(s, p) AS string_split_regex(s, p)`),
  macro('codepoint', `(c) AS unicode(c)`),
  macro('to_utf8', `(s) AS encode(s)`),
  macro('from_utf8', `(b) AS decode(b)`),
  // Presto's bound on the work (its table has length(longer) * (length(shorter) - 1) cells), checked
  // before levenshtein runs: the check is part of its first argument.
  macro('levenshtein_distance', `(a, b) AS ${once('levenshtein', ['a', 'b'], ({ a, b }) => `levenshtein(CASE
    WHEN greatest(length(${a}), length(${b})) * (least(length(${a}), length(${b})) - 1) > ${VALUE_LIMITS.levenshteinCells}
    THEN ${invalidArgument('The combined inputs for Levenshtein distance are too large')}::VARCHAR ELSE ${a} END, ${b})`)}`),
  macro('hamming_distance', `(a, b) AS hamming(a, b)`),
  // Trino: a target length in [0..2147483647], a non-empty pad. DuckDB builds the string while it plans
  // a constant call, deaf to interrupts, so the length is bounded lower (README.md).
  ...['lpad', 'rpad'].map((f) => macro(f, `(s, n, p) AS ${once(f, ['s', 'n', 'p'], (a) => `system.main.${f}(${a.s}, (${a.n} + CASE
    WHEN ${a.n} < 0 OR ${a.n} > ${VALUE_LIMITS.padLength} THEN ${invalidArgument(`Target length must be in the range [0..${VALUE_LIMITS.padLength}]`)}
    WHEN ${a.p} = '' THEN ${invalidArgument('Padding string must not be empty')} ELSE 0 END)::INTEGER, ${a.p})`)}`)),
  ...(
    [
      ['protocol', '^([A-Za-z][A-Za-z0-9+.-]*):'],
      ['host', `${URL_HEAD}([^:/?#]*)`],
      ['path', '^(?:[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*)?([^?#]*)'],
      ['query', '\\?([^#]*)'],
      ['fragment', '#(.*)$'],
    ] as const
  ).map(([part, pattern]) => macro(`url_extract_${part}`, `(u) AS ${once(`url_${part}`, ['u'], ({ u }) => matchOrNull(u, lit(pattern)))}`)),
  macro('url_extract_port', `(u) AS ${once('url_port', ['u'], ({ u }) => `(${matchOrNull(u, lit(`${URL_HEAD}[^:/?#]*:([0-9]+)`))})::BIGINT`)}`),
  macro('url_extract_parameter', `(u, n) AS ${once('url_parameter', ['u'], ({ u }) => matchOrNull(u, `'[?&]' || n || '=([^&#]*)'`))}`),
  // JSON
  macro('json_parse', `(s) AS json(s)`),
  macro('json_format', `(j) AS j::VARCHAR`),
  // JSON paths are not bound: a constant path is parsed once.
  macro('json_extract_scalar', `(j, p) AS ${once('json_scalar', ['j'], ({ j }) =>
    `CASE WHEN json_type(${j}, p) NOT IN ('OBJECT', 'ARRAY', 'NULL') THEN json_extract_string(${j}, p) END`)}`),
  macro('json_array_length', `(j) AS system.main.json_array_length(j)::BIGINT`),
  macro('json_array_get', `(j, i) AS ${once('json_get', ['j', 'i'], ({ j, i }) =>
    `json_extract(${j}, '$[' || CASE WHEN ${i} < 0 THEN '#' || ${i}::VARCHAR ELSE ${i}::VARCHAR END || ']')`)}`),
  macro('json_size', `(j, p) AS ${once('json_size', ['j'], ({ j }) =>
    `(CASE json_type(${j}, p) WHEN 'OBJECT' THEN len(json_keys(${j}, p)) WHEN 'ARRAY' THEN system.main.json_array_length(${j}, p) ELSE 0 END)::BIGINT`)}`),
  // Math and bits
  macro('is_nan', `(x) AS isnan(x)`),
  macro('is_finite', `(x) AS isfinite(x)`),
  macro('is_infinite', `(x) AS isinf(x)`),
  macro('infinity', `() AS 'Infinity'::DOUBLE`),
  macro('nan', `() AS 'NaN'::DOUBLE`),
  macro('e', `() AS exp(1::DOUBLE)`),
  macro('truncate', `(x) AS trunc(x)`, `(x, n) AS trunc(x, n)`),
  // Presto's bitwise functions take and return bigint.
  macro('bitwise_and', `(a, b) AS a::BIGINT & b::BIGINT`),
  macro('bitwise_or', `(a, b) AS a::BIGINT | b::BIGINT`),
  macro('bitwise_xor', `(a, b) AS xor(a::BIGINT, b::BIGINT)`),
  macro('bitwise_not', `(a) AS ~(a::BIGINT)`),
  macro('vivace_presto_type_name', `(t) AS ${PRESTO_TYPE_NAME}`),
  macro('typeof', `(x) AS vivace_presto_type_name(system.main.typeof(x))`),
];
