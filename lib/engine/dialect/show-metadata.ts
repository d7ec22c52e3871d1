// SHOW CATALOGS / SCHEMAS / TABLES / COLUMNS (and DESCRIBE t) / CREATE TABLE: rows and Presto's column
// names (Trino's ShowQueriesRewrite), read from DuckDB's catalog functions.
import { DECLARED_TYPE_FUNCTION, declaredTypeOfText } from '../catalogs/declared-columns.js';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { OutputColumn, Session } from '../../protocol/types.js';
import { VivaceError } from '../../protocol/vivace-error.js';
import { formatType } from '../../protocol/presto-type.js';
import { dialectOf } from '../../protocol/header-prefix.js';
import { prestoTypeOf } from '../../connectors/duckdb-types.js';
import type { LikeFilter } from '../../sql/dialect-statement.js';
import type { QualifiedTable } from '../../sql/names.js';
import { likeMatcher } from './like-pattern.js';
import type { Cell } from './values-plan.js';
import {
  duckdbTableRef,
  INFORMATION_SCHEMA,
  INFORMATION_SCHEMA_TABLES,
  listCatalogs,
  listSchemas,
  qualifySchema,
  resolveCatalog,
  resolveSchema,
  resolveTable,
  rows,
  type ResolvedTable,
} from './catalog-metadata.js';
import { informationSchemaColumns } from './information-schema.js';
import { TPCH_CATALOG, TPCH_TABLE_NAMES, tpchTableColumns } from '../../connectors/tpch/tpch-metadata.js';

export interface ShowResult {
  columns: OutputColumn[];
  rows: Cell[][];
}

export const varcharColumns = (...names: string[]): OutputColumn[] => names.map((name) => ({ name, type: { base: 'varchar' } }));

export async function showCatalogs(connection: DuckDBConnection, like?: LikeFilter, visible: (catalog: string) => boolean = () => true): Promise<ShowResult> {
  const match = likeMatcher(like);
  return { columns: varcharColumns('Catalog'), rows: (await listCatalogs(connection)).filter((c) => match(c) && visible(c)).map((c) => [c]) };
}

export async function showSchemas(connection: DuckDBConnection, session: Session, catalog?: string, like?: LikeFilter, visible: (catalog: string, schema: string) => boolean = () => true): Promise<ShowResult> {
  const name = catalog ?? session.catalog;
  if (name === undefined) throw new VivaceError('MISSING_CATALOG_NAME', 'Catalog must be specified when session catalog is not set');
  const database = await resolveCatalog(connection, name);
  const match = likeMatcher(like);
  return { columns: varcharColumns('Schema'), rows: (await listSchemas(connection, database)).filter((s) => match(s) && visible(name.toLowerCase(), s.toLowerCase())).map((s) => [s]) };
}

export async function showTables(connection: DuckDBConnection, session: Session, schemaName?: string[], like?: LikeFilter, visible: (table: QualifiedTable) => boolean = () => true): Promise<ShowResult> {
  const { catalog, schema } = qualifySchema(schemaName, session);
  const database = await resolveCatalog(connection, catalog);
  const duckdbSchema = await resolveSchema(connection, database, catalog, schema);
  const match = likeMatcher(like);
  const names =
    duckdbSchema === INFORMATION_SCHEMA
      ? INFORMATION_SCHEMA_TABLES
      : database === TPCH_CATALOG
      ? TPCH_TABLE_NAMES
      : (
          await rows(
            connection,
            `SELECT table_name FROM duckdb_tables() WHERE database_name = $1 AND schema_name = $2
             UNION SELECT view_name FROM duckdb_views() WHERE database_name = $1 AND schema_name = $2 AND NOT internal`,
            [database, duckdbSchema],
          )
        ).map((r) => String(r[0]));
  const shown = (t: string) => visible({ catalog: catalog.toLowerCase(), schema: duckdbSchema.toLowerCase(), table: t.toLowerCase() });
  return { columns: varcharColumns('Table'), rows: names.filter((t) => match(t) && shown(t)).sort().map((t) => [t]) };
}

interface ColumnInfo {
  name: string;
  type: string;
  nullable: boolean;
  comment: string | null;
}

/** Columns of a table with Presto type names (from the types DuckDB reports for `SELECT *`). */
async function tableColumns(connection: DuckDBConnection, table: ResolvedTable, session: Session): Promise<ColumnInfo[]> {
  const dialect = dialectOf(session.prefix);
  if (table.duckdbSchema === INFORMATION_SCHEMA) {
    return informationSchemaColumns(table.duckdbTable).map((c) => ({ name: c.name, type: formatType(c.type, dialect), nullable: true, comment: null }));
  }
  // The tpch connector declares its columns (varchar(44), where DuckDB keeps varchar), none nullable.
  const tpch = table.database === TPCH_CATALOG ? tpchTableColumns(table.duckdbTable) : undefined;
  if (tpch) return tpch.map((c) => ({ name: c.name, type: formatType(c.type, dialect), nullable: false, comment: null }));
  const prepared = await connection.prepare(`SELECT * FROM ${duckdbTableRef(table)}`);
  try {
    const details = await rows(
      connection,
      `SELECT column_name, is_nullable, comment, ${DECLARED_TYPE_FUNCTION}(database_name, schema_name, table_name, column_name)
       FROM duckdb_columns() WHERE database_name = $1 AND schema_name = $2 AND table_name = $3 ORDER BY column_index`,
      [table.database, table.duckdbSchema, table.duckdbTable],
    );
    const out: ColumnInfo[] = [];
    for (let i = 0; i < prepared.columnCount; i++) {
      const detail = details[i];
      out.push({
        name: prepared.columnName(i),
        // A memory table column's declared type where DuckDB's loses it (varchar(n), char(n), time(p), ...).
        type: formatType((detail && typeof detail[3] === 'string' ? declaredTypeOfText(detail[3]) : undefined) ?? prestoTypeOf(prepared.columnType(i)), dialect),
        nullable: detail ? detail[1] !== false : true,
        comment: detail && detail[2] !== null && detail[2] !== undefined ? String(detail[2]) : null,
      });
    }
    return out;
  } finally {
    prepared.destroySync();
  }
}

/** SHOW COLUMNS FROM t and DESCRIBE t: Column, Type, Extra, Comment (Extra and Comment '' when absent). */
export async function showColumns(
  connection: DuckDBConnection, session: Session, name: string[], like?: LikeFilter,
  visible: (table: QualifiedTable, column: string) => boolean = () => true,
  extra: (table: QualifiedTable, column: string) => string | undefined = () => undefined,
): Promise<ShowResult> {
  const table = await resolveVirtualOrTable(connection, name, session);
  const match = likeMatcher(like);
  const qualified = { catalog: table.catalog.toLowerCase(), schema: table.duckdbSchema.toLowerCase(), table: table.duckdbTable.toLowerCase() };
  const columns = (await tableColumns(connection, table, session)).filter((c) => match(c.name) && visible(qualified, c.name));
  return {
    columns: varcharColumns('Column', 'Type', 'Extra', 'Comment'),
    rows: columns.map((c) => [c.name, c.type, extra(qualified, c.name) ?? '', c.comment ?? '']),
  };
}

/** SHOW CREATE TABLE: the table as a Presto CREATE TABLE statement (SqlFormatter's layout). */
export async function showCreateTable(connection: DuckDBConnection, session: Session, name: string[]): Promise<ShowResult> {
  const table = await resolveVirtualOrTable(connection, name, session);
  const qualified = `${table.catalog}.${table.schema}.${table.table}`;
  if (table.isView) throw new VivaceError('NOT_SUPPORTED', `Relation '${qualified}' is a view, not a table`);
  const columns = await tableColumns(connection, table, session);
  const lines = columns.map(
    (c) => `   ${prestoIdent(c.name)} ${c.type}${c.nullable ? '' : ' NOT NULL'}${c.comment === null ? '' : ` COMMENT ${prestoString(c.comment)}`}`,
  );
  const header = `CREATE TABLE ${[table.catalog, table.schema, table.duckdbTable].map(prestoIdent).join('.')} (`;
  const comment = table.comment === null ? '' : `\nCOMMENT ${prestoString(table.comment)}`;
  return { columns: varcharColumns('Create Table'), rows: [[`${header}\n${lines.join(',\n')}\n)${comment}`]] };
}

/**
 * SHOW CREATE VIEW: the view as CREATE VIEW gave it, in Trino SQL (`viewSql`: the engine keeps it;
 * DuckDB keeps only the translation). A table is NOT_SUPPORTED, as SHOW CREATE TABLE of a view.
 */
export async function showCreateView(
  connection: DuckDBConnection,
  session: Session,
  name: string[],
  viewSql: (view: { catalog: string; schema: string; table: string }) => string | undefined,
): Promise<ShowResult> {
  const view = await resolveVirtualOrTable(connection, name, session);
  const qualified = `${view.catalog}.${view.schema}.${view.table}`;
  if (!view.isView) throw new VivaceError('NOT_SUPPORTED', `Relation '${qualified}' is a table, not a view`);
  const sql = viewSql({ catalog: view.catalog.toLowerCase(), schema: view.duckdbSchema.toLowerCase(), table: view.duckdbTable.toLowerCase() });
  if (sql === undefined) throw new VivaceError('NOT_SUPPORTED', `View '${qualified}' was not created through this server: its Trino definition is unknown`);
  const header = `CREATE VIEW ${[view.catalog, view.schema, view.duckdbTable].map(prestoIdent).join('.')} SECURITY DEFINER AS`;
  return { columns: varcharColumns('Create View'), rows: [[`${header}\n${sql}`]] };
}

/** Tables, plus the virtual information_schema tables of any catalog. */
async function resolveVirtualOrTable(connection: DuckDBConnection, name: string[], session: Session): Promise<ResolvedTable> {
  const schemaPart = name.length > 1 ? name[name.length - 2]! : session.schema;
  const tableName = name[name.length - 1]!;
  if (schemaPart?.toLowerCase() === INFORMATION_SCHEMA && INFORMATION_SCHEMA_TABLES.includes(tableName.toLowerCase())) {
    const { catalog } = qualifySchema(name.length > 1 ? name.slice(0, -1) : undefined, session);
    const database = await resolveCatalog(connection, catalog);
    const table = tableName.toLowerCase();
    return { catalog, schema: INFORMATION_SCHEMA, table, database, duckdbSchema: INFORMATION_SCHEMA, duckdbTable: table, isView: false, comment: null };
  }
  return resolveTable(connection, name, session);
}

/** Identifiers as Trino's formatter prints them: bare when lower-case word characters, else quoted. */
function prestoIdent(name: string): string {
  return /^[a-z_][a-z0-9_]*$/.test(name) ? name : `"${name.replace(/"/g, '""')}"`;
}

function prestoString(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}
