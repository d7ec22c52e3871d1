// Java's .properties text (what Trino's catalog files are, read by airlift's loadPropertiesFrom): one
// entry per logical line, with the line it starts on so an error can point at it. One pass over the
// characters, no regular expression: a file is configuration, but its text is still not trusted.

export interface PropertyEntry {
  key: string;
  value: string;
  /** 1-based line the entry starts on. */
  line: number;
}

const WHITESPACE = new Set([' ', '\t', '\f']);

/** The entries of `text` in order (a later duplicate key is kept as written: the caller decides). */
export function parsePropertiesText(text: string): PropertyEntry[] {
  const entries: PropertyEntry[] = [];
  const lines = text.split('\n');
  let i = 0;
  while (i < lines.length) {
    const start = i;
    let logical = stripCr(lines[i]!).replace(/^[ \t\f]+/, '');
    i++;
    if (logical === '' || logical.startsWith('#') || logical.startsWith('!')) continue;
    // A line ending in an odd number of backslashes continues on the next one, its leading blanks dropped.
    while (endsInOddBackslashes(logical) && i < lines.length) {
      logical = logical.slice(0, -1) + stripCr(lines[i]!).replace(/^[ \t\f]+/, '');
      i++;
    }
    if (endsInOddBackslashes(logical)) logical = logical.slice(0, -1);
    entries.push({ ...splitEntry(logical, start + 1), line: start + 1 });
  }
  return entries;
}

const stripCr = (line: string) => (line.endsWith('\r') ? line.slice(0, -1) : line);

function endsInOddBackslashes(s: string): boolean {
  let n = 0;
  for (let k = s.length - 1; k >= 0 && s[k] === '\\'; k--) n++;
  return n % 2 === 1;
}

/** Key and value of one logical line: the key ends at an unescaped `=`, `:` or blank (Properties.load). */
function splitEntry(logical: string, line: number): { key: string; value: string } {
  let k = 0;
  let escaped = false;
  for (; k < logical.length; k++) {
    const c = logical[k]!;
    if (escaped) {
      escaped = false;
      continue;
    }
    if (c === '\\') escaped = true;
    else if (c === '=' || c === ':' || WHITESPACE.has(c)) break;
  }
  const key = unescape(logical.slice(0, k), line);
  let v = k;
  while (v < logical.length && WHITESPACE.has(logical[v]!)) v++;
  if (v < logical.length && (logical[v] === '=' || logical[v] === ':')) v++;
  while (v < logical.length && WHITESPACE.has(logical[v]!)) v++;
  return { key, value: unescape(logical.slice(v), line) };
}

const ESCAPES: Record<string, string> = { t: '\t', n: '\n', r: '\r', f: '\f' };

function unescape(s: string, line: number): string {
  if (!s.includes('\\')) return s;
  let out = '';
  for (let k = 0; k < s.length; k++) {
    const c = s[k]!;
    if (c !== '\\' || k === s.length - 1) {
      out += c;
      continue;
    }
    const next = s[++k]!;
    if (next === 'u') {
      const hex = s.slice(k + 1, k + 5);
      if (hex.length !== 4 || ![...hex].every((h) => '0123456789abcdefABCDEF'.includes(h))) throw new PropertiesSyntaxError(line, `Malformed \\uxxxx encoding`);
      out += String.fromCharCode(Number.parseInt(hex, 16));
      k += 4;
    } else {
      out += ESCAPES[next] ?? next;
    }
  }
  return out;
}

/** Text Java's Properties.load refuses (a bad \u escape), with its line. */
export class PropertiesSyntaxError extends Error {
  constructor(readonly line: number, message: string) {
    super(message);
  }
}

/**
 * Entries as .properties text parsePropertiesText (and Java's Properties.load) reads back to the same keys
 * and values: `\`, separators, comment marks, blanks and line breaks escaped, and everything outside
 * printable ASCII as \uXXXX, so no value can start another line or entry.
 */
export function formatPropertiesText(entries: readonly { key: string; value: string }[]): string {
  return entries.map((e) => `${escapeProperty(e.key)}=${escapeProperty(e.value)}\n`).join('');
}

const ESCAPED: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r', '\f': '\\f', '=': '\\=', ':': '\\:', '#': '\\#', '!': '\\!', ' ': '\\ ' };

function escapeProperty(s: string): string {
  let out = '';
  for (let k = 0; k < s.length; k++) {
    const c = s[k]!;
    const code = s.charCodeAt(k);
    out += ESCAPED[c] ?? (code < 0x20 || code > 0x7e ? `\\u${code.toString(16).padStart(4, '0')}` : c);
  }
  return out;
}
