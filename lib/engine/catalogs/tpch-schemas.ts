// The tpch catalog's schemas (as Presto's tpch connector: tiny = sf 0.01, sfN = scale factor N), the SQL
// of their views, and which schemas a statement refers to.
import { TPCH_TABLES, type TpchTable } from '../../tpch/index.js';

export const TPCH_CATALOG = 'tpch';

export interface TpchSchema {
  readonly name: string;
  readonly scaleFactor: number;
}

export const TPCH_SCHEMAS: readonly TpchSchema[] = [
  { name: 'tiny', scaleFactor: 0.01 },
  { name: 'sf1', scaleFactor: 1 },
  { name: 'sf10', scaleFactor: 10 },
  { name: 'sf100', scaleFactor: 100 },
  { name: 'sf300', scaleFactor: 300 },
  { name: 'sf1000', scaleFactor: 1000 },
];

const TABLE_NAMES = TPCH_TABLES.map((t) => t.name);
const quoteIdent = (s: string) => `"${s.replace(/"/g, '""')}"`;
const quoteString = (s: string) => `'${s.replace(/'/g, "''")}'`;
const viewName = (schema: string, table: string) => `${TPCH_CATALOG}.${quoteIdent(schema)}.${quoteIdent(table)}`;

/**
 * Before a schema is generated its tables are views with the connector's columns and types that fail
 * when read: information_schema and DESCRIBE work, and a statement the reference detection missed gets
 * a clear error rather than an empty table.
 */
export function placeholderViewSql(schema: TpchSchema, table: TpchTable): string {
  const columns = table.columns.map((c) => `CAST(NULL AS ${c.type.toUpperCase()}) AS ${quoteIdent(c.name)}`).join(', ');
  const message = `${TPCH_CATALOG}.${schema.name} is not generated yet: name the table as ${TPCH_CATALOG}.${schema.name}.${table.name} to generate it`;
  return `CREATE OR REPLACE VIEW ${viewName(schema.name, table.name)} AS SELECT ${columns} FROM range(1) WHERE error(${quoteString(message)})`;
}

/** The view over a generated table's Parquet files (columns and types come from the files). */
export function parquetViewSql(schema: string, table: string, files: readonly string[]): string {
  return `CREATE OR REPLACE VIEW ${viewName(schema, table)} AS SELECT * FROM read_parquet([${files.map(quoteString).join(', ')}])`;
}

export function createSchemaSql(schema: string): string {
  return `CREATE SCHEMA IF NOT EXISTS ${TPCH_CATALOG}.${quoteIdent(schema)}`;
}

const SCHEMA_NAMES = new Set(TPCH_SCHEMAS.map((s) => s.name));
const TABLES = new Set<string>(TABLE_NAMES);

/**
 * The tpch schemas holding tables a statement names (its translation resolved them against the session).
 * A miss reads a placeholder view, which fails with a clear message.
 */
export function schemasOfTables(tables: readonly { catalog: string; schema: string; table: string }[]): Set<string> {
  const found = new Set<string>();
  for (const t of tables) if (t.catalog === TPCH_CATALOG && SCHEMA_NAMES.has(t.schema) && TABLES.has(t.table)) found.add(t.schema);
  return found;
}
