// What a catalog's connector tells the rest of the node, so that nothing outside lib/connectors/ asks a
// catalog's name: the coordinator's planner asks whether a scan splits and its splits (pruned by the
// query's WHERE) and whether every worker reads the catalog alike; a worker asks for the DuckDB SQL that
// reads the splits it was given. Each catalog of the node's catalog set gets one (connectors.ts).
import type { Expression } from '../sql/ast.js';
import type { CatalogConfig, ConnectorName } from './catalog.types.js';
import type { ParquetFooter } from './hive/hive-splits.js';

/** A table a scan reads, lower case, its catalog as users name it. */
export interface ScannedTable {
  catalog: string;
  schema: string;
  table: string;
}

/** One split: a file of a table, or slice `slice` of `slices` of its rows, or a byte range of it. */
export interface Split {
  /** The file's path as the connector names it (relative to the table's schema or the catalog's root). */
  file: string;
  slice: number;
  slices: number;
  /** The file's rows, when the coordinator knows them: a slice is then a contiguous run of them. */
  rows?: number;
  /** A byte range's [start, start + length) of its file (hive-splits.ts cutSplits), with slice 0 of 1. */
  start?: number;
  length?: number;
}

/** A scan's splits as the coordinator hands them out. */
export interface ScanSplits {
  /** The files read (relative names, as the splits name them). */
  names: readonly string[];
  /** Each file's rows, when known (a file may then be cut into row slices for more workers). */
  rows?: readonly number[];
  /** The splits themselves when the connector cut them (a lake's byte ranges); absent: the files, sliced by the scheduler. */
  splits?: readonly Split[];
}

/** A table as the distributed planner sees it (lib/planner): its columns and size. */
export interface TableLayout {
  /** Column names (lower case) and Presto types, in the table's order. */
  columns: readonly { name: string; type: string }[];
  /** Whether its scans split over workers (else one task reads it whole). */
  splits: boolean;
  /** Estimated rows (statistics); undefined when unknown. */
  rows?: number;
  /** Bytes of its data files; undefined when unknown. */
  fileBytes?: number;
  /**
   * The column its files are partitioned on: every row of a value of it is in one file (part), so a task
   * reading whole files holds all the table's rows of each value it meets. As Trino's tpch connector
   * declares lineitem partitioned on orderkey (TpchMetadata.getTableProperties); a subquery over the table
   * correlated on it then runs in the scan's own tasks (correlated-subqueries.ts colocatedWith).
   */
  partitionedOn?: string;
}

/** What a worker's engine lends a connector reading splits. */
export interface SplitReading {
  /** A Parquet file's row groups (a byte-range split is the row groups that start in it). */
  parquetFooter?(path: string): Promise<ParquetFooter>;
}

/** One catalog's connector, as the planner and the workers ask it. */
export interface CatalogConnector {
  /** The catalog's name, as users write it. */
  readonly catalog: string;
  readonly connector: ConnectorName;
  /**
   * Every worker reads the catalog's data from the same files (tpch's generated parts, a lake root on a
   * shared path): a read-only query over it may run on any worker. False: one worker holds it (memory).
   */
  readonly shared: boolean;
  /**
   * Coordinator: the splits of a scan of `table` with the query's WHERE (a connector prunes by it), or
   * undefined when the scan runs as one task (too little data, no such table, more than `maxSplits`).
   * Absent: the catalog's tables never split.
   */
  scanSplits?(table: ScannedTable, where: Expression | undefined, maxSplits: number, listings?: QueryListings): ScanSplits | undefined;
  /**
   * Worker: DuckDB SQL reading the rows of `splits` of `table`, with its columns; each split is checked to
   * be a file of the table here (a request naming another file is refused).
   */
  splitSourceSql?(table: ScannedTable, splits: readonly Split[], reading: SplitReading): Promise<string>;
  /**
   * Planner (coordinator and workers): a table's columns and size, for a catalog every worker reads alike;
   * undefined for a table it does not have. Absent: its tables are never planned in fragments.
   */
  tableLayout?(table: ScannedTable, listings?: QueryListings): TableLayout | undefined;
}

/**
 * What connectors listed while one query is planned and its splits chosen (the coordinator's stagedQuery
 * makes one per statement, distributedPlanOf one per plan): a lake table's files, listed once for its
 * layout, serve each of its scans' splits. Keyed by the connector (its catalog's name first); nothing in
 * it outlives the query, so no clock decides when a listing is stale.
 */
export type QueryListings = Map<string, unknown>;

/** Options of the connectors a node builds from its catalog set. */
export interface ConnectorOptions {
  /** tpch: tables of fewer rows run as one task (vivace.distributed-tpch-min-rows). */
  tpchMinRows?: number;
  /**
   * tpch: without a generated schema here, plan from the parts the generator would write (false: the
   * directory is the local workers' cache too, and one worker generates it in a single task first).
   */
  tpchPlanWithoutManifest?: boolean;
  /** hive: tables of fewer bytes of data files run as one task (vivace.distributed-lake-min-bytes). */
  lakeMinBytes?: number;
}

/** Makes a catalog's connector from its configuration. */
export type ConnectorFactory<C extends CatalogConfig = CatalogConfig> = (config: C, options: ConnectorOptions) => CatalogConnector;
