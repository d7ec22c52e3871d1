// TEMP macros of timestamps without zone, created on every connection. Trino rounds half up when a cast
// lowers a timestamp's precision; DuckDB truncates TIMESTAMP_NS to TIMESTAMP, and has no cast from
// TIMESTAMP_NS to _MS or _S, nor from TIMESTAMP_MS to _S. The translation casts a column to timestamp(p)
// through these (lib/sql/duckdb-printer.ts): vivace_round_us(x, p), p up to 6, is a TIMESTAMP (DuckDB
// casts it to any lower type), vivace_round_ns(x, p), p 7 or 8, a TIMESTAMP_NS; other types pass as
// they are (a DATE, a VARCHAR: DuckDB's cast).
import { typed } from './presto-functions.js';

/** `n` rounded half up to a multiple of `f` (integers; `%` keeps the dividend's sign, so floor by hand). */
const roundTo = (n: string, f: string) => `((${n}) + ${f} // 2 - ((((${n}) + ${f} // 2) % ${f}) + ${f}) % ${f})`;

/** 10^(digits - p) as BIGINT: the unit of p fraction digits in a count of 10^-digits seconds. */
const unit = (digits: number) => `(10::BIGINT ** (${digits} - least(p, ${digits})))::BIGINT`;

/** Types passed as they are: listed, so that DuckDB does not cast one to a timestamp overload. */
const OTHERS = ['DATE', 'TIME', 'TIME_NS', 'TIMETZ', 'TIMESTAMPTZ', 'VARCHAR'];
const MICROS = ['TIMESTAMP', 'TIMESTAMP_MS', 'TIMESTAMP_S'];

export const TEMPORAL_MACROS_SQL: readonly string[] = [
  ...typed(
    'vivace_round_us',
    [
      `(x TIMESTAMP_NS, p) AS make_timestamp(${roundTo('epoch_ns(x)', unit(9))} // 1000)`,
      ...MICROS.map((t) => `(x ${t}, p) AS make_timestamp(${roundTo('epoch_us(x)', unit(6))})`),
      ...OTHERS.map((t) => `(x ${t}, p) AS x`),
      `(x, p) AS x`,
    ],
    { params: ['x', 'p'], bound: ['x'] },
  ),
  ...typed(
    'vivace_round_ns',
    [`(x TIMESTAMP_NS, p) AS make_timestamp_ns(${roundTo('epoch_ns(x)', unit(9))})`, ...[...MICROS, ...OTHERS].map((t) => `(x ${t}, p) AS x`), `(x, p) AS x`],
    { params: ['x', 'p'], bound: ['x'] },
  ),
];
