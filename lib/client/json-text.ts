// JSON parsing that keeps every number's text as the server wrote it ("1.0", "1.0E10",
// "12345678901234567890"): the CLI prints values exactly as sent, and JSON.parse would turn 1.0 into 1 and
// round big integers. Node 20's JSON.parse has no source-text access in its reviver, hence this parser.

/** A JSON number kept as its source text. */
export class JsonNumber {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

export type JsonValue = null | boolean | string | JsonNumber | JsonValue[] | { [key: string]: JsonValue };

/** Deeper nesting than any SQL type the server can send; past it the text is refused, not a stack overflow. */
const MAX_DEPTH = 500;

export class JsonTextError extends Error {}

export function parseJsonText(text: string): JsonValue {
  const p = new Parser(text);
  p.space();
  const value = p.value(0);
  p.space();
  if (p.pos !== text.length) throw p.fail('unexpected text after the value');
  return value;
}

/** Back to JSON text, numbers as they came. */
export function stringifyJsonText(value: JsonValue): string {
  if (value instanceof JsonNumber) return value.text;
  if (Array.isArray(value)) return `[${value.map(stringifyJsonText).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}:${stringifyJsonText(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

class Parser {
  pos = 0;
  constructor(private readonly text: string) {}

  fail(what: string): JsonTextError {
    return new JsonTextError(`Invalid JSON at offset ${this.pos}: ${what}`);
  }

  space(): void {
    const t = this.text;
    while (this.pos < t.length && (t[this.pos] === ' ' || t[this.pos] === '\n' || t[this.pos] === '\r' || t[this.pos] === '\t')) this.pos++;
  }

  value(depth: number): JsonValue {
    if (depth > MAX_DEPTH) throw this.fail('nesting too deep');
    const ch = this.text[this.pos];
    if (ch === '{') return this.object(depth);
    if (ch === '[') return this.array(depth);
    if (ch === '"') return this.string();
    if (ch === '-' || (ch !== undefined && ch >= '0' && ch <= '9')) return this.number();
    for (const [word, v] of [['true', true], ['false', false], ['null', null]] as const) {
      if (this.text.startsWith(word, this.pos)) {
        this.pos += word.length;
        return v;
      }
    }
    throw this.fail('expected a value');
  }

  private object(depth: number): { [key: string]: JsonValue } {
    this.pos++;
    const entries: [string, JsonValue][] = [];
    this.space();
    if (this.text[this.pos] === '}') {
      this.pos++;
      return {};
    }
    for (;;) {
      this.space();
      if (this.text[this.pos] !== '"') throw this.fail('expected a member name');
      const key = this.string();
      this.space();
      if (this.text[this.pos] !== ':') throw this.fail("expected ':'");
      this.pos++;
      this.space();
      entries.push([key, this.value(depth + 1)]);
      this.space();
      const ch = this.text[this.pos++];
      // fromEntries: a "__proto__" key becomes a plain member.
      if (ch === '}') return Object.fromEntries(entries);
      if (ch !== ',') throw this.fail("expected ',' or '}'");
    }
  }

  private array(depth: number): JsonValue[] {
    this.pos++;
    const out: JsonValue[] = [];
    this.space();
    if (this.text[this.pos] === ']') {
      this.pos++;
      return out;
    }
    for (;;) {
      this.space();
      out.push(this.value(depth + 1));
      this.space();
      const ch = this.text[this.pos++];
      if (ch === ']') return out;
      if (ch !== ',') throw this.fail("expected ',' or ']'");
    }
  }

  private string(): string {
    const start = this.pos;
    this.pos++;
    const t = this.text;
    while (this.pos < t.length && t[this.pos] !== '"') {
      if (t.charCodeAt(this.pos) < 0x20) throw this.fail('control character in a string');
      this.pos += t[this.pos] === '\\' ? 2 : 1;
    }
    if (this.pos >= t.length) throw this.fail('unterminated string');
    this.pos++;
    try {
      // One literal at a time: JSON.parse knows the escapes.
      return JSON.parse(t.slice(start, this.pos)) as string;
    } catch {
      throw this.fail('bad escape in a string');
    }
  }

  private number(): JsonNumber {
    const t = this.text;
    const start = this.pos;
    if (t[this.pos] === '-') this.pos++;
    const digits = () => {
      const from = this.pos;
      while (this.pos < t.length && t[this.pos]! >= '0' && t[this.pos]! <= '9') this.pos++;
      if (this.pos === from) throw this.fail('expected a digit');
    };
    if (t[this.pos] === '0') this.pos++;
    else digits();
    if (t[this.pos] === '.') {
      this.pos++;
      digits();
    }
    if (t[this.pos] === 'e' || t[this.pos] === 'E') {
      this.pos++;
      if (t[this.pos] === '+' || t[this.pos] === '-') this.pos++;
      digits();
    }
    return new JsonNumber(t.slice(start, this.pos));
  }
}
