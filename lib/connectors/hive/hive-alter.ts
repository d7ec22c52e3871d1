// ALTER TABLE on a hive table as Trino's Hive connector with its file metastore does it: ADD / DROP /
// RENAME COLUMN and COMMENT change the table's metadata only (files are read by column name, so an added
// column reads NULL in older files and a renamed one NULL where the files have the old name), RENAME TO
// moves the table's metadata directory (a managed table's data with it). Messages are Trino's.
import { existsSync, renameSync } from 'node:fs';
import type { AddColumn, Comment, DropColumn, RenameColumn } from '../../sql/ast.js';
import { fold } from '../../sql/names.js';
import { VivaceError } from '../../protocol/vivace-error.js';
import type { HiveCatalog } from './hive-catalog.js';
import type { HiveColumn, TableMetadata } from './hive-metastore.js';
import { hiveTypeOf, prestoTypeOfDataType } from './hive-types.js';
import { recover } from './hive-commit.js';

const lastPart = (parts: readonly { value: string }[]) => fold(parts[parts.length - 1]!.value);

/** The table's metadata, or undefined when it is missing and the statement says IF EXISTS. */
function tableOf(catalog: HiveCatalog, schema: string, table: string, ifExists: boolean): TableMetadata | undefined {
  if (!catalog.metastore.schema(schema) && !ifExists) throw new VivaceError('SCHEMA_NOT_FOUND', `Schema '${catalog.name}.${schema}' does not exist`);
  const metadata = catalog.metastore.schema(schema) ? catalog.metastore.table(schema, table) : undefined;
  if (!metadata && !ifExists) throw new VivaceError('TABLE_NOT_FOUND', `Table '${catalog.name}.${schema}.${table}' does not exist`);
  return metadata;
}

const allColumns = (m: TableMetadata): HiveColumn[] => [...m.dataColumns, ...(m.partitionColumns ?? [])];

function save(catalog: HiveCatalog, schema: string, table: string, metadata: TableMetadata): void {
  const { writerVersion: _, ...rest } = metadata;
  catalog.metastore.writeTable(schema, table, rest, false);
}

/** ALTER TABLE ADD COLUMN: after the data columns (partition keys stay last). */
export function addColumn(statement: AddColumn, catalog: HiveCatalog, schema: string, table: string): void {
  const metadata = tableOf(catalog, schema, table, statement.tableExists);
  if (!metadata) return;
  const element = statement.column;
  const name = lastPart(element.name.parts);
  if (allColumns(metadata).some((c) => c.name === name)) {
    if (statement.columnNotExists) return;
    throw new VivaceError('COLUMN_ALREADY_EXISTS', `Column '${name}' already exists`);
  }
  if (!element.nullable) throw new VivaceError('NOT_SUPPORTED', `Catalog '${catalog.name}' does not support NOT NULL for column '${name}'`);
  if (element.properties.length > 0) throw new VivaceError('INVALID_COLUMN_PROPERTY', `Catalog '${catalog.name}' column property '${fold(element.properties[0]!.name.value)}' does not exist`);
  const type = prestoTypeOfDataType(element.columnType);
  const format = metadata.storageFormat;
  if (format === 'CSV' && (type.base !== 'varchar' || ('length' in type && type.length !== undefined))) throw new VivaceError('NOT_SUPPORTED', `Hive CSV storage format only supports VARCHAR (unbounded). Unsupported columns: ${name}`);
  const column: HiveColumn = { name, type: hiveTypeOf(type), ...(element.comment === undefined ? {} : { comment: element.comment }) };
  save(catalog, schema, table, { ...metadata, dataColumns: [...metadata.dataColumns, column] });
}

/** ALTER TABLE DROP COLUMN (verifyCanDropColumn: no partition column, not the last data column). */
export function dropColumn(statement: DropColumn, catalog: HiveCatalog, schema: string, table: string): void {
  const metadata = tableOf(catalog, schema, table, statement.tableExists);
  if (!metadata) return;
  if (statement.field.parts.length > 1) throw new VivaceError('NOT_SUPPORTED', 'This connector does not support dropping fields');
  const name = lastPart(statement.field.parts);
  if (name.startsWith('$') && catalog.hiddenColumns(schema, table)?.includes(name)) throw new VivaceError('NOT_SUPPORTED', 'Cannot drop hidden column');
  if (!allColumns(metadata).some((c) => c.name === name)) {
    if (statement.columnExists) return;
    throw new VivaceError('COLUMN_NOT_FOUND', `Column '${name}' does not exist`);
  }
  if ((metadata.partitionColumns ?? []).some((c) => c.name === name)) throw new VivaceError('NOT_SUPPORTED', 'Cannot drop partition columns');
  if (metadata.dataColumns.length <= 1) throw new VivaceError('NOT_SUPPORTED', 'Cannot drop the only non-partition column in a table');
  save(catalog, schema, table, { ...metadata, dataColumns: metadata.dataColumns.filter((c) => c.name !== name) });
}

/** ALTER TABLE RENAME COLUMN: data columns only. */
export function renameColumn(statement: RenameColumn, catalog: HiveCatalog, schema: string, table: string): void {
  const metadata = tableOf(catalog, schema, table, statement.tableExists);
  if (!metadata) return;
  if (statement.source.parts.length > 1) throw new VivaceError('NOT_SUPPORTED', 'This connector does not support renaming fields');
  const source = lastPart(statement.source.parts);
  const target = fold(statement.target.value);
  if (source.startsWith('$') && catalog.hiddenColumns(schema, table)?.includes(source)) throw new VivaceError('NOT_SUPPORTED', 'Cannot rename hidden column');
  if (!allColumns(metadata).some((c) => c.name === source)) {
    if (statement.columnExists) return;
    throw new VivaceError('COLUMN_NOT_FOUND', `Column '${source}' does not exist`);
  }
  if (allColumns(metadata).some((c) => c.name === target)) throw new VivaceError('COLUMN_ALREADY_EXISTS', `Column '${target}' already exists`);
  if ((metadata.partitionColumns ?? []).some((c) => c.name === source)) throw new VivaceError('NOT_SUPPORTED', 'Renaming partition columns is not supported');
  save(catalog, schema, table, { ...metadata, dataColumns: metadata.dataColumns.map((c) => (c.name === source ? { ...c, name: target } : c)) });
}

/** COMMENT ON TABLE / COLUMN (NULL removes it). */
export function commentOn(statement: Comment, catalog: HiveCatalog, schema: string, table: string): void {
  const metadata = tableOf(catalog, schema, table, false)!;
  if (statement.objectType === 'TABLE') {
    const parameters = { ...metadata.parameters };
    if (statement.comment === undefined) delete parameters.comment;
    else parameters.comment = statement.comment;
    save(catalog, schema, table, { ...metadata, parameters });
    return;
  }
  const name = lastPart(statement.name.parts);
  if (!allColumns(metadata).some((c) => c.name === name)) throw new VivaceError('COLUMN_NOT_FOUND', `Column does not exist: ${name}`);
  const withComment = (c: HiveColumn): HiveColumn => {
    if (c.name !== name) return c;
    const { comment: _, ...rest } = c;
    return statement.comment === undefined ? rest : { ...rest, comment: statement.comment };
  };
  save(catalog, schema, table, { ...metadata, dataColumns: metadata.dataColumns.map(withComment), partitionColumns: (metadata.partitionColumns ?? []).map(withComment) });
}

/**
 * ALTER TABLE RENAME TO: the table's metadata directory moves (a managed table's data is in it), with one
 * rename, as FileHiveMetastore.renameTable. A commit a crashed writer left (its marker names the table by
 * its old name, and would register its partitions there once moved) is rolled forward first.
 */
export function renameTable(catalog: HiveCatalog, from: { schema: string; table: string }, to: { schema: string; table: string }, ifExists: boolean): void {
  const metadata = tableOf(catalog, from.schema, from.table, ifExists);
  if (!metadata) return;
  if (!catalog.metastore.schema(to.schema)) throw new VivaceError('SCHEMA_NOT_FOUND', `Target schema '${catalog.name}.${to.schema}' does not exist`);
  if (catalog.metastore.table(to.schema, to.table)) throw new VivaceError('TABLE_ALREADY_EXISTS', `Target table '${catalog.name}.${to.schema}.${to.table}' already exists`);
  const target = catalog.metastore.tableDirectory(to.schema, to.table);
  if (existsSync(target)) throw new VivaceError('HIVE_PATH_ALREADY_EXISTS', `Target directory for table '${to.schema}.${to.table}' already exists: ${catalog.storedLocation(target)}`);
  const resolved = catalog.resolve(from.schema, from.table);
  if (resolved) recover(resolved.location, catalog.metastore);
  renameSync(catalog.metastore.tableDirectory(from.schema, from.table), target);
}
