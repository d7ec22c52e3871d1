// The hive connector as the planner and the workers ask it: a scan's splits are its table's data files,
// listed for each query (other nodes and tools write the tree, so no listing outlives its query; the
// planner's layout and the scans' splits share one, QueryListings), pruned by the query's partition
// predicate and cut into byte ranges as Trino's HiveSplitSource (hive-splits.ts); a worker reads the row
// groups that start in its ranges. The root is one path on every node (a shared mount in a cluster of machines): shared.
import type { HiveCatalogConfig } from '../catalog.types.js';
import type { CatalogConnector, ConnectorOptions, ScannedTable } from '../connector.types.js';
import { HiveCatalog, type ResolvedHiveTable } from './hive-catalog.js';
import { prestoTypeOfHive } from './hive-types.js';
import { formatType } from '../../protocol/presto-type.js';
import { hiveSplitSourceSql, hiveTableListing, hiveTableSplits, type HiveTableListing } from './hive-splits.js';
import { VivaceError } from '../../protocol/vivace-error.js';

/**
 * A lake table of less data runs as one task: as for tpch (STAGED_MIN_ROWS), a leaf stage pays for a scan
 * that takes a multiple of its ~30 ms; 64 MB of Parquet is about lineitem at sf1 compressed by half.
 */
export const STAGED_MIN_BYTES = 64 * 1024 * 1024;

/** The splits a layout counts on (the stage request's bound, task-protocol.ts MAX_STAGE_ITEMS). */
const MAX_LAYOUT_SPLITS = 4096;

export function hiveConnector(config: HiveCatalogConfig, options: ConnectorOptions): CatalogConnector {
  const minBytes = options.lakeMinBytes ?? STAGED_MIN_BYTES;
  const splits = (listed: ReturnType<typeof hiveTableSplits>, maxSplits: number): listed is NonNullable<typeof listed> =>
    listed !== undefined && listed.splits.length > 0 && listed.splits.length <= maxSplits && listed.bytes >= minBytes;
  // A worker's reading view of the catalog (its metastore, its tables' files), made on its first split.
  let catalog: HiveCatalog | undefined;
  const listingKey = (table: ScannedTable) => `${config.name}\u0000${table.schema}\u0000${table.table}`;
  return {
    catalog: config.name,
    connector: 'hive',
    shared: true,
    scanSplits(table, where, maxSplits, listings) {
      // The query's listing when its planner asked for the table's layout; else listed here, pruned first.
      const listing = listings?.get(listingKey(table)) as HiveTableListing | undefined;
      const listed = hiveTableSplits(config, table.schema, table.table, where, listing);
      if (!splits(listed, maxSplits)) return undefined;
      const cut = listed.splits.map((s) => ({ file: s.file, slice: 0, slices: 1, start: s.start, length: s.length }));
      return { names: [...new Set(cut.map((s) => s.file))], splits: cut };
    },
    tableLayout(table, listings) {
      const key = listingKey(table);
      if (listings && !listings.has(key)) listings.set(key, hiveTableListing(config, table.schema, table.table));
      const listing = listings ? listings.get(key) as HiveTableListing | undefined : hiveTableListing(config, table.schema, table.table);
      let resolved: ResolvedHiveTable | undefined = listing?.resolved;
      try {
        resolved ??= new HiveCatalog(config, []).resolve(table.schema, table.table);
      } catch {
        return undefined;
      }
      if (!resolved) return undefined;
      const listed = listing && hiveTableSplits(config, table.schema, table.table, undefined, listing);
      return {
        columns: [...resolved.dataColumns, ...resolved.partitionColumns].map((c) => ({ name: c.name, type: formatType(prestoTypeOfHive(c.hive)) })),
        splits: splits(listed, MAX_LAYOUT_SPLITS),
        ...(listed ? { fileBytes: listed.bytes } : {}),
      };
    },
    splitSourceSql(table, splits, reading) {
      const footerOf = reading.parquetFooter;
      if (!footerOf) return Promise.reject(new VivaceError('NOT_SUPPORTED', 'This engine cannot read a lake table\'s splits'));
      catalog ??= new HiveCatalog(config, []);
      return hiveSplitSourceSql(catalog, table.schema, table.table, splits, (path) => footerOf(path));
    },
  };
}
