// The tpch catalog's schemas (as Presto's tpch connector: tiny = sf 0.01, sfN = scale factor N), the SQL
// of their views, and which schemas a statement refers to.
import { TPCH_TABLES, type TpchTable } from '../../tpch/index.js';
import type { Session } from '../../protocol/types.js';

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

const SCHEMA_NAMES = TPCH_SCHEMAS.map((s) => s.name).join('|');
const TABLES = TABLE_NAMES.join('|');
const part = (name: string) => String.raw`"?(?:${name})"?`;
const dot = String.raw`\s*\.\s*`;
/** tpch.<schema>.<table>, anywhere */
const QUALIFIED = new RegExp(String.raw`(?<![\w"])${part('tpch')}${dot}"?(${SCHEMA_NAMES})"?${dot}${part(TABLES)}(?![\w"])`, 'gi');
/** <schema>.<table>, meaningful when the session catalog is tpch */
const SCHEMA_QUALIFIED = new RegExp(String.raw`(?<![\w".])"?(${SCHEMA_NAMES})"?${dot}${part(TABLES)}(?![\w"])`, 'gi');
/** a bare table name, meaningful when the session schema is a tpch schema */
const BARE_TABLE = new RegExp(String.raw`(?<![\w".])"?(?:${TABLES})"?(?![\w"])(?!\s*\.)`, 'i');

/** String literals and comments removed, so `WHERE table_name = 'lineitem'` is no reference. */
function stripLiterals(sql: string): string {
  return sql.replace(/'(?:[^']|'')*'|--[^\n]*|\/\*[\s\S]*?\*\//g, ' ');
}

/**
 * The tpch schemas whose data a statement reads, by a cheap textual match: `tpch.<schema>.<table>`, and
 * with the session on catalog tpch also `<schema>.<table>` and bare table names in the session schema.
 * SHOW and DESCRIBE need no data. A miss reads a placeholder view, which fails with a clear message.
 */
export function referencedSchemas(sql: string, session: Pick<Session, 'catalog' | 'schema'>): Set<string> {
  const found = new Set<string>();
  const inCatalog = session.catalog?.toLowerCase() === TPCH_CATALOG;
  if (!inCatalog && !/tpch/i.test(sql)) return found;
  const text = stripLiterals(sql);
  if (/^\s*(?:show|describe|desc)\b/i.test(text)) return found;
  for (const m of text.matchAll(QUALIFIED)) found.add(m[1]!.toLowerCase());
  if (inCatalog) {
    for (const m of text.matchAll(SCHEMA_QUALIFIED)) found.add(m[1]!.toLowerCase());
    const schema = session.schema?.toLowerCase();
    if (schema !== undefined && TPCH_SCHEMAS.some((s) => s.name === schema) && BARE_TABLE.test(text)) found.add(schema);
  }
  return found;
}
