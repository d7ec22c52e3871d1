// Whether a Parquet file's column can be read as its table's declared type, as Trino's Hive connector
// decides: its coercions first (hive/parquet/ParquetTypeTranslator: an integer column read as double, an
// INT96 timestamp as varchar), then the batched column readers' choice (parquet/reader/ColumnReaderFactory),
// which fails NOT_SUPPORTED `Unsupported Trino column type (T) for Parquet column (D)` where the physical
// type fits the declared one but its annotation does not (a STRING read as integer), and `Reading Trino
// column (T) from Parquet column (D) is not supported by optimized parquet reader` where nothing fits (an
// int32 read as varchar). D is parquet-mr's ColumnDescriptor text: `[a] optional binary a (STRING)`.
// DuckDB would cast instead (a string 'z' to an integer fails INVALID_CAST_ARGUMENT; 7 to varchar reads '7').
import type { PrestoType } from '../../protocol/types.js';
import { formatType } from '../../protocol/presto-type.js';

/** A column as DuckDB's parquet_schema() describes it. */
export interface ParquetColumnType {
  /** The name as the file writes it. */
  name: string;
  /** BOOLEAN, INT32, INT64, INT96, FLOAT, DOUBLE, BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY (none for a group). */
  physical: string;
  /** The converted type (UTF8, INT_32, DECIMAL, DATE, TIMESTAMP_MICROS, ...). */
  converted?: string;
  /** DuckDB's text of the logical type (`TimestampType(isAdjustedToUTC=1, unit=...)`), where the file has one. */
  logical?: string;
  /** REQUIRED, OPTIONAL or REPEATED. */
  repetition: string;
  /** FIXED_LEN_BYTE_ARRAY's length. */
  length?: number;
  precision?: number;
  scale?: number;
}

/** The annotation as parquet-mr's LogicalTypeAnnotation names it (a converted type read as its annotation), or undefined for none. */
function annotation(c: ParquetColumnType): string | undefined {
  const converted = c.converted;
  if (converted === undefined) return c.logical?.startsWith('UUID') ? 'UUID' : undefined;
  if (converted === 'UTF8') return 'STRING';
  const int = /^(U?)INT_(8|16|32|64)$/.exec(converted);
  if (int) return `INTEGER(${int[2]},${int[1] === '' ? 'true' : 'false'})`;
  if (converted === 'DECIMAL') return `DECIMAL(${c.precision ?? 0},${c.scale ?? 0})`;
  const time = /^(TIME|TIMESTAMP)_(MILLIS|MICROS)$/.exec(converted);
  // A converted TIMESTAMP_*/TIME_* is adjusted to UTC unless the logical type says otherwise.
  if (time) return `${time[1]}(${time[2]},${c.logical?.includes('isAdjustedToUTC=0') ? 'false' : 'true'})`;
  return converted;
}

/** parquet-mr's ColumnDescriptor text of a top-level column: `[a] optional binary a (STRING)`. */
export function parquetDescriptor(c: ParquetColumnType): string {
  const physical = c.physical === 'BYTE_ARRAY' ? 'binary' : c.physical.toLowerCase();
  const width = c.physical === 'FIXED_LEN_BYTE_ARRAY' ? `(${c.length ?? 0})` : '';
  const note = annotation(c);
  return `[${c.name}] ${c.repetition.toLowerCase()} ${physical}${width} ${c.name}${note === undefined ? '' : ` (${note})`}`;
}

const INTEGRAL = new Set(['INT32', 'INT64']);
/** isIntegerOrDecimalPrimitive: the physical types integers and decimals are stored in. */
const INTEGER_OR_DECIMAL = new Set(['INT32', 'INT64', 'BYTE_ARRAY', 'FIXED_LEN_BYTE_ARRAY']);

/**
 * Trino's error message reading `c` as `type`, or undefined when Trino reads it (or coerces it). Nested
 * types are not judged (undefined).
 */
export function unreadableAs(type: PrestoType, c: ParquetColumnType): string | undefined {
  if (c.physical === '') return undefined;
  const verdict = judge(type, c);
  if (verdict === 'ok') return undefined;
  const t = formatType(type);
  // NOT_SUPPORTED: the prefix the engine's error mapping reads a failure of error() by (duckdb-errors.ts).
  return verdict === 'unsupported'
    ? `Unsupported Trino column type (${t}) for Parquet column (${parquetDescriptor(c)})`
    : `Reading Trino column (${t}) from Parquet column (${parquetDescriptor(c)}) is not supported by optimized parquet reader`;
}

function judge(type: PrestoType, c: ParquetColumnType): 'ok' | 'unsupported' | 'none' {
  const p = c.physical;
  const note = annotation(c);
  const integerNote = note === undefined || note.startsWith('INTEGER(');
  const integerStored = integerNote && INTEGRAL.has(p);
  const zeroScaleDecimal = note?.startsWith('DECIMAL(') === true && (c.scale ?? 0) === 0 && (c.precision ?? 0) <= 18;
  // An integral type: a zero-scale short decimal or an integer; any other annotation of those physical types is refused.
  const integral = (): 'ok' | 'unsupported' | 'none' => (zeroScaleDecimal || integerStored ? 'ok' : 'unsupported');
  switch (type.base) {
    case 'boolean':
      return p === 'BOOLEAN' ? 'ok' : 'none';
    case 'tinyint':
    case 'smallint':
      return INTEGER_OR_DECIMAL.has(p) ? integral() : 'none';
    case 'date':
      if (p === 'INT32' && (note === undefined || note === 'DATE')) return 'ok';
      if (p === 'INT32') return 'unsupported';
      // DateType is one of Trino's AbstractIntTypes: read as an integer from the other integer-or-decimal types.
      return INTEGER_OR_DECIMAL.has(p) ? integral() : 'none';
    case 'integer':
    case 'real':
      // RealType is an AbstractIntType too, checked before REAL from FLOAT.
      if (INTEGER_OR_DECIMAL.has(p)) return integral();
      return type.base === 'real' && p === 'FLOAT' ? 'ok' : 'none';
    case 'bigint':
      if (p === 'INT64' && (note?.startsWith('TIMESTAMP(') || note?.startsWith('TIME('))) return 'ok';
      return INTEGER_OR_DECIMAL.has(p) ? integral() : 'none';
    case 'double':
      // Hive's coercer reads an integer column as double.
      return p === 'DOUBLE' || p === 'FLOAT' || integerStored ? 'ok' : 'none';
    case 'timestamp':
      if (p === 'INT96') return 'ok';
      if (p === 'INT64') return note?.startsWith('TIMESTAMP(') ? 'ok' : 'unsupported';
      return 'none';
    case 'decimal': {
      if (!INTEGER_OR_DECIMAL.has(p)) return 'none';
      const { precision, scale } = type as Extract<PrestoType, { base: 'decimal' }>;
      if (precision <= 18 && scale === 0 && precision >= 10 && p === 'INT32' && integerNote) return 'ok';
      return note?.startsWith('DECIMAL(') ? 'ok' : 'unsupported';
    }
    case 'varchar':
      if (p === 'BYTE_ARRAY' || p === 'INT96') return 'ok';
      return p === 'FIXED_LEN_BYTE_ARRAY' && (type as { length?: number }).length === undefined ? 'ok' : 'none';
    case 'char':
      return p === 'BYTE_ARRAY' ? 'ok' : 'none';
    case 'varbinary':
      return p === 'BYTE_ARRAY' || p === 'FIXED_LEN_BYTE_ARRAY' ? 'ok' : 'none';
    default:
      return 'ok';
  }
}

/** The SQL of parquet_schema() over `files` whose rows topLevelColumns reads. */
export const parquetSchemaSql = (files: string): string =>
  `SELECT file_name, name, coalesce(type, ''), converted_type, logical_type::VARCHAR, coalesce(repetition_type, 'OPTIONAL'), type_length, precision, scale, coalesce(num_children, 0) FROM parquet_schema(${files})`;

/** Each file's top-level columns from the rows of parquetSchemaSql (in schema order: a file's root, then its columns depth first). */
export function topLevelColumns(rows: readonly (readonly unknown[])[]): Map<string, ParquetColumnType[]> {
  const out = new Map<string, ParquetColumnType[]>();
  // Rows still to skip below the current top-level column, and the columns the file's root has left.
  let file = '';
  let below = 0;
  let left = 0;
  const text = (v: unknown) => (v === null || v === undefined ? undefined : String(v));
  const num = (v: unknown) => (v === null || v === undefined ? undefined : Number(v));
  for (const row of rows) {
    const children = Number(row[9]);
    if (String(row[0]) !== file || (left === 0 && below === 0)) {
      // A file's root.
      file = String(row[0]);
      left = children;
      below = 0;
      if (!out.has(file)) out.set(file, []);
      continue;
    }
    if (below > 0) {
      below += children - 1;
      continue;
    }
    left--;
    below = children;
    const [converted, logical, length, precision, scale] = [text(row[3]), text(row[4]), num(row[6]), num(row[7]), num(row[8])];
    out.get(file)!.push({
      name: String(row[1]), physical: String(row[2]), repetition: String(row[5]),
      ...(converted === undefined ? {} : { converted }), ...(logical === undefined ? {} : { logical }),
      ...(length === undefined ? {} : { length }), ...(precision === undefined ? {} : { precision }), ...(scale === undefined ? {} : { scale }),
    });
  }
  return out;
}

/**
 * The declared columns some file cannot be read as (lower-case name -> Trino's message, the first such
 * file's): a query reading one fails as Trino's does; the others read as before.
 */
export function unreadableColumns(declared: readonly { name: string; type: PrestoType }[], files: Iterable<readonly ParquetColumnType[]>): Map<string, string> {
  const out = new Map<string, string>();
  const byName = new Map(declared.map((c) => [c.name.toLowerCase(), c.type]));
  for (const columns of files) {
    for (const c of columns) {
      const name = c.name.toLowerCase();
      const type = byName.get(name);
      if (type === undefined || out.has(name)) continue;
      const message = unreadableAs(type, c);
      if (message !== undefined) out.set(name, message);
    }
  }
  return out;
}
