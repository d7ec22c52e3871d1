// DuckDB's spelling of a type (duckdb_columns().data_type: `INTEGER[]`, `DECIMAL(15,2)`,
// `STRUCT("x y" INTEGER, n VARCHAR[])`, `MAP(VARCHAR, DOUBLE)`, `TIMESTAMP WITH TIME ZONE`) read back
// into a DuckDBType, so catalog listings name a column's type as prestoTypeOf does for a query's.
import {
  ARRAY,
  BIGINT,
  BIGNUM,
  BIT,
  BLOB,
  BOOLEAN,
  DATE,
  DECIMAL,
  DOUBLE,
  DuckDBVarCharType,
  FLOAT,
  HUGEINT,
  INTEGER,
  INTERVAL,
  LIST,
  MAP,
  SMALLINT,
  SQLNULL,
  STRUCT,
  TIME,
  TIME_NS,
  TIMESTAMP,
  TIMESTAMP_MS,
  TIMESTAMP_NS,
  TIMESTAMP_S,
  TIMESTAMPTZ,
  TIMETZ,
  TINYINT,
  UBIGINT,
  UHUGEINT,
  UINTEGER,
  UNION,
  USMALLINT,
  UTINYINT,
  UUID,
  VARCHAR,
  type DuckDBType,
} from '@duckdb/node-api';

const NAMED: Record<string, DuckDBType> = {
  BOOLEAN, TINYINT, SMALLINT, INTEGER, BIGINT, HUGEINT, UTINYINT, USMALLINT, UINTEGER, UBIGINT, UHUGEINT, BIGNUM,
  FLOAT, DOUBLE, VARCHAR, BLOB, DATE, TIME, TIME_NS, TIMESTAMP, TIMESTAMP_MS, TIMESTAMP_NS, TIMESTAMP_S, INTERVAL,
  UUID, BIT, NULL: SQLNULL, JSON: DuckDBVarCharType.create('JSON'),
  // DuckDB's aliases, should a type text ever carry one.
  BOOL: BOOLEAN, INT: INTEGER, REAL: FLOAT, TEXT: VARCHAR, STRING: VARCHAR, BYTEA: BLOB, TIMESTAMPTZ, TIMETZ,
};


const isLetter = (c: string | undefined) => c !== undefined && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_');
const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';
const isSpace = (c: string | undefined) => c === ' ' || c === '\t' || c === '\n' || c === '\r';

class TypeText {
  private at = 0;

  constructor(private readonly text: string) {}

  parse(): DuckDBType {
    const type = this.type();
    this.space();
    if (this.at !== this.text.length) throw new SyntaxError(`unexpected text at ${this.at} in ${this.text}`);
    return type;
  }

  private type(): DuckDBType {
    let type = this.base();
    for (;;) {
      this.space();
      if (!this.eat('[')) return type;
      const length = this.number(true);
      this.expect(']');
      type = length === undefined ? LIST(type) : ARRAY(type, length);
    }
  }

  private base(): DuckDBType {
    this.space();
    const name = this.word().toUpperCase();
    if ((name === 'TIMESTAMP' || name === 'TIME') && this.eatWithTimeZone()) return name === 'TIME' ? TIMETZ : TIMESTAMPTZ;
    switch (name) {
      case 'STRUCT':
        return STRUCT(this.fields());
      case 'UNION':
        return UNION(this.fields());
      case 'MAP': {
        this.expect('(');
        const key = this.type();
        this.expect(',');
        const value = this.type();
        this.expect(')');
        return MAP(key, value);
      }
      case 'DECIMAL':
      case 'NUMERIC': {
        if (!this.eat('(')) return DECIMAL(18, 3);
        const width = this.number(false)!;
        const scale = this.eat(',') ? this.number(false)! : 0;
        this.expect(')');
        return DECIMAL(width, scale);
      }
      default:
        // ENUM('a', 'b'), VARCHAR(25) and the like: the arguments say nothing prestoTypeOf reads.
        if (this.eat('(')) this.skipArguments();
        return NAMED[name] ?? VARCHAR;
    }
  }

  private fields(): Record<string, DuckDBType> {
    const fields: Record<string, DuckDBType> = {};
    this.expect('(');
    do {
      this.space();
      const name = this.text[this.at] === '"' ? this.quoted() : this.word();
      fields[name] = this.type();
    } while (this.eat(','));
    this.expect(')');
    return fields;
  }

  private quoted(): string {
    let out = '';
    this.at++;
    for (;;) {
      const close = this.text.indexOf('"', this.at);
      if (close < 0) throw new SyntaxError(`unterminated name in ${this.text}`);
      out += this.text.slice(this.at, close);
      this.at = close + 1;
      if (this.text[this.at] !== '"') return out;
      out += '"';
      this.at++;
    }
  }

  private skipArguments(): void {
    let depth = 1;
    let quote: string | undefined;
    while (this.at < this.text.length && depth > 0) {
      const ch = this.text[this.at++]!;
      if (quote !== undefined) {
        if (ch === quote) quote = undefined;
      } else if (ch === "'" || ch === '"') quote = ch;
      else if (ch === '(') depth++;
      else if (ch === ')') depth--;
    }
  }

  // Scanned in place, character by character: a wide struct's text is long, and copying the rest of it
  // for every token would be quadratic.
  private word(): string {
    const start = this.at;
    if (!isLetter(this.text[this.at])) throw new SyntaxError(`expected a name at ${this.at} in ${this.text}`);
    while (isLetter(this.text[this.at]) || isDigit(this.text[this.at])) this.at++;
    return this.text.slice(start, this.at);
  }

  private number(optional: boolean): number | undefined {
    this.space();
    const start = this.at;
    while (isDigit(this.text[this.at])) this.at++;
    if (this.at === start) {
      if (optional) return undefined;
      throw new SyntaxError(`expected a number at ${this.at} in ${this.text}`);
    }
    return Number(this.text.slice(start, this.at));
  }

  /** ` WITH TIME ZONE` after TIMESTAMP or TIME. */
  private eatWithTimeZone(): boolean {
    const start = this.at;
    for (const word of ['WITH', 'TIME', 'ZONE']) {
      if (!isSpace(this.text[this.at])) break;
      while (isSpace(this.text[this.at])) this.at++;
      const end = this.at + word.length;
      if (this.text.slice(this.at, end).toUpperCase() !== word || isLetter(this.text[end]) || isDigit(this.text[end])) break;
      this.at = end;
      if (word === 'ZONE') return true;
    }
    this.at = start;
    return false;
  }

  private space(): void {
    while (this.at < this.text.length && /\s/.test(this.text[this.at]!)) this.at++;
  }

  private eat(ch: string): boolean {
    this.space();
    if (this.text[this.at] !== ch) return false;
    this.at++;
    return true;
  }

  private expect(ch: string): void {
    if (!this.eat(ch)) throw new SyntaxError(`expected ${ch} at ${this.at} in ${this.text}`);
  }
}

/** The DuckDBType a type text names; throws a SyntaxError on text that is no DuckDB type. */
export function duckdbTypeOfText(text: string): DuckDBType {
  return new TypeText(text).parse();
}
