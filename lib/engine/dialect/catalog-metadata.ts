// Looks up catalogs, schemas and tables in DuckDB's catalog functions, resolving names the way Presto
// does (session catalog and schema for partial names) and failing with Presto's *_NOT_FOUND errors.
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Session } from '../../protocol/types.js';
import { VivaceError } from '../../protocol/vivace-error.js';
import { CatalogNames } from './catalog-names.js';
import { TPCH_CATALOG, TPCH_LISTED_SCHEMAS, TPCH_TABLE_NAMES, tpchScaleFactor } from '../../connectors/tpch/tpch-metadata.js';

/** Every catalog has one, as in Presto; served by information-schema.ts. */
export const INFORMATION_SCHEMA = 'information_schema';
export const INFORMATION_SCHEMA_TABLES = ['columns', 'schemata', 'tables', 'views'];

export interface ResolvedTable {
  catalog: string;
  schema: string;
  table: string;
  /** DuckDB's names (database, schema, table as stored). */
  database: string;
  duckdbSchema: string;
  duckdbTable: string;
  isView: boolean;
  comment: string | null;
}

export async function rows(connection: DuckDBConnection, sql: string, params: string[] = []): Promise<unknown[][]> {
  const reader = await connection.runAndReadAll(sql, params);
  return reader.getRows() as unknown[][];
}

/** Presto names of all catalogs, sorted. */
export async function listCatalogs(connection: DuckDBConnection): Promise<string[]> {
  const names = (await rows(connection, 'SELECT database_name FROM duckdb_databases()')).map((r) => CatalogNames.prestoName(String(r[0])));
  return names.filter((n): n is string => n !== undefined).sort();
}

/** The DuckDB database of catalog `name`; CATALOG_NOT_FOUND when there is none. */
export async function resolveCatalog(connection: DuckDBConnection, name: string): Promise<string> {
  const database = CatalogNames.duckdbName(name);
  const found = await rows(connection, 'SELECT database_name FROM duckdb_databases() WHERE lower(database_name) = lower($1)', [database]);
  const stored = found[0] === undefined ? undefined : String(found[0][0]);
  if (stored === undefined || CatalogNames.prestoName(stored) === undefined) {
    throw new VivaceError('CATALOG_NOT_FOUND', `Catalog '${name}' does not exist`);
  }
  return stored;
}

/**
 * Presto schemas of a catalog, sorted: DuckDB's schemas plus information_schema. DuckDB's always-present
 * `main` is hidden while it is empty (Presto catalogs have no such schema).
 */
export async function listSchemas(connection: DuckDBConnection, database: string): Promise<string[]> {
  // The tpch connector lists its fixed names; others it accepts (sf10, sf0.1) are not listed, read or not.
  if (database === TPCH_CATALOG) return [...TPCH_LISTED_SCHEMAS, INFORMATION_SCHEMA].sort();
  const found = await rows(
    connection,
    `SELECT s.schema_name FROM duckdb_schemas() s
     WHERE s.database_name = $1 AND s.schema_name NOT IN ('main', 'pg_catalog', 'information_schema')
       OR (s.database_name = $1 AND s.schema_name = 'main' AND EXISTS (
         SELECT 1 FROM duckdb_tables() t WHERE t.database_name = $1 AND t.schema_name = 'main'
         UNION ALL SELECT 1 FROM duckdb_views() v WHERE v.database_name = $1 AND v.schema_name = 'main' AND NOT v.internal))`,
    [database],
  );
  const names = new Set(found.map((r) => String(r[0])));
  names.add(INFORMATION_SCHEMA);
  return [...names].sort();
}

/** The schema as DuckDB stores it; SCHEMA_NOT_FOUND when missing. information_schema is virtual. */
export async function resolveSchema(connection: DuckDBConnection, database: string, catalog: string, schema: string): Promise<string> {
  if (schema.toLowerCase() === INFORMATION_SCHEMA) return INFORMATION_SCHEMA;
  // Every name the tpch connector accepts is a schema, whether or not DuckDB holds it yet.
  if (database === TPCH_CATALOG) {
    if (tpchScaleFactor(schema) === undefined) throw new VivaceError('SCHEMA_NOT_FOUND', `Schema '${catalog}.${schema}' does not exist`);
    return schema.toLowerCase();
  }
  const found = await rows(connection, 'SELECT schema_name FROM duckdb_schemas() WHERE database_name = $1 AND lower(schema_name) = lower($2)', [database, schema]);
  if (found[0] === undefined) throw new VivaceError('SCHEMA_NOT_FOUND', `Schema '${catalog}.${schema}' does not exist`);
  return String(found[0][0]);
}

/** catalog and schema of a `[catalog.]schema` name, defaulting to the session's. */
export function qualifySchema(parts: string[] | undefined, session: Session): { catalog: string; schema: string } {
  const catalog = parts && parts.length === 2 ? parts[0]! : session.catalog;
  const schema = parts ? parts[parts.length - 1]! : session.schema;
  if (catalog === undefined) throw new VivaceError('MISSING_CATALOG_NAME', 'Catalog must be specified when session catalog is not set');
  if (schema === undefined) throw new VivaceError('MISSING_SCHEMA_NAME', 'Schema must be specified when session schema is not set');
  return { catalog, schema };
}

/** A `[[catalog.]schema.]table` name resolved to an existing table or view. */
export async function resolveTable(connection: DuckDBConnection, parts: string[], session: Session): Promise<ResolvedTable> {
  const table = parts[parts.length - 1]!;
  const { catalog, schema } = qualifySchema(parts.length > 1 ? parts.slice(0, -1) : undefined, session);
  const database = await resolveCatalog(connection, catalog);
  const duckdbSchema = await resolveSchema(connection, database, catalog, schema);
  if (database === TPCH_CATALOG && duckdbSchema !== INFORMATION_SCHEMA) return tpchTable(catalog, schema, table, duckdbSchema);
  const found = await rows(
    connection,
    `SELECT table_name, false AS is_view, comment FROM duckdb_tables() WHERE database_name = $1 AND schema_name = $2 AND lower(table_name) = lower($3)
     UNION ALL
     SELECT view_name, true, comment FROM duckdb_views() WHERE database_name = $1 AND schema_name = $2 AND lower(view_name) = lower($3) AND NOT internal`,
    [database, duckdbSchema, table],
  );
  const hit = found[0];
  if (!hit) throw new VivaceError('TABLE_NOT_FOUND', `Table '${catalog}.${schema}.${table}' does not exist`);
  return {
    catalog,
    schema,
    table,
    database,
    duckdbSchema,
    duckdbTable: String(hit[0]),
    isView: hit[1] === true && !isConnectorCatalog(database),
    comment: hit[2] === null || hit[2] === undefined ? null : String(hit[2]),
  };
}

/** A table of the tpch connector: its tables are in every schema it accepts (their metadata is tpch-metadata.ts's). */
function tpchTable(catalog: string, schema: string, table: string, duckdbSchema: string): ResolvedTable {
  const name = table.toLowerCase();
  if (!TPCH_TABLE_NAMES.includes(name)) throw new VivaceError('TABLE_NOT_FOUND', `Table '${catalog}.${schema}.${table}' does not exist`);
  return { catalog, schema, table, database: TPCH_CATALOG, duckdbSchema, duckdbTable: name, isView: false, comment: null };
}

/**
 * Catalogs served by a connector (tpch, system) build their tables as DuckDB views over generated data
 * or live snapshots; to Presto users they are tables, as in Presto's tpch and system connectors.
 */
export function isConnectorCatalog(duckdbDatabase: string): boolean {
  return duckdbDatabase === TPCH_CATALOG || duckdbDatabase === CatalogNames.duckdbName('system') || VIEW_CATALOGS.has(duckdbDatabase);
}

/** Other catalogs whose tables are views over files (the hive catalogs' mirrors). */
const VIEW_CATALOGS = new Set<string>();

/** Marks a DuckDB database as a connector's (its views are tables to users): a hive catalog's mirror. */
export function registerConnectorCatalog(duckdbDatabase: string): void {
  VIEW_CATALOGS.add(duckdbDatabase);
}

/** A hive catalog's mirror detached (DROP CATALOG). */
export function unregisterConnectorCatalog(duckdbDatabase: string): void {
  VIEW_CATALOGS.delete(duckdbDatabase);
}

export const quoteIdent = (s: string): string => `"${s.replace(/"/g, '""')}"`;

/** `"db"."schema"."table"` for DuckDB. */
export function duckdbTableRef(t: ResolvedTable): string {
  return `${quoteIdent(t.database)}.${quoteIdent(t.duckdbSchema)}.${quoteIdent(t.duckdbTable)}`;
}
