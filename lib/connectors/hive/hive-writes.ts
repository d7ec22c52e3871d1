// INSERT and CREATE TABLE AS into a hive table: the query's rows written by DuckDB's COPY ... TO into a
// hidden staging directory inside the table (file names `<queryId>_<uuid>` as Trino's, never user text;
// partitions by PARTITION_BY), then committed atomically (hive-commit.ts): renamed under Trino's partition
// names, new partitions registered, a CTAS's table metadata written last. The count of rows is the result.
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { CreateTableAsSelect, Insert } from '../../sql/ast.js';
import { fold } from '../../sql/names.js';
import { quoteIdentifier, quoteString } from '../../sql/sql-formatter.js';
import type { PrestoType } from '../../protocol/types.js';
import { formatType } from '../../protocol/presto-type.js';
import { VivaceError } from '../../protocol/vivace-error.js';
import type { InsertExistingPartitionsBehavior } from '../catalog.types.js';
import type { ResolvedHiveTable } from './hive-catalog.js';
import { commit, filesBelow, recover, stagingName, type CommitMarker } from './hive-commit.js';
import { createDirectory, newTableMetadata, undoOnFailure, type DdlContext } from './hive-ddl.js';
import type { HiveColumn, TableMetadata } from './hive-metastore.js';
import { listDataFiles } from './hive-files.js';
import { duckdbSegmentValue, partitionSegment } from './partition-names.js';
import { propertiesOf, type HiveTableProperties } from './hive-table-properties.js';
import { duckdbTypeOfHive, hiveTypeOf, parseHiveType, prestoTypeOfHive, type HiveType } from './hive-types.js';

export interface WriteContext extends DdlContext {
  connection: DuckDBConnection;
  /** The session's properties (`<catalog>.insert_existing_partitions_behavior`). */
  properties: Readonly<Record<string, string>>;
  /** The DuckDB SQL of the statement's query, translated from the user's tree. */
  querySql: string;
  /** The query's output: Trino names and types, known by preparing it. */
  queryColumns: { names: string[]; types: PrestoType[] };
}

interface Target {
  schema: string;
  table: string;
  location: string;
  dataColumns: { name: string; hive: HiveType }[];
  partitionColumns: { name: string; hive: HiveType }[];
  properties: HiveTableProperties;
  metadata: Omit<TableMetadata, 'writerVersion'>;
}

const COMPRESSION: Readonly<Record<string, string>> = { NONE: 'uncompressed', SNAPPY: 'snappy', LZ4: 'lz4_raw', ZSTD: 'zstd', GZIP: 'gzip' };

/** COPY's options for the table's format (text formats uncompressed: their files carry no suffix to tell a reader). */
function copyOptions(target: Target, codec: string): string[] {
  const p = target.properties;
  switch (p.format) {
    case 'PARQUET':
      return ['FORMAT parquet', `COMPRESSION ${COMPRESSION[codec] ?? 'snappy'}`];
    case 'JSON':
      return ['FORMAT json'];
    case 'CSV':
      return ['FORMAT csv', `HEADER ${(p.skipHeaderLineCount ?? 0) === 1}`, `DELIMITER ${quoteString(p.csvSeparator ?? ',')}`, `QUOTE ${quoteString(p.csvQuote ?? '"')}`, `ESCAPE ${quoteString(p.csvEscape ?? '\\')}`];
    default:
      return ['FORMAT csv', 'HEADER false', `DELIMITER ${quoteString(p.textfileFieldSeparator ?? '\u0001')}`, "QUOTE ''", `ESCAPE ${quoteString(p.textfileFieldSeparatorEscape ?? '')}`, `NULLSTR ${quoteString(p.nullFormat ?? '\\N')}`];
  }
}

/** Trino's insert_existing_partitions_behavior: the session's catalog property, else the catalog's. */
function insertBehavior(ctx: WriteContext): InsertExistingPartitionsBehavior {
  const raw = ctx.properties[`${ctx.catalog.name}.insert_existing_partitions_behavior`];
  if (raw === undefined) return ctx.catalog.config.insertExistingPartitionsBehavior;
  const value = raw.toUpperCase();
  if (value !== 'APPEND' && value !== 'OVERWRITE' && value !== 'ERROR') throw new VivaceError('INVALID_SESSION_PROPERTY', `Invalid value '${raw}' for session property '${ctx.catalog.name}.insert_existing_partitions_behavior'`);
  return value;
}

/**
 * A value written into a varchar(n) or char(n) column: longer than n but for trailing spaces fails as Trino's
 * INSERT fails (the value's length standing for its type's, as the memory catalog's check says it); a
 * char(n) value loses its trailing spaces, which readers pad back. Other types: as they are.
 */
function bounded(sql: string, hive: HiveType): string {
  if ((hive.name !== 'varchar' && hive.name !== 'char') || hive.numbers.length === 0) return sql;
  const length = hive.numbers[0]!;
  const message = `'Cannot truncate non-space characters when casting from varchar(' || length(${sql}) || ') to ${hive.name}(${length}) on INSERT'`;
  return `CASE WHEN length(rtrim(${sql}, ' ')) > ${length} THEN error(${message}) ELSE ${hive.name === 'char' ? `rtrim(${sql}, ' ')` : sql} END`;
}

/**
 * Writes the rows of `ctx.querySql` into `target` (the query's columns by position onto `columns`, the
 * others NULL) and commits them; `ctas`: the table to register with them. Returns the rows written.
 */
async function writeRows(ctx: WriteContext, target: Target, columns: readonly string[], ctas: boolean): Promise<number> {
  const source = columns.map((_, i) => quoteIdentifier(`_c${i}`));
  const value = (c: { name: string; hive: HiveType }) => {
    const at = columns.indexOf(c.name);
    if (at < 0) return `CAST(NULL AS ${duckdbTypeOfHive(c.hive)})`;
    const cast = `CAST(q.${source[at]} AS ${duckdbTypeOfHive(c.hive)})`;
    // A CTAS's columns are the query's own types: its values fit them.
    return ctas ? cast : bounded(cast, c.hive);
  };
  const select = [
    ...target.dataColumns.map((c) => `${value(c)} AS ${quoteIdentifier(c.name)}`),
    // A partition value is written as its text; '' is NULL's partition in Hive.
    ...target.partitionColumns.map((c) => `NULLIF(CAST(${value(c)} AS VARCHAR), '') AS ${quoteIdentifier(c.name)}`),
  ];
  const query = `SELECT ${select.join(', ')} FROM (${ctx.querySql}) AS q(${source.join(', ')})`;
  recover(target.location, ctx.catalog.metastore);
  const staging = stagingName(ctx.queryId);
  const stagingPath = join(target.location, staging);
  mkdirSync(stagingPath, { recursive: true });
  const prefix = `${ctx.queryId}_`;
  const options = copyOptions(target, ctx.catalog.config.compressionCodec);
  const partitioned = target.partitionColumns.length > 0;
  const copy = partitioned
    ? `COPY (${query}) TO ${quoteString(stagingPath)} (${[...options, `PARTITION_BY (${target.partitionColumns.map((c) => quoteIdentifier(c.name)).join(', ')})`, `FILENAME_PATTERN ${quoteString(`${prefix}{uuid}`)}`].join(', ')})`
    : `COPY (${query}) TO ${quoteString(join(stagingPath, `${prefix}${randomUUID()}`))} (${options.join(', ')})`;
  let rows: number;
  try {
    const reader = await ctx.connection.runAndReadAll(copy);
    rows = Number(reader.getRows()[0]?.[0] ?? 0);
  } catch (err) {
    rmSync(stagingPath, { recursive: true, force: true });
    throw err;
  }
  const written = rows === 0 && !ctas ? [] : filesBelow(stagingPath);
  const renames: [string, string][] = [];
  const partitions = new Set<string>();
  for (const file of written) {
    const segments = file.split('/');
    const name = segments.pop()!;
    // DuckDB's `k=v` segments (its own escaping) renamed under Trino's.
    const partition = segments.map((s, i) => partitionSegment(target.partitionColumns[i]!.name, duckdbSegmentValue(s.slice(s.indexOf('=') + 1)))).join('/');
    const base = name.includes('.') ? name.slice(0, name.indexOf('.')) : name;
    if (partitioned) partitions.add(partition);
    renames.push([`${staging}/${file}`, partitioned ? `${partition}/${base}` : base]);
  }
  const deletes: string[] = [];
  if (partitioned && !ctas) {
    const registered = new Set(ctx.catalog.metastore.partitionNames(target.schema, target.table, target.partitionColumns.length));
    const existing = [...partitions].filter((p) => registered.has(p));
    const behavior = existing.length > 0 ? insertBehavior(ctx) : 'APPEND';
    if (behavior === 'ERROR') {
      rmSync(stagingPath, { recursive: true, force: true });
      throw new VivaceError('HIVE_PARTITION_READ_ONLY', `Cannot insert into an existing partition of Hive table: ${existing[0]}`);
    }
    if (behavior === 'OVERWRITE') {
      for (const p of existing) for (const f of listDataFiles(join(target.location, p), false)) deletes.push(f.path.slice(target.location.length + 1));
    }
  }
  const marker: CommitMarker = {
    version: 1, staging, renames, deletes, partitions: [...partitions], schema: target.schema, tableName: target.table,
    ...(partitioned ? { partitionMetadata: { columns: target.metadata.dataColumns, parameters: { trino_query_id: ctx.queryId }, storageFormat: target.properties.format, serdeParameters: target.metadata.serdeParameters } } : {}),
    ...(ctas ? { table: { schema: target.schema, name: target.table, metadata: target.metadata } } : {}),
  };
  commit(target.location, marker, ctx.catalog.metastore);
  return rows;
}

function targetOf(resolved: ResolvedHiveTable): Target {
  return {
    schema: resolved.schema, table: resolved.table, location: resolved.location, dataColumns: resolved.dataColumns,
    partitionColumns: resolved.partitionColumns, properties: propertiesOf(resolved.metadata), metadata: resolved.metadata,
  };
}

export async function insertInto(statement: Insert, schema: string, table: string, ctx: WriteContext): Promise<number> {
  const { catalog } = ctx;
  if (!catalog.metastore.schema(schema)) throw new VivaceError('SCHEMA_NOT_FOUND', `Schema '${catalog.name}.${schema}' does not exist`);
  const resolved = catalog.resolve(schema, table);
  if (!resolved) throw new VivaceError('TABLE_NOT_FOUND', `Table '${catalog.name}.${schema}.${table}' does not exist`);
  if (resolved.metadata.tableType !== 'MANAGED_TABLE' && !catalog.config.nonManagedTableWritesEnabled) throw new VivaceError('NOT_SUPPORTED', 'Cannot write to non-managed Hive table');
  const target = targetOf(resolved);
  if ((target.properties.skipHeaderLineCount ?? 0) > 1) throw new VivaceError('NOT_SUPPORTED', 'Inserting into Hive table with value of skip.header.line.count property greater than 1 is not supported');
  const all = [...resolved.dataColumns, ...resolved.partitionColumns];
  const names = all.map((c) => c.name);
  const columns = statement.columns ? statement.columns.map((c) => fold(c.value)) : names;
  for (const c of columns) if (!names.includes(c)) throw new VivaceError('COLUMN_NOT_FOUND', `Insert column name does not exist: ${c}`);
  if (new Set(columns).size !== columns.length) throw new VivaceError('DUPLICATE_COLUMN_NAME', `Insert column name is specified more than once: ${columns.find((c, i) => columns.indexOf(c) !== i)}`);
  const types = ctx.queryColumns.types;
  if (types.length !== columns.length) {
    const tableTypes = columns.map((c) => formatType(prestoTypeOfHive(all.find((a) => a.name === c)!.hive)));
    throw new VivaceError('TYPE_MISMATCH', `Insert query has mismatched column types: Table: [${tableTypes.join(', ')}], Query: [${types.map((t) => formatType(t)).join(', ')}]`);
  }
  return writeRows(ctx, target, columns, false);
}

/** CREATE TABLE AS: the table's columns from the query's output; its metadata is committed with the files, last. */
export async function createTableAs(statement: CreateTableAsSelect, schema: string, table: string, ctx: WriteContext): Promise<number | undefined> {
  const { catalog } = ctx;
  if (catalog.metastore.schema(schema) && catalog.metastore.table(schema, table)) {
    if (statement.notExists) return 0;
    throw new VivaceError('TABLE_ALREADY_EXISTS', `Destination table '${catalog.name}.${schema}.${table}' already exists`);
  }
  if (statement.replace) throw new VivaceError('NOT_SUPPORTED', 'Replacing tables is not supported by this catalog');
  const { names: queryNames, types } = ctx.queryColumns;
  const aliases = statement.columnAliases?.map((a) => fold(a.value));
  if (aliases && aliases.length !== types.length) throw new VivaceError('MISMATCHED_COLUMN_ALIASES', 'Column alias list has ' + aliases.length + ' entries but query has ' + types.length + ' columns');
  const names = aliases ?? queryNames.map((n) => n.toLowerCase());
  const columns: HiveColumn[] = names.map((name, i) => {
    if (name === '' || /^_col\d+$/.test(name)) throw new VivaceError('MISSING_COLUMN_NAME', `Column name not specified at position ${i + 1}`);
    return { name, type: hiveTypeOf(types[i]!) };
  });
  const repeated = names.find((n, i) => names.indexOf(n) !== i);
  if (repeated !== undefined) throw new VivaceError('DUPLICATE_COLUMN_NAME', `Column name '${repeated}' specified more than once`);
  const { metadata, location, properties, undo } = newTableMetadata(ctx, schema, table, columns, types, statement.properties, statement.comment);
  const dataCount = columns.length - properties.partitionedBy.length;
  const hive = (c: HiveColumn) => ({ name: c.name, hive: parseHiveType(c.type) });
  const target: Target = { schema, table, location, dataColumns: columns.slice(0, dataCount).map(hive), partitionColumns: columns.slice(dataCount).map(hive), properties, metadata };
  const undoTable = createDirectory(location);
  return undoOnFailure(() => (undoTable(), undo()), () => {
    if (!statement.withData) {
      catalog.metastore.writeTable(schema, table, metadata, `Destination table '${catalog.name}.${schema}.${table}' already exists`);
      return 0;
    }
    return writeRows(ctx, target, names, true);
  });
}
