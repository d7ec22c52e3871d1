// The catalog a DDL or DML statement writes to, so writes into connector catalogs (tpch, system) fail
// like Presto's read-only connectors instead of altering the views those catalogs are built from.
import type { Session } from '../../protocol/types.js';
import { VivaceError } from '../../protocol/vivace-error.js';
import { tokenize, type Token } from './sql-tokens.js';

const READ_ONLY_CATALOGS = new Set(['tpch', 'system']);

const OBJECT_KINDS = new Set(['table', 'view', 'schema', 'sequence', 'macro', 'function', 'type', 'index']);

const isWord = (t: Token | undefined, ...words: string[]) => t?.kind === 'word' && words.includes(t.value.toLowerCase());

/** The dotted name starting at tokens[i]: its parts and the index after it. */
function qualifiedName(tokens: Token[], i: number): { parts: string[]; next: number } | undefined {
  const parts: string[] = [];
  while (i < tokens.length && (tokens[i]!.kind === 'word' || tokens[i]!.kind === 'quoted')) {
    parts.push(tokens[i]!.kind === 'word' ? tokens[i]!.value.toLowerCase() : tokens[i]!.value);
    if (tokens[i + 1]?.value !== '.') return { parts, next: i + 1 };
    i += 2;
  }
  return parts.length > 0 ? { parts, next: i } : undefined;
}

/** The catalog written by `sql`, or undefined when it is not a recognised write. */
export function writeTargetCatalog(sql: string, session: Pick<Session, 'catalog'>): string | undefined {
  const t = tokenize(sql);
  let i: number;
  let schemaObject = false;
  if (isWord(t[0], 'insert')) {
    i = 1;
    if (isWord(t[i], 'or')) i += 2;
    if (!isWord(t[i], 'into')) return undefined;
    i++;
  } else if (isWord(t[0], 'delete')) {
    if (!isWord(t[1], 'from')) return undefined;
    i = 2;
  } else if (isWord(t[0], 'update')) {
    i = 1;
  } else if (isWord(t[0], 'truncate')) {
    i = isWord(t[1], 'table') ? 2 : 1;
  } else if (isWord(t[0], 'create', 'drop', 'alter', 'comment')) {
    i = 1;
    if (isWord(t[0], 'comment')) i += 1; // COMMENT ON
    if (isWord(t[i], 'or') && isWord(t[i + 1], 'replace')) i += 2;
    if (isWord(t[i], 'temp', 'temporary', 'unique', 'persistent')) i++;
    if (isWord(t[i], 'column')) i++;
    else {
      if (!OBJECT_KINDS.has(t[i]?.value.toLowerCase() ?? '')) return undefined;
      schemaObject = isWord(t[i], 'schema');
      const index = isWord(t[i], 'index');
      i++;
      if (isWord(t[i], 'if')) i += isWord(t[i + 1], 'not') ? 3 : 2;
      if (index) {
        // CREATE INDEX name ON table
        while (i < t.length && !isWord(t[i], 'on')) i++;
        i++;
      }
    }
  } else {
    return undefined;
  }
  const name = qualifiedName(t, i);
  if (!name) return undefined;
  const catalogParts = schemaObject ? 2 : 3;
  return name.parts.length >= catalogParts ? name.parts[0] : (session.catalog ?? 'memory').toLowerCase();
}

/** Fails a write into a connector catalog with NOT_SUPPORTED, as Presto's tpch and system connectors do. */
export function rejectConnectorWrite(sql: string, session: Pick<Session, 'catalog'>): void {
  const catalog = writeTargetCatalog(sql, session);
  if (catalog !== undefined && READ_ONLY_CATALOGS.has(catalog)) {
    throw new VivaceError('NOT_SUPPORTED', `Catalog '${catalog}' is read-only: this connector does not support writes`);
  }
}
