// Function calls (DISTINCT, ORDER BY, FILTER, null treatment, OVER, Trino's checks of if / nullif / coalesce /
// try / format) and the special forms read as calls or as their own nodes: CAST, EXTRACT, TRIM, NORMALIZE,
// SUBSTRING, POSITION, GROUPING, CURRENT_*.
import type { Expression, FunctionCall, Identifier, Location, QualifiedName } from './ast.js';
import type { Token } from './lexer.js';
import { WindowParser } from './parser-window.js';

const EXTRACT_FIELDS = new Set([
  'YEAR',
  'QUARTER',
  'MONTH',
  'WEEK',
  'DAY',
  'DAY_OF_MONTH',
  'DAY_OF_WEEK',
  'DOW',
  'DAY_OF_YEAR',
  'DOY',
  'YEAR_OF_WEEK',
  'YOW',
  'HOUR',
  'MINUTE',
  'SECOND',
  'TIMEZONE_MINUTE',
  'TIMEZONE_HOUR',
]);

/** Reserved words that start an expression (the rest start one only as identifiers). */
const EXPRESSION_KEYWORDS = new Set([
  'NULL',
  'TRUE',
  'FALSE',
  'NOT',
  'CASE',
  'CAST',
  'EXISTS',
  'CURRENT_DATE',
  'CURRENT_TIME',
  'CURRENT_TIMESTAMP',
  'LOCALTIME',
  'LOCALTIMESTAMP',
  'CURRENT_USER',
  'CURRENT_CATALOG',
  'CURRENT_SCHEMA',
  'CURRENT_PATH',
  'TRIM',
  'NORMALIZE',
  'EXTRACT',
  'GROUPING',
]);

/** Trino's parse-time checks of if, nullif, coalesce, try and format (AstBuilder.visitFunctionCall). */
const ARITY: Record<string, { ok: (n: number) => boolean; message: string }> = {
  if: { ok: (n) => n === 2 || n === 3, message: "Invalid number of arguments for 'if' function" },
  nullif: { ok: (n) => n === 2, message: "Invalid number of arguments for 'nullif' function" },
  coalesce: { ok: (n) => n >= 2, message: "The 'coalesce' function must have at least two arguments" },
  try: { ok: (n) => n === 1, message: "The 'try' function must have exactly one argument" },
  format: { ok: (n) => n >= 2, message: "The 'format' function must have at least two arguments" },
};

export abstract class CallParser extends WindowParser {
  /** Could `t` begin an expression? (Tells ALL as a quantifier from a column named all.) */
  protected canStartExpression(t: Token): boolean {
    switch (t.kind) {
      case 'word':
        return this.isIdentifierToken(t) || EXPRESSION_KEYWORDS.has(t.keyword ?? '');
      case 'symbol':
        return t.text === '(' || t.text === '?' || t.text === '-' || t.text === '+';
      case 'eof':
      case 'unrecognized':
        return false;
      default:
        return true;
    }
  }

  /**
   * At ALL: the set quantifier, or a column named all? A quantifier when an expression can follow it and
   * `all` does not go on as an operand (all AT TIME ZONE ..., all NOT IN ...), as ANTLR's lookahead decides.
   */
  protected quantifierAllAhead(): boolean {
    const next = this.peek();
    if (!this.canStartExpression(next)) return false;
    const after = this.peek(2).keyword;
    if (next.keyword === 'AT') return after !== 'TIME';
    return !(next.keyword === 'NOT' && (after === 'IN' || after === 'LIKE' || after === 'BETWEEN'));
  }

  protected cast(safe: boolean): Expression {
    const start = this.advance().start;
    this.expectSym('(');
    const expression = this.parseExpression();
    this.expectKw('AS');
    const targetType = this.parseType();
    this.expectSym(')');
    return { type: 'Cast', expression, targetType, safe, location: this.loc(start) };
  }

  protected currentTime(fn: 'CURRENT_DATE' | 'CURRENT_TIME' | 'CURRENT_TIMESTAMP' | 'LOCALTIME' | 'LOCALTIMESTAMP'): Expression {
    const start = this.advance().start;
    let precision: number | undefined;
    if (fn !== 'CURRENT_DATE' && this.acceptSym('(')) {
      precision = Number(this.integerToken().text.split('_').join(''));
      this.expectSym(')');
    }
    return { type: 'CurrentTime', function: fn, precision, location: this.loc(start) };
  }

  protected extract(): Expression {
    const start = this.advance().start;
    this.expectSym('(');
    const name = this.identifier();
    const field = name.value.toUpperCase();
    if (!EXTRACT_FIELDS.has(field)) this.errorAt(start, `Invalid EXTRACT field: ${name.value}`);
    this.expectKw('FROM');
    const expression = this.valueExpression();
    this.expectSym(')');
    return { type: 'Extract', field: field as 'YEAR', expression, location: this.loc(start) };
  }

  /** TRIM([spec] [char] FROM source) | TRIM(source, char) | TRIM(source) */
  protected trim(): Expression {
    const start = this.advance().start;
    this.expectSym('(');
    const spec = this.acceptOneOf(['BOTH', 'LEADING', 'TRAILING']) as 'BOTH' | 'LEADING' | 'TRAILING' | undefined;
    let trimCharacter: Expression | undefined;
    let trimSource: Expression;
    if (spec !== undefined) {
      if (!this.acceptKw('FROM')) {
        trimCharacter = this.valueExpression();
        this.expectKw('FROM');
      }
      trimSource = this.valueExpression();
    } else {
      const first = this.valueExpression();
      if (this.acceptKw('FROM')) {
        trimCharacter = first;
        trimSource = this.valueExpression();
      } else {
        trimSource = first;
        if (this.acceptSym(',')) trimCharacter = this.valueExpression();
      }
    }
    this.expectSym(')');
    return { type: 'Trim', specification: spec ?? 'BOTH', trimSource, trimCharacter, location: this.loc(start) };
  }

  /** NORMALIZE(value [, form]) is "normalize"(value, 'form'), form NFC by default. */
  protected normalize(): Expression {
    const start = this.advance().start;
    this.expectSym('(');
    const value = this.valueExpression();
    const form = this.acceptSym(',') ? this.expectOneOf(['NFD', 'NFC', 'NFKD', 'NFKC']) : 'NFC';
    this.expectSym(')');
    const location = this.loc(start);
    const name = this.nameOf([{ type: 'Identifier', value: 'normalize', quoted: true, location }], location);
    return this.simpleCall(name, [value, { type: 'StringLiteral', value: form, location }], location);
  }

  protected grouping(): Expression {
    const start = this.advance().start;
    const groupingColumns = this.parenthesizedList(() => this.qualifiedName(), true);
    return { type: 'GroupingOperation', groupingColumns, location: this.loc(start) };
  }

  /** SUBSTRING(a FROM b [FOR c]) is substr(a, b, c); POSITION(a IN b) is strpos(b, a); otherwise plain calls. */
  protected substringOrPosition(keyword: 'SUBSTRING' | 'POSITION'): Expression {
    const nameToken = this.tok;
    if (!this.canStartExpression(this.peek(2))) return this.functionCall(this.qualifiedName());
    const name = this.qualifiedName();
    this.expectSym('(');
    const first = this.valueExpression();
    if (keyword === 'POSITION' ? this.acceptKw('IN') : this.acceptKw('FROM')) {
      const second = this.valueExpression();
      const third = keyword === 'SUBSTRING' && this.acceptKw('FOR') ? this.valueExpression() : undefined;
      this.expectSym(')');
      const location = this.loc(nameToken.start);
      const fnName = keyword === 'SUBSTRING' ? 'substr' : 'strpos';
      const qualified = this.nameOf([{ type: 'Identifier', value: fnName, quoted: false, location: name.location }], name.location);
      const args = keyword === 'SUBSTRING' ? (third ? [first, second, third] : [first, second]) : [second, first];
      return this.simpleCall(qualified, args, location);
    }
    return this.functionCallRest(name, this.continueFromValue(first));
  }

  protected nameOf(parts: readonly Identifier[], location: Location): QualifiedName {
    return { type: 'QualifiedName', parts, location };
  }

  protected simpleCall(name: QualifiedName, args: readonly Expression[], location: Location): FunctionCall {
    return {
      type: 'FunctionCall',
      name,
      distinct: false,
      arguments: args,
      orderBy: undefined,
      filter: undefined,
      nullTreatment: undefined,
      window: undefined,
      location,
    };
  }

  /** name '(' ... ')' [FILTER (WHERE ...)] [IGNORE|RESPECT NULLS] [OVER ...] */
  protected functionCall(name: QualifiedName): Expression {
    this.expectSym('(');
    return this.functionCallRest(name, undefined);
  }

  /** After `name(`, and the first argument when already parsed. */
  protected functionCallRest(name: QualifiedName, first: Expression | undefined): Expression {
    const args: Expression[] = [];
    let distinct = false;
    let star = false;
    if (first) {
      args.push(first);
      while (this.acceptSym(',')) args.push(this.parseExpression());
    } else if (this.acceptSym('*')) {
      star = true; // count(*): no arguments
    } else if (!this.atSym(')') && !this.atKw('ORDER')) {
      if (this.atKw('DISTINCT') || (this.atKw('ALL') && this.quantifierAllAhead())) {
        distinct = this.advance().keyword === 'DISTINCT';
      }
      args.push(...this.commaList(() => this.parseExpression()));
    }
    const orderBy = star ? undefined : this.orderByClause();
    this.expectSym(')');
    const filter = this.atKw('FILTER') && this.isSym('(', this.peek()) ? this.filterClause() : undefined;
    let nullTreatment: 'IGNORE' | 'RESPECT' | undefined;
    if ((this.atKw('IGNORE') || this.atKw('RESPECT')) && this.isKw('NULLS', this.peek())) {
      nullTreatment = this.advance().keyword as 'IGNORE';
      this.advance();
      if (!this.atKw('OVER')) this.fail();
    }
    const window = this.atKw('OVER') && (this.isSym('(', this.peek()) || this.isIdentifierToken(this.peek())) ? this.over() : undefined;
    const location = this.loc(name.location.start);
    const call: FunctionCall = { ...this.simpleCall(name, args, location), distinct, orderBy, filter, nullTreatment, window };
    this.checkSpecialFunction(call);
    return call;
  }

  protected checkSpecialFunction(call: FunctionCall): void {
    if (call.name.parts.length !== 1) return;
    const fn = call.name.parts[0].value.toLowerCase();
    const rule = ARITY[fn];
    if (rule === undefined) return;
    const at = call.location.start;
    if (!rule.ok(call.arguments.length)) this.errorAt(at, rule.message);
    if (call.window) this.errorAt(at, `OVER clause not valid for '${fn}' function`);
    if (call.distinct) this.errorAt(at, `DISTINCT not valid for '${fn}' function`);
    if (call.nullTreatment) this.errorAt(at, `Null treatment clause not valid for '${fn}' function`);
    if (call.filter) this.errorAt(at, `FILTER not valid for '${fn}' function`);
  }

  /** FILTER '(' WHERE booleanExpression ')' */
  protected filterClause(): Expression {
    this.advance();
    this.expectSym('(');
    this.expectKw('WHERE');
    const condition = this.parseExpression();
    this.expectSym(')');
    return condition;
  }

}
