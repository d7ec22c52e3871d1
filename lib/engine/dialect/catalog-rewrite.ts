// Statements name catalogs by their Presto names; a catalog attached under another DuckDB name
// (`system` -> `vivace_system`, catalog-names.ts) is renamed in the text before DuckDB parses it.
// Token-based: names inside strings and comments stay as written.
import { CatalogNames } from './catalog-names.js';
import { tokenize, type Token } from './sql-tokens.js';
import { RewriteMap, type RewritePart, type Rewritten } from '../rewrite-map.js';

const isDot = (t: Token | undefined) => t?.kind === 'punct' && t.value === '.';
const isName = (t: Token | undefined) => t?.kind === 'word' || t?.kind === 'quoted';
const quoteIdent = (s: string) => `"${s.replace(/"/g, '""')}"`;

/**
 * `sql` with mapped catalog names replaced where they stand as the catalog of a qualified name
 * (`system.runtime.nodes`, `"system".runtime.nodes.node_id`): the first part of a name of three or
 * more parts. Two-part names are schema.table in Presto and are left alone.
 */
export function rewriteMappedCatalogs(sql: string): string {
  return rewriteMappedCatalogsMapped(sql).text;
}

/** As rewriteMappedCatalogs, with the map from the rewritten text's offsets back (through `before`) to the original. */
export function rewriteMappedCatalogsMapped(sql: string, before: RewriteMap = RewriteMap.IDENTITY): Rewritten {
  const unchanged = { text: sql, map: before };
  const names = CatalogNames.mapped();
  if (names.length === 0) return unchanged;
  // Most statements name no mapped catalog at all: skip tokenizing them.
  const lower = sql.toLowerCase();
  if (!names.some((n) => lower.includes(n.toLowerCase()))) return unchanged;
  const tokens = tokenize(sql);
  const parts: RewritePart[] = [];
  let copied = 0;
  tokens.forEach((t, i) => {
    if (!isName(t) || isDot(tokens[i - 1])) return;
    if (!isDot(tokens[i + 1]) || !isName(tokens[i + 2]) || !isDot(tokens[i + 3]) || !isName(tokens[i + 4])) return;
    // Presto catalog names are case-insensitive, quoted or not.
    const name = t.value.toLowerCase();
    const database = CatalogNames.duckdbName(name);
    if (database === name) return;
    parts.push({ origin: copied, text: sql.slice(copied, t.start), kept: true }, { origin: t.start, text: quoteIdent(database), kept: false });
    copied = t.end;
  });
  if (copied === 0) return unchanged;
  parts.push({ origin: copied, text: sql.slice(copied), kept: true });
  return { text: parts.map((p) => p.text).join(''), map: RewriteMap.of(parts, before) };
}
