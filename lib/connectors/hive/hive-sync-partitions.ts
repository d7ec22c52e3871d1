// CALL system.sync_partition_metadata(schema_name, table_name, mode, case_sensitive), as Trino's
// SyncPartitionMetadataProcedure: the `key=value` directories under a partitioned table's location (one
// level per partition key) against the partitions its metastore registers; ADD registers the directories
// no partition describes (files another tool wrote), DROP forgets the partitions whose directory is gone
// (their files, if any, stay), FULL does both. One commit marker, so a crash leaves all of it or none.
// Directories and partitions are compared by location; with case_sensitive => false an external table's
// `TAG=x` directory becomes partition tag=x with that directory as its location.
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { VivaceError } from '../../protocol/vivace-error.js';
import type { SyncPartitionCall } from '../../sql/procedure-calls.js';
import type { HiveCatalog, ResolvedHiveTable } from './hive-catalog.js';
import { commit, recover, stagingName, type CommitMarker } from './hive-commit.js';
import { rootChecker } from './hive-locations.js';
import { HIVE_DEFAULT_PARTITION, makePartitionName, unescapePathName } from './partition-names.js';

/**
 * Partition directories below `location`, one level per key (`k=v/k2=w`), each named for its key (in any
 * case when `caseSensitive` is false, as Trino's isValidPartitionPath lower-cases the name it tests):
 * real directories only, never a symlink.
 */
function partitionDirectories(location: string, keys: readonly string[], caseSensitive: boolean): string[] {
  const found: string[] = [];
  const walk = (directory: string, prefix: string, level: number) => {
    let entries: import('node:fs').Dirent[];
    try {
      entries = readdirSync(directory, { withFileTypes: true });
    } catch {
      return;
    }
    const wanted = `${keys[level]!}=`;
    for (const entry of entries) {
      if (!entry.isDirectory()) continue;
      const name = caseSensitive ? entry.name : entry.name.toLowerCase();
      if (!name.startsWith(wanted)) continue;
      const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
      if (level + 1 === keys.length) found.push(path);
      else walk(join(directory, entry.name), path, level + 1);
    }
  };
  walk(location, '', 0);
  return found.sort();
}

/** Where a registered partition's files are, relative to the table's location: its name, or its metadata's location. */
function registeredPath(catalog: HiveCatalog, resolved: ResolvedHiveTable, name: string): string {
  return relative(resolved.location, catalog.partitionDirectory(resolved, name)).split('\\').join('/');
}

/**
 * The partitions directories `paths` register: each named by its values under the table's own column
 * names (HivePartitionManager.extractPartitionValues, then makePartName), so `TAG=x` is partition tag=x.
 * A managed table's partition must be at its name (FileHiveMetastore: 'Partition directory must be ...');
 * an external table's keeps its directory as the partition's location.
 */
function partitionsToAdd(catalog: HiveCatalog, resolved: ResolvedHiveTable, paths: readonly string[], taken: Set<string>): { names: string[]; locations: Record<string, string> } {
  const keys = resolved.partitionColumns.map((c) => c.name);
  const managed = resolved.metadata.tableType !== 'EXTERNAL_TABLE';
  const names: string[] = [];
  const locations: Record<string, string> = {};
  for (const path of paths) {
    const values = path.split('/').map((segment) => {
      const raw = segment.slice(segment.indexOf('=') + 1);
      return raw === HIVE_DEFAULT_PARTITION ? null : unescapePathName(raw);
    });
    const name = makePartitionName(keys, values);
    if (managed && name !== path) throw new VivaceError('HIVE_METASTORE_ERROR', `Partition directory must be ${catalog.storedLocation(join(resolved.location, name))}`);
    if (taken.has(name)) throw new VivaceError('HIVE_METASTORE_ERROR', 'Partition already exists');
    taken.add(name);
    names.push(name);
    if (name !== path) locations[name] = catalog.storedLocation(join(resolved.location, path));
  }
  return { names, locations };
}

/** Runs the procedure; `queryId` names the partitions it registers (trino_query_id). */
export function syncPartitionMetadata(call: SyncPartitionCall, catalog: HiveCatalog, queryId: string): void {
  const { schema, table } = call;
  const resolved = catalog.metastore.schema(schema) ? catalog.resolve(schema, table) : undefined;
  if (!resolved) throw new VivaceError('TABLE_NOT_FOUND', `Table '${schema}.${table}' not found`);
  const keys = resolved.partitionColumns.map((c) => c.name);
  if (keys.length === 0) throw new VivaceError('INVALID_PROCEDURE_ARGUMENT', `Table is not partitioned: ${schema}.${table}`);
  recover(resolved.location, catalog.metastore);
  const check = rootChecker(catalog.rules);
  const onDisk = partitionDirectories(resolved.location, keys, call.caseSensitive);
  for (const path of onDisk) check(join(resolved.location, path));
  // Compared by location, as Trino's procedure: a partition registered at TAG=x is that directory's.
  // Sets: a table of tens of thousands of partitions must not cost their square on the event loop.
  const registered = new Map(catalog.metastore.partitionNames(schema, table, keys.length).map((name) => [registeredPath(catalog, resolved, name), name]));
  const onDiskSet = new Set(onDisk);
  const add = call.mode === 'DROP' ? [] : onDisk.filter((path) => !registered.has(path));
  const drop = call.mode === 'ADD' ? [] : [...registered].filter(([path]) => !onDiskSet.has(path)).map(([, name]) => name);
  const dropped = new Set(drop);
  const added = partitionsToAdd(catalog, resolved, add, new Set([...registered.values()].filter((name) => !dropped.has(name))));
  if (added.names.length === 0 && drop.length === 0) return;
  const marker: CommitMarker = {
    version: 1, staging: stagingName(queryId), renames: [], deletes: [], partitions: added.names, schema, tableName: table,
    partitionMetadata: { columns: resolved.metadata.dataColumns, parameters: { trino_query_id: queryId }, storageFormat: resolved.metadata.storageFormat, serdeParameters: resolved.metadata.serdeParameters },
    ...(Object.keys(added.locations).length > 0 ? { partitionLocations: added.locations } : {}),
    ...(drop.length > 0 ? { dropPartitions: { names: drop, data: false } } : {}),
  };
  commit(resolved.location, marker, catalog.metastore);
}
