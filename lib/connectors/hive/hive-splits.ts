// A hive table's scan cut into splits for leaf tasks on every worker: the coordinator lists the table's
// data files (metadata and directory listings only, no footer read) and names them; a worker checks that
// each split's file belongs to the table, reads a Parquet split's row groups (slice i of n of a file owns
// whole row groups, each exactly once) and the file's own columns from its footer, and reads them through
// the same SQL as the table's view, so a split's rows are the table's rows.
import { relative, join } from 'node:path';
import type { HiveCatalogConfig } from '../catalog.types.js';
import { HiveCatalog } from './hive-catalog.js';
import { tableReadSql, type ReadableTable } from './hive-read-sql.js';
import { VivaceError } from '../../protocol/vivace-error.js';
import type { Expression } from '../../sql/ast.js';
import { partitionFilter } from './partition-pruning.js';

/** One split as the task protocol names it: a file relative to the table's location, and its slice. */
export interface HiveSplit {
  file: string;
  slice: number;
  slices: number;
}

/** What a worker reads of a Parquet file's footer (DuckDB's parquet_metadata and parquet_schema). */
export interface ParquetFooter {
  /** Rows of each row group, in file order. */
  rowGroupRows: readonly number[];
  /** Lower-case column names. */
  columns: ReadonlySet<string>;
}

/** The table's data files relative to its location, and their bytes; undefined for a table that is not there or not readable. */
export function hiveTableFiles(config: HiveCatalogConfig, schema: string, table: string, where?: Expression): { files: string[]; bytes: number; partitions: number } | undefined {
  const catalog = new HiveCatalog(config, []);
  try {
    const resolved = catalog.resolve(schema, table);
    if (!resolved) return undefined;
    const { table: readable, files } = catalog.readable(resolved);
    // Partitions the WHERE clause rules out are not split at all (their files are never named to a worker).
    const keep = partitionFilter(where, resolved.partitionColumns);
    const kept = new Set(readable.partitions.filter((p) => keep(p.values)).flatMap((p) => p.files));
    const named = files.filter((f) => kept.has(f.path));
    return {
      files: named.map((f) => relative(resolved.location, f.path)),
      bytes: named.reduce((sum, f) => sum + f.size, 0),
      partitions: readable.partitions.filter((p) => keep(p.values)).length,
    };
  } catch {
    return undefined;
  }
}

/** The first and end row of slice `slice` of `slices` of a file's row groups: whole row groups, each in one slice. */
export function rowGroupRange(rowGroupRows: readonly number[], slice: number, slices: number): { start: number; end: number } {
  const groups = rowGroupRows.length;
  const first = Math.floor((groups * slice) / slices);
  const last = Math.floor((groups * (slice + 1)) / slices);
  let start = 0;
  for (let g = 0; g < first; g++) start += rowGroupRows[g]!;
  let end = start;
  for (let g = first; g < last; g++) end += rowGroupRows[g]!;
  return { start, end };
}

/**
 * The SQL reading `splits` of `schema.table` with the table's columns (data columns cast to their declared
 * types, partition columns from the file's partition). A split naming a file that is not one of the
 * table's data files now is refused: the coordinator lists, the worker checks.
 */
export async function hiveSplitSourceSql(
  catalog: HiveCatalog, schema: string, table: string, splits: readonly HiveSplit[], footerOf: (path: string) => Promise<ParquetFooter>,
): Promise<string> {
  const resolved = catalog.resolve(schema, table);
  if (!resolved) throw new VivaceError('TABLE_NOT_FOUND', `Table '${catalog.name}.${schema}.${table}' does not exist`);
  const { table: readable } = catalog.readable(resolved);
  const partitionOf = new Map<string, readonly (string | null)[]>();
  for (const partition of readable.partitions) for (const file of partition.files) partitionOf.set(file, partition.values);
  const parquet = readable.properties.format === 'PARQUET';
  const branches: string[] = [];
  for (const split of splits) {
    const path = join(resolved.location, split.file);
    const values = partitionOf.get(path);
    if (values === undefined || split.file.startsWith('..')) throw new VivaceError('INVALID_ARGUMENTS', `Split ${JSON.stringify(split.file.slice(0, 200))} is no data file of ${catalog.name}.${schema}.${table} here`);
    // A text file is read whole (Trino splits only uncompressed text by bytes; DuckDB reads a CSV whole): by its first slice.
    if (!parquet && split.slice > 0) continue;
    const footer = parquet ? await footerOf(path) : undefined;
    const rows = footer && split.slices > 1 ? rowGroupRange(footer.rowGroupRows, split.slice, split.slices) : undefined;
    if (rows && rows.end === rows.start) continue;
    const one: ReadableTable = { ...readable, partitions: [{ values, files: [path], ...(rows ? { rows } : {}) }], ...(footer ? { presentColumns: footer.columns } : {}) };
    branches.push(tableReadSql(one));
  }
  if (branches.length === 0) {
    const empty: ReadableTable = { ...readable, partitions: [] };
    return tableReadSql(empty);
  }
  return branches.map((b) => `(${b})`).join(' UNION ALL ');
}
