// JSON with the place of every value: the resource-groups file's errors name the line and column of what is
// wrong, as Jackson's do in Trino ("Unknown property at line 12:7: maxRuning"). A small recursive-descent
// reader over the text (no regular expressions), with a depth bound so a hostile file cannot overflow the stack.

export interface Place {
  line: number;
  column: number;
}

export type LocatedValue =
  | { kind: 'object'; at: Place; entries: LocatedEntry[] }
  | { kind: 'array'; at: Place; items: LocatedValue[] }
  | { kind: 'string'; at: Place; value: string }
  | { kind: 'number'; at: Place; value: number; integral: boolean }
  | { kind: 'boolean'; at: Place; value: boolean }
  | { kind: 'null'; at: Place };

export interface LocatedEntry {
  key: string;
  keyAt: Place;
  value: LocatedValue;
}

/** A place in the text and what is wrong there. */
export class JsonProblem extends Error {
  constructor(
    readonly at: Place,
    readonly reason: string,
  ) {
    super(`line ${at.line}:${at.column}: ${reason}`);
  }
}

/** Deeper nesting than any resource-group tree needs. */
const MAX_DEPTH = 64;

export function parseLocatedJson(text: string): LocatedValue {
  return new Reader(text).document();
}

/** A character shown in a message: printable ASCII as itself, anything else by its code. */
function shownChar(ch: string): string {
  const code = ch.charCodeAt(0);
  return code > 0x20 && code < 0x7f ? `'${ch}'` : `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

function isHexDigit(ch: string): boolean {
  return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F');
}

class Reader {
  private pos = 0;
  private line = 1;
  private lineStart = 0;

  constructor(private readonly text: string) {}

  document(): LocatedValue {
    const value = this.value(0);
    this.skipSpace();
    if (this.pos < this.text.length) this.fail(`unexpected ${shownChar(this.text[this.pos]!)} after the document`);
    return value;
  }

  private place(): Place {
    return { line: this.line, column: this.pos - this.lineStart + 1 };
  }

  private fail(reason: string, at: Place = this.place()): never {
    throw new JsonProblem(at, reason);
  }

  private skipSpace(): void {
    const text = this.text;
    while (this.pos < text.length) {
      const ch = text[this.pos];
      if (ch === '\n') {
        this.pos++;
        this.line++;
        this.lineStart = this.pos;
      } else if (ch === ' ' || ch === '\t' || ch === '\r') {
        this.pos++;
      } else {
        return;
      }
    }
  }

  private value(depth: number): LocatedValue {
    this.skipSpace();
    const at = this.place();
    if (this.pos >= this.text.length) this.fail('unexpected end of the file');
    const ch = this.text[this.pos]!;
    if (ch === '{' || ch === '[') {
      if (depth >= MAX_DEPTH) this.fail(`nesting deeper than ${MAX_DEPTH}`);
      return ch === '{' ? this.object(at, depth) : this.array(at, depth);
    }
    if (ch === '"') return { kind: 'string', at, value: this.string() };
    if (ch === '-' || (ch >= '0' && ch <= '9')) return this.number(at);
    for (const [word, result] of [
      ['true', { kind: 'boolean', at, value: true }],
      ['false', { kind: 'boolean', at, value: false }],
      ['null', { kind: 'null', at }],
    ] as const) {
      if (this.text.startsWith(word, this.pos)) {
        this.pos += word.length;
        return result;
      }
    }
    return this.fail(`unexpected ${shownChar(ch)}`);
  }

  private expect(ch: string): void {
    this.skipSpace();
    if (this.text[this.pos] !== ch) {
      this.fail(this.pos >= this.text.length ? 'unexpected end of the file' : `expected '${ch}', found ${shownChar(this.text[this.pos]!)}`);
    }
    this.pos++;
  }

  /** Members of an object or array up to `close`, each read by `member`. */
  private members(close: '}' | ']', member: () => void): void {
    this.pos++; // the opening bracket
    this.skipSpace();
    if (this.text[this.pos] === close) {
      this.pos++;
      return;
    }
    for (;;) {
      member();
      this.skipSpace();
      const next = this.text[this.pos];
      if (next === close) {
        this.pos++;
        return;
      }
      if (next !== ',') this.fail(next === undefined ? 'unexpected end of the file' : `expected ',' or '${close}', found ${shownChar(next)}`);
      this.pos++;
    }
  }

  private object(at: Place, depth: number): LocatedValue {
    const entries: LocatedEntry[] = [];
    this.members('}', () => {
      this.skipSpace();
      const keyAt = this.place();
      if (this.text[this.pos] !== '"') this.fail(this.pos >= this.text.length ? 'unexpected end of the file' : 'expected a property name in double quotes');
      const key = this.string();
      this.expect(':');
      entries.push({ key, keyAt, value: this.value(depth + 1) });
    });
    return { kind: 'object', at, entries };
  }

  private array(at: Place, depth: number): LocatedValue {
    const items: LocatedValue[] = [];
    this.members(']', () => items.push(this.value(depth + 1)));
    return { kind: 'array', at, items };
  }

  private string(): string {
    const text = this.text;
    this.pos++; // opening quote
    let out = '';
    let runStart = this.pos;
    while (this.pos < text.length) {
      const ch = text[this.pos]!;
      if (ch === '"') {
        out += text.slice(runStart, this.pos);
        this.pos++;
        return out;
      }
      if (ch === '\\') {
        out += text.slice(runStart, this.pos);
        out += this.escape();
        runStart = this.pos;
        continue;
      }
      if (ch.charCodeAt(0) < 0x20) this.fail(`control character ${shownChar(ch)} in a string`);
      this.pos++;
    }
    return this.fail('unterminated string');
  }

  private escape(): string {
    const at = this.place();
    const ch = this.text[this.pos + 1];
    this.pos += 2;
    switch (ch) {
      case '"':
      case '\\':
      case '/':
        return ch;
      case 'b':
        return '\b';
      case 'f':
        return '\f';
      case 'n':
        return '\n';
      case 'r':
        return '\r';
      case 't':
        return '\t';
      case 'u': {
        const hex = this.text.slice(this.pos, this.pos + 4);
        if (hex.length !== 4 || ![...hex].every(isHexDigit)) this.fail('invalid \\u escape', at);
        const code = parseInt(hex, 16);
        this.pos += 4;
        return String.fromCharCode(code);
      }
      default:
        return this.fail(ch === undefined ? 'unterminated string' : `invalid escape ${shownChar(ch)}`, at);
    }
  }

  private number(at: Place): LocatedValue {
    const text = this.text;
    const start = this.pos;
    const digits = () => {
      const from = this.pos;
      while (this.pos < text.length && text[this.pos]! >= '0' && text[this.pos]! <= '9') this.pos++;
      return this.pos - from;
    };
    if (text[this.pos] === '-') this.pos++;
    const intDigits = digits();
    if (intDigits === 0) this.fail('invalid number', at);
    if (intDigits > 1 && text[this.pos - intDigits] === '0') this.fail('invalid number: leading zero', at);
    let integral = true;
    if (text[this.pos] === '.') {
      this.pos++;
      integral = false;
      if (digits() === 0) this.fail('invalid number', at);
    }
    if (text[this.pos] === 'e' || text[this.pos] === 'E') {
      this.pos++;
      integral = false;
      if (text[this.pos] === '+' || text[this.pos] === '-') this.pos++;
      if (digits() === 0) this.fail('invalid number', at);
    }
    return { kind: 'number', at, value: Number(text.slice(start, this.pos)), integral };
  }
}
