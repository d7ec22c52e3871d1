// The parser's cursor over the tokens, Trino-style error reporting and the small rules every part uses
// (identifiers, qualified names, strings). Errors name what could have come at the furthest token the
// parse reached, as Trino's ErrorHandler does: tokens in quotes, whole rules as <expression>, <identifier>...
import type { Identifier, Location, LongLiteral, QualifiedName, StringLiteral } from './ast.js';
import { RESERVED_KEYWORDS, tokenize, type Token } from './lexer.js';
import { syntaxError, tooLargeError } from './syntax-error.js';

export interface ParseOptions {
  /** Deepest nesting of expressions, queries, relations and types accepted (default 500). */
  readonly maxDepth?: number;
}

export const DEFAULT_MAX_DEPTH = 500;

/** Longest token text quoted in a message (Trino quotes it whole: a 1 MB string would fill the answer). */
const MAX_TOKEN_TEXT = 100;

const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;

export abstract class ParserBase {
  protected readonly tokens: Token[];
  protected pos = 0;
  protected tok: Token;
  /** End offset of the last token consumed (node locations end there). */
  protected lastEnd = 0;
  protected depth = 0;
  protected readonly maxDepth: number;
  /** Next index for a `?` parameter. */
  protected parameterCount = 0;
  /** Furthest token index at which something was expected, and what. */
  private farthest = -1;
  /** Labels recorded at `farthest`: the first `expectedCount` entries, duplicates included (this is the hot path). */
  private readonly expected: string[] = [];
  private expectedCount = 0;
  /** Token index at which a whole-rule label (<expression>, ...) was recorded and its tokens are not. */
  private suppressAt = -1;
  /** Memo of the last run of '(' tokens scanned: [start, end). */
  private parenRunStart = -1;
  private parenRunEnd = -1;

  constructor(
    protected readonly text: string,
    /** What the text is, for "... is too large": statement, expression, type. */
    private readonly what: string,
    options: ParseOptions = {},
  ) {
    this.tokens = tokenize(text);
    this.tok = this.tokens[0];
    this.maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  }

  // ------------------------------------------------------------ cursor

  protected advance(): Token {
    const t = this.tok;
    if (t.kind !== 'eof') {
      this.lastEnd = t.end;
      this.tok = this.tokens[++this.pos];
    }
    return t;
  }

  protected skip(count: number): void {
    for (let i = 0; i < count; i++) this.advance();
  }

  /** The token `offset` places ahead (never past the end). */
  protected peek(offset = 1): Token {
    return this.tokens[Math.min(this.pos + offset, this.tokens.length - 1)];
  }

  protected loc(start: number): Location {
    return { start, end: this.lastEnd };
  }

  // ------------------------------------------------------------ silent tests (record nothing)

  protected isKw(kw: string, t: Token = this.tok): boolean {
    return t.keyword === kw;
  }

  protected isSym(symbol: string, t: Token = this.tok): boolean {
    return t.kind === 'symbol' && t.text === symbol;
  }

  /** Can `t` be read as an identifier (it may still be refused: backquoted, starting with a digit)? */
  protected isIdentifierToken(t: Token = this.tok): boolean {
    switch (t.kind) {
      case 'word':
        return t.keyword === undefined || !RESERVED_KEYWORDS.has(t.keyword);
      case 'quoted':
      case 'backquoted':
      case 'digitIdentifier':
        return true;
      default:
        return false;
    }
  }

  protected isStringToken(t: Token = this.tok): boolean {
    return t.kind === 'string' || t.kind === 'unicodeString';
  }

  protected isNumberToken(t: Token = this.tok): boolean {
    return t.kind === 'integer' || t.kind === 'decimal' || t.kind === 'double';
  }

  /** Does a query start at token `t`: SELECT, VALUES, WITH, or TABLE name (TABLE( is a table function). */
  protected isQueryStartAt(index: number): boolean {
    const t = this.tokens[index];
    if (t.keyword === 'SELECT' || t.keyword === 'VALUES' || t.keyword === 'WITH') return true;
    return t.keyword === 'TABLE' && !this.isSym('(', this.tokens[index + 1]);
  }

  /** At '(': does the run of '(' starting here open a query (( (SELECT ...? Memoized, so nesting stays linear. */
  protected parenRunOpensQuery(): boolean {
    const i = this.pos;
    if (i < this.parenRunStart || i >= this.parenRunEnd) {
      let end = i;
      while (this.isSym('(', this.tokens[end])) end++;
      this.parenRunStart = i;
      this.parenRunEnd = end;
    }
    return this.isQueryStartAt(this.parenRunEnd);
  }

  // ------------------------------------------------------------ tests that record what was expected

  /** Records that `label` could come at the current token. */
  protected expecting(label: string): void {
    const p = this.pos;
    if (p < this.farthest || p === this.suppressAt) return;
    if (p > this.farthest) {
      this.farthest = p;
      this.expectedCount = 0;
    }
    this.expected[this.expectedCount++] = label;
  }

  protected atKw(kw: string): boolean {
    this.expecting(`'${kw}'`);
    return this.tok.keyword === kw;
  }

  protected acceptKw(kw: string): boolean {
    if (!this.atKw(kw)) return false;
    this.advance();
    return true;
  }

  protected expectKw(kw: string): Token {
    if (!this.atKw(kw)) this.fail();
    return this.advance();
  }

  protected atSym(symbol: string): boolean {
    this.expecting(`'${symbol}'`);
    return this.isSym(symbol);
  }

  protected acceptSym(symbol: string): boolean {
    if (!this.atSym(symbol)) return false;
    this.advance();
    return true;
  }

  protected expectSym(symbol: string): Token {
    if (!this.atSym(symbol)) this.fail();
    return this.advance();
  }

  /** Accepts the first of `keywords` present; returns it (upper case) or undefined. */
  protected acceptOneOf(keywords: readonly string[]): string | undefined {
    for (const kw of keywords) if (this.acceptKw(kw)) return kw;
    return undefined;
  }

  protected expectOneOf<K extends string>(keywords: readonly K[]): K {
    for (const kw of keywords) if (this.acceptKw(kw)) return kw;
    this.fail();
  }

  /**
   * Starts a rule reported as a whole (`label`, e.g. <expression>): its own tokens at the current position
   * are not listed. Returns what endRule needs.
   */
  protected beginRule(label: string): number {
    this.expecting(label);
    const saved = this.suppressAt;
    this.suppressAt = this.pos;
    return saved;
  }

  protected endRule(saved: number): void {
    this.suppressAt = saved;
  }

  // ------------------------------------------------------------ errors

  /** "mismatched input 'x'. Expecting: ..." at the current token (a long token's text cut short). */
  protected fail(): never {
    const t = this.tok;
    const labels = this.farthest === this.pos ? [...new Set(this.expected.slice(0, this.expectedCount))].sort() : [];
    const expecting = labels.length > 0 ? `. Expecting: ${labels.join(', ')}` : '';
    const shown = t.text.length > MAX_TOKEN_TEXT ? `${t.text.slice(0, MAX_TOKEN_TEXT)}...` : t.text;
    throw syntaxError(this.text, t.start, `mismatched input '${shown}'${expecting}`);
  }

  protected errorAt(offset: number, message: string): never {
    throw syntaxError(this.text, offset, message);
  }

  /** One level deeper in the tree: fails past maxDepth. */
  protected enter(): void {
    if (++this.depth > this.maxDepth) throw tooLargeError(this.text, this.tok.start, this.what);
  }

  /** enter(), returning 1 for the caller's count of levels to leave. */
  protected enterLevel(): number {
    this.enter();
    return 1;
  }

  protected leave(levels = 1): void {
    this.depth -= levels;
  }

  // ------------------------------------------------------------ shared small rules

  /** identifier; a backquoted one, one starting with a digit and "" fail with Trino's messages. */
  protected identifier(): Identifier {
    this.expecting('<identifier>');
    if (!this.isIdentifierToken()) this.fail();
    return this.identifierFromToken(this.advance());
  }

  protected acceptIdentifier(): Identifier | undefined {
    this.expecting('<identifier>');
    return this.isIdentifierToken() ? this.identifierFromToken(this.advance()) : undefined;
  }

  protected identifierFromToken(t: Token): Identifier {
    const location = { start: t.start, end: t.end };
    switch (t.kind) {
      case 'quoted':
        if (t.text.length === 2) this.errorAt(t.start, 'Zero-length delimited identifier not allowed');
        return { type: 'Identifier', value: unquote(t.text, '"'), quoted: true, location };
      case 'backquoted':
        return this.errorAt(t.start, 'backquoted identifiers are not supported; use double quotes to quote identifiers');
      case 'digitIdentifier':
        return this.errorAt(t.start, 'identifiers must not start with a digit; surround the identifier with double quotes');
      default:
        return { type: 'Identifier', value: t.text, quoted: false, location };
    }
  }

  /** identifier ('.' identifier)* */
  protected qualifiedName(first?: Identifier): QualifiedName {
    const parts = [first ?? this.identifier()];
    while (this.acceptSym('.')) parts.push(this.identifier());
    return { type: 'QualifiedName', parts, location: { start: parts[0].location.start, end: this.lastEnd } };
  }

  /** item (',' item)* */
  protected commaList<T>(item: () => T): T[] {
    const items = [item()];
    while (this.acceptSym(',')) items.push(item());
    return items;
  }

  /** '(' item (',' item)* ')'; with `allowEmpty`, '()' too. */
  protected parenthesizedList<T>(item: () => T, allowEmpty = false): T[] {
    this.expectSym('(');
    const items = allowEmpty && this.atSym(')') ? [] : this.commaList(item);
    this.expectSym(')');
    return items;
  }

  /** '(' identifier (',' identifier)* ')' */
  protected identifierList(): Identifier[] {
    return this.parenthesizedList(() => this.identifier());
  }

  /** The `string` rule: '...' or U&'...' [UESCAPE '.']. */
  protected stringLiteral(): StringLiteral {
    this.expecting('<string>');
    const t = this.tok;
    if (t.kind === 'string') {
      this.advance();
      return { type: 'StringLiteral', value: unquote(t.text, "'"), location: { start: t.start, end: t.end } };
    }
    if (t.kind !== 'unicodeString') this.fail();
    this.advance();
    let escape = '\\';
    if (this.acceptKw('UESCAPE')) {
      this.expecting('<string>');
      if (this.tok.kind !== 'string') this.fail();
      escape = unquote(this.advance().text, "'");
      if (escape.length === 0) this.errorAt(t.start, 'Empty Unicode escape character');
      if (escape.length !== 1 || !isValidUnicodeEscape(escape.charCodeAt(0))) {
        this.errorAt(t.start, `Invalid Unicode escape character: ${escape}`);
      }
    }
    const value = decodeUnicode(unquote(t.text.slice(2), "'"), escape, (m) => this.errorAt(t.start, m));
    return { type: 'StringLiteral', value, location: this.loc(t.start) };
  }

  /** INTEGER_VALUE, reported as <integer>. */
  protected integerToken(): Token {
    this.expecting('<integer>');
    if (this.tok.kind !== 'integer') this.fail();
    return this.advance();
  }

  /** A LongLiteral from an INTEGER_VALUE token, with the '-' before it when there was one. */
  protected longLiteral(t: Token, negativeStart?: number): LongLiteral {
    const start = negativeStart ?? t.start;
    const text = negativeStart === undefined ? t.text : `-${t.text}`;
    // Common case first: up to 15 plain digits are exact as a double and within range (BigInt costs ~4 us).
    if (t.text.length <= 15 && isPlainDigits(t.text)) {
      const digits = String(Number(t.text));
      return { type: 'LongLiteral', value: negativeStart !== undefined && digits !== '0' ? `-${digits}` : digits, text, location: { start, end: t.end } };
    }
    let value = BigInt(t.text.split('_').join(''));
    if (negativeStart !== undefined) value = -value;
    if (value < LONG_MIN || value > LONG_MAX) this.errorAt(start, `Invalid numeric literal: ${text}`);
    return { type: 'LongLiteral', value: value.toString(), text, location: { start, end: t.end } };
  }

  protected nextParameterIndex(): number {
    return this.parameterCount++;
  }
}

/** The text between the quotes of a quoted token, doubled quotes made single. */
export function unquote(text: string, quote: string): string {
  const inner = text.slice(1, -1);
  return inner.includes(quote) ? inner.split(quote + quote).join(quote) : inner;
}

function isPlainDigits(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return text.length > 0;
}

function isHexDigitCode(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
}

function isValidUnicodeEscape(c: number): boolean {
  return c < 0x7f && c > 0x20 && !isHexDigitCode(c) && c !== 34 && c !== 43 && c !== 39;
}

/** Resolves `\XXXX` and `\+XXXXXX` escapes of a U&'' literal (Trino's rules and messages). */
function decodeUnicode(raw: string, escape: string, fail: (message: string) => never): string {
  let out = '';
  let i = 0;
  while (i < raw.length) {
    const ch = raw[i];
    if (ch !== escape) {
      out += ch;
      i++;
      continue;
    }
    const next = raw[i + 1];
    if (next === undefined) fail('Incomplete escape sequence: ');
    if (next === escape) {
      out += escape;
      i += 2;
      continue;
    }
    const plus = next === '+';
    const length = plus ? 6 : 4;
    const digitsStart = plus ? i + 2 : i + 1;
    if (!plus && !isHexDigitCode(next.charCodeAt(0))) fail(`Invalid hexadecimal digit: ${next}`);
    let digits = '';
    for (let j = digitsStart; j < digitsStart + length; j++) {
      const d = raw[j];
      if (d === undefined || !isHexDigitCode(d.charCodeAt(0))) fail(`Incomplete escape sequence: ${digits}`);
      digits += d;
    }
    const codePoint = parseInt(digits, 16);
    if (codePoint > 0x10ffff) fail(`Invalid escaped character: ${digits}`);
    if (codePoint >= 0xd800 && codePoint <= 0xdfff) {
      fail(`Invalid escaped character: ${digits}. Escaped character is a surrogate. Use '\\+123456' instead.`);
    }
    out += String.fromCodePoint(codePoint);
    i = digitsStart + length;
  }
  return out;
}
