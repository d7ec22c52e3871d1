// Queries: WITH, set operations (INTERSECT binds tighter than UNION / EXCEPT), ORDER BY, OFFSET,
// LIMIT / FETCH, SELECT ... FROM ... WHERE ... GROUP BY ... HAVING ... WINDOW, VALUES, TABLE t.
import type {
  Expression,
  GroupBy,
  GroupingElement,
  Identifier,
  Join,
  Location,
  LongLiteral,
  Parameter,
  Query,
  QueryBody,
  QuerySpecification,
  Relation,
  SelectItem,
  WindowDefinition,
  With,
  WithQuery,
} from './ast.js';
import { PrimaryParser } from './parser-primary.js';

/** Node types that are operators, not primaryExpression: they cannot be the target of `x.*`. */
const OPERATOR_TYPES = new Set([
  'LogicalExpression',
  'NotExpression',
  'ComparisonExpression',
  'ArithmeticBinaryExpression',
  'ArithmeticUnaryExpression',
  'ConcatExpression',
  'BetweenPredicate',
  'InPredicate',
  'LikePredicate',
  'IsNullPredicate',
  'QuantifiedComparisonExpression',
  'AtTimeZone',
  'LambdaExpression',
]);

export abstract class QueryParser extends PrimaryParser {
  /** query: [WITH ...] queryNoWith, reported as <query>. */
  protected parseQuery(): Query {
    const saved = this.beginRule('<query>');
    this.enter();
    const start = this.tok.start;
    const withClause = this.atKw('WITH') ? this.withClause() : undefined;
    let query = this.queryNoWith(undefined);
    if (withClause) query = { ...query, with: withClause, location: this.loc(start) };
    this.leave();
    this.endRule(saved);
    return query;
  }

  protected parseQueryNoWithFrom(first: QueryBody): Query {
    return this.queryNoWith(first);
  }

  private withClause(): With {
    const start = this.advance().start;
    const recursive = this.acceptKw('RECURSIVE');
    const queries: WithQuery[] = [];
    do {
      const queryStart = this.tok.start;
      const name = this.identifier();
      const columnNames = this.atSym('(') ? this.identifierList() : undefined;
      this.expectKw('AS');
      this.expectSym('(');
      const query = this.parseQuery();
      this.expectSym(')');
      queries.push({ type: 'WithQuery', name, columnNames, query, location: this.loc(queryStart) });
    } while (this.acceptSym(','));
    return { type: 'With', recursive, queries, location: this.loc(start) };
  }

  /** queryTerm [ORDER BY] [OFFSET n [ROW|ROWS]] [LIMIT n|ALL | FETCH FIRST|NEXT [n] ROW|ROWS ONLY|WITH TIES] */
  private queryNoWith(first: QueryBody | undefined): Query {
    const start = first?.location.start ?? this.tok.start;
    const body = this.queryTerm(first);
    const orderBy = this.orderByClause();
    let offset: Query['offset'];
    if (this.atKw('OFFSET')) {
      const offsetStart = this.advance().start;
      const rowCount = this.rowCount();
      this.acceptOneOf(['ROW', 'ROWS']);
      offset = { type: 'Offset', rowCount, location: this.loc(offsetStart) };
    }
    let limit: Query['limit'];
    if (this.atKw('LIMIT')) {
      const limitStart = this.advance().start;
      const all = this.tok;
      const rowCount = this.acceptKw('ALL') ? ({ type: 'AllRows', location: { start: all.start, end: all.end } } as const) : this.rowCount();
      limit = { type: 'Limit', rowCount, location: this.loc(limitStart) };
    } else if (this.atKw('FETCH')) {
      const fetchStart = this.advance().start;
      this.expectOneOf(['FIRST', 'NEXT']);
      this.expecting('<integer>');
      const rowCount = this.tok.kind === 'integer' || this.isSym('?') ? this.rowCount() : undefined;
      this.expectOneOf(['ROW', 'ROWS']);
      let withTies = false;
      if (!this.acceptKw('ONLY')) {
        this.expectKw('WITH');
        this.expectKw('TIES');
        withTies = true;
      }
      limit = { type: 'FetchFirst', rowCount, withTies, location: this.loc(fetchStart) };
    }
    return { type: 'Query', with: undefined, body, orderBy, offset, limit, location: this.loc(start) };
  }

  /** INTEGER_VALUE | '?' */
  private rowCount(): LongLiteral | Parameter {
    if (this.atSym('?')) {
      const t = this.advance();
      return { type: 'Parameter', index: this.nextParameterIndex(), location: { start: t.start, end: t.end } };
    }
    return this.longLiteral(this.integerToken());
  }

  /** UNION / EXCEPT over INTERSECT terms, left-associative. */
  private queryTerm(first: QueryBody | undefined): QueryBody {
    let left = this.intersectTerm(first);
    let levels = 0;
    for (;;) {
      const unionAhead = this.atKw('UNION');
      if (!unionAhead && !this.atKw('EXCEPT')) break;
      this.advance();
      const distinct = this.acceptOneOf(['DISTINCT', 'ALL']) !== 'ALL';
      this.enter();
      levels++;
      const right = this.intersectTerm(undefined);
      const location = { start: left.location.start, end: this.lastEnd };
      left = { type: unionAhead ? 'Union' : 'Except', left, right, distinct, location };
    }
    this.leave(levels);
    return left;
  }

  private intersectTerm(first: QueryBody | undefined): QueryBody {
    let left = first ?? this.queryPrimary();
    let levels = 0;
    while (this.acceptKw('INTERSECT')) {
      const distinct = this.acceptOneOf(['DISTINCT', 'ALL']) !== 'ALL';
      this.enter();
      levels++;
      const right = this.queryPrimary();
      left = { type: 'Intersect', left, right, distinct, location: { start: left.location.start, end: this.lastEnd } };
    }
    this.leave(levels);
    return left;
  }

  /** SELECT ... | TABLE name | VALUES ... | '(' queryNoWith ')' */
  private queryPrimary(): QueryBody {
    const start = this.tok.start;
    if (this.atKw('SELECT')) return this.querySpecification();
    if (this.atKw('TABLE')) {
      this.advance();
      const name = this.qualifiedName();
      return { type: 'Table', name, queryPeriod: undefined, location: this.loc(start) };
    }
    if (this.atKw('VALUES')) {
      this.advance();
      const rows = this.commaList(() => this.parseExpression());
      return { type: 'Values', rows, location: this.loc(start) };
    }
    this.expectSym('(');
    this.enter();
    const query = this.queryNoWith(undefined);
    this.expectSym(')');
    this.leave();
    return { type: 'TableSubquery', query, location: this.loc(start) };
  }

  private querySpecification(): QuerySpecification {
    const start = this.advance().start;
    const distinct = this.setQuantifier();
    const selectItems = this.commaList(() => this.selectItem());
    const select = { type: 'Select', distinct, selectItems, location: this.loc(start) } as const;
    let from: Relation | undefined;
    if (this.acceptKw('FROM')) {
      from = this.relation();
      let levels = 0;
      while (this.acceptSym(',')) {
        this.enter();
        levels++;
        const right = this.relation();
        const location: Location = { start: from.location.start, end: this.lastEnd };
        from = { type: 'Join', joinType: 'IMPLICIT', left: from, right, criteria: undefined, location } satisfies Join;
      }
      this.leave(levels);
    }
    const where = this.acceptKw('WHERE') ? this.parseExpression() : undefined;
    const groupBy = this.atKw('GROUP') ? this.groupBy() : undefined;
    const having = this.acceptKw('HAVING') ? this.parseExpression() : undefined;
    let windows: WindowDefinition[] = [];
    if (this.atKw('WINDOW') && this.isIdentifierToken(this.peek())) {
      this.advance();
      windows = this.commaList(() => this.windowDefinition());
    }
    return { type: 'QuerySpecification', select, from, where, groupBy, having, windows, location: this.loc(start) };
  }

  /** [DISTINCT | ALL]: true for DISTINCT. ALL is non-reserved: a column named all is not a quantifier. */
  private setQuantifier(): boolean {
    if (this.acceptKw('DISTINCT')) return true;
    // SELECT ALL * FROM t, but SELECT all * 2 multiplies a column named all.
    const star = this.isSym('*', this.peek()) && !this.canStartExpression(this.peek(2));
    // GROUP BY all LIMIT 10 groups by a column named all: a clause after the word leaves it no element to quantify.
    if (this.atKw('ALL') && !this.clauseAhead(1) && (star || this.quantifierAllAhead())) this.advance();
    return false;
  }

  private selectItem(): SelectItem {
    const start = this.tok.start;
    if (this.acceptSym('*')) return { type: 'AllColumns', target: undefined, aliases: [], location: this.loc(start) };
    const expression = this.parseExpression();
    if (this.isSym('.') && this.isSym('*', this.peek()) && !OPERATOR_TYPES.has(expression.type)) {
      this.skip(2);
      const aliases = this.acceptKw('AS') ? this.identifierList() : [];
      return { type: 'AllColumns', target: expression, aliases, location: this.loc(start) };
    }
    return { type: 'SingleColumn', expression, alias: this.alias(), location: this.loc(start) };
  }

  /** [AS] identifier, where a non-reserved word that begins the next clause is not taken as the alias. */
  protected alias(): Identifier | undefined {
    if (this.acceptKw('AS')) return this.identifier();
    this.expecting('<identifier>');
    return this.isIdentifierToken() && !this.clauseAhead() ? this.identifier() : undefined;
  }

  /**
   * Is the non-reserved word `offset` tokens ahead (0: the current one) the start of a clause (LIMIT 10,
   * OFFSET 5, FETCH FIRST, WINDOW w AS, TABLESAMPLE SYSTEM)?
   */
  protected clauseAhead(offset = 0): boolean {
    const word = offset === 0 ? this.tok : this.peek(offset);
    const next = this.peek(offset + 1);
    switch (word.keyword) {
      case 'LIMIT':
        return next.kind === 'integer' || this.isSym('?', next) || next.keyword === 'ALL';
      case 'OFFSET':
        return next.kind === 'integer' || this.isSym('?', next);
      case 'FETCH':
        return next.keyword === 'FIRST' || next.keyword === 'NEXT';
      case 'WINDOW':
        return this.isIdentifierToken(next) && this.isKw('AS', this.peek(offset + 2));
      case 'TABLESAMPLE':
        return next.keyword === 'BERNOULLI' || next.keyword === 'SYSTEM';
      default:
        return false;
    }
  }

  private groupBy(): GroupBy {
    const start = this.advance().start;
    this.expectKw('BY');
    const distinct = this.setQuantifier();
    const groupingElements = this.commaList(() => this.groupingElement());
    return { type: 'GroupBy', distinct, groupingElements, location: this.loc(start) };
  }

  private groupingElement(): GroupingElement {
    const start = this.tok.start;
    let groupingType: 'ROLLUP' | 'CUBE' | 'EXPLICIT' | undefined;
    if (this.atKw('ROLLUP')) groupingType = 'ROLLUP';
    else if (this.atKw('CUBE')) groupingType = 'CUBE';
    else if (this.atKw('GROUPING') && this.isKw('SETS', this.peek())) groupingType = 'EXPLICIT';
    if (groupingType !== undefined) {
      this.advance();
      if (groupingType === 'EXPLICIT') this.advance(); // SETS
      const sets = this.parenthesizedList(() => this.groupingSet(), groupingType !== 'EXPLICIT');
      return { type: 'GroupingSets', groupingType, sets, location: this.loc(start) };
    }
    return { type: 'SimpleGroupBy', expressions: this.groupingSet(), location: this.loc(start) };
  }

  /** '(' [expression (',' expression)*] ')' | expression: a parenthesized list unless an operator follows it. */
  private groupingSet(): Expression[] {
    if (this.atSym('(')) {
      if (this.isSym(')', this.peek())) {
        this.skip(2);
        return [];
      }
      this.expecting('<expression>');
      const group = this.parseParenGroup();
      const primary = this.groupToPrimary(group);
      const expression = this.continueExpression(primary);
      return expression === primary && group.kind === 'list' ? [...group.items] : [expression];
    }
    return [this.parseExpression()];
  }

  private windowDefinition(): WindowDefinition {
    const start = this.tok.start;
    const name = this.identifier();
    this.expectKw('AS');
    this.expectSym('(');
    const window = this.windowSpecification();
    this.expectSym(')');
    return { type: 'WindowDefinition', name, window, location: this.loc(start) };
  }

  /** relation: a FROM item with its joins. */
  protected abstract relation(): Relation;
}
