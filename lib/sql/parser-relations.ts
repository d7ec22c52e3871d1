// Queries and relations: WITH, set operations (INTERSECT binds tighter than UNION / EXCEPT), ORDER BY,
// OFFSET, LIMIT / FETCH, SELECT ... FROM ... WHERE ... GROUP BY ... HAVING ... WINDOW, VALUES, TABLE t,
// joins, aliases, TABLESAMPLE, UNNEST, LATERAL and table functions.
import type {
  AliasedRelation,
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
  Table,
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
    if (this.atKw('ALL') && (star || this.quantifierAllAhead())) this.advance();
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
  private alias(): Identifier | undefined {
    if (this.acceptKw('AS')) return this.identifier();
    this.expecting('<identifier>');
    return this.isIdentifierToken() && !this.clauseAhead() ? this.identifier() : undefined;
  }

  /** Is the current non-reserved word the start of a clause (LIMIT 10, OFFSET 5, FETCH FIRST, WINDOW w AS, TABLESAMPLE SYSTEM)? */
  protected clauseAhead(): boolean {
    const next = this.peek();
    switch (this.tok.keyword) {
      case 'LIMIT':
        return next.kind === 'integer' || this.isSym('?', next) || next.keyword === 'ALL';
      case 'OFFSET':
        return next.kind === 'integer' || this.isSym('?', next);
      case 'FETCH':
        return next.keyword === 'FIRST' || next.keyword === 'NEXT';
      case 'WINDOW':
        return this.isIdentifierToken(next) && this.isKw('AS', this.peek(2));
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

  // ------------------------------------------------------------ relations

  /** relation: sampledRelation followed by joins. */
  protected relation(): Relation {
    this.enter();
    const relation = this.joinsFrom(this.sampledRelation(undefined));
    this.leave();
    return relation;
  }

  private joinsFrom(first: Relation): Relation {
    let left = first;
    let levels = 0;
    for (;;) {
      let joinType: Join['joinType'];
      let right: Relation;
      let criteria: Join['criteria'];
      if (this.atKw('CROSS')) {
        this.advance();
        this.expectKw('JOIN');
        joinType = 'CROSS';
        right = this.sampledRelation(undefined);
      } else if (this.atKw('NATURAL')) {
        const natural = this.advance();
        joinType = this.joinType();
        right = this.sampledRelation(undefined);
        criteria = { type: 'NaturalJoin', location: { start: natural.start, end: natural.end } };
      } else if (this.atKw('JOIN') || this.atKw('INNER') || this.atKw('LEFT') || this.atKw('RIGHT') || this.atKw('FULL')) {
        joinType = this.joinType();
        right = this.relation();
        criteria = this.joinCriteria();
      } else {
        break;
      }
      this.enter();
      levels++;
      left = { type: 'Join', joinType, left, right, criteria, location: { start: first.location.start, end: this.lastEnd } };
    }
    this.leave(levels);
    return left;
  }

  /** [INNER | LEFT [OUTER] | RIGHT [OUTER] | FULL [OUTER]] JOIN */
  private joinType(): 'INNER' | 'LEFT' | 'RIGHT' | 'FULL' {
    let joinType: 'INNER' | 'LEFT' | 'RIGHT' | 'FULL' = 'INNER';
    const kw = this.acceptOneOf(['INNER', 'LEFT', 'RIGHT', 'FULL']);
    if (kw !== undefined && kw !== 'INNER') {
      joinType = kw as 'LEFT';
      this.acceptKw('OUTER');
    }
    this.expectKw('JOIN');
    return joinType;
  }

  private joinCriteria(): Join['criteria'] {
    const start = this.tok.start;
    if (this.acceptKw('ON')) return { type: 'JoinOn', expression: this.parseExpression(), location: this.loc(start) };
    this.expectKw('USING');
    return { type: 'JoinUsing', columns: this.identifierList(), location: this.loc(start) };
  }

  /** aliasedRelation [TABLESAMPLE BERNOULLI|SYSTEM (percentage)]; `primary` when already parsed. */
  private sampledRelation(primary: Relation | undefined): Relation {
    const relation = this.aliasedRelation(primary);
    if (!this.atKw('TABLESAMPLE')) return relation;
    this.advance();
    const samplingType = this.expectOneOf(['BERNOULLI', 'SYSTEM']);
    this.expectSym('(');
    const samplePercentage = this.parseExpression();
    this.expectSym(')');
    return { type: 'SampledRelation', relation, samplingType, samplePercentage, location: this.loc(relation.location.start) };
  }

  private aliasedRelation(primary: Relation | undefined): Relation {
    const relation = primary ?? this.relationPrimary();
    const alias = this.alias();
    if (alias === undefined) return relation;
    const columnNames = this.atSym('(') ? this.identifierList() : undefined;
    return { type: 'AliasedRelation', relation, alias, columnNames, location: this.loc(relation.location.start) } satisfies AliasedRelation;
  }

  private relationPrimary(): Relation {
    const t = this.tok;
    const next = this.peek();
    for (const label of ["'('", "'LATERAL'", "'TABLE'", "'UNNEST'"]) this.expecting(label);
    if (this.isSym('(')) return this.parenthesizedRelation();
    if (t.keyword === 'UNNEST') {
      this.advance();
      this.expectSym('(');
      const expressions = this.commaList(() => this.parseExpression());
      this.expectSym(')');
      const withOrdinality = this.atKw('WITH') && this.isKw('ORDINALITY', this.peek());
      if (withOrdinality) this.skip(2);
      return { type: 'Unnest', expressions, withOrdinality, location: this.loc(t.start) };
    }
    if (t.keyword === 'LATERAL' && this.isSym('(', next)) {
      this.advance();
      this.expectSym('(');
      const query = this.parseQuery();
      this.expectSym(')');
      return { type: 'Lateral', query, location: this.loc(t.start) };
    }
    if (t.keyword === 'TABLE' && this.isSym('(', next)) return this.tableFunctionInvocation();
    return this.tableName();
  }

  /** qualifiedName [FOR TIMESTAMP|VERSION AS OF value] */
  protected tableName(): Table {
    const name = this.qualifiedName();
    let queryPeriod: Table['queryPeriod'];
    if (this.atKw('FOR')) {
      const start = this.advance().start;
      const rangeType = this.expectOneOf(['TIMESTAMP', 'VERSION']);
      this.expectKw('AS');
      this.expectKw('OF');
      const end = this.valueExpression();
      queryPeriod = { type: 'QueryPeriod', rangeType, end, location: this.loc(start) };
    }
    return { type: 'Table', name, queryPeriod, location: this.loc(name.location.start) };
  }

  /** '(' query ')' | '(' relation ')', told apart as parseParenGroup does for expressions. */
  private parenthesizedRelation(): Relation {
    const start = this.expectSym('(').start;
    let relation: Relation;
    this.expecting('<query>');
    if (this.isQueryStartAt(this.pos)) {
      const query = this.parseQuery();
      this.expectSym(')');
      relation = { type: 'TableSubquery', query, location: this.loc(start) };
    } else if (this.isSym('(') && this.parenRunOpensQuery()) {
      this.enter();
      const inner = this.parenthesizedRelation();
      this.leave();
      if (inner.type === 'TableSubquery' && this.atRelationQueryContinuation()) {
        const query = this.parseQueryNoWithFrom(inner);
        this.expectSym(')');
        relation = { type: 'TableSubquery', query, location: this.loc(start) };
      } else {
        relation = this.joinsFrom(this.sampledRelation(inner));
        this.expectSym(')');
      }
    } else {
      relation = this.relation();
      this.expectSym(')');
    }
    return relation;
  }

  /** Like atQueryContinuation, but LIMIT / OFFSET / FETCH may be an alias here. */
  private atRelationQueryContinuation(): boolean {
    const kw = this.tok.keyword;
    if (kw === 'LIMIT' || kw === 'OFFSET' || kw === 'FETCH') return this.clauseAhead();
    return this.atQueryContinuation();
  }

  protected abstract tableFunctionInvocation(): Relation;
}
