// Trino's legacy JSON path (json_extract, json_extract_scalar, json_size: JsonPathTokenizer) read into its
// keys, and written as the JSON pointer DuckDB reads (RFC 6901: `/a/0`). Trino's path is `$` and then
// `.key` (letters, digits, `_` and `:`), `[key]` (letters, digits, `_`) or `["key"]` (any text, `\"` and
// `\\` escaped); each key names an object's member, or an array's element when it is a number. A JSON
// pointer means the same: a key applies to an object by name and to an array as an index.
import { VivaceError } from '../protocol/vivace-error.js';

/** Java's Character.isLetterOrDigit for one UTF-16 unit, as Trino's tokenizer tests it. */
const isLetterOrDigit = (c: string) => /^[\p{L}\p{Nd}]$/u.test(c);

const isSubscriptCharacter = (c: string) => c === '_' || isLetterOrDigit(c);

/** The keys of Trino JSON path `path`; INVALID_FUNCTION_ARGUMENT as Trino's for a path it refuses. */
export function jsonPathKeys(path: string): string[] {
  const invalid = () => new VivaceError('INVALID_FUNCTION_ARGUMENT', `Invalid JSON path: '${path}'`);
  if (path[0] !== '$') throw invalid();
  const keys: string[] = [];
  let at = 1;
  /** The run of characters from `at` that `accept` takes: a key, which may not be empty. */
  const unquoted = (accept: (c: string) => boolean): string => {
    const start = at;
    while (at < path.length && accept(path[at]!)) at++;
    if (at === start) throw invalid();
    return path.slice(start, at);
  };
  while (at < path.length) {
    const c = path[at++];
    if (c === '.') {
      keys.push(unquoted((x) => x === ':' || isSubscriptCharacter(x)));
    } else if (c === '[') {
      if (path[at] === '"') {
        at++;
        keys.push(quoted());
      } else {
        keys.push(unquoted(isSubscriptCharacter));
      }
      if (path[at++] !== ']') throw invalid();
    } else {
      throw invalid();
    }
  }
  return keys;

  /** A quoted key after its opening quote, up to and past its closing one: `\"` and `\\` only. */
  function quoted(): string {
    let key = '';
    while (at < path.length && path[at] !== '"') {
      if (path[at] === '\\') {
        const escaped = path[at + 1];
        if (escaped !== '"' && escaped !== '\\') throw invalid();
        key += escaped;
        at += 2;
      } else {
        key += path[at++];
      }
    }
    if (at >= path.length) throw invalid();
    at++;
    return key;
  }
}

/** The JSON pointer DuckDB reads for Trino path `path` (`$` alone: DuckDB's own root path). */
export function duckdbJsonPath(path: string): string {
  const keys = jsonPathKeys(path);
  // RFC 6901: '~' is written ~0 and '/' ~1 inside a key.
  return keys.length === 0 ? '$' : keys.map((k) => `/${k.replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
}
