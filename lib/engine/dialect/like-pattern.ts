// SQL LIKE for the `SHOW ... LIKE 'p' [ESCAPE 'e']` filters, applied to the few rows a SHOW returns.
import { VivaceError } from '../../protocol/vivace-error.js';
import type { LikeFilter } from './dialect-parser.js';

/** A predicate for `like` (every name matches when there is no filter). Case-sensitive, as in Presto. */
export function likeMatcher(like: LikeFilter | undefined): (name: string) => boolean {
  if (!like) return () => true;
  const { pattern, escape } = like;
  if (escape !== undefined && [...escape].length !== 1) {
    throw new VivaceError('INVALID_FUNCTION_ARGUMENT', 'Escape string must be a single character');
  }
  let source = '';
  const chars = [...pattern];
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    if (escape !== undefined && ch === escape) {
      const next = chars[++i];
      if (next === undefined || (next !== '%' && next !== '_' && next !== escape)) {
        throw new VivaceError('INVALID_FUNCTION_ARGUMENT', 'Escape character must be followed by \'%\', \'_\' or the escape character itself');
      }
      source += next.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    } else if (ch === '%') source += '[\\s\\S]*';
    else if (ch === '_') source += '[\\s\\S]';
    else source += ch.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  const regex = new RegExp(`^${source}$`, 'u');
  return (name) => regex.test(name);
}
