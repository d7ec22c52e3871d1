// A hive Parquet table's statistics from its files' footers, as Trino's Hive connector answers SHOW STATS
// from the statistics its writers record: row count, and per column the nulls fraction, data size (variable
// width types), low and high values (numbers and dates); distinct counts only for partition columns (the
// number of partitions holding each value), as footers carry none. No row is read, only footers.
import type { DuckDBConnection } from '@duckdb/node-api';
import { quoteString } from '../../sql/sql-formatter.js';
import type { HiveCatalog } from './hive-catalog.js';
import { duckdbTypeOfHive, type HiveType } from './hive-types.js';

/** One column's statistics; NULL where the footers do not say. */
export interface ColumnStatistics {
  name: string;
  dataSize: number | null;
  distinctValues: number | null;
  nullsFraction: number | null;
  low: string | null;
  high: string | null;
}

export interface TableStatistics {
  rowCount: number;
  columns: ColumnStatistics[];
}

const RANGED = new Set(['tinyint', 'smallint', 'int', 'integer', 'bigint', 'float', 'double', 'decimal', 'date']);
const SIZED = new Set(['string', 'varchar', 'char', 'binary']);

/** Statistics of `schema.table` from its Parquet footers, or undefined for a table of another format (or none). */
export async function hiveTableStatistics(catalog: HiveCatalog, schema: string, table: string, connection: DuckDBConnection): Promise<TableStatistics | undefined> {
  const resolved = catalog.resolve(schema, table);
  if (!resolved || resolved.metadata.storageFormat !== 'PARQUET') return undefined;
  const { table: readable, files } = catalog.readable(resolved);
  const data = resolved.dataColumns;
  if (files.length === 0) {
    const empty = (c: { name: string; hive: HiveType }) => ({ name: c.name, dataSize: SIZED.has(c.hive.name) ? 0 : null, distinctValues: 0, nullsFraction: null, low: null, high: null });
    return { rowCount: 0, columns: [...data, ...resolved.partitionColumns].map(empty) };
  }
  const list = `[${files.map((f) => quoteString(f.path)).join(', ')}]`;
  // Per file, its rows; per column (matched by lower-case name, as readers match), the footers' figures.
  // Unprepared: a prepared parquet_metadata run twice crashes DuckDB 1.5.6 (duckdb-engine.ts parquetFooter).
  const perColumn = data.flatMap((c) => {
    const match = `lower(path_in_schema) = ${quoteString(c.name)}`;
    const type = duckdbTypeOfHive(c.hive);
    const ranged = RANGED.has(c.hive.name);
    return [
      `sum(stats_null_count) FILTER (WHERE ${match})`,
      `count(*) FILTER (WHERE ${match} AND stats_null_count IS NULL)`,
      SIZED.has(c.hive.name) ? `sum(total_uncompressed_size) FILTER (WHERE ${match})` : 'NULL',
      ranged ? `CAST(min(TRY_CAST(stats_min_value AS ${type})) FILTER (WHERE ${match}) AS VARCHAR)` : 'NULL',
      ranged ? `CAST(max(TRY_CAST(stats_max_value AS ${type})) FILTER (WHERE ${match}) AS VARCHAR)` : 'NULL',
      `count(DISTINCT file_name) FILTER (WHERE ${match})`,
    ];
  });
  const footer = await connection.runAndReadAll(`SELECT ${['count(*)', ...perColumn].join(', ')} FROM parquet_metadata(${list})`);
  const values = footer.getRowsJS()[0] ?? [];
  const rowsByFile = await connection.runAndReadAll(`SELECT file_name, sum(row_group_num_rows) FROM (SELECT DISTINCT file_name, row_group_id, row_group_num_rows FROM parquet_metadata(${list})) GROUP BY 1`);
  const fileRows = new Map(rowsByFile.getRowsJS().map(([file, rows]) => [String(file), Number(rows)]));
  const rowCount = [...fileRows.values()].reduce((a, b) => a + b, 0);
  const columns: ColumnStatistics[] = data.map((c, i) => {
    const [nulls, unknownNulls, size, low, high, filesWithColumn] = values.slice(1 + i * 6, 7 + i * 6);
    // Known when every file has the column and a null count for each of its chunks (a file without it reads NULLs).
    const known = Number(unknownNulls) === 0 && Number(filesWithColumn) === files.length;
    return {
      name: c.name,
      dataSize: size === null ? (SIZED.has(c.hive.name) ? 0 : null) : Number(size),
      distinctValues: null,
      nullsFraction: known && rowCount > 0 ? Number(nulls ?? 0) / rowCount : null,
      low: low === null ? null : String(low),
      high: high === null ? null : String(high),
    };
  });
  // Partition columns: their values from the directories, rows from the files in each.
  resolved.partitionColumns.forEach((c, k) => {
    let nullRows = 0;
    let size = 0;
    const distinct = new Set<string>();
    const ranged: string[] = [];
    for (const partition of readable.partitions) {
      const rows = partition.files.reduce((sum, f) => sum + (fileRows.get(f) ?? 0), 0);
      if (rows === 0) continue;
      const value = partition.values[k] ?? null;
      if (value === null) {
        nullRows += rows;
        continue;
      }
      distinct.add(value);
      size += Buffer.byteLength(value) * rows;
      ranged.push(value);
    }
    const [low, high] = RANGED.has(c.hive.name) ? bounds(ranged, c.hive) : [null, null];
    columns.push({ name: c.name, dataSize: SIZED.has(c.hive.name) ? size : null, distinctValues: distinct.size, nullsFraction: rowCount > 0 ? nullRows / rowCount : null, low, high });
  });
  return { rowCount, columns };
}

/** The lowest and highest of partition values of a ranged type (numbers by value, dates as yyyy-mm-dd text). */
function bounds(values: readonly string[], type: HiveType): [string | null, string | null] {
  if (values.length === 0) return [null, null];
  const numeric = type.name !== 'date';
  const key = (v: string) => (numeric ? Number(v) : v);
  let low = values[0]!;
  let high = values[0]!;
  for (const v of values) {
    if (key(v) < key(low)) low = v;
    if (key(v) > key(high)) high = v;
  }
  return [low, high];
}
