// Relations: joins (left-deep, a join nested on the right as Trino reads it), aliases, TABLESAMPLE, UNNEST,
// LATERAL, table names with FOR TIMESTAMP|VERSION AS OF, and parenthesized relations or queries.
import type { AliasedRelation, Join, Relation, Table } from './ast.js';
import { QueryParser } from './parser-queries.js';

export abstract class RelationParser extends QueryParser {
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
