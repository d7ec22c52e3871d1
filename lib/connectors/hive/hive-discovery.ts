// hive.auto-discover (ours; Trino has no such feature: trino#21690, #13134, #1163): directories of Parquet
// files under the catalog's root that no metastore table describes are listed as read-only external
// tables. The root's first-level directories are schemas, theirs tables (`root/<schema>/<table>/`);
// `key=value` subdirectories are partition columns, typed varchar (a directory name is text: inferring
// integers or dates from the values seen would change a table's type when one more partition arrives,
// and `007` would lose its zeros); columns come from the files' footers, the union by name of the
// files' columns in order of first appearance, typed as Trino's Hive connector shows them. Names starting
// with `_` or `.` are skipped, and so are symbolic links (never followed), names that are not lower case
// (Trino's names are), and any directory a registered table or schema, the metastore, or a commit
// in progress uses.
import { lstatSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { listDataFiles, filesSignature, type DataFile } from './hive-files.js';
import { escapePathName, unescapePathName } from './partition-names.js';
import { isWithin } from './hive-locations.js';
import { hasMarker } from './hive-commit.js';
import { SCHEMA_FILE, type HiveColumn, type TableMetadata } from './hive-metastore.js';

/** What a table directory's parameters say of a discovered table (its `t$properties`). */
export const DISCOVERED_PARAMETER = 'vivace.auto_discovered';

export interface DiscoveredTable {
  schema: string;
  table: string;
  /** The table's directory (absolute, under the root). */
  directory: string;
  /** Partition keys, in directory order (lower case). */
  keys: string[];
  /** Partition names (`k=v/k2=w`, as the directories are named). */
  partitions: string[];
  /** The data files: of the partitions, or of the directory itself when unpartitioned. */
  files: DataFile[];
}

/** Visible subdirectories (no `_` or `.` names, no symbolic links), sorted. */
function subdirectories(directory: string): string[] {
  try {
    return readdirSync(directory, { withFileTypes: true })
      .filter((e) => e.isDirectory() && !e.name.startsWith('.') && !e.name.startsWith('_'))
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
}

/** A directory name as a schema or table name, when it is one as Trino spells names (lower case, escaped as Hive escapes it). */
function nameOf(entry: string): string | undefined {
  const name = unescapePathName(entry);
  return name !== '' && name === name.toLowerCase() && escapePathName(name) === entry ? name : undefined;
}

/** The key of a `key=value` directory name (lower case), or undefined. */
function keyOf(entry: string): string | undefined {
  const at = entry.indexOf('=');
  if (at <= 0) return undefined;
  const key = unescapePathName(entry.slice(0, at));
  return key === key.toLowerCase() ? key : undefined;
}

/** A table directory's partition keys (down the first partition directories) and partition names. */
function partitionsOf(directory: string): { keys: string[]; partitions: string[] } {
  const keys: string[] = [];
  for (let at = directory; ;) {
    const first = subdirectories(at).find((e) => keyOf(e) !== undefined);
    const key = first && keyOf(first);
    if (!first || key === undefined || keys.includes(key)) break;
    keys.push(key);
    at = join(at, first);
  }
  const partitions: string[] = [];
  const walk = (at: string, prefix: string, level: number) => {
    for (const entry of subdirectories(at)) {
      if (keyOf(entry) !== keys[level]) continue;
      const name = prefix === '' ? entry : `${prefix}/${entry}`;
      if (level + 1 === keys.length) partitions.push(name);
      else walk(join(at, entry), name, level + 1);
    }
  };
  if (keys.length > 0) walk(directory, '', 0);
  return { keys, partitions };
}

export interface DiscoveryRules {
  /** Whether a schema directory belongs to the metastore (lies in a registered location, or holds the metastore). */
  schemaTaken: (directory: string) => boolean;
  /** Whether a table directory lies in, or holds, a registered table's or schema's location. */
  tableTaken: (directory: string) => boolean;
  /** Whether the metastore has the table (it wins over a directory of the same name). */
  registered: (schema: string, table: string) => boolean;
  /** hive.recursive-directories: files in subdirectories of a table or partition count. */
  recursive: boolean;
  /** Only this table (a statement names it), else every one. */
  only?: { schema: string; table: string };
}

/** The tables under `root` no metastore table describes. Only directories holding data files are tables. */
export function discoverTables(root: string, rules: DiscoveryRules): DiscoveredTable[] {
  const out: DiscoveredTable[] = [];
  const schemaEntries = rules.only ? [escapePathName(rules.only.schema)] : subdirectories(root);
  for (const schemaEntry of schemaEntries) {
    const schema = nameOf(schemaEntry);
    const schemaDirectory = join(root, schemaEntry);
    if (schema === undefined || schema === 'information_schema' || !isDirectory(schemaDirectory)) continue;
    // One table asked for: nothing more is looked at (not the metastore's locations) unless its directory is there.
    if (rules.only && !isDirectory(join(schemaDirectory, escapePathName(rules.only.table)))) continue;
    if (rules.schemaTaken(schemaDirectory)) continue;
    const tableEntries = rules.only ? [escapePathName(rules.only.table)] : subdirectories(schemaDirectory);
    for (const tableEntry of tableEntries) {
      const table = nameOf(tableEntry);
      const directory = join(schemaDirectory, tableEntry);
      if (table === undefined || keyOf(tableEntry) !== undefined || !isDirectory(directory) || rules.registered(schema, table) || rules.tableTaken(directory)) continue;
      // A table's metadata or a commit in progress (a CTAS not registered yet) is no discovery's.
      if (hasMarker(directory) || hasEntry(directory, SCHEMA_FILE)) continue;
      const { keys, partitions } = partitionsOf(directory);
      const files = keys.length === 0 ? listDataFiles(directory, rules.recursive) : partitions.flatMap((p) => listDataFiles(join(directory, p), rules.recursive));
      if (files.length === 0) continue;
      out.push({ schema, table, directory, keys, partitions, files });
    }
  }
  return out;
}

/** A visible, real directory (a symbolic link is never followed, as the rest of the connector refuses them). */
function isDirectory(path: string): boolean {
  const name = basename(path);
  if (name.startsWith('.') || name.startsWith('_')) return false;
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

function hasEntry(directory: string, name: string): boolean {
  try {
    return readdirSync(directory).includes(name);
  } catch {
    return false;
  }
}

/** Whether `directory` lies in, or holds, one of `used`. */
export function overlaps(directory: string, used: readonly string[]): boolean {
  return used.some((u) => isWithin(directory, u) || isWithin(u, directory));
}

/** A discovered table's identity for its columns: its files as they are now. */
export function discoveredSignature(table: DiscoveredTable): string {
  return filesSignature(table.files);
}

/** The metadata a discovered table reads as: an external PARQUET table at its directory. */
export function discoveredMetadata(table: DiscoveredTable, dataColumns: readonly HiveColumn[], storedLocation: string): TableMetadata {
  return {
    tableType: 'EXTERNAL_TABLE',
    dataColumns: [...dataColumns],
    partitionColumns: table.keys.map((name) => ({ name, type: 'string' })),
    parameters: { [DISCOVERED_PARAMETER]: 'true' },
    storageFormat: 'PARQUET',
    serdeParameters: {},
    externalLocation: storedLocation,
  };
}

/**
 * The data columns of Parquet files given their columns (name and Hive type, or undefined for a type
 * Hive cannot hold) file by file: the union by lower-case name, in order of first appearance; the
 * first file's type of a name is kept. Partition keys are no data columns.
 */
export function unionColumns(files: readonly (readonly { name: string; type: string | undefined }[])[], keys: readonly string[]): HiveColumn[] {
  const seen = new Set<string>(keys);
  const out: HiveColumn[] = [];
  for (const columns of files) {
    for (const c of columns) {
      const name = c.name.toLowerCase();
      if (seen.has(name)) continue;
      seen.add(name);
      if (c.type !== undefined) out.push({ name, type: c.type });
    }
  }
  return out;
}
