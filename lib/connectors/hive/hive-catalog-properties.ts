// A hive catalog file's properties (Trino's names: HiveConfig, MetastoreTypeConfig, FileHiveMetastoreConfig,
// FileSystemConfig, LocalFileSystemConfig) checked into a HiveCatalogConfig. Only what this node can honour is
// taken: the file metastore on a local (or shared, mounted) root; anything else is refused by name.
import { accessSync, constants, existsSync, mkdirSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import type { HiveCatalogConfig, HiveCompressionCodec, HiveStorageFormat, InsertExistingPartitionsBehavior } from '../catalog.types.js';
import { defaultHiveCatalog, HIVE_DEFAULTS } from './default-lake.js';
import { resolveLocation } from './hive-locations.js';
import { CatalogProperties, type PropertyProblem } from '../catalog-properties.js';

const STORAGE_FORMATS: readonly HiveStorageFormat[] = ['ORC', 'PARQUET', 'AVRO', 'RCBINARY', 'RCTEXT', 'SEQUENCEFILE', 'JSON', 'OPENX_JSON', 'TEXTFILE', 'CSV', 'REGEX'];
const READABLE_FORMATS: ReadonlySet<HiveStorageFormat> = new Set(['PARQUET', 'JSON', 'TEXTFILE', 'CSV']);
const CODECS: readonly HiveCompressionCodec[] = ['NONE', 'SNAPPY', 'LZ4', 'ZSTD', 'GZIP'];
const BEHAVIORS: readonly InsertExistingPartitionsBehavior[] = ['APPEND', 'OVERWRITE', 'ERROR'];

/** Trino properties a user copies from a Trino catalog that change nothing here; taken and checked for their kind. */
const HARMLESS_BOOLEANS = ['hive.metastore.disable-location-checks', 'hive.parquet.use-column-names', 'hive.collect-column-statistics-on-write'];

/**
 * A created catalog's check of its root (CREATE CATALOG: the root is user text, held to catalog.dynamic-roots),
 * run once every other property was checked: `path` absolute as written, `property` the one that named it.
 * It may create the directory; it throws (a message) to refuse.
 */
export type RootCheck = (path: string, property: string) => void;

/**
 * The hive catalog `name` of a file's properties; a problem throws PropertyProblem naming the property.
 * `created`: a catalog CREATE CATALOG makes: every property is checked (unknown ones too) before its root is,
 * and nothing is created before both pass (a file's root must exist).
 */
export function hiveCatalogConfig(name: string, p: CatalogProperties, created?: { checkRoot: RootCheck }): HiveCatalogConfig {
  // Trino requires hive.metastore=file, fs.local.enabled=true and hive.metastore.catalog.dir: they are the only
  // choices here, so they default to them (a Trino catalog file still reads the same), and a folder of files
  // is a catalog in two lines, connector.name and local.location. A file naming another choice still fails.
  const metastore = p.take('hive.metastore', 'file').toLowerCase();
  if (metastore !== 'file') p.fail('hive.metastore', `only 'file' is supported here (${metastore} needs a metastore service this node cannot reach)`);
  const explicitlyOff = p.boolean('fs.local.enabled', true) === false || p.boolean('fs.native-local.enabled', true) === false;
  if (explicitlyOff && !(p.boolean('fs.local.enabled', false) || p.boolean('fs.native-local.enabled', false))) {
    p.fail('fs.local.enabled', 'must be true: the local file system is the only one here (S3, GCS, Azure and HDFS have no reader)');
  }
  for (const other of ['fs.native-s3.enabled', 'fs.native-gcs.enabled', 'fs.native-azure.enabled', 'fs.hadoop.enabled']) {
    if (p.boolean(other, false)) p.fail(other, 'is not supported here: only the local file system is');
  }
  const rootText = rootOf(p);
  const catalogDir = p.take('hive.metastore.catalog.dir', 'local:///');
  const storageFormat = p.choice('hive.storage-format', STORAGE_FORMATS, 'PARQUET');
  if (!READABLE_FORMATS.has(storageFormat)) p.fail('hive.storage-format', `${storageFormat} has no reader here (PARQUET, JSON, TEXTFILE and CSV do)`);
  // Only allow-all: a catalog's own rules (file, read-only, sql-standard) would have to be enforced beside the
  // system's, and a rule file accepted but not enforced would be a hole. The system rules file's schemas and
  // tables rules take a catalog pattern and do the same.
  const security = p.take('hive.security', 'allow-all').toLowerCase();
  if (security !== 'allow-all') {
    p.fail('hive.security', `'${security}' is not supported here (allow-all only): write the catalog's rules in the system access rules file (security.config-file in config.properties), with "catalog": "${name}"`);
  }
  for (const harmless of HARMLESS_BOOLEANS) p.boolean(harmless, true);
  if (!p.boolean('hive.parquet.use-column-names', true)) p.fail('hive.parquet.use-column-names', 'only true is supported here: Parquet columns are matched by name');
  const maxSplitSizeBytes = p.dataSize('hive.max-split-size', HIVE_DEFAULTS.maxSplitSizeBytes);
  const settings = {
    storageFormat,
    compressionCodec: p.choice('hive.compression-codec', CODECS, 'GZIP'),
    insertExistingPartitionsBehavior: p.choice('hive.insert-existing-partitions-behavior', BEHAVIORS, 'APPEND'),
    nonManagedTableWritesEnabled: p.boolean('hive.non-managed-table-writes-enabled', false),
    nonManagedTableCreatesEnabled: p.boolean('hive.non-managed-table-creates-enabled', true),
    recursiveDirectories: p.boolean('hive.recursive-directories', false),
    maxSplitSizeBytes,
    maxInitialSplitSizeBytes: p.dataSize('hive.max-initial-split-size', Math.floor(maxSplitSizeBytes / 2)),
    maxInitialSplits: p.integer('hive.max-initial-splits', HIVE_DEFAULTS.maxInitialSplits),
    autoDiscover: p.boolean('hive.auto-discover', false),
  };
  if (created) {
    p.checkAllUsed('hive');
    try {
      created.checkRoot(rootText.path, rootText.property);
    } catch (err) {
      p.fail(rootText.property, (err as Error).message);
    }
  }
  const root = existingRoot(p, rootText);
  let metastoreDirectory: string;
  try {
    metastoreDirectory = rootText.fromCatalogDir ? root : resolveCatalogDir(catalogDir, root);
  } catch (err) {
    p.fail('hive.metastore.catalog.dir', (err as Error).message);
  }
  return { ...defaultHiveCatalog(root, name), ...(p.file === undefined ? {} : { file: p.file }), metastoreDirectory, ...settings };
}

interface RootText {
  path: string;
  property: string;
  /** No local.location: the metastore's file:/// or local:/// directory is the root. */
  fromCatalogDir: boolean;
}

/**
 * `local.location` as a path, not yet looked at. Without it, a `file:///` or `local:///`
 * hive.metastore.catalog.dir is the root: Trino's local file system then roots paths at `/` and keeps its
 * metastore in that directory; here the tree is that directory.
 */
function rootOf(p: CatalogProperties): RootText {
  const location = p.optional('local.location');
  const catalogDir = p.optional('hive.metastore.catalog.dir');
  const fromCatalogDir = (location === undefined || location === '') && catalogDir !== undefined && (catalogDir.startsWith('local://') || catalogDir.startsWith('file://'));
  const property = fromCatalogDir ? 'hive.metastore.catalog.dir' : 'local.location';
  const text = fromCatalogDir ? catalogDir : p.required('local.location');
  // Trino's docs write it as a URI (local:///srv/lake), its code takes a plain path: both name /srv/lake.
  const path = text.startsWith('local://') || text.startsWith('file://') ? text.slice(text.indexOf('://') + 3) : text;
  if (!isAbsolute(path)) p.fail(property, `must be an absolute path: ${text}`);
  return { path, property, fromCatalogDir };
}

/** The root: an absolute, existing, writable directory, by its real path (symlinks resolved once, here). */
function existingRoot(p: CatalogProperties, { path, property }: RootText): string {
  if (!existsSync(path)) p.fail(property, `directory does not exist: ${path}`);
  if (!statSync(path).isDirectory()) p.fail(property, `is not a directory: ${path}`);
  try {
    accessSync(path, constants.R_OK | constants.W_OK | constants.X_OK);
  } catch {
    p.fail(property, `directory cannot be written by this process: ${path}`);
  }
  return realpathSync(resolve(path));
}

/** `hive.metastore.catalog.dir` under the root: `local:///x` or `file:///x` is `<root>/x`, a plain path must lie under it. */
function resolveCatalogDir(text: string, root: string): string {
  if (text === 'local:///' || text === 'file:///' || resolve(text) === root) return root;
  const directory = resolveLocation(text, { root, otherRoots: [] }, 'CONFIGURATION_INVALID');
  mkdirSync(directory, { recursive: true });
  return realpathSync(directory);
}

export type { PropertyProblem };
