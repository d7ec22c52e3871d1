// The catalogs a node serves, as its catalog directory (Trino's `catalog.config-dir`, one
// `NAME.properties` per catalog) or the built-in set describes them. Every node reads the same set: the
// coordinator plans against it, each worker opens its engine's catalogs from it.

/** The connectors a catalog file may name (`connector.name`). */
export type ConnectorName = 'tpch' | 'memory' | 'system' | 'hive';

/** One catalog: its name (the file's stem), its connector and the connector's options, checked. */
export type CatalogConfig = TpchCatalogConfig | MemoryCatalogConfig | SystemCatalogConfig | HiveCatalogConfig;

interface CatalogBase {
  /** The catalog's name, as users write it (lower case). */
  name: string;
  /** The file it came from; absent for a built-in catalog. */
  file?: string;
}

export interface TpchCatalogConfig extends CatalogBase {
  connector: 'tpch';
  /** Where generated schemas live (default `<data.directory>/tpch`). */
  directory: string;
}

export interface MemoryCatalogConfig extends CatalogBase {
  connector: 'memory';
}

export interface SystemCatalogConfig extends CatalogBase {
  connector: 'system';
}

/** Trino's `hive.insert-existing-partitions-behavior`. */
export type InsertExistingPartitionsBehavior = 'APPEND' | 'OVERWRITE' | 'ERROR';

/** Storage formats Trino's Hive connector names (HiveStorageFormat); only some have a reader here. */
export type HiveStorageFormat = 'ORC' | 'PARQUET' | 'AVRO' | 'RCBINARY' | 'RCTEXT' | 'SEQUENCEFILE' | 'JSON' | 'OPENX_JSON' | 'TEXTFILE' | 'CSV' | 'REGEX';

/** Trino's `hive.compression-codec`. */
export type HiveCompressionCodec = 'NONE' | 'SNAPPY' | 'LZ4' | 'ZSTD' | 'GZIP';

/**
 * A Hive catalog over a local (or shared, mounted at one path on every node) directory tree, with
 * Trino's file metastore (`hive.metastore=file`) and local file system (`fs.local.enabled=true`).
 */
export interface HiveCatalogConfig extends CatalogBase {
  connector: 'hive';
  /** `local.location`: the absolute, resolved root every path of the catalog lies under. */
  root: string;
  /** `hive.metastore.catalog.dir`, resolved to an absolute path under `root` (default: `root` itself). */
  metastoreDirectory: string;
  /** `hive.storage-format` (PARQUET here: Trino's default, ORC, has no reader). */
  storageFormat: HiveStorageFormat;
  /** `hive.compression-codec` (Trino's default GZIP; applies to written files). */
  compressionCodec: HiveCompressionCodec;
  /** `hive.insert-existing-partitions-behavior` (APPEND). */
  insertExistingPartitionsBehavior: InsertExistingPartitionsBehavior;
  /** `hive.non-managed-table-writes-enabled` (false) and `hive.non-managed-table-creates-enabled` (true). */
  nonManagedTableWritesEnabled: boolean;
  nonManagedTableCreatesEnabled: boolean;
  /** `hive.recursive-directories` (false). */
  recursiveDirectories: boolean;
  /** `hive.max-split-size` (64MB), `hive.max-initial-split-size` (half of it), `hive.max-initial-splits` (200), in bytes / count. */
  maxSplitSizeBytes: number;
  maxInitialSplitSizeBytes: number;
  maxInitialSplits: number;
  /** `hive.auto-discover` (ours, false in a file, true for the built-in `lake`): directories of Parquet files no table describes are listed as tables. */
  autoDiscover: boolean;
}
