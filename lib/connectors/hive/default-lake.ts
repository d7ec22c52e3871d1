// The built-in `lake` catalog a node serves until catalog files configure the set (issue 21): a hive
// catalog over `<data.directory>/lake`, with Trino's Hive defaults but PARQUET (ORC has no reader here)
// and hive.auto-discover on. The catalog-file loader builds the same shape from `lake.properties`.
import { mkdirSync, realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { HiveCatalogConfig } from '../catalog.types.js';

const MB = 1024 * 1024;

/** Trino's Hive defaults for splits (HiveConfig): hive.max-split-size and hive.max-initial-splits. */
export const HIVE_DEFAULTS = { maxSplitSizeBytes: 64 * MB, maxInitialSplits: 200 } as const;

/** A hive catalog named `name` over `root` (created when missing), with Trino's defaults. */
export function defaultHiveCatalog(root: string, name = 'lake'): HiveCatalogConfig {
  mkdirSync(root, { recursive: true });
  const real = realpathSync(resolve(root));
  return {
    name, connector: 'hive', root: real, metastoreDirectory: real, storageFormat: 'PARQUET', compressionCodec: 'GZIP',
    insertExistingPartitionsBehavior: 'APPEND', nonManagedTableWritesEnabled: false, nonManagedTableCreatesEnabled: true,
    recursiveDirectories: false, maxSplitSizeBytes: HIVE_DEFAULTS.maxSplitSizeBytes, maxInitialSplitSizeBytes: HIVE_DEFAULTS.maxSplitSizeBytes / 2, maxInitialSplits: HIVE_DEFAULTS.maxInitialSplits, autoDiscover: false,
  };
}

/** The built-in `lake` catalog of a node whose data directory is `dataDirectory`. */
export function defaultLakeCatalog(dataDirectory: string): HiveCatalogConfig {
  return { ...defaultHiveCatalog(join(dataDirectory, 'lake')), autoDiscover: true };
}
