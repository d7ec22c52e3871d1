// The tpch connector as the planner and the workers ask it: a table's splits are the Parquet parts its
// schema's manifest lists (or, without a generated schema here, the parts the generator would write), cut
// into row slices when there are fewer parts than workers; a worker reads its splits of the parts under
// its own cache, each checked against its manifest. Every worker reads the same generated files: shared.
import { join } from 'node:path';
import { quoteString } from '../../sql/sql-formatter.js';
import { VivaceError } from '../../protocol/vivace-error.js';
import type { TpchCatalogConfig } from '../catalog.types.js';
import type { CatalogConnector, ConnectorOptions, ScannedTable, ScanSplits, Split } from '../connector.types.js';
import { readManifest, type TpchManifest } from './tpch-generation.js';
import { tpchSchema } from './tpch-schemas.js';
import { estimatedRowCount, partCountOf, plannedParts } from './tpch-parts.js';
import { tpchTableColumns } from './tpch-metadata.js';
import { formatType } from '../../protocol/presto-type.js';

/**
 * Tables with fewer rows run as one task (vivace.distributed-tpch-min-rows). A leaf stage costs about
 * 30 ms more than one task on this 2-core machine (Q6 at tiny: 32-149 ms staged, 18-31 ms as one task),
 * so it pays only for a scan that takes a multiple of that: lineitem at sf1 (6,001,215 rows) splits,
 * orders at sf1 (1,500,000) does not.
 */
export const STAGED_MIN_ROWS = 5_000_000;

export function tpchConnector(config: TpchCatalogConfig, options: ConnectorOptions): CatalogConnector {
  const minRows = options.tpchMinRows ?? STAGED_MIN_ROWS;
  const planWithoutManifest = options.tpchPlanWithoutManifest !== false;
  return {
    catalog: config.name,
    connector: 'tpch',
    shared: true,
    scanSplits: (table, _where, maxSplits) => tpchScanSplits(config.directory, table, minRows, planWithoutManifest, maxSplits),
    splitSourceSql: (table, splits) => Promise.resolve(splitSourceSql(splits, splitPaths(config.directory, table, splits))),
    tableLayout(table) {
      const schema = tpchSchema(table.schema);
      const columns = schema && tpchTableColumns(table.table);
      if (!schema || !columns) return undefined;
      return {
        columns: columns.map((c) => ({ name: c.name, type: formatType(c.type) })),
        splits: tpchScanSplits(config.directory, table, minRows, planWithoutManifest, MAX_LAYOUT_SPLITS) !== undefined,
        rows: manifestOf(join(config.directory, schema.directory))?.tables[table.table]?.rows ?? estimatedRowCount(table.table, schema.scaleFactor),
        ...partitioningOf(table.table, schema.scaleFactor),
      };
    },
  };
}

/**
 * The column a table's parts are cut on (TableLayout.partitionedOn), as Trino's tpch connector declares
 * lineitem's and orders': the generator writes an order's lines together, and a part of lineitem holds the
 * lines of one range of orders, a part of orders those orders (tpch-parts.ts), both sorted by orderkey. Only for a table of several parts: over one part (tiny, sf0.1) the
 * scan would be one task, where its co-partitioned plan spreads. Static, so the coordinator and every
 * worker derive the same plan whatever their caches and vivace.distributed-tpch-min-rows.
 */
function partitioningOf(table: string, scaleFactor: number): { partitionedOn?: string } {
  return (table === 'lineitem' || table === 'orders') && partCountOf(table, scaleFactor) > 1 ? { partitionedOn: 'orderkey' } : {};
}

/** The splits a layout counts on (the stage request's bound, task-protocol.ts MAX_STAGE_ITEMS). */
const MAX_LAYOUT_SPLITS = 4096;

/**
 * A tpch table's parts, each file's rows when the manifest tells them (the splits then carry them, and
 * every leaf's worker cuts a slice as the same contiguous run whatever its own cache's manifest says).
 * Without a manifest here the parts are the generator's planned ones (plannedTable), unless
 * `planWithoutManifest` is false. Undefined: one task (fewer than `minRows` rows, an unknown table).
 */
export function tpchScanSplits(directory: string, table: ScannedTable, minRows: number, planWithoutManifest: boolean, maxSplits: number): ScanSplits | undefined {
  const schema = tpchSchema(table.schema);
  if (!schema) return undefined;
  const manifest = manifestOf(join(directory, schema.directory));
  if (!manifest && !planWithoutManifest) return undefined;
  const found = manifest ? manifest.tables[table.table] : plannedTable(table.table, schema.scaleFactor, maxSplits);
  if (!found || found.rows < minRows || found.files.length === 0) return undefined;
  const rows = manifest?.tables[table.table]?.fileRows;
  return { names: found.files, ...(rows?.length === found.files.length ? { rows } : {}) };
}

const planned = new Map<string, { rows: number; files: string[] } | undefined>();
const MAX_PLANNED = 64;

/**
 * Without the coordinator's own cache of the schema (`--workers 0`, or a fresh coordinator beside workers
 * that have the data): the parts the generator writes, which are the files in any worker's manifest (a
 * worker generates the schema when a task needs it), and a row count without generating (lineitem's is
 * estimated: its exact count is a replay too slow for the request path). A table of more parts than a
 * stage request may name runs as one task, and no list of its parts is built. Kept per table and scale
 * factor, bounded as the manifests.
 */
function plannedTable(table: string, scaleFactor: number, maxSplits: number): { rows: number; files: string[] } | undefined {
  const key = `${table}/${scaleFactor}/${maxSplits}`;
  if (planned.has(key)) return planned.get(key);
  const parts = plannedParts(table, scaleFactor, maxSplits);
  const found = parts && { rows: estimatedRowCount(table, scaleFactor), files: parts.files };
  if (planned.size >= MAX_PLANNED) planned.delete(planned.keys().next().value!);
  planned.set(key, found);
  return found;
}

const manifests = new Map<string, TpchManifest>();
const MAX_MANIFESTS = 64;

/** A tpch schema directory's manifest, kept once found (the coordinator's, and each worker's for its splits). */
export function manifestOf(schemaDirectory: string): TpchManifest | undefined {
  const kept = manifests.get(schemaDirectory);
  if (kept) return kept;
  const manifest = readManifest(schemaDirectory);
  if (manifest) {
    // One per tpch schema in use; bounded all the same (a directory per test run, say).
    if (manifests.size >= MAX_MANIFESTS) manifests.delete(manifests.keys().next().value!);
    manifests.set(schemaDirectory, manifest);
  }
  return manifest;
}

/** Absolute paths of `splits` of the table, each checked against the table's manifest here. */
function splitPaths(directory: string, table: ScannedTable, splits: readonly Split[]): (file: string) => string {
  const schema = tpchSchema(table.schema);
  const schemaDirectory = schema && join(directory, schema.directory);
  const manifest = schemaDirectory === undefined ? undefined : manifestOf(schemaDirectory);
  const files = new Set(manifest?.tables[table.table]?.files ?? []);
  for (const split of splits) {
    if (!files.has(split.file)) {
      throw new VivaceError('INVALID_ARGUMENTS', `Split ${JSON.stringify(split.file.slice(0, 200))} is no part of ${table.catalog}.${table.schema}.${table.table} here`, { httpStatus: 400 });
    }
  }
  return (file) => join(schemaDirectory!, file);
}

/**
 * SQL reading the rows of `splits` (absolute paths by `pathOf`), with the table's columns as its Parquet
 * has them. A slice of a file whose rows the split carries (the coordinator's manifest, so every leaf cuts
 * alike whatever its own cache's manifest says) is a contiguous run of them: DuckDB skips
 * the row groups outside the run, so the slices of a file share its decoding (only a row group on a
 * boundary is read twice) where `file_row_number % slices` made every slice decode the whole file.
 */
export function splitSourceSql(splits: readonly Split[], pathOf: (file: string) => string): string {
  const whole = splits.filter((s) => s.slices === 1).map((s) => quoteString(pathOf(s.file)));
  const parts = whole.length > 0 ? [`SELECT * FROM read_parquet([${whole.join(', ')}])`] : [];
  for (const s of splits.filter((x) => x.slices > 1)) {
    const rows = s.rows;
    const predicate = rows === undefined
      ? `file_row_number % ${s.slices} = ${s.slice}`
      : `file_row_number >= ${sliceStart(rows, s.slice, s.slices)} AND file_row_number < ${sliceStart(rows, s.slice + 1, s.slices)}`;
    parts.push(`SELECT * EXCLUDE (file_row_number) FROM read_parquet(${quoteString(pathOf(s.file))}, file_row_number = true) WHERE ${predicate}`);
  }
  if (parts.length === 0) throw new Error('A leaf task needs at least one split');
  return parts.join(' UNION ALL ');
}

/** The first row of slice `slice` of `slices` of a file of `rows` rows (slice `slices`: the end). */
export function sliceStart(rows: number, slice: number, slices: number): number {
  return Math.floor((rows * slice) / slices);
}
