// The tpch catalog's schemas (as Trino's tpch connector: tiny = sf 0.01, sf<number> = that scale factor;
// the listed ones exist from the start, any other accepted name on first use), the SQL of their views,
// and which schemas a statement refers to.
import type { TpchTable } from '../../tpch/index.js';
import { TPCH_CATALOG, TPCH_LISTED_SCHEMAS, TPCH_TABLE_NAMES, tpchDirectoryName, tpchScaleFactor } from './tpch-metadata.js';

export { TPCH_CATALOG } from './tpch-metadata.js';

export interface TpchSchema {
  /** The schema's name as DuckDB holds it (lower case, as Trino folds it). */
  readonly name: string;
  readonly scaleFactor: number;
  /** Its data's directory under the catalog's: shared by every spelling of one scale factor. */
  readonly directory: string;
}

/** The schema of an accepted name (`tiny`, `sf0.1`, `SF3000`), or undefined for a name Trino refuses. */
export function tpchSchema(name: string): TpchSchema | undefined {
  const scaleFactor = tpchScaleFactor(name);
  return scaleFactor === undefined ? undefined : { name: name.toLowerCase(), scaleFactor, directory: tpchDirectoryName(scaleFactor) };
}

/** The schemas SHOW SCHEMAS lists, which exist from the start. */
export const TPCH_SCHEMAS: readonly TpchSchema[] = TPCH_LISTED_SCHEMAS.map((name) => tpchSchema(name)!);

const quoteIdent = (s: string) => `"${s.replace(/"/g, '""')}"`;
const quoteString = (s: string) => `'${s.replace(/'/g, "''")}'`;
const viewName = (schema: string, table: string) => `${TPCH_CATALOG}.${quoteIdent(schema)}.${quoteIdent(table)}`;
const typedNulls = (table: TpchTable) => table.columns.map((c) => `CAST(NULL AS ${c.type.toUpperCase()}) AS ${quoteIdent(c.name)}`).join(', ');

/**
 * Before a schema is generated its tables are views with the connector's columns and types that fail
 * when read: information_schema and DESCRIBE work, and a statement the reference detection missed gets
 * a clear error rather than an empty table.
 */
export function placeholderViewSql(schema: TpchSchema, table: TpchTable): string {
  const message = `${TPCH_CATALOG}.${schema.name} is not generated yet: name the table as ${TPCH_CATALOG}.${schema.name}.${table.name} to generate it`;
  return `CREATE OR REPLACE VIEW ${viewName(schema.name, table.name)} AS SELECT ${typedNulls(table)} FROM range(1) WHERE error(${quoteString(message)})`;
}

/**
 * The view over a generated table's Parquet files (columns and types come from the files); a table
 * without rows at a very small scale factor has no file, and is an empty view of the connector's types.
 */
export function parquetViewSql(schema: string, table: TpchTable, files: readonly string[]): string {
  const body = files.length === 0
    ? `SELECT ${typedNulls(table)} WHERE false`
    : `SELECT * FROM read_parquet([${files.map(quoteString).join(', ')}])`;
  return `CREATE OR REPLACE VIEW ${viewName(schema, table.name)} AS ${body}`;
}

export function createSchemaSql(schema: string): string {
  return `CREATE SCHEMA IF NOT EXISTS ${TPCH_CATALOG}.${quoteIdent(schema)}`;
}

const TABLES = new Set<string>(TPCH_TABLE_NAMES);

/**
 * The tpch schemas holding tables of the tpch catalog (named `catalog`) a statement names (its translation
 * resolved them against the session), by their lower-case names. A name Trino refuses is left to DuckDB, which answers SCHEMA_NOT_FOUND.
 */
export function schemasOfTables(tables: readonly { catalog: string; schema: string; table: string }[], catalog = TPCH_CATALOG): Set<string> {
  const found = new Set<string>();
  for (const t of tables) {
    if (t.catalog === catalog && TABLES.has(t.table.toLowerCase()) && tpchScaleFactor(t.schema) !== undefined) found.add(t.schema.toLowerCase());
  }
  return found;
}
