// Presto functions DuckDB lacks or has with other semantics, as TEMP macros created on every
// connection (presto-macros.ts runs them). A macro named like a DuckDB builtin shadows it; the
// builtin stays reachable as system.main.<name>. Macros cannot take lambdas, choose overloads by
// generic types (ANY[], MAP) or be variadic: those cases are rewritten in the AST (presto-ast.ts).
// No macro here calls error(): it is volatile, and TRY(...) refuses volatile functions.
// README.md "Presto SQL support" lists what each one does and how it differs.

const macro = (name: string, ...overloads: string[]) => `CREATE OR REPLACE TEMP MACRO ${name} ${overloads.join(',\n  ')}`;

/**
 * MySQL date_format specifiers (Presto date_format/date_parse) -> strftime/strptime. Translated via
 * placeholders (chr(1) for '%%', chr(2) for '%') so a translated specifier is never translated again.
 */
export const MYSQL_TO_STRFTIME: readonly [string, string][] = [
  ['a', '%a'], ['b', '%b'], ['c', '%-m'], ['d', '%d'], ['e', '%-d'], ['f', '%f'], ['H', '%H'], ['h', '%I'],
  ['I', '%I'], ['i', '%M'], ['j', '%j'], ['k', '%-H'], ['l', '%-I'], ['M', '%B'], ['m', '%m'], ['p', '%p'],
  ['r', '%I:%M:%S %p'], ['S', '%S'], ['s', '%S'], ['T', '%H:%M:%S'], ['v', '%V'], ['W', '%A'], ['w', '%w'],
  ['x', '%G'], ['Y', '%Y'], ['y', '%y'],
];

/** The same translation in JavaScript, for a constant format (date_parse: strptime wants a constant). */
export function mysqlToStrftime(format: string): string {
  const table = new Map(MYSQL_TO_STRFTIME);
  return format.replace(/%(.)/gs, (m, c: string) => (c === '%' ? '%%' : (table.get(c) ?? m)));
}

const mysqlFormat = (() => {
  let e = `replace(f, '%%', chr(1))`;
  for (const [from, to] of MYSQL_TO_STRFTIME) e = `replace(${e}, '%${from}', '${to.replace(/%/g, `' || chr(2) || '`)}')`;
  return `replace(replace(${e}, chr(2), '%'), chr(1), '%%')`;
})();

/** Presto interval from a unit name and a count (date_add). A bad unit fails the cast with its name. */
const UNIT_INTERVAL = `CASE lower(u)
    WHEN 'millisecond' THEN to_milliseconds(v::DOUBLE) WHEN 'second' THEN to_seconds(v::DOUBLE)
    WHEN 'minute' THEN to_minutes(v::BIGINT) WHEN 'hour' THEN to_hours(v::BIGINT) WHEN 'day' THEN to_days(v::INTEGER)
    WHEN 'week' THEN to_weeks(v::INTEGER) WHEN 'month' THEN to_months(v::INTEGER) WHEN 'quarter' THEN to_months(3 * v::INTEGER)
    WHEN 'year' THEN to_years(v::INTEGER) ELSE ('Invalid unit: ' || u)::INTERVAL END`;

/** URL parts (Presto url_extract_*): NULL when the part is absent. */
const URL_HEAD = `^[A-Za-z][A-Za-z0-9+.-]*://(?:[^@/?#]*@)?`;
const matchOrNull = (s: string, pattern: string, group: number | string = 1) =>
  `CASE WHEN regexp_matches(${s}, ${pattern}) THEN system.main.regexp_extract(${s}, ${pattern}, ${group}) END`;
const lit = (s: string) => `'${s}'`;

/**
 * DuckDB type names (typeof) -> Presto's, as duckdb-types.ts reports them; arrays inside maps/rows keep DuckDB's []. Plain
 * replace() in an order where no replacement feeds a later one (chr(1)/chr(2) hold timestamp/time).
 */
const PRESTO_TYPE_NAME = (() => {
  const steps: [string, string][] = [
    ['ubigint', 'decimal(20,0)'], ['uinteger', 'bigint'], ['usmallint', 'integer'], ['utinyint', 'smallint'], ['hugeint', 'decimal(38,0)'],
    ['float', 'real'], ['blob', 'varbinary'], ['struct(', 'row('], ['"null"', 'unknown'], ['interval', 'interval day to second'],
    ['timestamp with time zone', '\u0001(6) with \u0002 zone'], ['timestamp_ns', '\u0001(9)'], ['timestamp_ms', '\u0001(3)'], ['timestamp_s', '\u0001(0)'],
    ['timestamp', '\u0001(6)'], ['time with time zone', '\u0002(6) with \u0002 zone'], ['time', 'time(6)'], ['\u0001', 'timestamp'], ['\u0002', 'time'],
  ];
  // A SQL string literal; the placeholders as chr(1)/chr(2).
  const text = (v: string) => `'${v.replace(/[\u0001\u0002]/g, (c) => `' || chr(${c.charCodeAt(0)}) || '`)}'`;
  let e = `lower(t)`;
  for (const [from, to] of steps) e = `replace(${e}, ${text(from)}, ${text(to)})`;
  // Trailing [] pairs become array(...); the lambda binds the name once (a macro parameter used k times is bound k times).
  return `list_transform([${e}], n -> repeat('array(', (length(n) - length(rtrim(n, '[]'))) // 2) || rtrim(n, '[]') || repeat(')', (length(n) - length(rtrim(n, '[]'))) // 2))[1]`;
})();

const INTEGER_TYPES = ['TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'HUGEINT'];

export const PRESTO_FUNCTIONS_SQL: readonly string[] = [
  // Rewrite targets (presto-ast.ts): division inside TRY(...) is NULL on zero, like Presto's TRY.
  macro(
    'vivace_try_divide',
    ...INTEGER_TYPES.map((t) => `(a ${t}, b ${t}) AS CASE WHEN b = 0 THEN NULL ELSE a // b END`),
    `(a DECIMAL(38,10), b DECIMAL(38,10)) AS CASE WHEN b = 0 THEN NULL ELSE a::DOUBLE / b::DOUBLE END`,
    `(a FLOAT, b FLOAT) AS a / b`,
    `(a DOUBLE, b DOUBLE) AS a / b`,
  ),
  // date +/- interval stays a date in Presto (DuckDB makes it a timestamp).
  ...(['plus', 'minus'] as const).map((op) => {
    const o = op === 'plus' ? '+' : '-';
    return macro(
      `vivace_${op}_interval`,
      `(a DATE, b INTERVAL) AS (a ${o} b)::DATE`,
      `(a TIMESTAMP, b INTERVAL) AS a ${o} b`,
      `(a TIMESTAMP WITH TIME ZONE, b INTERVAL) AS a ${o} b`,
      `(a TIME, b INTERVAL) AS a ${o} b`,
      `(a, b) AS a ${o} b`,
    );
  }),
  // Arrays and maps
  // cardinality: one macro for arrays and maps (macros cannot overload on generic types); via JSON.
  macro('cardinality', `(x) AS (CASE json_type(to_json(x)) WHEN 'OBJECT' THEN len(json_keys(to_json(x))) ELSE system.main.json_array_length(to_json(x)) END)::BIGINT`),
  // x[i]: 1-based, negative from the end, NULL out of range; a map's missing key is NULL.
  macro('element_at', `(c, k) AS c[k]`),
  macro('array_join', `(a, s) AS array_to_string(a, s)`, `(a, s, n) AS array_to_string(list_transform(a, x -> coalesce(x::VARCHAR, n)), s)`),
  // First occurrences in order, one NULL kept (list_distinct drops NULLs and reorders).
  macro('array_distinct', `(a) AS list_filter(a, (x, i) -> list_position(a[1:i - 1], x) IS NULL)`),
  macro('array_max', `(a) AS CASE WHEN list_position(a, NULL) IS NULL THEN list_max(a) END`),
  macro('array_min', `(a) AS CASE WHEN list_position(a, NULL) IS NULL THEN list_min(a) END`),
  macro('array_position', `(a, x) AS coalesce(list_position(a, x), 0)::BIGINT`),
  macro('array_remove', `(a, x) AS list_filter(a, e -> e IS DISTINCT FROM x)`),
  macro('array_union', `(a, b) AS array_distinct(list_concat(a, b))`),
  macro('array_intersect', `(a, b) AS array_distinct(list_filter(a, x -> list_contains(b, x)))`),
  macro('array_except', `(a, b) AS array_distinct(list_filter(a, x -> NOT list_contains(b, x)))`),
  macro('arrays_overlap', `(a, b) AS list_has_any(a, b)`),
  macro(
    'sequence',
    `(a DATE, b DATE) AS list_transform(generate_series(a::TIMESTAMP, b::TIMESTAMP, CASE WHEN a <= b THEN INTERVAL 1 DAY ELSE INTERVAL (-1) DAY END), x -> x::DATE)`,
    `(a DATE, b DATE, s INTERVAL) AS list_transform(generate_series(a::TIMESTAMP, b::TIMESTAMP, s), x -> x::DATE)`,
    `(a, b) AS generate_series(a, b, CASE WHEN a <= b THEN 1 ELSE -1 END)`,
    `(a, b, s) AS generate_series(a, b, s)`,
  ),
  macro('slice', `(a, s, n) AS CASE WHEN s > 0 THEN list_slice(a, s, s + n - 1) ELSE list_slice(a, len(a) + s + 1, len(a) + s + n) END`),
  macro('zip', `(a, b) AS list_zip(a, b)`, `(a, b, c) AS list_zip(a, b, c)`, `(a, b, c, d) AS list_zip(a, b, c, d)`),
  macro('map_agg', `(k, v) AS map_from_entries(list_filter(list(struct_pack(key := k, value := v)) FILTER (WHERE k IS NOT NULL),
    (e, i) -> list_position(list(k) FILTER (WHERE k IS NOT NULL), e.key) = i))`),
  macro('histogram', `(x) AS map_from_entries(list_transform(map_entries(system.main.histogram(x)), e -> struct_pack(key := e.key, value := e.value::BIGINT)))`),
  macro('split', `(s, d) AS string_split(s, d)`,
    `(s, d, n) AS CASE WHEN len(string_split(s, d)) <= n THEN string_split(s, d) ELSE list_concat(string_split(s, d)[1:n - 1], [array_to_string(string_split(s, d)[n:], d)]) END`),
  // Aggregates
  // Exact: within Presto's error bounds, and equal to Presto's sketches on small inputs (DuckDB's HLL
  // counts 10 distinct values as 11). Costs memory per group where Presto's sketches do not.
  macro('approx_distinct', `(x) AS count(DISTINCT x)`, `(x, e) AS count(DISTINCT x)`),
  macro('approx_percentile', `(x, p) AS quantile_disc(x, p)`),
  macro('arbitrary', `(x) AS any_value(x)`),
  macro('every', `(x) AS bool_and(x)`),
  macro('count_if', `(x) AS count(*) FILTER (WHERE x)`),
  // Dates and times
  macro('vivace_unit_interval', `(u, v) AS ${UNIT_INTERVAL}`),
  macro(
    'date_add',
    `(u VARCHAR, v BIGINT, t DATE) AS (t + vivace_unit_interval(u, v))::DATE`,
    `(u VARCHAR, v BIGINT, t TIMESTAMP) AS t + vivace_unit_interval(u, v)`,
    `(u VARCHAR, v BIGINT, t TIMESTAMP WITH TIME ZONE) AS t + vivace_unit_interval(u, v)`,
    `(u VARCHAR, v BIGINT, t TIME) AS t + vivace_unit_interval(u, v)`,
  ),
  // Presto counts whole units elapsed (DuckDB's date_sub), not boundaries crossed (DuckDB's date_diff).
  macro('date_diff', `(u, a, b) AS date_sub(u, a, b)`),
  macro(
    'date_trunc',
    `(u VARCHAR, t DATE) AS system.main.date_trunc(u, t)::DATE`,
    `(u VARCHAR, t TIMESTAMP) AS system.main.date_trunc(u, t)`,
    `(u VARCHAR, t TIMESTAMP WITH TIME ZONE) AS system.main.date_trunc(u, t)`,
    `(u, t) AS system.main.date_trunc(u, t)`,
  ),
  macro('vivace_mysql_format', `(f) AS ${mysqlFormat}`),
  macro('date_format', `(t, f) AS strftime(t, vivace_mysql_format(f))`),
  macro('format_datetime', `(t, f) AS strftime(t, f)`),
  macro('from_unixtime', `(x) AS to_timestamp(x::DOUBLE)`, `(x, z) AS to_timestamp(x::DOUBLE)`),
  macro('to_unixtime', `(t) AS epoch(t)::DOUBLE`),
  macro('at_timezone', `(t, z) AS t::TIMESTAMP WITH TIME ZONE`),
  macro('with_timezone', `(t, z) AS timezone(z, t::TIMESTAMP)`),
  macro('from_iso8601_date', `(s) AS s::DATE`),
  macro('from_iso8601_timestamp', `(s) AS s::TIMESTAMP WITH TIME ZONE`),
  macro('to_iso8601', `(t DATE) AS strftime(t, '%Y-%m-%d')`, `(t TIMESTAMP) AS strftime(t, '%Y-%m-%dT%H:%M:%S.%g')`, `(t TIMESTAMP WITH TIME ZONE) AS strftime(t, '%Y-%m-%dT%H:%M:%S.%gZ')`),
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
  macro('regexp_extract', `(s, p) AS ${matchOrNull('s', 'p', 0)}`, `(s, p, g) AS ${matchOrNull('s', 'p', 'g')}`),
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
  macro('levenshtein_distance', `(a, b) AS levenshtein(a, b)`),
  macro('hamming_distance', `(a, b) AS hamming(a, b)`),
  macro('url_extract_protocol', `(u) AS ${matchOrNull('u', lit('^([A-Za-z][A-Za-z0-9+.-]*):'))}`),
  macro('url_extract_host', `(u) AS ${matchOrNull('u', lit(`${URL_HEAD}([^:/?#]*)`))}`),
  macro('url_extract_port', `(u) AS (${matchOrNull('u', lit(`${URL_HEAD}[^:/?#]*:([0-9]+)`))})::BIGINT`),
  macro('url_extract_path', `(u) AS ${matchOrNull('u', lit('^(?:[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*)?([^?#]*)'))}`),
  macro('url_extract_query', `(u) AS ${matchOrNull('u', lit('\\?([^#]*)'))}`),
  macro('url_extract_fragment', `(u) AS ${matchOrNull('u', lit('#(.*)$'))}`),
  macro('url_extract_parameter', `(u, n) AS ${matchOrNull('u', `'[?&]' || n || '=([^&#]*)'`)}`),
  // JSON
  macro('json_parse', `(s) AS json(s)`),
  macro('json_format', `(j) AS j::VARCHAR`),
  macro('json_extract_scalar', `(j, p) AS CASE WHEN json_type(j, p) NOT IN ('OBJECT', 'ARRAY', 'NULL') THEN json_extract_string(j, p) END`),
  macro('json_array_length', `(j) AS system.main.json_array_length(j)::BIGINT`),
  macro('json_array_get', `(j, i) AS json_extract(j, '$[' || CASE WHEN i < 0 THEN '#' || i::VARCHAR ELSE i::VARCHAR END || ']')`),
  macro('json_size', `(j, p) AS (CASE json_type(j, p) WHEN 'OBJECT' THEN len(json_keys(j, p)) WHEN 'ARRAY' THEN system.main.json_array_length(j, p) ELSE 0 END)::BIGINT`),
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
