// primaryExpression of SqlBase.g4: which form a primary is (literal, parameter, name, call, lambda, keyword
// form), literals, lambdas, CASE, ARRAY[...], ROW(...) and parenthesized groups (expression, row or subquery,
// decided once their content is read).
import type { Expression, Identifier, Location, WhenClause } from './ast.js';
import type { Token } from './lexer.js';
import type { ParenGroup } from './parser-expressions.js';
import { CallParser } from './parser-calls.js';

export abstract class PrimaryParser extends CallParser {
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
}
