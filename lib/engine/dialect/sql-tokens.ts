// A small SQL tokenizer for rewriting a few names in the project's own text passes (information_schema,
// catalog names, tpch schemas). It knows strings, quoted identifiers, comments and `?` markers; statements
// themselves are read by the Trino parser (lib/sql).

export type TokenKind = 'word' | 'quoted' | 'string' | 'number' | 'param' | 'punct';

export interface Token {
  kind: TokenKind;
  /** word: as written; quoted: the identifier without quotes; string: the value without quotes. */
  value: string;
  /** Offsets into the source: `sql.slice(start, end)` is the token as written. */
  start: number;
  end: number;
}

/**
 * Tokens of `sql`, comments dropped. An unterminated string, quoted identifier or block comment
 * ends the input: the statement is then left to DuckDB, which reports the syntax error.
 */
export function tokenize(sql: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const n = sql.length;
  while (i < n) {
    const ch = sql[i]!;
    if (isSpace(sql.charCodeAt(i))) {
      i++;
    } else if (ch === '-' && sql[i + 1] === '-') {
      const eol = sql.indexOf('\n', i);
      i = eol < 0 ? n : eol + 1;
    } else if (ch === '/' && sql[i + 1] === '*') {
      const close = sql.indexOf('*/', i + 2);
      i = close < 0 ? n : close + 2;
    } else if (ch === "'" || ch === '"') {
      const end = closingQuote(sql, i, ch);
      const body = sql.slice(i + 1, end < 0 ? n : end).split(ch + ch).join(ch);
      tokens.push({ kind: ch === "'" ? 'string' : 'quoted', value: body, start: i, end: end < 0 ? n : end + 1 });
      i = end < 0 ? n : end + 1;
    } else if (isWordStart(sql.charCodeAt(i))) {
      let end = i + 1;
      while (end < n && isWordPart(sql.charCodeAt(end))) end++;
      tokens.push({ kind: 'word', value: sql.slice(i, end), start: i, end });
      i = end;
    } else if (isDigit(sql.charCodeAt(i)) || (ch === '.' && isDigit(sql.charCodeAt(i + 1)))) {
      const end = numberEnd(sql, i);
      tokens.push({ kind: 'number', value: sql.slice(i, end), start: i, end });
      i = end;
    } else {
      tokens.push({ kind: ch === '?' ? 'param' : 'punct', value: ch, start: i, end: i + 1 });
      i++;
    }
  }
  return tokens;
}

const SEMICOLON = 0x3b;
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isLetter = (c: number) => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
const isWordStart = (c: number) => isLetter(c) || c === 0x5f;
const isWordPart = (c: number) => isWordStart(c) || isDigit(c) || c === 0x24;

/** JavaScript's `\s`: ASCII space and controls 9-13, and the Unicode spaces DuckDB's lexer also skips. */
export function isSpace(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d) || c === 0xa0 || c === 0xfeff || c === 0x1680
    || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000;
}

/** End of the number starting at `i`: digits, an optional fraction, an optional exponent. */
function numberEnd(sql: string, i: number): number {
  const n = sql.length;
  let j = i;
  while (j < n && isDigit(sql.charCodeAt(j))) j++;
  if (sql.charCodeAt(j) === 0x2e) {
    j++;
    while (j < n && isDigit(sql.charCodeAt(j))) j++;
  }
  const e = sql.charCodeAt(j);
  if (e === 0x45 || e === 0x65) {
    let k = j + 1;
    if (sql.charCodeAt(k) === 0x2b || sql.charCodeAt(k) === 0x2d) k++;
    if (isDigit(sql.charCodeAt(k))) {
      while (k < n && isDigit(sql.charCodeAt(k))) k++;
      j = k;
    }
  }
  return j;
}

/** Index of the quote closing the one at `open` (a doubled quote is an escaped one), or -1. */
function closingQuote(sql: string, open: number, quote: string): number {
  let j = open + 1;
  for (;;) {
    const at = sql.indexOf(quote, j);
    if (at < 0) return -1;
    if (sql[at + 1] === quote) {
      j = at + 2;
      continue;
    }
    return at;
  }
}

/** `sql` without trailing semicolons and whitespace. */
export function stripTrailingSemicolons(sql: string): string {
  // A backwards scan: `/[\s;]+$/` retries from every position of a long run of spaces (quadratic).
  let end = sql.length;
  while (end > 0 && (isSpace(sql.charCodeAt(end - 1)) || sql.charCodeAt(end - 1) === SEMICOLON)) end--;
  return end === sql.length ? sql : sql.slice(0, end);
}
