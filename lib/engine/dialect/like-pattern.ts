// SQL LIKE for the `SHOW ... LIKE 'p' [ESCAPE 'e']` filters, applied to the few rows a SHOW returns.
// No regular expression: a pattern such as '%c%c%c%c%c%c%c%c%c%c%d' made a backtracking one take seconds.
import { VivaceError } from '../../protocol/vivace-error.js';
import type { LikeFilter } from '../../sql/dialect-statement.js';

/** One code point, or `undefined` for `_` (any one code point). */
type Piece = string | undefined;

/** The pattern split at `%`: segments of pieces; the first is anchored at the start, the last at the end. */
function compile(pattern: string, escape: string | undefined): { segments: Piece[][]; open: boolean } {
  const segments: Piece[][] = [[]];
  const chars = [...pattern];
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    if (escape !== undefined && ch === escape) {
      const next = chars[++i];
      if (next === undefined || (next !== '%' && next !== '_' && next !== escape)) {
        throw new VivaceError('INVALID_FUNCTION_ARGUMENT', 'Escape character must be followed by \'%\', \'_\' or the escape character itself');
      }
      segments[segments.length - 1]!.push(next);
    } else if (ch === '%') segments.push([]);
    else segments[segments.length - 1]!.push(ch === '_' ? undefined : ch);
  }
  return { segments, open: segments.length > 1 };
}

const matchesAt = (text: string[], at: number, segment: Piece[]) => {
  for (let k = 0; k < segment.length; k++) {
    const p = segment[k];
    if (p !== undefined && text[at + k] !== p) return false;
  }
  return true;
};

/**
 * A predicate for `like` (every name matches when there is no filter). Case-sensitive, as in Presto.
 * Matching takes each middle segment at its leftmost place (which is always right for `%` patterns):
 * at most length(name) x length(pattern) steps, never exponential.
 */
export function likeMatcher(like: LikeFilter | undefined): (name: string) => boolean {
  if (!like) return () => true;
  const { pattern, escape } = like;
  if (escape !== undefined && [...escape].length !== 1) {
    throw new VivaceError('INVALID_FUNCTION_ARGUMENT', 'Escape string must be a single character');
  }
  const { segments, open } = compile(pattern, escape);
  return (name) => {
    const text = [...name];
    const first = segments[0]!;
    if (!open) return text.length === first.length && matchesAt(text, 0, first);
    const last = segments[segments.length - 1]!;
    if (first.length + last.length > text.length || !matchesAt(text, 0, first) || !matchesAt(text, text.length - last.length, last)) return false;
    let at = first.length;
    const end = text.length - last.length;
    for (let s = 1; s < segments.length - 1; s++) {
      const segment = segments[s]!;
      while (at + segment.length <= end && !matchesAt(text, at, segment)) at++;
      if (at + segment.length > end) return false;
      at += segment.length;
    }
    return true;
  };
}
