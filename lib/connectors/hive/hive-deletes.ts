// DELETE on a hive table as Trino's Hive connector allows it on non-transactional tables: a predicate on
// partition columns only drops the whole partitions it matches (their metadata, and a managed table's
// files), and DELETE without WHERE empties an unpartitioned table; anything else is refused with Trino's
// message. The change is one commit marker (hive-commit.ts), so a crash leaves all of it or none.
import type { Expression } from '../../sql/ast.js';
import { fold } from '../../sql/names.js';
import { walk } from '../../sql/tree-walk.js';
import { VivaceError } from '../../protocol/vivace-error.js';
import type { ResolvedHiveTable } from './hive-catalog.js';
import { commit, recover, stagingName, type CommitMarker } from './hive-commit.js';
import { listDataFiles } from './hive-files.js';
import type { FileMetastore } from './hive-metastore.js';
import { parsePartitionName } from './partition-names.js';
import { duckdbTypeOfHive } from './hive-types.js';
import { quoteIdentifier, quoteString } from '../../sql/sql-formatter.js';

export const WHOLE_PARTITIONS = 'Deletes must match whole partitions for non-transactional tables';

/**
 * Checks that `where` reads partition columns only (no data or hidden column, no subquery): Trino can
 * then tell each partition's rows apart as all or none. A name the table does not have is left to the
 * predicate's own analysis (COLUMN_NOT_FOUND).
 */
export function checkWholePartitions(where: Expression, table: ResolvedHiveTable): void {
  const keys = new Set(table.partitionColumns.map((c) => c.name));
  const others = new Set(table.dataColumns.map((c) => c.name));
  const names = columnNamesRead(where);
  if (keys.size === 0 || !names) throw new VivaceError('NOT_SUPPORTED', WHOLE_PARTITIONS);
  for (const name of names) if (!keys.has(name) && (others.has(name) || name.startsWith('$'))) throw new VivaceError('NOT_SUPPORTED', WHOLE_PARTITIONS);
}

/**
 * The column names (folded) an expression reads, `t.k` as `k`; undefined when it holds a subquery or
 * EXISTS, whose reads are no columns of the one table. Function and type names are no columns.
 */
export function columnNamesRead(where: Expression): Set<string> | undefined {
  const names = new Set<string>();
  let subquery = false;
  walk(where, (node) => {
    switch (node.type) {
      case 'SubqueryExpression':
      case 'ExistsPredicate':
        subquery = true;
        return false;
      case 'FunctionCall':
        // Its name is no column; its arguments are walked on their own.
        for (const argument of node.arguments) {
          const inner = columnNamesRead(argument);
          if (!inner) subquery = true;
          for (const name of inner ?? []) names.add(name);
        }
        return false;
      case 'DereferenceExpression':
      case 'Identifier':
        names.add(fold(node.type === 'Identifier' ? node.value : node.field.value));
        return node.type === 'Identifier' ? undefined : false;
      default:
        // Type names (CAST(x AS varchar)) hold no columns.
        return node.type.endsWith('DataType') ? false : undefined;
    }
  });
  return subquery ? undefined : names;
}

/**
 * Drops `partitions` (names) of the table, or every file of an unpartitioned table (`partitions`
 * undefined), in one commit. An external table keeps its files (Trino drops only partition metadata
 * there) and cannot be emptied: NOT_SUPPORTED as Trino.
 */
export function deleteFromTable(table: ResolvedHiveTable, partitions: readonly string[] | undefined, metastore: FileMetastore, queryId: string, recursive: boolean): void {
  const managed = table.metadata.tableType === 'MANAGED_TABLE';
  if (partitions === undefined && !managed) throw new VivaceError('NOT_SUPPORTED', 'Cannot delete from non-managed Hive table');
  recover(table.location, metastore);
  const deletes = partitions === undefined ? listDataFiles(table.location, recursive).map((f) => f.path.slice(table.location.length + 1)) : [];
  if (deletes.length === 0 && (partitions ?? []).length === 0) return;
  const marker: CommitMarker = {
    version: 1, staging: stagingName(queryId), renames: [], deletes, partitions: [], schema: table.schema, tableName: table.table,
    ...(partitions === undefined ? {} : { dropPartitions: { names: [...partitions], data: managed } }),
  };
  commit(table.location, marker, metastore);
}

/**
 * DuckDB SQL giving the names of the partitions among `names` that `predicateSql` (the table's
 * `t$partitions` filtered by the user's WHERE, translated from its tree) keeps: each partition's values
 * typed as the table declares them, compared NULL-safely (the default partition is NULL).
 */
export function matchingPartitionsSql(table: ResolvedHiveTable, names: readonly string[], predicateSql: string): string | undefined {
  const keys = table.partitionColumns;
  const rows = names.flatMap((name) => {
    const values = parsePartitionName(name, keys.map((k) => k.name));
    return values ? [`(${[quoteString(name), ...values.map((v) => (v === null ? 'NULL' : quoteString(v)))].join(', ')})`] : [];
  });
  if (rows.length === 0) return undefined;
  const columns = keys.map((_, i) => `c${i}`);
  const same = keys.map((k, i) => `q.${quoteIdentifier(k.name)} IS NOT DISTINCT FROM CAST(p.${columns[i]} AS ${duckdbTypeOfHive(k.hive)})`);
  return `SELECT p.name FROM (VALUES ${rows.join(', ')}) AS p(name, ${columns.join(', ')}) WHERE EXISTS (SELECT 1 FROM (${predicateSql}) AS q WHERE ${same.join(' AND ')})`;
}
