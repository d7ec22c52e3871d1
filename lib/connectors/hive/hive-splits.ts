// A hive table's scan cut into splits for leaf tasks on every worker: the coordinator lists the table's
// data files (metadata and directory listings only, no footer read) and cuts them into byte ranges as
// Trino's HiveSplitSource; a worker checks that each split's file belongs to the table, reads the row
// groups whose first data page lies in its range (each row group in exactly one split, as Trino's
// ParquetMetadata) and the file's own columns from its footer, through the same SQL as the table's view.
import { relative, join } from 'node:path';
import type { HiveCatalogConfig } from '../catalog.types.js';
import { HiveCatalog, type ResolvedHiveTable } from './hive-catalog.js';
import { tableReadSql, type ReadableTable } from './hive-read-sql.js';
import { VivaceError } from '../../protocol/vivace-error.js';
import type { Expression } from '../../sql/ast.js';
import { partitionFilter } from './partition-pruning.js';
import { ancestorDirectories } from './partition-names.js';
import { prestoTypeOfHive, type HiveType } from './hive-types.js';
import { unreadableColumns, type ParquetColumnType } from './parquet-column-types.js';

/** One split as the task protocol names it: a file relative to the table's location, and its slice or its byte range. */
export interface HiveSplit {
  file: string;
  slice: number;
  slices: number;
  /** The split's bytes [start, start + length) of the file (the coordinator's cut); absent: slice of slices. */
  start?: number;
  length?: number;
}

/** A file's byte range, as the coordinator cuts it. */
export interface ByteSplit {
  file: string;
  start: number;
  length: number;
}

/** What a worker reads of a Parquet file's footer (DuckDB's parquet_metadata and parquet_schema). */
export interface ParquetFooter {
  /** Rows of each row group, in file order. */
  rowGroupRows: readonly number[];
  /** Each row group's first column chunk's data_page_offset, the byte Trino places a row group by. */
  rowGroupStarts?: readonly number[];
  /** Lower-case column names. */
  columns: ReadonlySet<string>;
  /** The top-level columns' Parquet types (parquet-column-types.ts): those Trino would not read as declared fail a query reading them. */
  columnTypes?: readonly ParquetColumnType[];
}

/** The sizes HiveSplitSource cuts by (HiveCatalogConfig's hive.max-split-size, hive.max-initial-split-size, hive.max-initial-splits). */
export type SplitSizes = Pick<HiveCatalogConfig, 'maxSplitSizeBytes' | 'maxInitialSplitSizeBytes' | 'maxInitialSplits'>;

/**
 * Files cut into byte-range splits as Trino's HiveSplitSource.getNextBatch: the first maxInitialSplits
 * splits (over all files, in order) at most maxInitialSplitSize bytes, then maxSplitSize; a remainder of at
 * most twice the limit becomes two halves, so no split is a sliver. An empty file is no split (Trino's
 * InternalHiveSplitFactory, HIVE-13040). An unsplittable file is one split (Trino cuts uncompressed text by
 * bytes too; DuckDB reads a text file only whole). A local file is one block, so blocks do not cut it.
 */
export function cutSplits(files: readonly { file: string; size: number }[], splittable: boolean, sizes: SplitSizes): ByteSplit[] {
  const out: ByteSplit[] = [];
  let initialLeft = Math.max(0, sizes.maxInitialSplits);
  const nextMax = () => (initialLeft-- > 0 ? sizes.maxInitialSplitSizeBytes : sizes.maxSplitSizeBytes);
  for (const { file, size } of files) {
    if (size <= 0) continue;
    if (!splittable) {
      nextMax();
      out.push({ file, start: 0, length: size });
      continue;
    }
    for (let start = 0; start < size;) {
      const max = Math.max(1, nextMax());
      const remaining = size - start;
      const length = remaining <= max ? remaining : max * 2 >= remaining ? Math.floor(remaining / 2) : max;
      out.push({ file, start, length });
      start += length;
    }
  }
  return out;
}

/** Formats a worker reads by byte range (row groups); the others are read whole. */
const SPLITTABLE = new Set(['PARQUET']);

/**
 * The table's splits for the leaf stage: its files pruned by the WHERE clause, cut by the catalog's split
 * sizes, with their bytes and partitions; undefined for a table that is not there or not readable.
 * `listing`: the query's listing of the table (hiveTableListing), pruned in memory instead of listed again.
 */
export function hiveTableSplits(config: HiveCatalogConfig, schema: string, table: string, where?: Expression, listing?: HiveTableListing): { splits: ByteSplit[]; bytes: number; partitions: number } | undefined {
  const listed = listing ? listedTableFiles(config, listing, where) : hiveTableFiles(config, schema, table, where);
  if (!listed) return undefined;
  const files = listed.files.map((file, i) => ({ file, size: listed.sizes[i]! }));
  return { splits: cutSplits(files, SPLITTABLE.has(listed.format), config), bytes: listed.bytes, partitions: listed.partitions };
}

const PATH_COLUMN: { name: string; hive: HiveType } = { name: '$path', hive: { name: 'varchar', numbers: [], children: [], fields: [] } };

type TableFiles = { files: string[]; sizes: number[]; bytes: number; partitions: number; format: string };

/** The table's data files relative to its location, and their bytes; undefined for a table that is not there or not readable. */
export function hiveTableFiles(config: HiveCatalogConfig, schema: string, table: string, where?: Expression): TableFiles | undefined {
  const catalog = new HiveCatalog(config, []);
  try {
    const resolved = catalog.resolve(schema, table);
    if (!resolved) return undefined;
    // Partitions the WHERE clause rules out are neither listed nor split (their files are never named to a worker).
    const { table: readable, files } = catalog.readable(resolved, partitionFilter(where, resolved.partitionColumns));
    return onPath(config, resolved.location, readable.properties.format, files, readable.partitions.length, where);
  } catch {
    return undefined;
  }
}

/** The files of `listed` whose "$path" (local:///<path under the root>, as the hidden column reads) the WHERE leaves, tested as a varchar. */
function onPath(config: HiveCatalogConfig, location: string, format: string, listed: readonly { path: string; size: number }[], partitions: number, where: Expression | undefined): TableFiles {
  const keep = partitionFilter(where, [PATH_COLUMN]);
  const files = listed.filter((f) => keep([`local:///${relative(config.root, f.path)}`]));
  return {
    files: files.map((f) => relative(location, f.path)),
    sizes: files.map((f) => f.size),
    format,
    bytes: files.reduce((sum, f) => sum + f.size, 0),
    partitions,
  };
}

/**
 * Every partition and data file of a table, listed once for a query on the coordinator (hive-connector.ts
 * keeps it in the query's listings): the planner's layout and each scan's splits read it, a scan's WHERE
 * pruning it in memory (listedTableFiles) as hiveTableFiles prunes before listing.
 */
export interface HiveTableListing {
  resolved: ResolvedHiveTable;
  format: string;
  partitions: readonly { values: readonly (string | null)[]; files: readonly string[] }[];
  files: readonly { path: string; size: number }[];
}

/** The table's listing, or undefined for a table that is not there or not readable. */
export function hiveTableListing(config: HiveCatalogConfig, schema: string, table: string): HiveTableListing | undefined {
  const catalog = new HiveCatalog(config, []);
  try {
    const resolved = catalog.resolve(schema, table);
    if (!resolved) return undefined;
    const { table: readable, files } = catalog.readable(resolved);
    return { resolved, format: readable.properties.format, partitions: readable.partitions, files };
  } catch {
    return undefined;
  }
}

/** hiveTableFiles from a listing: the partitions, then the files, the WHERE leaves. */
export function listedTableFiles(config: HiveCatalogConfig, listing: HiveTableListing, where?: Expression): TableFiles {
  const keep = partitionFilter(where, listing.resolved.partitionColumns);
  const kept = listing.partitions.filter((p) => keep(p.values));
  const paths = new Set(kept.flatMap((p) => p.files));
  return onPath(config, listing.resolved.location, listing.format, listing.files.filter((f) => paths.has(f.path)), kept.length, where);
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
 * The rows [start, end) of the row groups whose first data page lies in the byte range [from, from + length):
 * Trino's rule (ParquetMetadata: a split holds the row groups whose start it covers), so any cut of a file
 * into ranges reads each row group once. Row groups lie in file order, so those of a range are contiguous.
 */
export function rowGroupsInRange(rowGroupRows: readonly number[], rowGroupStarts: readonly number[], from: number, length: number): { start: number; end: number } {
  let row = 0;
  let start = -1;
  let end = -1;
  for (let g = 0; g < rowGroupRows.length; g++) {
    const at = rowGroupStarts[g]!;
    if (at >= from && at < from + length) {
      if (start < 0) start = row;
      end = row + rowGroupRows[g]!;
    }
    row += rowGroupRows[g]!;
  }
  return start < 0 ? { start: 0, end: 0 } : { start, end };
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
  // Only the partitions the splits name are listed: a task over one month of 84 need not stat the other 83.
  const named = new Set<string>();
  for (const split of splits) for (const above of ancestorDirectories(split.file)) named.add(above);
  // A partition is named by its directory (`TAG=x` for an external table's partition tag=x, sync_partition_metadata's).
  const { table: readable } = catalog.readable(resolved, (_, name, path) => named.has(name) || named.has(path()));
  const partitionOf = new Map<string, readonly (string | null)[]>();
  for (const partition of readable.partitions) for (const file of partition.files) partitionOf.set(file, partition.values);
  const parquet = readable.properties.format === 'PARQUET';
  // One footer read per file, however many of its byte ranges the task holds.
  const footers = new Map<string, Promise<ParquetFooter>>();
  const footerOnce = (path: string) => footers.get(path) ?? footers.set(path, footerOf(path)).get(path)!;
  const branches: string[] = [];
  for (const split of splits) {
    const path = join(resolved.location, split.file);
    const values = partitionOf.get(path);
    if (values === undefined || split.file.startsWith('..')) throw new VivaceError('INVALID_ARGUMENTS', `Split ${JSON.stringify(split.file.slice(0, 200))} is no data file of ${catalog.name}.${schema}.${table} here`);
    const ranged = split.start !== undefined && split.length !== undefined;
    // A text file is read whole (DuckDB reads a CSV only whole): by its first slice, or the split from byte 0.
    if (!parquet && (split.slice > 0 || (ranged && split.start! > 0))) continue;
    const footer = parquet ? await footerOnce(path) : undefined;
    let rows: { start: number; end: number } | undefined;
    if (footer && ranged) {
      if (!footer.rowGroupStarts) throw new VivaceError('GENERIC_INTERNAL_ERROR', 'The Parquet footer lacks the row groups\' offsets');
      rows = rowGroupsInRange(footer.rowGroupRows, footer.rowGroupStarts, split.start!, split.length!);
      // The whole file: no bound, DuckDB reads it as the table's view does.
      if (rows.start === 0 && rows.end === footer.rowGroupRows.reduce((a, b) => a + b, 0) && rows.end > 0) rows = undefined;
    } else if (footer && split.slices > 1) {
      rows = rowGroupRange(footer.rowGroupRows, split.slice, split.slices);
    }
    if (rows && rows.end === rows.start) continue;
    const unreadable = footer?.columnTypes ? unreadableColumns(readable.dataColumns.map((c) => ({ name: c.name, type: prestoTypeOfHive(c.hive) })), [footer.columnTypes]) : undefined;
    const one: ReadableTable = {
      ...readable, partitions: [{ values, files: [path], ...(rows ? { rows } : {}) }], ...(footer ? { presentColumns: footer.columns } : {}),
      ...(unreadable && unreadable.size > 0 ? { unreadableColumns: unreadable } : {}),
    };
    branches.push(tableReadSql(one));
  }
  if (branches.length === 0) {
    const empty: ReadableTable = { ...readable, partitions: [] };
    return tableReadSql(empty);
  }
  return branches.map((b) => `(${b})`).join(' UNION ALL ');
}
