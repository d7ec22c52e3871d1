// How Trino compares names: every identifier folded to lower case, quoted or not.
import type { QualifiedName } from './ast.js';

/** Trino folds every identifier to lower case (ASCII only here: DuckDB compares ASCII case-insensitively). */
export const fold = (s: string): string => {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    out += c >= 65 && c <= 90 ? String.fromCharCode(c + 32) : s[i];
  }
  return out;
};

/** The parts of a dotted name, folded. */
export const partsOf = (name: QualifiedName): string[] => name.parts.map((p) => fold(p.value));

/** A table's name resolved against the session, lower case. */
export interface QualifiedTable {
  catalog: string;
  schema: string;
  table: string;
}

/** `[catalog.][schema.]table` against the session's catalog and schema, or undefined where one is missing. */
export function qualifyTable(parts: readonly string[], catalog: string | undefined, schema: string | undefined): QualifiedTable | undefined {
  if (parts.length === 3) return { catalog: parts[0]!, schema: parts[1]!, table: parts[2]! };
  if (!catalog) return undefined;
  if (parts.length === 2) return { catalog: fold(catalog), schema: parts[0]!, table: parts[1]! };
  if (parts.length === 1 && schema) return { catalog: fold(catalog), schema: fold(schema), table: parts[0]! };
  return undefined;
}
