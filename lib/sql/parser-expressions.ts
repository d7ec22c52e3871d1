// Expression operators with Trino's precedence: OR < AND < NOT < predicate (comparison, BETWEEN, IN, LIKE,
// IS) < || < + - < * / % < unary sign < AT TIME ZONE < postfix (. and []). Chains are loops, and every level
// a node adds to the tree's depth is counted against maxDepth, so no input nests past it.
import type {
  Expression,
  Location,
  LogicalExpression,
  Query,
  QueryBody,
  SubqueryExpression,
} from './ast.js';
import { TypeParser } from './parser-types.js';

/** What a '(' group held: a query, or a list of expressions (one: parenthesized; more: a row). */
export type ParenGroup =
  | { readonly kind: 'query'; readonly query: Query; readonly location: Location }
  | { readonly kind: 'list'; readonly items: readonly Expression[]; readonly location: Location };

const COMPARISON: Record<string, '=' | '<>' | '<' | '<=' | '>' | '>='> = {
  '=': '=',
  '<>': '<>',
  '!=': '<>',
  '<': '<',
  '<=': '<=',
  '>': '>',
  '>=': '>=',
};

type BinaryOp = '||' | '+' | '-' | '*' | '/' | '%';
const BINARY_PRECEDENCE: Record<BinaryOp, number> = { '||': 1, '+': 2, '-': 2, '*': 3, '/': 3, '%': 3 };
const BINARY_LABELS = ["'%'", "'*'", "'+'", "'-'", "'/'", "'||'"];

export abstract class ExpressionParser extends TypeParser {
  /** primaryExpression, without postfix operators. */
  protected abstract parsePrimary(): Expression;
  /** '(' query ')' or '(' expression (',' expression)* ')' at '('. */
  protected abstract parseParenGroup(): ParenGroup;
  /** query, reported as <query>. */
  protected abstract parseQuery(): Query;
  /** The rest of a queryNoWith whose first query term is already parsed. */
  protected abstract parseQueryNoWithFrom(first: QueryBody): Query;

  /** expression, reported as <expression>. */
  protected parseExpression(): Expression {
    const saved = this.beginRule('<expression>');
    this.enter();
    const e = this.booleanExpression(undefined);
    this.leave();
    this.endRule(saved);
    return e;
  }

  /** The rest of an expression whose first primary (postfix operators not applied yet) is parsed. */
  protected continueExpression(primary: Expression): Expression {
    this.enter();
    const e = this.booleanExpression(this.valueExpressionFrom(primary));
    this.leave();
    return e;
  }

  /** The rest of an expression whose first value expression is parsed. */
  protected continueFromValue(value: Expression): Expression {
    return this.booleanExpression(value);
  }

  /** OR of ANDs of NOT* predicated; `first` is the leading value expression when already parsed. */
  private booleanExpression(first: Expression | undefined): Expression {
    const orTerms: Expression[] = [];
    let levels = 0;
    do {
      if (orTerms.length === 1) levels += this.enterLevel();
      const andTerms: Expression[] = [];
      do {
        if (andTerms.length === 1) levels += this.enterLevel();
        andTerms.push(first ? this.predicated(first) : this.negatedTerm());
        first = undefined;
      } while (this.acceptKw('AND'));
      orTerms.push(andTerms.length === 1 ? andTerms[0] : logical('AND', andTerms));
    } while (this.acceptKw('OR'));
    this.leave(levels);
    return orTerms.length === 1 ? orTerms[0] : logical('OR', orTerms);
  }

  /** NOT* valueExpression predicate?, reported as <expression> (also after each NOT). */
  private negatedTerm(): Expression {
    let saved = this.beginRule('<expression>');
    const nots: number[] = [];
    while (this.atKw('NOT')) {
      nots.push(this.advance().start);
      this.enter();
      this.endRule(saved);
      saved = this.beginRule('<expression>');
    }
    // The operand is parsed here rather than inside predicated(): one stack frame less per nesting level.
    const value = this.binary(0, undefined);
    this.endRule(saved);
    let e = this.predicated(value);
    for (let i = nots.length - 1; i >= 0; i--) e = { type: 'NotExpression', value: e, location: this.loc(nots[i]) };
    this.leave(nots.length);
    return e;
  }

  /** value predicate? */
  private predicated(value: Expression): Expression {
    this.expecting('<predicate>');
    const t = this.tok;
    const start = value.location.start;
    if (t.kind === 'symbol' && COMPARISON[t.text] !== undefined) {
      this.advance();
      const operator = COMPARISON[t.text];
      const quantifier = this.tok.keyword;
      if ((quantifier === 'ALL' || quantifier === 'ANY' || quantifier === 'SOME') && this.opensSubquery(1)) {
        this.advance();
        const subquery = this.subqueryInParens();
        return { type: 'QuantifiedComparisonExpression', operator, quantifier, value, subquery, location: this.loc(start) };
      }
      const right = this.valueExpression();
      return { type: 'ComparisonExpression', operator, left: value, right, location: this.loc(start) };
    }
    if (t.keyword === 'IS') {
      this.advance();
      const negated = this.acceptKw('NOT');
      if (this.acceptKw('NULL')) return { type: 'IsNullPredicate', value, negated, location: this.loc(start) };
      this.expectKw('DISTINCT');
      this.expectKw('FROM');
      const right = this.valueExpression();
      const operator = negated ? 'IS NOT DISTINCT FROM' : 'IS DISTINCT FROM';
      return { type: 'ComparisonExpression', operator, left: value, right, location: this.loc(start) };
    }
    const negated = t.keyword === 'NOT';
    const kw = negated ? this.peek().keyword : t.keyword;
    if (kw !== 'BETWEEN' && kw !== 'IN' && kw !== 'LIKE') return value;
    this.skip(negated ? 2 : 1);
    if (kw === 'BETWEEN') {
      const min = this.valueExpression();
      this.expectKw('AND');
      const max = this.valueExpression();
      return { type: 'BetweenPredicate', value, min, max, negated, location: this.loc(start) };
    }
    if (kw === 'LIKE') {
      const pattern = this.valueExpression();
      const escape = this.acceptKw('ESCAPE') ? this.valueExpression() : undefined;
      return { type: 'LikePredicate', value, pattern, escape, negated, location: this.loc(start) };
    }
    this.expecting("'('");
    if (!this.isSym('(')) this.fail();
    const group = this.parseParenGroup();
    const valueList =
      group.kind === 'query'
        ? ({ type: 'SubqueryExpression', query: group.query, location: group.location } as const)
        : ({ type: 'InListExpression', values: group.items, location: group.location } as const);
    return { type: 'InPredicate', value, valueList, negated, location: this.loc(start) };
  }

  /** Does '(' at `offset` open a query (possibly behind more '(')? */
  protected opensSubquery(offset: number): boolean {
    if (!this.isSym('(', this.peek(offset))) return false;
    let i = this.pos + offset + 1;
    while (this.isSym('(', this.tokens[i])) i++;
    return this.isQueryStartAt(i);
  }

  /** '(' query ')' as a SubqueryExpression. */
  protected subqueryInParens(): SubqueryExpression {
    const start = this.expectSym('(').start;
    const query = this.parseQuery();
    this.expectSym(')');
    return { type: 'SubqueryExpression', query, location: this.loc(start) };
  }

  /** valueExpression, reported as <expression>. */
  protected valueExpression(): Expression {
    const saved = this.beginRule('<expression>');
    const e = this.binary(0, undefined);
    this.endRule(saved);
    return e;
  }

  protected valueExpressionFrom(primary: Expression): Expression {
    return this.binary(0, primary);
  }

  /** Precedence climbing over ||, + -, * / %; `primary` is the first operand's primary when parsed. */
  private binary(minPrecedence: number, primary: Expression | undefined): Expression {
    let left = this.unary(primary);
    let levels = 0;
    for (;;) {
      for (const label of BINARY_LABELS) this.expecting(label);
      const t = this.tok;
      const op = t.kind === 'symbol' ? (t.text as BinaryOp) : undefined;
      const precedence = op === undefined ? undefined : BINARY_PRECEDENCE[op];
      if (precedence === undefined || precedence < minPrecedence) break;
      this.advance();
      this.enter();
      levels++;
      const saved = this.beginRule('<expression>');
      const right = this.binary(precedence + 1, undefined);
      this.endRule(saved);
      const location = { start: left.location.start, end: this.lastEnd };
      left =
        op === '||'
          ? { type: 'ConcatExpression', left, right, location }
          : { type: 'ArithmeticBinaryExpression', operator: op as '+', left, right, location };
    }
    this.leave(levels);
    return left;
  }

  /** Signs, then AT TIME ZONE over the postfixed primary. A '-' right before a number is the literal's. */
  private unary(primary: Expression | undefined): Expression {
    if (primary) return this.atTimeZone(this.postfix(primary));
    const signs: { sign: '+' | '-'; start: number }[] = [];
    for (;;) {
      const t = this.tok;
      if (t.kind !== 'symbol' || (t.text !== '+' && t.text !== '-')) break;
      if (t.text === '-' && this.isNumberToken(this.peek())) break;
      this.advance();
      this.enter();
      signs.push({ sign: t.text, start: t.start });
    }
    let e = this.atTimeZone(this.postfix(this.parsePrimary()));
    for (let i = signs.length - 1; i >= 0; i--) {
      e = { type: 'ArithmeticUnaryExpression', sign: signs[i].sign, value: e, location: this.loc(signs[i].start) };
    }
    this.leave(signs.length);
    return e;
  }

  private atTimeZone(value: Expression): Expression {
    let e = value;
    let levels = 0;
    // AT is non-reserved: `x at` is an alias; only AT TIME is the operator.
    while (this.atKw('AT') && this.isKw('TIME', this.peek())) {
      this.skip(2);
      this.expectKw('ZONE');
      this.expecting("'INTERVAL'");
      const timeZone = this.isKw('INTERVAL') ? this.intervalLiteral() : this.stringLiteral();
      e = { type: 'AtTimeZone', value: e, timeZone, location: this.loc(value.location.start) };
      this.enter();
      levels++;
    }
    this.leave(levels);
    return e;
  }

  /** base.field and base[index] after a primary; stops before `.*` (select items read it). */
  private postfix(primary: Expression): Expression {
    let e = primary;
    let levels = 0;
    for (;;) {
      if (this.acceptSym('[')) {
        const index = this.valueExpression();
        this.expectSym(']');
        e = { type: 'SubscriptExpression', base: e, index, location: this.loc(primary.location.start) };
      } else if (this.atSym('.') && !this.isSym('*', this.peek())) {
        this.advance();
        this.expecting("'*'");
        const field = this.identifier();
        e = { type: 'DereferenceExpression', base: e, field, location: this.loc(primary.location.start) };
      } else {
        break;
      }
      this.enter();
      levels++;
    }
    this.leave(levels);
    return e;
  }

  /** INTERVAL [+|-] string field [TO field] (the caller saw INTERVAL followed by a sign or a string). */
  protected abstract intervalLiteral(): Expression;
}

function logical(operator: 'AND' | 'OR', terms: readonly Expression[]): LogicalExpression {
  const location = { start: terms[0].location.start, end: terms[terms.length - 1].location.end };
  return { type: 'LogicalExpression', operator, terms, location };
}
