// primaryExpression of SqlBase.g4: literals, parameters, names, function calls with their window, lambdas,
// parenthesized groups (expression, row or subquery, decided once their content is read), CASE, CAST and
// the special forms (EXTRACT, TRIM, SUBSTRING, POSITION, NORMALIZE, CURRENT_*, GROUPING, ARRAY[...], ROW(...)).
import type { Expression, FunctionCall, Identifier, Location, QualifiedName, WhenClause } from './ast.js';
import type { Token } from './lexer.js';
import type { ParenGroup } from './parser-expressions.js';
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

export abstract class PrimaryParser extends WindowParser {
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

  protected parsePrimary(): Expression {
    const t = this.tok;
    switch (t.kind) {
      case 'integer':
      case 'decimal':
      case 'double':
        return this.numberLiteral(undefined);
      case 'string':
      case 'unicodeString':
        return this.stringLiteral();
      case 'binary':
        this.advance();
        return { type: 'BinaryLiteral', value: this.binaryValue(t), location: { start: t.start, end: t.end } };
      case 'symbol':
        if (t.text === '?') {
          this.advance();
          return { type: 'Parameter', index: this.nextParameterIndex(), location: { start: t.start, end: t.end } };
        }
        if (t.text === '(') return this.lambdaAhead() ? this.lambda() : this.groupToPrimary(this.parseParenGroup());
        if (t.text === '-' && this.isNumberToken(this.peek())) {
          this.advance();
          return this.numberLiteral(t.start);
        }
        return this.fail();
      case 'word':
        return (t.keyword !== undefined && this.keywordPrimary(t.keyword)) || this.namePrimary();
      case 'quoted':
      case 'backquoted':
      case 'digitIdentifier':
        return this.namePrimary();
      default:
        return this.fail();
    }
  }

  private numberLiteral(negativeStart: number | undefined): Expression {
    const t = this.advance();
    if (t.kind === 'integer') return this.longLiteral(t, negativeStart);
    const start = negativeStart ?? t.start;
    const value = negativeStart === undefined ? t.text : `-${t.text}`;
    const type = t.kind === 'decimal' ? 'DecimalLiteral' : 'DoubleLiteral';
    return { type, value, location: { start, end: t.end } };
  }

  /** X'..': hex digits, whitespace ignored, an even number of them (Trino's BinaryLiteral checks). */
  private binaryValue(t: Token): string {
    let hex = '';
    for (let i = 2; i < t.text.length - 1; i++) {
      const c = t.text.charCodeAt(i);
      if (c === 32 || (c >= 9 && c <= 13)) continue;
      const isHex = (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
      if (!isHex) this.errorAt(t.start, 'Binary literal can only contain hexadecimal digits');
      hex += t.text[i];
    }
    if (hex.length % 2 !== 0) this.errorAt(t.start, 'Binary literal must contain an even number of digits');
    return hex.toUpperCase();
  }

  /** Forms led by a keyword; undefined when the word is to be read as a name instead. */
  private keywordPrimary(keyword: string): Expression | undefined {
    const t = this.tok;
    const next = this.peek();
    const location: Location = { start: t.start, end: t.end };
    switch (keyword) {
      case 'NULL':
        this.advance();
        return { type: 'NullLiteral', location };
      case 'TRUE':
      case 'FALSE':
        this.advance();
        return { type: 'BooleanLiteral', value: keyword === 'TRUE', location };
      case 'CASE':
        return this.caseExpression();
      case 'CAST':
        return this.cast(false);
      case 'TRY_CAST':
        return this.isSym('(', next) ? this.cast(true) : undefined;
      case 'EXISTS': {
        this.advance();
        const subquery = this.subqueryInParens();
        return { type: 'ExistsPredicate', subquery, location: this.loc(t.start) };
      }
      case 'INTERVAL':
        // INTERVAL 'v' [field], INTERVAL -'v' field; otherwise a column named interval (interval - 'x').
        return this.isStringToken(next) ||
          ((this.isSym('+', next) || this.isSym('-', next)) && this.isStringToken(this.peek(2)) && this.isIntervalFieldToken(this.peek(3)))
          ? this.intervalLiteral()
          : undefined;
      case 'DOUBLE':
        return next.keyword === 'PRECISION' && this.isStringToken(this.peek(2)) ? this.genericLiteral() : undefined;
      case 'ROW':
        if (!this.isSym('(', next)) return undefined;
        this.advance();
        return { type: 'Row', items: this.parenthesizedList(() => this.parseExpression()), location: this.loc(t.start) };
      case 'ARRAY':
        if (!this.isSym('[', next)) return undefined;
        this.advance();
        return { type: 'ArrayConstructor', values: this.arrayElements(), location: this.loc(t.start) };
      case 'CURRENT_DATE':
      case 'CURRENT_TIME':
      case 'CURRENT_TIMESTAMP':
      case 'LOCALTIME':
      case 'LOCALTIMESTAMP':
        return this.currentTime(keyword);
      case 'CURRENT_USER':
      case 'CURRENT_CATALOG':
      case 'CURRENT_SCHEMA':
      case 'CURRENT_PATH': {
        this.advance();
        const type = keyword === 'CURRENT_USER' ? 'CurrentUser' : keyword === 'CURRENT_CATALOG' ? 'CurrentCatalog' : keyword === 'CURRENT_SCHEMA' ? 'CurrentSchema' : 'CurrentPath';
        return { type, location };
      }
      case 'EXTRACT':
        return this.extract();
      case 'TRIM':
        return this.trim();
      case 'NORMALIZE':
        return this.normalize();
      case 'GROUPING':
        return this.grouping();
      case 'SUBSTRING':
      case 'POSITION':
        return this.isSym('(', next) ? this.substringOrPosition(keyword) : undefined;
      default:
        return undefined;
    }
  }

  /** Identifier-led: lambda `x -> e`, `type 'literal'`, function call a.b(...), or a column name. */
  private namePrimary(): Expression {
    if (!this.isIdentifierToken()) return this.fail();
    const next = this.peek();
    if (this.isSym('->', next)) return this.lambda();
    if (this.isStringToken(next)) return this.genericLiteral();
    if (this.functionCallAhead()) {
      const name = this.qualifiedName();
      this.expectSym('(');
      return this.functionCallRest(name, undefined);
    }
    return this.identifier();
  }

  /** identifier ('.' identifier)* '(' ahead? */
  private functionCallAhead(): boolean {
    for (let i = this.pos + 1; ; i += 2) {
      const t = this.tokens[i];
      if (this.isSym('(', t)) return true;
      if (!this.isSym('.', t) || !this.isIdentifierToken(this.tokens[i + 1])) return false;
    }
  }

  /** `identifier string` or DOUBLE PRECISION string */
  private genericLiteral(): Expression {
    const t = this.tok;
    let typeName: Identifier;
    if (t.keyword === 'DOUBLE' && this.peek().keyword === 'PRECISION') {
      this.skip(2);
      typeName = this.keywordIdentifier(t.start, t.end, t.text);
    } else {
      typeName = this.identifier();
    }
    const value = this.stringLiteral().value;
    return { type: 'GenericLiteral', typeName, value, location: this.loc(t.start) };
  }

  protected intervalLiteral(): Expression {
    const keyword = this.expectKw('INTERVAL');
    const start = keyword.start;
    const negative = this.acceptSym('-');
    const signed = negative || this.acceptSym('+');
    const value = this.stringLiteral().value;
    if (!signed && !this.isIntervalFieldToken()) {
      // INTERVAL 'x' without a field is the type constructor `identifier string`.
      const typeName = this.keywordIdentifier(start, keyword.end, keyword.text);
      return { type: 'GenericLiteral', typeName, value, location: this.loc(start) };
    }
    const sign = negative ? 'NEGATIVE' : 'POSITIVE';
    const startField = this.intervalField();
    const endField = this.acceptKw('TO') ? this.intervalField() : undefined;
    return { type: 'IntervalLiteral', value, sign, startField, endField, location: this.loc(start) };
  }

  /** At '(': `(a, b) ->` or `() ->` ahead? A scan over identifiers and commas only. */
  private lambdaAhead(): boolean {
    let i = this.pos + 1;
    if (!this.isSym(')', this.tokens[i])) {
      for (;;) {
        if (!this.isIdentifierToken(this.tokens[i])) return false;
        i++;
        if (this.isSym(')', this.tokens[i])) break;
        if (!this.isSym(',', this.tokens[i])) return false;
        i++;
      }
    }
    return this.isSym('->', this.tokens[i + 1]);
  }

  private lambda(): Expression {
    const start = this.tok.start;
    const args = this.isSym('(') ? this.parenthesizedList(() => this.identifier(), true) : [this.identifier()];
    this.expectSym('->');
    const body = this.parseExpression();
    return { type: 'LambdaExpression', arguments: args, body, location: this.loc(start) };
  }

  /**
   * '(' query ')' | '(' expression (',' expression)* ')'. A '(' opening more '(' before a query is
   * ambiguous ( ((SELECT 1) UNION ...) vs ((SELECT 1) + 1) ): the inner group is read first, then what
   * follows it decides, so nothing is parsed twice.
   */
  protected parseParenGroup(): ParenGroup {
    const start = this.expectSym('(').start;
    let group: ParenGroup;
    this.expecting('<query>');
    if (this.isQueryStartAt(this.pos)) {
      const query = this.parseQuery();
      this.expectSym(')');
      group = { kind: 'query', query, location: this.loc(start) };
    } else {
      let first: Expression;
      if (this.isSym('(') && this.parenRunOpensQuery()) {
        this.expecting('<expression>');
        this.enter();
        const inner = this.parseParenGroup();
        this.leave();
        if (inner.kind === 'query' && this.atQueryContinuation()) {
          const query = this.parseQueryNoWithFrom({ type: 'TableSubquery', query: inner.query, location: inner.location });
          this.expectSym(')');
          return { kind: 'query', query, location: this.loc(start) };
        }
        first = this.continueExpression(this.groupToPrimary(inner));
      } else {
        first = this.parseExpression();
      }
      const items = [first];
      while (this.acceptSym(',')) items.push(this.parseExpression());
      this.expectSym(')');
      group = { kind: 'list', items, location: this.loc(start) };
    }
    return group;
  }

  /** After a parenthesized query: does the query go on (set operation, ORDER BY, OFFSET, LIMIT, FETCH)? */
  protected atQueryContinuation(): boolean {
    for (const kw of ['UNION', 'EXCEPT', 'INTERSECT', 'ORDER', 'OFFSET', 'LIMIT', 'FETCH']) {
      if (this.atKw(kw)) return true;
    }
    return false;
  }

  protected groupToPrimary(group: ParenGroup): Expression {
    if (group.kind === 'query') return { type: 'SubqueryExpression', query: group.query, location: group.location };
    return group.items.length === 1 ? group.items[0] : { type: 'Row', items: group.items, location: group.location };
  }

  /** '[' [expression (',' expression)*] ']' */
  private arrayElements(): Expression[] {
    this.expectSym('[');
    const items = this.atSym(']') ? [] : this.commaList(() => this.parseExpression());
    this.expectSym(']');
    return items;
  }

  private caseExpression(): Expression {
    const start = this.advance().start;
    const operand = this.atKw('WHEN') ? undefined : this.parseExpression();
    const whenClauses: WhenClause[] = [];
    do {
      const whenStart = this.expectKw('WHEN').start;
      const condition = this.parseExpression();
      this.expectKw('THEN');
      const result = this.parseExpression();
      whenClauses.push({ type: 'WhenClause', operand: condition, result, location: this.loc(whenStart) });
    } while (this.atKw('WHEN'));
    const defaultValue = this.acceptKw('ELSE') ? this.parseExpression() : undefined;
    this.expectKw('END');
    const location = this.loc(start);
    return operand
      ? { type: 'SimpleCaseExpression', operand, whenClauses, defaultValue, location }
      : { type: 'SearchedCaseExpression', whenClauses, defaultValue, location };
  }

  private cast(safe: boolean): Expression {
    const start = this.advance().start;
    this.expectSym('(');
    const expression = this.parseExpression();
    this.expectKw('AS');
    const targetType = this.parseType();
    this.expectSym(')');
    return { type: 'Cast', expression, targetType, safe, location: this.loc(start) };
  }

  private currentTime(fn: 'CURRENT_DATE' | 'CURRENT_TIME' | 'CURRENT_TIMESTAMP' | 'LOCALTIME' | 'LOCALTIMESTAMP'): Expression {
    const start = this.advance().start;
    let precision: number | undefined;
    if (fn !== 'CURRENT_DATE' && this.acceptSym('(')) {
      precision = Number(this.integerToken().text.split('_').join(''));
      this.expectSym(')');
    }
    return { type: 'CurrentTime', function: fn, precision, location: this.loc(start) };
  }

  private extract(): Expression {
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
  private trim(): Expression {
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
  private normalize(): Expression {
    const start = this.advance().start;
    this.expectSym('(');
    const value = this.valueExpression();
    const form = this.acceptSym(',') ? this.expectOneOf(['NFD', 'NFC', 'NFKD', 'NFKC']) : 'NFC';
    this.expectSym(')');
    const location = this.loc(start);
    const name = this.nameOf([{ type: 'Identifier', value: 'normalize', quoted: true, location }], location);
    return this.simpleCall(name, [value, { type: 'StringLiteral', value: form, location }], location);
  }

  private grouping(): Expression {
    const start = this.advance().start;
    const groupingColumns = this.parenthesizedList(() => this.qualifiedName(), true);
    return { type: 'GroupingOperation', groupingColumns, location: this.loc(start) };
  }

  /** SUBSTRING(a FROM b [FOR c]) is substr(a, b, c); POSITION(a IN b) is strpos(b, a); otherwise plain calls. */
  private substringOrPosition(keyword: 'SUBSTRING' | 'POSITION'): Expression {
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

  private nameOf(parts: readonly Identifier[], location: Location): QualifiedName {
    return { type: 'QualifiedName', parts, location };
  }

  private simpleCall(name: QualifiedName, args: readonly Expression[], location: Location): FunctionCall {
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
  private functionCall(name: QualifiedName): Expression {
    this.expectSym('(');
    return this.functionCallRest(name, undefined);
  }

  /** After `name(`, and the first argument when already parsed. */
  private functionCallRest(name: QualifiedName, first: Expression | undefined): Expression {
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

  private checkSpecialFunction(call: FunctionCall): void {
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
  private filterClause(): Expression {
    this.advance();
    this.expectSym('(');
    this.expectKw('WHERE');
    const condition = this.parseExpression();
    this.expectSym(')');
    return condition;
  }

}
