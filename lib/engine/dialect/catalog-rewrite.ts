// Statements name catalogs by their Presto names; a catalog attached under another DuckDB name
// (`system` -> `vivace_system`, catalog-names.ts) is renamed in the text before DuckDB parses it.
// Token-based: names inside strings and comments stay as written.
import { CatalogNames } from './catalog-names.js';
import { tokenize, type Token } from './sql-tokens.js';

const isDot = (t: Token | undefined) => t?.kind === 'punct' && t.value === '.';
const isName = (t: Token | undefined) => t?.kind === 'word' || t?.kind === 'quoted';
const quoteIdent = (s: string) => `"${s.replace(/"/g, '""')}"`;

/**
 * `sql` with mapped catalog names replaced where they stand as the catalog of a qualified name
 * (`system.runtime.nodes`, `"system".runtime.nodes.node_id`): the first part of a name of three or
 * more parts. Two-part names are schema.table in Presto and are left alone.
 */
export function rewriteMappedCatalogs(sql: string): string {
  const names = CatalogNames.mapped();
  if (names.length === 0) return sql;
  // Most statements name no mapped catalog at all: skip tokenizing them.
  const lower = sql.toLowerCase();
  if (!names.some((n) => lower.includes(n.toLowerCase()))) return sql;
  const tokens = tokenize(sql);
  let out = '';
  let copied = 0;
  tokens.forEach((t, i) => {
    if (!isName(t) || isDot(tokens[i - 1])) return;
    if (!isDot(tokens[i + 1]) || !isName(tokens[i + 2]) || !isDot(tokens[i + 3]) || !isName(tokens[i + 4])) return;
    // Presto catalog names are case-insensitive, quoted or not.
    const name = t.value.toLowerCase();
    const database = CatalogNames.duckdbName(name);
    if (database === name) return;
    out += sql.slice(copied, t.start) + quoteIdent(database);
    copied = t.end;
  });
  return copied === 0 ? sql : out + sql.slice(copied);
}
