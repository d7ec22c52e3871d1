// Presto's per-catalog information_schema (`memory.information_schema.tables`, or `information_schema.columns`
// in the session catalog). DuckDB has one information_schema for all catalogs, reachable only unqualified,
// with other column sets; the translation (lib/sql/duckdb-printer.ts) puts a query over duckdb_*() with
// Presto's columns where a statement names one of its tables.
import { isConnectorCatalog } from './catalog-metadata.js';
import type { OutputColumn, PrestoType } from '../../protocol/types.js';
import { CatalogNames } from './catalog-names.js';
import { DECLARED_TYPE_NAME_FUNCTION } from '../catalogs/declared-columns.js';
import { ZONED_PRECISIONS, zonedType } from '../../sql/zoned-timestamps.js';
import { TPCH_CATALOG, TPCH_TABLE_NAMES, tpchColumnsSql, tpchSchemasSql } from '../../connectors/tpch/tpch-metadata.js';
import { IPADDRESS_DUCKDB_TYPE } from '../../sql/ip-address.js';

const varchar: PrestoType = { base: 'varchar' };
const bigint: PrestoType = { base: 'bigint' };

const COLUMNS: Record<string, OutputColumn[]> = {
  schemata: [
    { name: 'catalog_name', type: varchar },
    { name: 'schema_name', type: varchar },
  ],
  tables: ['table_catalog', 'table_schema', 'table_name', 'table_type'].map((name) => ({ name, type: varchar })),
  views: ['table_catalog', 'table_schema', 'table_name', 'view_owner', 'view_definition'].map((name) => ({ name, type: varchar })),
  columns: [
    ...['table_catalog', 'table_schema', 'table_name', 'column_name'].map((name) => ({ name, type: varchar })),
    { name: 'ordinal_position', type: bigint },
    ...['column_default', 'is_nullable', 'data_type', 'comment', 'extra_info'].map((name) => ({ name, type: varchar })),
  ],
};

export function informationSchemaColumns(table: string): OutputColumn[] {
  return COLUMNS[table] ?? [];
}

const sqlString = (s: string) => `'${s.replace(/'/g, "''")}'`;

/** The project's zoned values (lib/sql/zoned-timestamps.ts) as the timestamp with time zone they stand for. */
const ZONED_DATA_TYPES = ZONED_PRECISIONS.map((p) => `  WHEN data_type = ${sqlString(zonedType(p))} THEN 'timestamp(${p}) with time zone'`).join('\n');

/** DuckDB type text to Presto's type name, for the common types (nested types keep DuckDB's spelling). */
const DATA_TYPE = `CASE
  WHEN data_type = 'FLOAT' THEN 'real'
  WHEN data_type = 'BLOB' THEN 'varbinary'
  WHEN data_type IN ('HUGEINT', 'UHUGEINT') THEN 'decimal(38,0)'
  WHEN data_type = 'UBIGINT' THEN 'decimal(20,0)'
  WHEN data_type = 'UINTEGER' THEN 'bigint'
  WHEN data_type = 'USMALLINT' THEN 'integer'
  WHEN data_type = 'UTINYINT' THEN 'smallint'
  WHEN data_type = 'TIMESTAMP' THEN 'timestamp(6)'
  WHEN data_type = 'TIMESTAMP_MS' THEN 'timestamp(3)'
  WHEN data_type = 'TIMESTAMP_S' THEN 'timestamp(0)'
  WHEN data_type = 'TIMESTAMP_NS' THEN 'timestamp(9)'
  WHEN data_type = 'TIMESTAMP WITH TIME ZONE' THEN 'timestamp(6) with time zone'
${ZONED_DATA_TYPES}
  WHEN data_type = 'TIME' THEN 'time(6)'
  WHEN data_type = 'TIME WITH TIME ZONE' THEN 'time(6) with time zone'
  WHEN data_type = 'INTERVAL' THEN 'interval day to second'
  WHEN data_type = ${sqlString(IPADDRESS_DUCKDB_TYPE.replaceAll('"', ''))} THEN 'ipaddress'
  ELSE lower(data_type) END`;

/**
 * tpch's, from the connector's declarations as Trino lists them: the listed schemas only (not sf10 or
 * sf0.1, read or not), their eight tables, and each column's type with its varchar length, none nullable.
 */
function tpchSubquery(table: string, cat: string): string {
  switch (table) {
    case 'schemata':
      return `SELECT ${cat} AS catalog_name, schema_name FROM ${tpchSchemasSql('s')} UNION ALL SELECT ${cat}, 'information_schema'`;
    case 'tables':
      return `SELECT ${cat} AS table_catalog, s.schema_name AS table_schema, t.table_name, 'BASE TABLE' AS table_type
        FROM ${tpchSchemasSql('s')} CROSS JOIN (VALUES ${TPCH_TABLE_NAMES.map((t) => `(${sqlString(t)})`).join(', ')}) AS t(table_name)`;
    case 'views':
      return `SELECT ${cat} AS table_catalog, ${['table_schema', 'table_name', 'view_owner', 'view_definition'].map((c) => `NULL::VARCHAR AS ${c}`).join(', ')} WHERE false`;
    default:
      return `SELECT ${cat} AS table_catalog, s.schema_name AS table_schema, c.table_name, c.column_name, c.ordinal_position::BIGINT AS ordinal_position,
        NULL::VARCHAR AS column_default, 'NO' AS is_nullable, c.data_type, NULL::VARCHAR AS comment, NULL::VARCHAR AS extra_info
        FROM ${tpchSchemasSql('s')} CROSS JOIN ${tpchColumnsSql('c')}`;
  }
}

/** The query standing for `<catalog>.information_schema.<table>`. Uses no information_schema itself. */
function subquery(table: string, catalog: string): string {
  if (CatalogNames.duckdbName(catalog) === TPCH_CATALOG) return tpchSubquery(table, sqlString(catalog));
  const db = sqlString(CatalogNames.duckdbName(catalog));
  const cat = sqlString(catalog);
  const connector = isConnectorCatalog(CatalogNames.duckdbName(catalog));
  // main is DuckDB's; Presto shows it only when something lives in it (as SHOW SCHEMAS does).
  const userSchema = `schema_name NOT IN ('information_schema', 'pg_catalog')`;
  switch (table) {
    case 'schemata':
      return `SELECT ${cat} AS catalog_name, schema_name FROM duckdb_schemas() WHERE database_name = ${db} AND ${userSchema}
        AND (schema_name <> 'main' OR EXISTS (SELECT 1 FROM duckdb_tables() t WHERE t.database_name = ${db} AND t.schema_name = 'main'))
        UNION ALL SELECT ${cat}, 'information_schema'`;
    case 'tables':
      return `SELECT ${cat} AS table_catalog, schema_name AS table_schema, table_name, 'BASE TABLE' AS table_type FROM duckdb_tables() WHERE database_name = ${db}
        UNION ALL SELECT ${cat}, schema_name, view_name, ${connector ? "'BASE TABLE'" : "'VIEW'"} FROM duckdb_views() WHERE database_name = ${db} AND NOT internal`;
    case 'views':
      return `SELECT ${cat} AS table_catalog, schema_name AS table_schema, view_name AS table_name, NULL::VARCHAR AS view_owner, sql AS view_definition
        FROM duckdb_views() WHERE database_name = ${db} AND NOT internal${connector ? ' AND false' : ''}`;
    default:
      return `SELECT ${cat} AS table_catalog, schema_name AS table_schema, table_name, column_name, column_index::BIGINT AS ordinal_position,
        column_default, CASE WHEN is_nullable THEN 'YES' ELSE 'NO' END AS is_nullable,
        coalesce(${DECLARED_TYPE_NAME_FUNCTION}(database_name, schema_name, table_name, column_name), ${DATA_TYPE}) AS data_type, comment, NULL::VARCHAR AS extra_info
        FROM duckdb_columns() WHERE database_name = ${db} AND NOT internal`;
  }
}

/**
 * The DuckDB SQL standing for `<catalog>.information_schema.<table>`, or undefined for a table Presto's
 * information_schema does not have. `catalog` is a catalog the gate knows (a Presto name, lower case).
 */
export function informationSchemaSql(catalog: string, table: string): string | undefined {
  return Object.hasOwn(COLUMNS, table) ? subquery(table, catalog) : undefined;
}
