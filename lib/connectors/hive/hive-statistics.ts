// A hive table's statistics from its Parquet files' footers, standing in for the basic and column
// statistics Trino's writer records in the metastore on INSERT and CTAS (hive.collect-column-statistics-on-write),
// combined as Trino's AbstractHiveStatisticsProvider combines partitions' statistics: row counts summed, a
// data column's nulls and sizes summed and its range the union of the files', a partition column's from
// the partition values (distinct values, the default partition's rows as nulls, the range, the values'
// bytes). Footers are read once per (path, size, mtime). CSV, JSON and TEXTFILE files have no footer: their
// rows are unknown, as a Trino table without statistics, and only partition columns have statistics.
import type { DataFile } from './hive-files.js';
import type { HiveType } from './hive-types.js';
import type { HiveCatalog } from './hive-catalog.js';
import type { ColumnStatistics, PartitionRef, StatisticsTable, TableStatistics, TableStatisticsProvider } from '../table-statistics.js';
import { quoteString } from '../../sql/sql-formatter.js';

/** One column chunk set of a file: what its footer says over all row groups. */
export interface FooterColumn {
  /** NULLs; undefined when a row group has no null count. */
  nulls?: number;
  /** The column chunks' uncompressed bytes (Parquet's total_uncompressed_size). */
  bytes: number;
  /** Each row group's least and greatest value as DuckDB prints them; undefined when a row group has none. */
  mins?: string[];
  maxs?: string[];
}

export interface FooterStatistics {
  rows: number;
  /** Top-level (non-nested) columns by lower-case name. */
  columns: ReadonlyMap<string, FooterColumn>;
}

/** Reads the footers of `paths` (absolute, under the catalog's root). */
export type FooterReader = (paths: readonly string[]) => Promise<ReadonlyMap<string, FooterStatistics>>;

/** Files whose footers one query reads (the SQL names each). */
const READ_BATCH = 256;

/**
 * DuckDB SQL over the footers of `paths`: a row per file, row group and column chunk. Run it unprepared
 * (a prepared parquet_metadata statement run twice crashes DuckDB 1.5.6); each path is a quoted literal.
 */
export function footerStatisticsSql(paths: readonly string[]): string {
  return 'SELECT file_name, row_group_id, row_group_num_rows, path_in_schema, stats_null_count, total_uncompressed_size, stats_min_value, stats_max_value '
    + `FROM parquet_metadata([${paths.map(quoteString).join(', ')}])`;
}

/** The footers of a query of footerStatisticsSql's rows. */
export function footerStatisticsOf(rows: readonly (readonly unknown[])[]): Map<string, FooterStatistics> {
  const files = new Map<string, { groups: Map<string, number>; columns: Map<string, FooterColumn> }>();
  for (const [file, group, groupRows, path, nulls, bytes, min, max] of rows) {
    const name = String(file);
    let entry = files.get(name);
    if (!entry) files.set(name, (entry = { groups: new Map(), columns: new Map() }));
    entry.groups.set(String(group), Number(groupRows));
    const columnPath = String(path);
    // A nested column's leaves ("s, x") say nothing of the column as a whole.
    if (columnPath.includes(', ')) continue;
    const key = columnPath.toLowerCase();
    const column = entry.columns.get(key) ?? { nulls: 0, bytes: 0, mins: [], maxs: [] };
    column.nulls = column.nulls === undefined || nulls === null ? undefined : column.nulls + Number(nulls);
    column.bytes += Number(bytes ?? 0);
    // A row group of NULLs only has no least or greatest value, and needs none.
    if (nulls === null || Number(nulls) < Number(groupRows)) {
      if (min === null) delete column.mins;
      else column.mins?.push(String(min));
      if (max === null) delete column.maxs;
      else column.maxs?.push(String(max));
    }
    entry.columns.set(key, column);
  }
  const out = new Map<string, FooterStatistics>();
  for (const [file, { groups, columns }] of files) out.set(file, { rows: [...groups.values()].reduce((a, b) => a + b, 0), columns });
  return out;
}

/** A FooterReader over DuckDB: `query` runs SQL unprepared and gives its rows. */
export function duckdbFooterReader(query: (sql: string) => Promise<readonly (readonly unknown[])[]>): FooterReader {
  return async (paths) => {
    const out = new Map<string, FooterStatistics>();
    for (let i = 0; i < paths.length; i += READ_BATCH) {
      const batch = paths.slice(i, i + READ_BATCH);
      for (const [file, footer] of footerStatisticsOf(await query(footerStatisticsSql(batch)))) out.set(file, footer);
      // A file without row groups has no rows in parquet_metadata.
      for (const path of batch) if (!out.has(path)) out.set(path, { rows: 0, columns: new Map() });
    }
    return out;
  };
}

/** Footers by file, kept while the file's size and modification time stay the same. */
export class FooterCache {
  private readonly entries = new Map<string, { size: number; mtimeMs: number; footer: FooterStatistics }>();
  /** Footers read so far (not served from the cache). */
  reads = 0;

  constructor(private readonly read: FooterReader, private readonly limit = 200_000) {}

  async footers(files: readonly DataFile[]): Promise<Map<string, FooterStatistics>> {
    const out = new Map<string, FooterStatistics>();
    const missing: DataFile[] = [];
    for (const file of files) {
      const cached = this.entries.get(file.path);
      if (cached && cached.size === file.size && cached.mtimeMs === file.mtimeMs) out.set(file.path, cached.footer);
      else missing.push(file);
    }
    if (missing.length === 0) return out;
    const read = await this.read(missing.map((f) => f.path));
    this.reads += missing.length;
    for (const file of missing) {
      const footer = read.get(file.path);
      if (!footer) continue;
      out.set(file.path, footer);
      this.entries.delete(file.path);
      this.entries.set(file.path, { size: file.size, mtimeMs: file.mtimeMs, footer });
    }
    // The oldest entries go first when the cache is full.
    for (const path of this.entries.keys()) {
      if (this.entries.size <= this.limit) break;
      this.entries.delete(path);
    }
    return out;
  }
}

/** One partition of the statistics' input: its values (partition-column order) and data files. */
export interface StatisticsPartition extends PartitionRef {
  files: readonly DataFile[];
}

export interface StatisticsInput {
  format: string;
  dataColumns: readonly { name: string; hive: HiveType }[];
  partitionColumns: readonly { name: string; hive: HiveType }[];
  /** The partitions read (after pruning); an unpartitioned table is one partition with no values. */
  partitions: readonly StatisticsPartition[];
  /** The Parquet footers of the partitions' files (none for other formats). */
  footers: ReadonlyMap<string, FooterStatistics>;
}

const INTEGRAL = new Set(['tinyint', 'smallint', 'int', 'bigint']);
const RANGED = new Set([...INTEGRAL, 'float', 'double', 'decimal', 'date']);
/** Types whose values' bytes Trino's writer records (HiveColumnStatistics.averageColumnLength). */
const SIZED_DATA = new Set(['string', 'varchar', 'char', 'binary']);
/** Types Trino reports a partition column's bytes for (AbstractHiveStatisticsProvider.hasDataSize). */
const SIZED_KEY = new Set(['string', 'varchar', 'char']);

const INTEGER_TEXT = /^[+-]?\d{1,40}$/;
const DATE_TEXT = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A value's text (a footer's or a partition directory's) in Trino's stats representation; undefined when not a finite value of `type`. */
export function statsValue(type: HiveType, text: string): number | undefined {
  let value: number | undefined;
  if (INTEGRAL.has(type.name)) value = INTEGER_TEXT.test(text) ? Number(text) : undefined;
  else if (type.name === 'date') {
    const m = DATE_TEXT.exec(text);
    value = m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) / 86_400_000 : undefined;
  } else if (type.name === 'float' || type.name === 'double' || type.name === 'decimal') value = text.trim() === '' ? undefined : Number(text);
  return value !== undefined && Number.isFinite(value) ? value : undefined;
}

/** The table's statistics (Trino's AbstractHiveStatisticsProvider.getTableStatistics over every partition read). */
export function hiveTableStatistics(input: StatisticsInput): TableStatistics {
  const columns = new Map<string, ColumnStatistics>();
  const all = [...input.dataColumns, ...input.partitionColumns];
  if (input.partitions.length === 0) {
    // Trino's createZeroStatistics.
    for (const c of all) columns.set(c.name, { nullsFraction: 0, distinctValuesCount: 0, ...(SIZED_KEY.has(c.hive.name) ? { dataSize: 0 } : {}) });
    return { rowCount: 0, columns };
  }
  const rowsOf = input.format === 'PARQUET' ? partitionRows(input) : undefined;
  if (!rowsOf) {
    // No row counts: partition columns only, each partition taken as non-empty and of equal size (createPartitionColumnStatisticsWithoutRowCount).
    input.partitionColumns.forEach((c, i) => {
      const nulls = input.partitions.filter((p) => p.values[i] === null).length;
      columns.set(c.name, keyStatistics(c.hive, input.partitions.map((p) => p.values[i] ?? null), nulls / input.partitions.length));
    });
    return { columns };
  }
  const rowCount = rowsOf.reduce((a, b) => a + b, 0);
  for (const c of input.dataColumns) columns.set(c.name, dataStatistics(c.name, c.hive, input, rowsOf, rowCount));
  input.partitionColumns.forEach((c, i) => {
    const nonEmpty = input.partitions.filter((_, p) => rowsOf[p] !== 0).map((p) => p.values[i] ?? null);
    const nullRows = input.partitions.reduce((sum, p, j) => sum + (p.values[i] === null ? rowsOf[j]! : 0), 0);
    const stats = keyStatistics(c.hive, nonEmpty, rowCount === 0 ? 0 : nullRows / rowCount);
    if (SIZED_KEY.has(c.hive.name)) stats.dataSize = input.partitions.reduce((sum, p, j) => sum + Buffer.byteLength(p.values[i] ?? '', 'utf8') * rowsOf[j]!, 0);
    columns.set(c.name, stats);
  });
  return { rowCount, columns };
}

/** Each partition's rows from its files' footers; undefined when a file has no footer. */
function partitionRows(input: StatisticsInput): number[] | undefined {
  const rows: number[] = [];
  for (const p of input.partitions) {
    let sum = 0;
    for (const f of p.files) {
      const footer = input.footers.get(f.path);
      if (!footer) return undefined;
      sum += footer.rows;
    }
    rows.push(sum);
  }
  return rows;
}

/** A partition column's distinct values, nulls and range over `values` (a partition's each; null: the default partition). */
function keyStatistics(type: HiveType, values: readonly (string | null)[], nullsFraction: number): ColumnStatistics {
  const present = values.filter((v): v is string => v !== null);
  const numbers = RANGED.has(type.name) ? present.map((v) => statsValue(type, v)) : [];
  // Values equal as their type compares them (integers '01' and '1', a date's one spelling).
  const distinct = new Set(present.map((v, i) => (numbers[i] === undefined ? `t${v}` : `n${numbers[i]}`))).size;
  const stats: ColumnStatistics = { distinctValuesCount: distinct, nullsFraction: Math.min(1, Math.max(0, nullsFraction)) };
  if (numbers.length > 0 && numbers.every((n) => n !== undefined)) stats.range = { low: Math.min(...(numbers as number[])), high: Math.max(...(numbers as number[])) };
  return stats;
}

/** A data column's statistics over the partitions' files (Trino's createDataColumnStatistics). */
function dataStatistics(name: string, type: HiveType, input: StatisticsInput, rowsOf: readonly number[], rowCount: number): ColumnStatistics {
  let nulls: number | undefined = 0;
  let bytes = 0;
  let range: { low: number; high: number } | undefined;
  let rangeKnown = RANGED.has(type.name);
  // A boolean's distinct values are those its files' least and greatest values show: Trino's writer counts
  // trues and falses, and the table's count is the greatest partition's (calculateDistinctValuesCount).
  let booleans: number | undefined = type.name === 'boolean' ? 0 : undefined;
  input.partitions.forEach((p, j) => {
    const seen = new Set<string>();
    for (const f of p.files) {
      const footer = input.footers.get(f.path)!;
      const column = footer.columns.get(name);
      // A file without the column reads it as NULL (hive.parquet.use-column-names).
      if (!column) {
        if (nulls !== undefined) nulls += footer.rows;
        continue;
      }
      nulls = nulls === undefined || column.nulls === undefined ? undefined : nulls + column.nulls;
      bytes += column.bytes;
      const nonNull = column.nulls === undefined ? footer.rows : footer.rows - column.nulls;
      if (nonNull <= 0) continue;
      if (!column.mins || !column.maxs) {
        rangeKnown = false;
        if (booleans !== undefined) booleans = undefined;
        continue;
      }
      for (const text of [...column.mins, ...column.maxs]) seen.add(text);
      if (!rangeKnown) continue;
      const lows = column.mins.map((t) => statsValue(type, t));
      const highs = column.maxs.map((t) => statsValue(type, t));
      if ([...lows, ...highs].some((v) => v === undefined)) {
        rangeKnown = false;
        continue;
      }
      const low = Math.min(...(lows as number[]));
      const high = Math.max(...(highs as number[]));
      range = range ? { low: Math.min(range.low, low), high: Math.max(range.high, high) } : { low, high };
    }
    if (booleans !== undefined && rowsOf[j]! > 0) booleans = Math.max(booleans, (seen.has('false') ? 1 : 0) + (seen.has('true') ? 1 : 0));
  });
  const stats: ColumnStatistics = {};
  if (nulls !== undefined) stats.nullsFraction = rowCount === 0 ? 0 : nulls / rowCount;
  if (SIZED_DATA.has(type.name)) stats.dataSize = rowCount === 0 ? 0 : bytes;
  if (rangeKnown && range) stats.range = range;
  if (booleans !== undefined) stats.distinctValuesCount = booleans;
  return stats;
}

/** The hive connector's statistics of one catalog's tables, from its partitions' listings and the footers. */
export class HiveStatistics implements TableStatisticsProvider {
  constructor(private readonly catalog: HiveCatalog, private readonly cache: FooterCache) {}

  async statistics(t: StatisticsTable, keep?: (partition: PartitionRef) => boolean): Promise<TableStatistics | undefined> {
    const resolved = this.catalog.resolve(t.schema, t.table);
    if (!resolved) return undefined;
    const { table: readable, files } = this.catalog.readable(resolved);
    const byPath = new Map(files.map((f) => [f.path, f]));
    const partitions: StatisticsPartition[] = readable.partitions
      .map((p) => ({ name: p.name ?? '', values: p.values, files: p.files.map((path) => byPath.get(path)!).filter((f) => f !== undefined) }))
      .filter((p) => !keep || keep(p));
    const format = readable.properties.format;
    const footers = format === 'PARQUET' ? await this.cache.footers(partitions.flatMap((p) => p.files)) : new Map<string, FooterStatistics>();
    return hiveTableStatistics({ format, dataColumns: resolved.dataColumns, partitionColumns: resolved.partitionColumns, partitions, footers });
  }
}
