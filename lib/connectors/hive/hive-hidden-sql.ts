// A hive table's hidden columns and metadata tables as DuckDB SQL (Trino's HiveColumnHandle: `$path`,
// `$file_size`, `$file_modified_time`, `$partition`; its `t$partitions` and `t$properties` system tables),
// built from the table's listed files and registered partitions when its mirror is brought up to date.
import { quoteIdentifier, quoteString } from '../../sql/sql-formatter.js';
import { zonedValue, zonedType } from '../../sql/zoned-timestamps.js';
import type { DataFile } from './hive-files.js';
import { constant, dataColumnSql, readerSql, type ReadableTable } from './hive-read-sql.js';
import { duckdbTypeOfHive } from './hive-types.js';

/** The hidden columns of every hive table, in Trino's order ($bucket: no bucketed tables here). */
export const HIDDEN_COLUMNS = ['$path', '$file_size', '$file_modified_time'] as const;
/** The hidden column of a partitioned table only. */
export const PARTITION_HIDDEN_COLUMN = '$partition';

/**
 * The reader's column of each row's file: DuckDB's `filename` (whose filters prune files before they are
 * opened), unless a data column has that name: then one no Hive column has (without the pruning).
 */
const fileColumnOf = (table: ReadableTable) => (table.dataColumns.some((c) => c.name.toLowerCase() === 'filename') ? 'vivace$file' : 'filename');

/** The hidden columns of a table with `partitioned` keys or none. */
export const hiddenColumnsOf = (partitioned: boolean): readonly string[] => (partitioned ? [...HIDDEN_COLUMNS, PARTITION_HIDDEN_COLUMN] : HIDDEN_COLUMNS);

/** `$path` as Trino's local file system names a file: `local:///` and its path under the root. */
function pathSql(root: string, fileColumn: string): string {
  // DuckDB slices strings by characters: the root's length in code points, plus its separator.
  return `('local:///' || ${quoteIdentifier(fileColumn)}[${[...root].length + 2}:])`;
}

/** A value per file, looked up by the file column (a listing's facts DuckDB's readers do not give). */
function perFile(files: readonly DataFile[], fileColumn: string, value: (f: DataFile) => string, type: string): string {
  if (files.length === 0) return `CAST(NULL AS ${type})`;
  return `CAST(CASE ${quoteIdentifier(fileColumn)} ${files.map((f) => `WHEN ${quoteString(f.path)} THEN ${value(f)}`).join(' ')} END AS ${type})`;
}

/**
 * The table with its hidden columns after its own: one branch per partition (its name a constant), each
 * file's size and modification time (UTC, milliseconds) from the listing. A predicate on `$path` is one
 * DuckDB's readers apply to file names before opening them.
 */
export function hiddenReadSql(table: ReadableTable, files: readonly DataFile[], root: string): string {
  const partitioned = table.partitionColumns.length > 0;
  const byPath = new Map(files.map((f) => [f.path, f]));
  const mtimeType = zonedType(3);
  const file = fileColumnOf(table);
  const branches = table.partitions.filter((p) => p.files.length > 0).map((partition) => {
    const listed = partition.files.map((f) => byPath.get(f)).filter((f): f is DataFile => f !== undefined);
    const items = [
      ...table.dataColumns.map((c) => dataColumnSql(table, c)),
      ...table.partitionColumns.map((c, i) => `${constant(partition.values[i] ?? null, duckdbTypeOfHive(c.hive))} AS ${quoteIdentifier(c.name)}`),
      `${pathSql(root, file)} AS "$path"`,
      `${perFile(listed, file, (f) => String(f.size), 'BIGINT')} AS "$file_size"`,
      `${zonedValue(perFile(listed, file, (f) => `epoch_ms(${Math.floor(f.mtimeMs)})`, 'TIMESTAMP_MS'), "'UTC'", 3)} AS "$file_modified_time"`,
      ...(partitioned ? [`${constant(partition.name ?? null, 'VARCHAR')} AS "$partition"`] : []),
    ];
    return `SELECT ${items.join(', ')} FROM ${readerSql(table, partition.files, file)}`;
  });
  if (branches.length > 0) return branches.join(' UNION ALL ');
  const typed = [
    ...[...table.dataColumns, ...table.partitionColumns].map((c) => `${constant(null, duckdbTypeOfHive(c.hive))} AS ${quoteIdentifier(c.name)}`),
    `CAST(NULL AS VARCHAR) AS "$path"`, `CAST(NULL AS BIGINT) AS "$file_size"`, `CAST(NULL AS ${mtimeType}) AS "$file_modified_time"`,
    ...(partitioned ? [`CAST(NULL AS VARCHAR) AS "$partition"`] : []),
  ];
  return `SELECT ${typed.join(', ')} WHERE false`;
}

/** `t$partitions`: one row per registered partition, its columns the partition columns with their types. */
export function partitionsSql(table: Pick<ReadableTable, 'partitionColumns' | 'partitions'>): string {
  const columns = table.partitionColumns;
  const rows = table.partitions.map((p) => `SELECT ${columns.map((c, i) => `${constant(p.values[i] ?? null, duckdbTypeOfHive(c.hive))} AS ${quoteIdentifier(c.name)}`).join(', ')}`);
  if (rows.length > 0) return rows.join(' UNION ALL ');
  return `SELECT ${columns.map((c) => `${constant(null, duckdbTypeOfHive(c.hive))} AS ${quoteIdentifier(c.name)}`).join(', ')} WHERE false`;
}

/**
 * `t$properties`: one row, a varchar column per table parameter, sorted by name (PropertiesSystemTableProvider);
 * undefined without parameters (DuckDB has no relation of no columns).
 */
export function propertiesSql(parameters: Readonly<Record<string, string>>): string | undefined {
  const keys = Object.keys(parameters).sort();
  if (keys.length === 0) return undefined;
  return `SELECT ${keys.map((k) => `${constant(parameters[k]!, 'VARCHAR')} AS ${quoteIdentifier(k)}`).join(', ')}`;
}
