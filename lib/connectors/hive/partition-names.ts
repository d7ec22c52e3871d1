// Partition directory names as Trino's Hive connector writes and reads them (`key=value/key2=value2`):
// Hive's FileUtils escaping, NULL and '' as __HIVE_DEFAULT_PARTITION__. Pure.

/** The directory value standing for NULL (and '', which Hive cannot tell from NULL). */
export const HIVE_DEFAULT_PARTITION = '__HIVE_DEFAULT_PARTITION__';

/** Characters Hive escapes in a path segment: 0x00-0x1F, DEL and the ASCII marks in the list below (FileUtils.charToEscape). */
function mustEscape(code: number): boolean {
  if (code < 0x20 || code === 0x7f) return true;
  return code < 128 && '"#%\'*/:=?\\{[]^'.includes(String.fromCharCode(code));
}

/** Hive's escapePathName: each such UTF-16 unit as `%XX` (upper-case hex); other characters as they are. */
export function escapePathName(value: string): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    out += mustEscape(code) ? `%${code.toString(16).toUpperCase().padStart(2, '0')}` : value[i];
  }
  return out;
}

/** Java's Integer.parseInt(s, 16) over two characters (a leading '+' allowed), or -1. */
function hexPair(a: string, b: string): number {
  const digit = (c: string) => {
    const d = parseInt(c, 16);
    return Number.isNaN(d) || c.length !== 1 ? -1 : d;
  };
  if (a === '+') return digit(b);
  const hi = digit(a);
  const lo = digit(b);
  return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
}

/** Hive's unescapePathName: `%XX` with two hex digits becomes that unit; any other `%` stays. */
export function unescapePathName(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '%' && i + 2 < text.length) {
      const code = hexPair(text[i + 1]!, text[i + 2]!);
      if (code >= 0) {
        out += String.fromCharCode(code);
        i += 2;
        continue;
      }
    }
    out += c;
  }
  return out;
}

/** One partition's directory segment: `key=value`, NULL and '' as the default partition. */
export function partitionSegment(key: string, value: string | null): string {
  return `${escapePathName(key)}=${value === null || value === '' ? HIVE_DEFAULT_PARTITION : escapePathName(value)}`;
}

/** A partition's name (its path under the table): `k1=v1/k2=v2`. */
export function makePartitionName(keys: readonly string[], values: readonly (string | null)[]): string {
  return keys.map((k, i) => partitionSegment(k, values[i] ?? null)).join('/');
}

/** The value of a `key=value` segment for `key`, or undefined when the segment names another key. */
export function segmentValue(segment: string, key: string): string | null | undefined {
  const at = segment.indexOf('=');
  if (at < 0 || unescapePathName(segment.slice(0, at)) !== key) return undefined;
  const raw = segment.slice(at + 1);
  return raw === HIVE_DEFAULT_PARTITION ? null : unescapePathName(raw);
}

/** The values of a partition name `k1=v1/k2=v2` for `keys` in order, or undefined when it does not match them. */
export function parsePartitionName(name: string, keys: readonly string[]): (string | null)[] | undefined {
  const segments = name.split('/');
  if (segments.length !== keys.length) return undefined;
  const values: (string | null)[] = [];
  for (let i = 0; i < keys.length; i++) {
    const value = segmentValue(segments[i]!, keys[i]!);
    if (value === undefined) return undefined;
    values.push(value);
  }
  return values;
}

/**
 * A value DuckDB's COPY ... PARTITION_BY wrote into a directory name (percent-encoded UTF-8, its
 * __HIVE_DEFAULT_PARTITION__ for NULL): the value itself, so it can be renamed under Trino's escaping.
 */
export function duckdbSegmentValue(raw: string): string | null {
  if (raw === HIVE_DEFAULT_PARTITION) return null;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** The directories above a relative path, outermost first (`k=v/k2=w/f`: `k=v`, `k=v/k2=w`). */
export function ancestorDirectories(path: string): string[] {
  const out: string[] = [];
  for (let at = path.indexOf('/'); at > 0; at = path.indexOf('/', at + 1)) out.push(path.slice(0, at));
  return out;
}
