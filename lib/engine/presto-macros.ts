// SQL run on every new connection: session settings and TEMP macros giving Presto semantics
// (division) and Presto JSON encodings (doubles, intervals) that DuckDB lacks.
// TEMP macros live per connection, so they resolve whatever catalog/schema a statement USEs.
// Presto functions (presto-functions.ts) may shadow DuckDB builtins: internal macros call those as system.main.<name>.
import { once, PRESTO_FUNCTIONS_SQL, typed } from './presto-functions.js';
import { ZONED_HELPERS_SQL, ZONED_MACROS_SQL } from './zoned-macros.js';
import { TEMPORAL_MACROS_SQL } from './temporal-macros.js';
import { textExceptions } from '../protocol/java-float-text.js';

const DIVISION_BY_ZERO = `error('Division by zero')`;
const intDivide = `CASE WHEN b = 0 THEN ${DIVISION_BY_ZERO} ELSE a // b END`;

/**
 * `a / b` is rewritten to `vivace_divide(a, b)`; typed overloads choose Presto's result per type. Behind
 * typed() (presto-functions.ts), divisions nested in divisors bind in linear time (before: 16 deep took
 * 8 s, the divisor pasted twice per level and typed arguments bound twice); ~8 ns more per division.
 */
const DIVIDE = typed(
  'vivace_divide',
  [
    `(a TINYINT, b TINYINT) AS ${intDivide}`,
    `(a SMALLINT, b SMALLINT) AS ${intDivide}`,
    `(a INTEGER, b INTEGER) AS ${intDivide}`,
    `(a BIGINT, b BIGINT) AS ${intDivide}`,
    `(a HUGEINT, b HUGEINT) AS ${intDivide}`,
    `(a DECIMAL(38,10), b DECIMAL(38,10)) AS CASE WHEN b = 0 THEN ${DIVISION_BY_ZERO} ELSE a::DOUBLE / b::DOUBLE END`,
    `(a FLOAT, b FLOAT) AS a / b`,
    `(a DOUBLE, b DOUBLE) AS a / b`,
  ],
  { params: ['a', 'b'], bound: ['a', 'b'] },
);

/**
 * Division whose operands are aggregates (`sum(a) / sum(b)`), which typed overloads cannot bind: exact
 * operands still fail on zero and truncate, but the result is typed DOUBLE (the branches unify).
 */
const DIVIDE_ANY = `CREATE OR REPLACE TEMP MACRO vivace_divide_any(a, b) AS ${once('divide', ['a', 'b'], ({ a, b }) => `CASE
  WHEN system.main.typeof(${a}) IN ('DOUBLE', 'FLOAT') OR system.main.typeof(${b}) IN ('DOUBLE', 'FLOAT') THEN ${a} / ${b}
  WHEN ${b} = 0 THEN ${DIVISION_BY_ZERO}
  WHEN system.main.typeof(${a}) LIKE 'DECIMAL%' OR system.main.typeof(${b}) LIKE 'DECIMAL%' THEN ${a}::DOUBLE / ${b}::DOUBLE
  ELSE ${a} // ${b} END`)}`;

/**
 * Java's Double.toString / Float.toString: plain between 1e-3 and 1e7, else `d.dddE[-]n`; always a
 * '.'. DuckDB's `::VARCHAR` already gives the shortest round-trip digits; only the layout changes.
 */
const FLOAT_JSON = [
  // The scientific layout of DuckDB's plain text `s`: its significant digits d (no sign, point or
  // leading zeros; trailing ones trimmed where used) and the exponent of the first one, from where the
  // point stands. Each part is computed once, outside one lambda (presto-functions.ts's `once`): the
  // nested macros this replaces pasted their arguments again and again and took ~3 ms to bind per
  // double column (now ~1 ms), which a statement over read_parquet pays on every run, since DuckDB
  // rebinds it each time (a stage's root: Q1's 8 doubles, 30 ms -> 10 ms). Same output.
  `CREATE OR REPLACE TEMP MACRO vivace_sci(s) AS CASE
     WHEN contains(s, 'e') THEN
       system.main.regexp_replace(split_part(s, 'e', 1), '^(-?[0-9]+)$', '\\1.0') || 'E' || split_part(s, 'e', 2)::INTEGER::VARCHAR
     ELSE list_transform([struct_pack(
       neg := s[1] = '-', point := strpos(ltrim(s, '-') || '.', '.'), n := length(replace(ltrim(s, '-'), '.', '')),
       d := ltrim(replace(ltrim(s, '-'), '.', ''), '0'))], lambda vivace_sci_v:
       CASE WHEN struct_extract(vivace_sci_v, 'neg') THEN '-' ELSE '' END || rtrim(struct_extract(vivace_sci_v, 'd'), '0')[1] || '.'
       || CASE WHEN length(rtrim(struct_extract(vivace_sci_v, 'd'), '0')) > 1 THEN rtrim(struct_extract(vivace_sci_v, 'd'), '0')[2:] ELSE '0' END || 'E'
       || (struct_extract(vivace_sci_v, 'point') - 2 - (struct_extract(vivace_sci_v, 'n') - length(struct_extract(vivace_sci_v, 'd'))))::VARCHAR)[1] END`,
  // `s`: the digits of finite x as DuckDB writes a double (plain or with an exponent), laid out as Java does.
  `CREATE OR REPLACE TEMP MACRO vivace_float_text_json(x, s) AS CASE
     WHEN x IS NULL THEN 'null'
     WHEN isnan(x) THEN '"NaN"'
     WHEN isinf(x) THEN CASE WHEN x > 0 THEN '"Infinity"' ELSE '"-Infinity"' END
     WHEN abs(x) >= 1e7 OR (abs(x) < 1e-3 AND x <> 0) THEN vivace_sci(s)
     ELSE s END`,
  `CREATE OR REPLACE TEMP MACRO vivace_float_json(x) AS vivace_float_text_json(x, x::VARCHAR)`,
  // A real's digits: DuckDB's text of a FLOAT is not always the shortest. It writes some exactly, with 9
  // or 10 digits (3984802.75 for Java's 3984802.8, 685135168.0 for 6.8513517E8); with one digit, Java
  // takes the closest of two (1.4E-45). Those take the fewest correctly rounded digits that read back
  // (printf's), written as DuckDB writes that decimal as a double; with 2 to 8 digits DuckDB's text was
  // Java's for 25,000 random reals (spec/http/value-types-http.spec.ts compares them through a server).
  `CREATE OR REPLACE TEMP MACRO vivace_significant_digits(s) AS
     length(trim(replace(replace(split_part(lower(s), 'e', 1), '-', ''), '.', ''), '0'))`,
  `CREATE OR REPLACE TEMP MACRO vivace_real_search(x) AS CAST(CAST(CASE
     ${Array.from({ length: 8 }, (_, p) => `WHEN CAST(printf('%.${p}e', x) AS FLOAT) = x THEN printf('%.${Math.max(p, 1)}e', x)`).join('\n     ')}
     ELSE printf('%.8e', x) END AS DOUBLE) AS VARCHAR)`,
  // DuckDB's 2 to 8 digits are kept unless one digit fewer reads back too: a tie that Java's shortest
  // takes (-43129152 is Java's -4.312915E7: 43129150 lies halfway and reads back to the even float).
  `CREATE OR REPLACE TEMP MACRO vivace_real_text(x) AS CASE
     WHEN x = 0 OR isnan(x) OR isinf(x) THEN x::VARCHAR
     WHEN vivace_significant_digits(x::VARCHAR) BETWEEN 2 AND 8
       AND CAST(printf('%.' || (vivace_significant_digits(x::VARCHAR) - 2)::VARCHAR || 'e', x) AS FLOAT) <> x THEN x::VARCHAR
     ELSE vivace_real_search(x) END`,
  ...[true, false].map((real) => {
    // The few values the text above gets wrong (java-float-text.ts textExceptions): those by value.
    const type = real ? 'FLOAT' : 'DOUBLE';
    const exceptions = textExceptions(real);
    const cases = exceptions.map((e) => `WHEN CAST(${e.value} AS ${type}) THEN '${e.text}'`).join(' ');
    const limit = Math.max(...exceptions.map((e) => e.value));
    // A real's text computed once, outside a lambda (as presto-functions.ts once()): the layout pastes it several times.
    const v = 'vivace_real_json_v';
    const text = real
      ? `list_transform([struct_pack(x := x, s := vivace_real_text(x))], lambda ${v}: vivace_float_text_json(struct_extract(${v}, 'x'), struct_extract(${v}, 's')))[1]`
      : 'vivace_float_json(x)';
    // The formatting macro once: each copy of it costs ~1 ms to bind per column.
    return `CREATE OR REPLACE TEMP MACRO vivace_${real ? 'real' : 'double'}_json(x) AS coalesce(
     CASE WHEN abs(x) <= CAST(${limit} AS ${type}) THEN CASE WHEN x < 0 THEN '-' ELSE '' END || CASE abs(x) ${cases} END END,
     ${text})`;
  }),
];

/** Presto's interval day to second text: `[-]D HH:MM:SS.mmm` (IntervalDayTime.formatMillis); a month counts 30 days. */
const INTERVAL_JSON = [
  `CREATE OR REPLACE TEMP MACRO vivace_interval_ms_text(ms) AS
     CASE WHEN ms < 0 THEN '-' ELSE '' END || (abs(ms) // 86400000)::VARCHAR || ' '
     || system.main.lpad(((abs(ms) // 3600000) % 24)::VARCHAR, 2, '0') || ':'
     || system.main.lpad(((abs(ms) // 60000) % 60)::VARCHAR, 2, '0') || ':'
     || system.main.lpad(((abs(ms) // 1000) % 60)::VARCHAR, 2, '0') || '.'
     || system.main.lpad((abs(ms) % 1000)::VARCHAR, 3, '0')`,
  // Trino's interval year to month text: `[-]Y-M` of the total months (days and time would be none).
  `CREATE OR REPLACE TEMP MACRO vivace_year_month_json(x) AS CASE WHEN x IS NULL THEN NULL ELSE
     '"' || CASE WHEN datepart('year', x) * 12 + datepart('month', x) < 0 THEN '-' ELSE '' END
     || (abs(datepart('year', x) * 12 + datepart('month', x)) // 12)::VARCHAR || '-'
     || (abs(datepart('year', x) * 12 + datepart('month', x)) % 12)::VARCHAR || '"' END`,
  `CREATE OR REPLACE TEMP MACRO vivace_interval_json(x) AS CASE WHEN x IS NULL THEN 'null' ELSE
     '"' || vivace_interval_ms_text((
       (datepart('year', x) * 360 + datepart('month', x) * 30 + datepart('day', x))::HUGEINT * 86400000000
       + datepart('hour', x)::HUGEINT * 3600000000 + datepart('minute', x)::HUGEINT * 60000000
       + datepart('microsecond', x)) // 1000) || '"' END`,
];

/**
 * Presto JSON of rows from DuckDB's to_json text of a value holding rows and no maps (row-renderer.ts):
 * each row's object becomes an array of its values. One RE2 pass (linear) reads the text as whole
 * strings, keys (a string and ':'), '{' and '}', and writes each followed by chr(1), which to_json never
 * writes (it escapes control characters): a string as is, a key as nothing, a brace as itself. The
 * marker then tells what came before it: '"' a string, '{' or '}' a brace to turn into a bracket,
 * anything else a key. Braces inside strings are never touched.
 */
const STRING = `"(?:[^"\\\\]|\\\\.)*"`;
const ROWS_JSON = `CREATE OR REPLACE TEMP MACRO vivace_rows_json(j) AS
  replace(replace(replace(replace(
    system.main.regexp_replace(j::VARCHAR, '${STRING}:|(${STRING})|([{}])', '\\1\\2' || chr(1), 'g'),
    '"' || chr(1), '"'), '{' || chr(1), '['), '}' || chr(1), ']'), chr(1), '')`;

/** Statements that prepare a fresh connection, in order. */
export const CONNECTION_SETUP_SQL: readonly string[] = [
  // Presto doubles: 1e0/0 is Infinity, 0e0/0 NaN (DuckDB gives NULL). Not `integer_division`:
  // it makes `/` on doubles DuckDB's `//`, which is NULL on zero again.
  `SET ieee_floating_point_ops = true`,
  ...DIVIDE,
  DIVIDE_ANY,
  ...FLOAT_JSON,
  ...INTERVAL_JSON,
  ROWS_JSON,
  ...ZONED_HELPERS_SQL,
  ...PRESTO_FUNCTIONS_SQL,
  ...ZONED_MACROS_SQL,
  ...TEMPORAL_MACROS_SQL,
];
