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
