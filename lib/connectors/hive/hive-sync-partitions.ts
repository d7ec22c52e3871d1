// CALL system.sync_partition_metadata(schema_name, table_name, mode, case_sensitive), as Trino's
// SyncPartitionMetadataProcedure: the `key=value` directories under a partitioned table's location (one
// level per partition key) against the partitions its metastore registers; ADD registers the directories
// no partition describes (files another tool wrote), DROP forgets the partitions whose directory is gone
// (their files, if any, stay), FULL does both. One commit marker, so a crash leaves all of it or none.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { VivaceError } from '../../protocol/vivace-error.js';
import type { SyncPartitionCall } from '../../sql/procedure-calls.js';
import type { HiveCatalog } from './hive-catalog.js';
import { commit, recover, stagingName, type CommitMarker } from './hive-commit.js';
import { rootChecker } from './hive-locations.js';
import { parsePartitionName } from './partition-names.js';

/** Partition directories below `location`, one level per key (`k=v/k2=w`): real directories only, never a symlink. */
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
      // Partition names are spelled with the columns' own (lower) case: a directory K=v is found without
      // case sensitivity but could not be read where its name says (readers join the location and the name).
      if (!entry.name.startsWith(wanted)) {
        throw new VivaceError('INVALID_PROCEDURE_ARGUMENT', `Partition directory ${JSON.stringify(entry.name.slice(0, 200))} spells partition column ${keys[level]} in another case, which this catalog cannot read: rename it`);
      }
      const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
      if (level + 1 === keys.length) found.push(path);
      else walk(join(directory, entry.name), path, level + 1);
    }
  };
  walk(location, '', 0);
  return found;
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
  // Only names a partition can have: Trino's extractPartitionValues would fail on the others.
  const onDisk = partitionDirectories(resolved.location, keys, call.caseSensitive).filter((name) => parsePartitionName(name, keys) !== undefined);
  for (const name of onDisk) check(join(resolved.location, name));
  const registered = catalog.metastore.partitionNames(schema, table, keys.length);
  // Sets: a table of tens of thousands of partitions must not cost their square on the event loop.
  const [registeredSet, onDiskSet] = [new Set(registered), new Set(onDisk)];
  const add = call.mode === 'DROP' ? [] : onDisk.filter((name) => !registeredSet.has(name));
  const drop = call.mode === 'ADD' ? [] : registered.filter((name) => !onDiskSet.has(name));
  if (add.length === 0 && drop.length === 0) return;
  const marker: CommitMarker = {
    version: 1, staging: stagingName(queryId), renames: [], deletes: [], partitions: add, schema, tableName: table,
    partitionMetadata: { columns: resolved.metadata.dataColumns, parameters: { trino_query_id: queryId }, storageFormat: resolved.metadata.storageFormat, serdeParameters: resolved.metadata.serdeParameters },
    ...(drop.length > 0 ? { dropPartitions: { names: drop, data: false } } : {}),
  };
  commit(resolved.location, marker, catalog.metastore);
}
