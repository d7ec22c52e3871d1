// Trino's lexer (SqlBase.g4) by character codes, in one linear pass: longest match, ties to the earlier
// rule, and any character no rule matches becomes an UNRECOGNIZED token the parser reports, as Trino does.

export type TokenKind =
  | 'word' // IDENTIFIER or keyword: `keyword` says which
  | 'quoted' // "..."
  | 'backquoted' // `...` (an error once used as an identifier)
  | 'digitIdentifier' // 1abc (an error once used as an identifier)
  | 'string' // '...'
  | 'unicodeString' // U&'...'
  | 'binary' // X'...'
  | 'integer'
  | 'decimal'
  | 'double'
  | 'symbol' // operators and punctuation, `text` is the symbol
  | 'unrecognized'
  | 'eof';

export interface Token {
  readonly kind: TokenKind;
  /** The text as written; '<EOF>' for the end. */
  readonly text: string;
  /** UTF-16 offsets into the statement text. */
  readonly start: number;
  readonly end: number;
  /** For words that are keywords: the keyword, upper case. */
  readonly keyword: string | undefined;
}

const KEYWORD_LIST =
  'ABSENT ADD ADMIN AFTER ALL ALTER ANALYZE AND ANY ARRAY AS ASC AT AUTHORIZATION BEGIN BERNOULLI BETWEEN BOTH BY ' +
  'CALL CALLED CASCADE CASE CAST CATALOG CATALOGS COLUMN COLUMNS COMMENT COMMIT COMMITTED CONDITIONAL CONSTRAINT ' +
  'COUNT COPARTITION CREATE CROSS CUBE CURRENT CURRENT_CATALOG CURRENT_DATE CURRENT_PATH CURRENT_ROLE ' +
  'CURRENT_SCHEMA CURRENT_TIME CURRENT_TIMESTAMP CURRENT_USER DATA DATE DAY DEALLOCATE DECLARE DEFAULT DEFINE ' +
  'DEFINER DELETE DENY DESC DESCRIBE DESCRIPTOR DETERMINISTIC DISTINCT DISTRIBUTED DO DOUBLE DROP ELSE EMPTY ' +
  'ELSEIF ENCODING END ERROR ESCAPE EXCEPT EXCLUDING EXECUTE EXISTS EXPLAIN EXTRACT FALSE FETCH FILTER FINAL ' +
  'FIRST FOLLOWING FOR FORMAT FROM FULL FUNCTION FUNCTIONS GRACE GRANT GRANTED GRANTS GRAPHVIZ GROUP GROUPING ' +
  'GROUPS HAVING HOUR IF IGNORE IMMEDIATE IN INCLUDING INITIAL INNER INPUT INSERT INTERSECT INTERVAL INTO ' +
  'INVOKER IO IS ISOLATION ITERATE JOIN JSON JSON_ARRAY JSON_EXISTS JSON_OBJECT JSON_QUERY JSON_TABLE JSON_VALUE ' +
  'KEEP KEY KEYS LANGUAGE LAST LATERAL LEADING LEAVE LEFT LEVEL LIKE LIMIT LISTAGG LOCAL LOCALTIME ' +
  'LOCALTIMESTAMP LOGICAL LOOP MAP MATCH MATCHED MATCHES MATCH_RECOGNIZE MATERIALIZED MEASURES MERGE MINUTE ' +
  'MONTH NATURAL NESTED NEXT NFC NFD NFKC NFKD NO NONE NORMALIZE NOT NULL NULLIF NULLS OBJECT OF OFFSET OMIT ON ' +
  'ONE ONLY OPTION OR ORDER ORDINALITY OUTER OUTPUT OVER OVERFLOW PARTITION PARTITIONS PASSING PAST PATH ' +
  'PATTERN PER PERIOD PERMUTE PLAN POSITION PRECEDING PRECISION PREPARE PRIVILEGES PROPERTIES PRUNE QUOTES ' +
  'RANGE READ RECURSIVE REFRESH RENAME REPEAT REPEATABLE REPLACE RESET RESPECT RESTRICT RETURN RETURNING ' +
  'RETURNS REVOKE RIGHT ROLE ROLES ROLLBACK ROLLUP ROW ROWS RUNNING SCALAR SCHEMA SCHEMAS SECOND SECURITY SEEK ' +
  'SELECT SERIALIZABLE SESSION SET SETS SHOW SOME START STATS STRING SUBSET SUBSTRING SYSTEM TABLE TABLES ' +
  'TABLESAMPLE TEXT THEN TIES TIME TIMESTAMP TO TRAILING TRANSACTION TRIM TRUE TRUNCATE TRY_CAST TYPE UESCAPE ' +
  'UNBOUNDED UNCOMMITTED UNCONDITIONAL UNION UNIQUE UNKNOWN UNMATCHED UNNEST UNTIL UPDATE USE USER USING UTF16 ' +
  'UTF32 UTF8 VALIDATE VALUE VALUES VERBOSE VERSION VIEW WHEN WHERE WHILE WINDOW WITH WITHIN WITHOUT WORK ' +
  'WRAPPER WRITE YEAR ZONE';

/** Keywords Trino reserves (every keyword outside SqlBase.g4's `nonReserved` rule): identifiers only when quoted. */
const RESERVED_LIST =
  'ALTER AND AS BETWEEN BY CASE CAST CONSTRAINT CREATE CROSS CUBE CURRENT_CATALOG CURRENT_DATE CURRENT_PATH ' +
  'CURRENT_ROLE CURRENT_SCHEMA CURRENT_TIME CURRENT_TIMESTAMP CURRENT_USER DEALLOCATE DELETE DESCRIBE DISTINCT ' +
  'DROP ELSE END ESCAPE EXCEPT EXECUTE EXISTS EXTRACT FALSE FOR FROM FULL GROUP GROUPING HAVING IN INNER INSERT ' +
  'INTERSECT INTO IS JOIN JSON_ARRAY JSON_EXISTS JSON_OBJECT JSON_QUERY JSON_TABLE JSON_VALUE LEFT LIKE LISTAGG ' +
  'LOCALTIME LOCALTIMESTAMP NATURAL NORMALIZE NOT NULL ON OR ORDER OUTER PREPARE RECURSIVE RIGHT ROLLUP SELECT ' +
  'TABLE THEN TRIM TRUE UESCAPE UNION UNNEST USING VALUES WHEN WHERE WITH';

export const KEYWORDS: ReadonlySet<string> = new Set(KEYWORD_LIST.split(' '));
export const RESERVED_KEYWORDS: ReadonlySet<string> = new Set(RESERVED_LIST.split(' '));

/** Is `name` (any case) a word only usable as an identifier when quoted? */
export function isReservedWord(name: string): boolean {
  return RESERVED_KEYWORDS.has(name.toUpperCase());
}

/** Does `name` lex as one IDENTIFIER-shaped word ([A-Za-z_][A-Za-z0-9_]*)? */
export function isWordShaped(name: string): boolean {
  if (name.length === 0 || !isWordStart(name.charCodeAt(0))) return false;
  for (let i = 1; i < name.length; i++) if (!isWordPart(name.charCodeAt(i))) return false;
  return true;
}

const C_TAB = 9;
const C_LF = 10;
const C_CR = 13;
const C_SPACE = 32;
const C_BANG = 33;
const C_DQUOTE = 34;
const C_AMP = 38;
const C_QUOTE = 39;
const C_STAR = 42;
const C_PLUS = 43;
const C_MINUS = 45;
const C_DOT = 46;
const C_SLASH = 47;
const C_0 = 48;
const C_9 = 57;
const C_LT = 60;
const C_EQ = 61;
const C_GT = 62;
const C_UNDERSCORE = 95;
const C_BACKQUOTE = 96;
const C_LBRACE = 123;
const C_PIPE = 124;
const C_RBRACE = 125;

function isDigit(c: number): boolean {
  return c >= C_0 && c <= C_9;
}
function isLetter(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}
function isWordStart(c: number): boolean {
  return isLetter(c) || c === C_UNDERSCORE;
}
function isWordPart(c: number): boolean {
  return isLetter(c) || isDigit(c) || c === C_UNDERSCORE;
}
function isHexDigit(c: number): boolean {
  return isDigit(c) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
}

/** Single-character symbols of the grammar (operators, punctuation, row-pattern marks). */
const SINGLE_SYMBOLS = new Set(['(', ')', ',', ';', ':', '[', ']', '+', '*', '%', '?', '.', '^', '$', '}', '|']);

/** Splits `text` into tokens ending with an 'eof' token. Whitespace and comments are dropped. */
export function tokenize(text: string): Token[] {
  return new Lexer(text).run();
}

class Lexer {
  private readonly tokens: Token[] = [];
  /** No bracketed comment closes at or after this offset (memo that keeps unterminated comments linear). */
  private noCommentEndFrom = Infinity;

  constructor(private readonly text: string) {}

  run(): Token[] {
    const text = this.text;
    const n = text.length;
    let i = 0;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === C_SPACE || c === C_LF || c === C_TAB || c === C_CR) {
        i++;
      } else if (c === C_MINUS && text.charCodeAt(i + 1) === C_MINUS) {
        i += 2;
        while (i < n && text.charCodeAt(i) !== C_LF && text.charCodeAt(i) !== C_CR) i++;
      } else {
        const commentEnd = c === C_SLASH && text.charCodeAt(i + 1) === C_STAR ? this.commentEnd(i) : 0;
        i = commentEnd > 0 ? commentEnd : this.token(i, c);
      }
    }
    this.tokens.push({ kind: 'eof', text: '<EOF>', start: n, end: n, keyword: undefined });
    return this.tokens;
  }

  private push(kind: TokenKind, start: number, end: number, keyword?: string, text = this.text.slice(start, end)): number {
    this.tokens.push({ kind, text, start, end, keyword });
    return end;
  }

  /** End offset of the bracketed comment opening at `i`, or 0 when it never closes. */
  private commentEnd(i: number): number {
    const text = this.text;
    for (let j = i + 2; j + 1 < text.length && j < this.noCommentEndFrom; j++) {
      if (text.charCodeAt(j) === C_STAR && text.charCodeAt(j + 1) === C_SLASH) return j + 2;
    }
    this.noCommentEndFrom = Math.min(this.noCommentEndFrom, i + 2);
    return 0;
  }

  /** Lexes one token at `i` (not whitespace or a comment); returns where the next one starts. */
  private token(i: number, c: number): number {
    const text = this.text;
    if (isWordStart(c)) return this.word(i);
    if (isDigit(c) || (c === C_DOT && isDigit(text.charCodeAt(i + 1)))) return this.number(i);
    const next = text.charCodeAt(i + 1);
    switch (c) {
      case C_QUOTE: {
        const end = quotedEnd(text, i, C_QUOTE);
        return end > 0 ? this.push('string', i, end) : this.push('unrecognized', i, i + 1);
      }
      case C_DQUOTE: {
        const end = quotedEnd(text, i, C_DQUOTE);
        return end > 0 ? this.push('quoted', i, end) : this.push('unrecognized', i, i + 1);
      }
      case C_BACKQUOTE: {
        const end = quotedEnd(text, i, C_BACKQUOTE);
        return end > 0 ? this.push('backquoted', i, end) : this.push('unrecognized', i, i + 1);
      }
      case C_EQ:
        return this.push('symbol', i, next === C_GT ? i + 2 : i + 1); // => or =
      case C_LT:
        return this.push('symbol', i, next === C_EQ || next === C_GT ? i + 2 : i + 1);
      case C_GT:
        return this.push('symbol', i, next === C_EQ ? i + 2 : i + 1);
      case C_BANG:
        return next === C_EQ ? this.push('symbol', i, i + 2) : this.push('unrecognized', i, i + 1);
      case C_PIPE:
        return this.push('symbol', i, next === C_PIPE ? i + 2 : i + 1);
      case C_MINUS:
        return this.push('symbol', i, next === C_GT || next === C_RBRACE ? i + 2 : i + 1); // -> -} -
      case C_LBRACE:
        return this.push('symbol', i, next === C_MINUS ? i + 2 : i + 1); // {- {
      case C_SLASH:
        return this.push('symbol', i, i + 1);
      default: {
        if (c < 128 && SINGLE_SYMBOLS.has(text[i])) return this.push('symbol', i, i + 1);
        // One code point: keep a surrogate pair together so the message shows the character.
        const width = c >= 0xd800 && c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff ? 2 : 1;
        return this.push('unrecognized', i, i + width);
      }
    }
  }

  private word(i: number): number {
    const text = this.text;
    const c = text.charCodeAt(i);
    const next = text.charCodeAt(i + 1);
    // X'...' and U&'...' are longer than the one-letter identifier, when they close.
    if ((c === 88 || c === 120) && next === C_QUOTE) {
      const close = text.indexOf("'", i + 2);
      if (close > 0) return this.push('binary', i, close + 1);
    }
    if ((c === 85 || c === 117) && next === C_AMP && text.charCodeAt(i + 2) === C_QUOTE) {
      const end = quotedEnd(text, i + 2, C_QUOTE);
      if (end > 0) return this.push('unicodeString', i, end);
    }
    let j = i + 1;
    while (j < text.length && isWordPart(text.charCodeAt(j))) j++;
    const raw = text.slice(i, j);
    const upper = raw.toUpperCase();
    return this.push('word', i, j, KEYWORDS.has(upper) ? upper : undefined, raw);
  }

  /** INTEGER_VALUE, DECIMAL_VALUE, DOUBLE_VALUE or DIGIT_IDENTIFIER: the longest, ties to that order. */
  private number(i: number): number {
    const text = this.text;
    const integer = integerEnd(text, i);
    const decimal = decimalEnd(text, i);
    const double = doubleEnd(text, i);
    const digitIdentifier = isDigit(text.charCodeAt(i)) ? digitIdentifierEnd(text, i) : 0;
    const best = Math.max(integer, decimal, double, digitIdentifier, i + 1);
    if (integer === best) return this.push('integer', i, best);
    if (decimal === best) return this.push('decimal', i, best);
    if (double === best) return this.push('double', i, best);
    if (digitIdentifier === best) return this.push('digitIdentifier', i, best);
    return this.push('symbol', i, i + 1); // a lone '.'
  }
}

/**
 * End of the quoted token opening at `i` with `quote` (doubled quotes escape), or 0 when it never closes.
 * Like ANTLR, an unclosed run falls back to the longest prefix that closes: the first quote of the last
 * run of doubled quotes. Every scan ends at the token's end or at the text's end, and after a fallback
 * no quote is left to start another long scan, so lexing stays linear.
 */
function quotedEnd(text: string, i: number, quote: number): number {
  const n = text.length;
  let lastClose = 0;
  let j = i + 1;
  while (j < n) {
    if (text.charCodeAt(j) !== quote) {
      j++;
      continue;
    }
    if (text.charCodeAt(j + 1) !== quote) return j + 1;
    lastClose = j + 1; // could close here; keep the longest such prefix
    j += 2;
  }
  return lastClose;
}

/** DIGIT ('_'? DIGIT)* from `i` (which is a digit): its end. */
function digitsEnd(text: string, i: number, isValid: (c: number) => boolean): number {
  let j = i;
  while (j < text.length) {
    const c = text.charCodeAt(j);
    if (isValid(c)) j++;
    else if (c === C_UNDERSCORE && j > i && isValid(text.charCodeAt(j + 1))) j += 2;
    else break;
  }
  return j;
}

const isOctal = (c: number): boolean => c >= C_0 && c <= 55;
const isBinary = (c: number): boolean => c === C_0 || c === 49;

/** INTEGER_VALUE at `i`: decimal, or 0x / 0o / 0b forms whose digits may start with '_'. 0 if none. */
function integerEnd(text: string, i: number): number {
  if (!isDigit(text.charCodeAt(i))) return 0;
  let best = digitsEnd(text, i, isDigit);
  if (text.charCodeAt(i) === C_0) {
    const radix = text.charCodeAt(i + 1) | 0x20; // lower case
    const valid = radix === 120 ? isHexDigit : radix === 111 ? isOctal : radix === 98 ? isBinary : undefined;
    if (valid) {
      // '0X' ('_'? digit)+ : a leading '_' is allowed here.
      let j = i + 2;
      while (j < text.length) {
        const c = text.charCodeAt(j);
        if (valid(c)) j++;
        else if (c === C_UNDERSCORE && valid(text.charCodeAt(j + 1))) j += 2;
        else break;
      }
      if (j > i + 2) best = Math.max(best, j);
    }
  }
  return best;
}

/** DECIMAL_VALUE: DECIMAL_INTEGER '.' DECIMAL_INTEGER? | '.' DECIMAL_INTEGER. 0 if none. */
function decimalEnd(text: string, i: number): number {
  let j = i;
  if (isDigit(text.charCodeAt(j))) {
    j = digitsEnd(text, j, isDigit);
    if (text.charCodeAt(j) !== C_DOT) return 0;
    j++;
    return isDigit(text.charCodeAt(j)) ? digitsEnd(text, j, isDigit) : j;
  }
  if (text.charCodeAt(j) !== C_DOT || !isDigit(text.charCodeAt(j + 1))) return 0;
  return digitsEnd(text, j + 1, isDigit);
}

/** DOUBLE_VALUE: DIGIT+ ('.' DIGIT*)? EXPONENT | '.' DIGIT+ EXPONENT (no '_' here). 0 if none. */
function doubleEnd(text: string, i: number): number {
  let j = i;
  if (isDigit(text.charCodeAt(j))) {
    while (isDigit(text.charCodeAt(j))) j++;
    if (text.charCodeAt(j) === C_DOT) {
      j++;
      while (isDigit(text.charCodeAt(j))) j++;
    }
  } else {
    j++; // '.'
    if (!isDigit(text.charCodeAt(j))) return 0;
    while (isDigit(text.charCodeAt(j))) j++;
  }
  if ((text.charCodeAt(j) | 0x20) !== 101) return 0; // e
  j++;
  const sign = text.charCodeAt(j);
  if (sign === C_PLUS || sign === C_MINUS) j++;
  if (!isDigit(text.charCodeAt(j))) return 0;
  while (isDigit(text.charCodeAt(j))) j++;
  return j;
}

/** DIGIT_IDENTIFIER: DIGIT (LETTER | DIGIT | '_')+. 0 if none. */
function digitIdentifierEnd(text: string, i: number): number {
  let j = i + 1;
  while (j < text.length && isWordPart(text.charCodeAt(j))) j++;
  return j > i + 1 ? j : 0;
}
