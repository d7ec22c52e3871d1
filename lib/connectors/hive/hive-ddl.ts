// A hive catalog's schema and table DDL on the file metastore: CREATE / DROP SCHEMA, CREATE / DROP TABLE,
// and SHOW CREATE TABLE in the form Trino prints. Names are checked and every location held under the root
// (hive-locations.ts) before anything is written.
import { mkdirSync, readdirSync, rmdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ColumnDefinition, CreateSchema, CreateTable, DropSchema, DropTable, Property } from '../../sql/ast.js';
import { fold } from '../../sql/names.js';
import { formatType } from '../../protocol/presto-type.js';
import type { PrestoType } from '../../protocol/types.js';
import { VivaceError } from '../../protocol/vivace-error.js';
import type { HiveCatalog } from './hive-catalog.js';
import type { HiveColumn, TableMetadata } from './hive-metastore.js';
import { resolveLocation } from './hive-locations.js';
import { checkReadableFormat, propertiesOf, schemaLocationProperty, storedProperties, tableProperties, type HiveTableProperties } from './hive-table-properties.js';
import { hiveTypeOf, parseHiveType, prestoTypeOfDataType, prestoTypeOfHive } from './hive-types.js';

export interface DdlContext {
  catalog: HiveCatalog;
  user: string;
  /** Trino's query id of the statement (kept in the metadata as Trino keeps it). */
  queryId: string;
}

export function createSchema(statement: CreateSchema, schema: string, ctx: DdlContext): void {
  const { catalog } = ctx;
  const location = schemaLocationProperty(statement.properties, catalog.name);
  if (catalog.metastore.schema(schema)) {
    if (statement.notExists) return;
    throw new VivaceError('SCHEMA_ALREADY_EXISTS', `Schema '${catalog.name}.${schema}' already exists`);
  }
  const parameters: Record<string, string> = { trino_query_id: ctx.queryId };
  if (location !== undefined) {
    const path = resolveLocation(location, catalog.rules, 'INVALID_SCHEMA_PROPERTY');
    mkdirSync(path, { recursive: true });
    parameters.location = catalog.storedLocation(path);
  }
  catalog.metastore.createSchema(schema, { ownerName: ctx.user, ownerType: 'USER', parameters });
}

export function dropSchema(statement: DropSchema, schema: string, ctx: DdlContext): void {
  const { catalog } = ctx;
  if (!catalog.metastore.schema(schema)) {
    if (statement.exists) return;
    throw new VivaceError('SCHEMA_NOT_FOUND', `Schema '${catalog.name}.${schema}' does not exist`);
  }
  if (catalog.metastore.tableNames(schema).length > 0) throw new VivaceError('SCHEMA_NOT_EMPTY', `Cannot drop non-empty schema '${schema}'`);
  catalog.metastore.dropSchema(schema);
}

/** The column list of CREATE TABLE, as Hive columns (types checked as Trino's HiveTypeTranslator). */
function columnsOf(statement: CreateTable, catalogName: string): { columns: HiveColumn[]; types: PrestoType[] } {
  const columns: HiveColumn[] = [];
  const types: PrestoType[] = [];
  const seen = new Set<string>();
  for (const element of statement.elements) {
    if (element.type !== 'ColumnDefinition') throw new VivaceError('NOT_SUPPORTED', 'CREATE TABLE ... LIKE is not supported by this catalog');
    const name = columnName(element);
    if (seen.has(name)) throw new VivaceError('DUPLICATE_COLUMN_NAME', `Column name '${name}' specified more than once`);
    seen.add(name);
    if (!element.nullable) throw new VivaceError('NOT_SUPPORTED', `Catalog '${catalogName}' does not support non-null column for column name '${name}'`);
    if (element.properties.length > 0) throw new VivaceError('INVALID_COLUMN_PROPERTY', `Catalog '${catalogName}' column property '${fold(element.properties[0]!.name.value)}' does not exist`);
    const type = prestoTypeOfDataType(element.columnType);
    types.push(type);
    columns.push({ name, type: hiveTypeOf(type), ...(element.comment === undefined ? {} : { comment: element.comment }) });
  }
  return { columns, types };
}

const columnName = (c: ColumnDefinition) => fold(c.name.parts[c.name.parts.length - 1]!.value);

/**
 * The metadata a new table gets: checked as Trino's HiveMetadata checks a new table (partition keys last
 * and in order, CSV columns unbounded varchar, a readable format), its location created under the root.
 */
export function newTableMetadata(
  ctx: DdlContext, schema: string, table: string, columns: readonly HiveColumn[], types: readonly PrestoType[], propertyNodes: readonly Property[], comment: string | undefined,
): { metadata: Omit<TableMetadata, 'writerVersion'>; location: string; properties: HiveTableProperties; undo: () => void } {
  const { catalog } = ctx;
  const schemaMetadata = catalog.metastore.schema(schema);
  if (!schemaMetadata) throw new VivaceError('SCHEMA_NOT_FOUND', `Schema '${catalog.name}.${schema}' does not exist`);
  const properties = tableProperties(propertyNodes, catalog.name, catalog.config.storageFormat);
  checkReadableFormat(properties.format);
  const names = columns.map((c) => c.name);
  const missing = properties.partitionedBy.filter((p) => !names.includes(p));
  if (missing.length > 0) throw new VivaceError('INVALID_TABLE_PROPERTY', `Partition columns [${missing.join(', ')}] not present in schema`);
  if (properties.partitionedBy.length > 0 && properties.partitionedBy.length === columns.length) throw new VivaceError('INVALID_TABLE_PROPERTY', 'Table contains only partition columns');
  const tail = names.slice(names.length - properties.partitionedBy.length);
  if (tail.some((n, i) => n !== properties.partitionedBy[i])) {
    throw new VivaceError('HIVE_COLUMN_ORDER_MISMATCH', `Partition keys must be the last columns in the table and in the same order as the table properties: [${properties.partitionedBy.join(', ')}]`);
  }
  const dataCount = columns.length - properties.partitionedBy.length;
  for (let i = dataCount; i < columns.length; i++) {
    const base = types[i]!.base;
    if (base === 'array' || base === 'map' || base === 'row') throw new VivaceError('NOT_SUPPORTED', `Unsupported type [${formatType(types[i]!)}] for partition: ${names[i]}`);
  }
  if (properties.format === 'CSV') {
    const bad = columns.slice(0, dataCount).map((c, i) => ({ c, t: types[i]! })).filter(({ t }) => t.base !== 'varchar' || ('length' in t && t.length !== undefined));
    if (bad.length > 0) throw new VivaceError('NOT_SUPPORTED', `Hive CSV storage format only supports VARCHAR (unbounded). Unsupported columns: ${bad.map(({ c, t }) => `${c.name} ${formatType(t)}`).join(', ')}`);
  }
  if (properties.format === 'TEXTFILE' || properties.format === 'CSV') {
    const nested = columns.slice(0, dataCount).find((_, i) => ['array', 'map', 'row'].includes(types[i]!.base));
    if (nested) throw new VivaceError('NOT_SUPPORTED', `Column ${nested.name}: nested types in ${properties.format} tables are not supported by this catalog`);
  }
  let location: string;
  let external: string | undefined;
  let undo = () => undefined as void;
  if (properties.externalLocation !== undefined) {
    if (!catalog.config.nonManagedTableCreatesEnabled) throw new VivaceError('PERMISSION_DENIED', 'Cannot create non-managed Hive table');
    location = resolveLocation(properties.externalLocation, catalog.rules, 'INVALID_TABLE_PROPERTY');
    try {
      if (!statSync(location).isDirectory()) throw new VivaceError('INVALID_TABLE_PROPERTY', `External location must be a directory: ${properties.externalLocation}`);
    } catch (err) {
      if (err instanceof VivaceError) throw err;
      undo = createDirectory(location);
    }
    external = catalog.storedLocation(location);
  } else {
    const schemaLocation = schemaMetadata.parameters?.location;
    location = schemaLocation === undefined ? catalog.metastore.tableDirectory(schema, table) : join(catalog.location(schemaLocation), catalog.metastore.tableDirectory(schema, table).slice(catalog.metastore.schemaDirectory(schema).length + 1));
    if (hasVisibleEntries(location)) throw new VivaceError('HIVE_PATH_ALREADY_EXISTS', `Target directory for table '${schema}.${table}' already exists: ${catalog.storedLocation(location)}`);
  }
  const stored = storedProperties(properties);
  const parameters: Record<string, string> = { ...stored.parameters, trino_query_id: ctx.queryId };
  if (comment !== undefined) parameters.comment = comment;
  if (external === undefined && schemaMetadata.parameters?.location !== undefined) parameters.location = catalog.storedLocation(location);
  const metadata: Omit<TableMetadata, 'writerVersion'> = {
    owner: ctx.user,
    tableType: external === undefined ? 'MANAGED_TABLE' : 'EXTERNAL_TABLE',
    dataColumns: columns.slice(0, dataCount),
    partitionColumns: columns.slice(dataCount),
    parameters,
    storageFormat: properties.format,
    serdeParameters: stored.serdeParameters,
    ...(external === undefined ? {} : { externalLocation: external }),
    columnStatistics: {},
  };
  return { metadata, location, properties, undo };
}

/**
 * Creates `location` and its missing parents; returns how to remove what it created, each directory only
 * while empty (a statement that fails leaves no directory behind; another writer's files stay).
 */
export function createDirectory(location: string): () => void {
  const first = mkdirSync(location, { recursive: true });
  return () => {
    if (first === undefined) return;
    for (let directory = location; ; directory = dirname(directory)) {
      try {
        rmdirSync(directory);
      } catch {
        return;
      }
      if (directory === first || dirname(directory) === directory) return;
    }
  };
}

/** Runs `work`; when it fails, `undo` (then the failure goes on). */
export async function undoOnFailure<T>(undo: () => void, work: () => T | Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    undo();
    throw err;
  }
}

function hasVisibleEntries(directory: string): boolean {
  try {
    return readdirSync(directory).some((e) => !e.startsWith('.') && !e.startsWith('_'));
  } catch {
    return false;
  }
}

export function createTable(statement: CreateTable, schema: string, table: string, ctx: DdlContext): void {
  const { catalog } = ctx;
  if (catalog.metastore.table(schema, table)) {
    if (statement.notExists) return;
    throw new VivaceError('TABLE_ALREADY_EXISTS', `Table '${catalog.name}.${schema}.${table}' already exists`);
  }
  if (statement.replace) throw new VivaceError('NOT_SUPPORTED', 'Replacing tables is not supported by this catalog');
  const { columns, types } = columnsOf(statement, catalog.name);
  const { metadata, location, undo } = newTableMetadata(ctx, schema, table, columns, types, statement.properties, statement.comment);
  const undoTable = createDirectory(location);
  try {
    catalog.metastore.writeTable(schema, table, metadata, `Table '${catalog.name}.${schema}.${table}' already exists`);
  } catch (err) {
    undoTable();
    undo();
    throw err;
  }
}

/** DROP TABLE: the metadata goes first (the table is gone then); a managed table's files go after it, an external table's stay. */
export function dropTable(statement: DropTable, schema: string, table: string, ctx: DdlContext): void {
  const { catalog } = ctx;
  if (!catalog.metastore.schema(schema) && !statement.exists) throw new VivaceError('SCHEMA_NOT_FOUND', `Schema '${catalog.name}.${schema}' does not exist`);
  const resolved = catalog.resolve(schema, table);
  if (!resolved) {
    if (statement.exists) return;
    throw new VivaceError('TABLE_NOT_FOUND', `Table '${catalog.name}.${schema}.${table}' does not exist`);
  }
  const partitions = catalog.metastore.partitionNames(schema, table, resolved.partitionColumns.length);
  catalog.metastore.dropTableMetadata(schema, table, partitions);
  const metadataDirectory = catalog.metastore.tableDirectory(schema, table);
  if (resolved.metadata.tableType === 'MANAGED_TABLE') rmSync(resolved.location, { recursive: true, force: true });
  if (!hasVisibleEntries(metadataDirectory) && metadataDirectory !== resolved.location) rmSync(metadataDirectory, { recursive: true, force: true });
}

const ident = (name: string) => (/^[a-z_][a-z0-9_]*$/.test(name) ? name : `"${name.split('"').join('""')}"`);
const literal = (value: string) => `'${value.split("'").join("''")}'`;

/** SHOW CREATE TABLE as Trino's Hive connector prints it: columns, comment, then the properties by name. */
export function showCreateTable(schema: string, table: string, catalog: HiveCatalog): string {
  const resolved = catalog.resolve(schema, table);
  if (!resolved) throw new VivaceError('TABLE_NOT_FOUND', `Table '${catalog.name}.${schema}.${table}' does not exist`);
  const all = [...resolved.metadata.dataColumns, ...(resolved.metadata.partitionColumns ?? [])];
  const lines = all.map((c) => `   ${ident(c.name)} ${formatType(prestoTypeOfHive(parseHiveType(c.type)))}${c.comment === undefined || c.comment === null ? '' : ` COMMENT ${literal(c.comment)}`}`);
  const p = propertiesOf(resolved.metadata);
  const props: [string, string][] = [];
  if (p.csvEscape !== undefined) props.push(['csv_escape', literal(p.csvEscape)]);
  if (p.csvQuote !== undefined) props.push(['csv_quote', literal(p.csvQuote)]);
  if (p.csvSeparator !== undefined) props.push(['csv_separator', literal(p.csvSeparator)]);
  if (p.externalLocation !== undefined) props.push(['external_location', literal(p.externalLocation)]);
  props.push(['format', literal(p.format)]);
  if (p.nullFormat !== undefined) props.push(['null_format', literal(p.nullFormat)]);
  if (p.partitionedBy.length > 0) props.push(['partitioned_by', `ARRAY[${p.partitionedBy.map(literal).join(',')}]`]);
  if (p.skipHeaderLineCount !== undefined) props.push(['skip_header_line_count', String(p.skipHeaderLineCount)]);
  if (p.textfileFieldSeparator !== undefined) props.push(['textfile_field_separator', literal(p.textfileFieldSeparator)]);
  if (p.textfileFieldSeparatorEscape !== undefined) props.push(['textfile_field_separator_escape', literal(p.textfileFieldSeparatorEscape)]);
  const comment = resolved.metadata.parameters?.comment;
  return [
    `CREATE TABLE ${[catalog.name, schema, table].map(ident).join('.')} (`,
    lines.join(',\n'),
    ')',
    ...(comment === undefined ? [] : [`COMMENT ${literal(comment)}`]),
    'WITH (',
    props.map(([k, v]) => `   ${k} = ${v}`).join(',\n'),
    ')',
  ].join('\n');
}
