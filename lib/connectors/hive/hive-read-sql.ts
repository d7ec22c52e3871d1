// The DuckDB SQL a hive table is read through: its explicit file lists per partition in the table's format
// (never chosen by suffix), data columns by name (a column no file has reads NULL), cast to the declared
// types, partition columns as constants from the directory names. An empty table is a typed empty relation.
import { quoteIdentifier, quoteString } from '../../sql/sql-formatter.js';
import type { HiveTableProperties } from './hive-table-properties.js';
import type { HiveType } from './hive-types.js';
import { duckdbTypeOfHive } from './hive-types.js';

export interface ReadColumn {
  name: string;
  hive: HiveType;
}

export interface ReadPartition {
  /** The partition columns' values (none for an unpartitioned table). */
  values: readonly (string | null)[];
  files: readonly string[];
  /** The partition's name (`k=v/k2=v2`, Trino's escaping), for `$partition`. */
  name?: string;
  /** A Parquet split's rows: [start, end) of file_row_number (its row groups), of its one file. */
  rows?: { start: number; end: number };
  /** Its files are not below a directory named `name` (a location of its own): their paths do not give its values. */
  relocated?: boolean;
}

export interface ReadableTable {
  properties: HiveTableProperties;
  dataColumns: readonly ReadColumn[];
  partitionColumns: readonly ReadColumn[];
  partitions: readonly ReadPartition[];
  /** Parquet: the lower-case names the files' footers have (a column none has reads NULL). */
  presentColumns?: ReadonlySet<string>;
  /** Parquet: every file has the same columns and types (a reader then matches names without reading every footer). */
  sameColumns?: boolean;
  /**
   * Parquet: lower-case names of data columns some file holds in a type Trino does not read as declared
   * (parquet-column-types.ts), with Trino's message: reading one fails NOT_SUPPORTED with it.
   */
  unreadableColumns?: ReadonlyMap<string, string>;
}

const list = (files: readonly string[]) => `[${files.map(quoteString).join(', ')}]`;

/** Hive's text defaults: fields split by \u0001, NULL written \N (LazySimpleSerDe). */
const TEXTFILE_SEPARATOR = '\u0001';
const TEXTFILE_NULL = '\\N';

/** The table function reading `files` in the table's format, with the data columns as the files hold them. */
/** `hive_partitioning = false` everywhere: the directories' `k=v` are the metastore's to read, never DuckDB's guess. */
/** `fileColumn`: the name of a column holding each row's file path (the hidden columns' source). */
export function readerSql(table: ReadableTable, files: readonly string[], fileColumn?: string): string {
  const sql = formatReaderSql(table, files);
  if (fileColumn === undefined) return sql;
  // DuckDB prunes files by a filter on its own `filename` column only (not on a renamed one).
  return `${sql.slice(0, -1)}, filename = ${fileColumn === 'filename' ? 'true' : quoteString(fileColumn)})`;
}

function formatReaderSql(table: ReadableTable, files: readonly string[]): string {
  const p = table.properties;
  const skip = p.skipHeaderLineCount ?? 0;
  switch (p.format) {
    case 'PARQUET':
      return `read_parquet(${list(files)}, union_by_name = ${unionByName(table, files)}, hive_partitioning = false)`;
    case 'JSON': {
      const columns = table.dataColumns.map((c) => `${quoteString(c.name)}: ${quoteString(duckdbTypeOfHive(c.hive))}`).join(', ');
      return `read_json(${list(files)}, format = 'newline_delimited', columns = {${columns}}, hive_partitioning = false)`;
    }
    case 'CSV': {
      // OpenCSVSerde: every column a string, an empty field '' (never NULL).
      const columns = table.dataColumns.map((c) => `${quoteString(c.name)}: 'VARCHAR'`).join(', ');
      const notNull = table.dataColumns.map((c) => quoteString(c.name)).join(', ');
      return `read_csv(${list(files)}, columns = {${columns}}, header = false, auto_detect = false, skip = ${skip}, delim = ${quoteString(p.csvSeparator ?? ',')}, quote = ${quoteString(p.csvQuote ?? '"')}, escape = ${quoteString(p.csvEscape ?? '\\')}, force_not_null = [${notNull}], null_padding = true, strict_mode = false, hive_partitioning = false)`;
    }
    default: {
      // TEXTFILE: no quoting, \N for NULL, fields parsed as their types afterwards (TRY_CAST: Hive reads a bad value as NULL).
      const columns = table.dataColumns.map((c) => `${quoteString(c.name)}: 'VARCHAR'`).join(', ');
      return `read_csv(${list(files)}, columns = {${columns}}, header = false, auto_detect = false, skip = ${skip}, delim = ${quoteString(p.textfileFieldSeparator ?? TEXTFILE_SEPARATOR)}, quote = '', escape = ${quoteString(p.textfileFieldSeparatorEscape ?? '')}, nullstr = ${quoteString(p.nullFormat ?? TEXTFILE_NULL)}, null_padding = true, strict_mode = false, hive_partitioning = false)`;
    }
  }
}

export function dataColumnSql(table: ReadableTable, c: ReadColumn): string {
  const type = duckdbTypeOfHive(c.hive);
  const name = quoteIdentifier(c.name);
  if (table.properties.format === 'PARQUET' && table.presentColumns && !table.presentColumns.has(c.name.toLowerCase())) return `CAST(NULL AS ${type}) AS ${name}`;
  // error() of the engine's NOT_SUPPORTED prefix (duckdb-errors.ts), evaluated only where a query reads the column.
  const unreadable = table.properties.format === 'PARQUET' ? table.unreadableColumns?.get(c.name.toLowerCase()) : undefined;
  if (unreadable !== undefined) return `CAST(error(${quoteString(`NOT_SUPPORTED: ${unreadable}`)}) AS ${type}) AS ${name}`;
  const cast = table.properties.format === 'TEXTFILE' ? 'TRY_CAST' : 'CAST';
  return `${cast}(${name} AS ${type}) AS ${name}`;
}

export const constant = (value: string | null, type: string) => `CAST(${value === null ? 'NULL' : quoteString(value)} AS ${type})`;

/**
 * A partitioned Parquet table as one scan: DuckDB reads each file's partition values from its `k=v`
 * directories (hive_types: as declared; Trino's escapes and __HIVE_DEFAULT_PARTITION__ read back as it
 * writes them) and prunes files by a filter on them before opening any, where a branch per partition made
 * every statement bind one reader per partition (~50 ms for 84 months, whatever the WHERE).
 */
function partitionedParquetSql(table: ReadableTable): string | undefined {
  const withFiles = table.partitions.filter((p) => p.files.length > 0);
  if (table.properties.format !== 'PARQUET' || table.partitionColumns.length === 0 || withFiles.length < 2 || withFiles.some((p) => p.rows || p.relocated)) return undefined;
  const files = withFiles.flatMap((p) => p.files);
  const types = table.partitionColumns.map((c) => `${quoteString(c.name)}: ${quoteString(duckdbTypeOfHive(c.hive))}`).join(', ');
  const data = table.dataColumns.map((c) => dataColumnSql(table, c));
  const keys = table.partitionColumns.map((c) => quoteIdentifier(c.name));
  return `SELECT ${[...data, ...keys].join(', ')} FROM read_parquet(${list(files)}, union_by_name = ${unionByName(table, files)}, hive_partitioning = true, hive_types = {${types}}, hive_types_autocast = false)`;
}

/** Columns matched by name across files, reading every footer at bind, unless all files are known alike (DuckDB then maps by name from the first). */
const unionByName = (table: ReadableTable, files: readonly string[]) => String(files.length > 1 && table.sameColumns !== true);

/** The SELECT standing for the whole table. */
export function tableReadSql(table: ReadableTable): string {
  const single = partitionedParquetSql(table);
  if (single !== undefined) return single;
  const branches = table.partitions.filter((p) => p.files.length > 0).map((partition) => {
    const data = table.dataColumns.map((c) => dataColumnSql(table, c));
    const keys = table.partitionColumns.map((c, i) => `${constant(partition.values[i] ?? null, duckdbTypeOfHive(c.hive))} AS ${quoteIdentifier(c.name)}`);
    if (partition.rows && table.properties.format === 'PARQUET' && partition.files.length === 1) {
      // Bounds at row-group starts: DuckDB decodes only the row groups inside them.
      const reader = `read_parquet(${list(partition.files)}, union_by_name = true, hive_partitioning = false, file_row_number = true)`;
      return `SELECT ${[...data, ...keys].join(', ')} FROM ${reader} WHERE file_row_number >= ${partition.rows.start} AND file_row_number < ${partition.rows.end}`;
    }
    return `SELECT ${[...data, ...keys].join(', ')} FROM ${readerSql(table, partition.files)}`;
  });
  if (branches.length > 0) return branches.join(' UNION ALL ');
  const typed = [...table.dataColumns, ...table.partitionColumns].map((c) => `${constant(null, duckdbTypeOfHive(c.hive))} AS ${quoteIdentifier(c.name)}`);
  return `SELECT ${typed.join(', ')} WHERE false`;
}
