// TABLE(fn(args)) in FROM: arguments named `name => value` or positional, each an expression, a table
// argument TABLE(t | query) [PARTITION BY] [PRUNE|KEEP WHEN EMPTY] [ORDER BY], or a DESCRIPTOR(...).
import type {
  CopartitionTables,
  Descriptor,
  DescriptorField,
  Expression,
  OrderBy,
  QualifiedName,
  Relation,
  SortItem,
  TableFunctionArgument,
  TableFunctionTableArgument,
} from './ast.js';
import { RelationParser } from './parser-relations.js';

export abstract class TableFunctionParser extends RelationParser {
  /** TABLE '(' qualifiedName '(' [argument (',' argument)*] [COPARTITION ...] ')' ')' */
  protected tableFunctionInvocation(): Relation {
    const start = this.advance().start;
    this.expectSym('(');
    const name = this.qualifiedName();
    this.expectSym('(');
    const args: TableFunctionArgument[] = [];
    if (!this.atSym(')') && !this.atKw('COPARTITION')) {
      args.push(...this.commaList(() => this.tableFunctionArgument()));
    }
    const copartitioning = this.acceptKw('COPARTITION') ? this.commaList(() => this.copartitionTables()) : [];
    this.expectSym(')');
    this.expectSym(')');
    return { type: 'TableFunctionInvocation', name, arguments: args, copartitioning, location: this.loc(start) };
  }

  private tableFunctionArgument(): TableFunctionArgument {
    const start = this.tok.start;
    const name = this.isIdentifierToken() && this.isSym('=>', this.peek()) ? this.identifier() : undefined;
    if (name) this.advance();
    const t = this.tok;
    let value: TableFunctionArgument['value'];
    if (t.keyword === 'TABLE' && this.isSym('(', this.peek())) value = this.tableArgument();
    else if (t.keyword === 'DESCRIPTOR' && this.isSym('(', this.peek())) value = this.descriptor();
    else if (this.nullDescriptorAhead()) value = this.nullDescriptor();
    else value = this.parseExpression();
    return { type: 'TableFunctionArgument', name, value, location: this.loc(start) };
  }

  private tableArgument(): TableFunctionTableArgument {
    const content = this.pos + 2; // after TABLE (
    const start = this.advance().start;
    let table: Relation;
    if (this.isSym('(', this.tokens[content]) || this.isQueryStartAt(content)) {
      this.expectSym('(');
      const query = this.parseQuery();
      this.expectSym(')');
      table = { type: 'TableSubquery', query, location: this.loc(start) };
    } else {
      this.expectSym('(');
      const name = this.qualifiedName();
      this.expectSym(')');
      table = { type: 'Table', name, queryPeriod: undefined, location: this.loc(start) };
    }
    const aliasStart = this.tok.start;
    const explicitAlias = this.acceptKw('AS');
    if (explicitAlias || (this.isIdentifierToken() && !this.isKw('PARTITION') && !this.isKw('PRUNE') && !this.isKw('KEEP'))) {
      const alias = this.identifier();
      const columnNames = this.atSym('(') ? this.identifierList() : undefined;
      table = { type: 'AliasedRelation', relation: table, alias, columnNames, location: this.loc(aliasStart) };
    }
    let partitionBy: Expression[] | undefined;
    if (this.atKw('PARTITION')) {
      this.advance();
      this.expectKw('BY');
      partitionBy = this.parenthesizedOrSingle(() => this.parseExpression());
    }
    let emptyTableTreatment: 'PRUNE' | 'KEEP' | undefined;
    if (this.atKw('PRUNE') || this.atKw('KEEP')) {
      emptyTableTreatment = this.advance().keyword as 'PRUNE';
      this.expectKw('WHEN');
      this.expectKw('EMPTY');
    }
    let orderBy: OrderBy | undefined;
    if (this.atKw('ORDER')) {
      const orderStart = this.advance().start;
      this.expectKw('BY');
      const sortItems: SortItem[] = this.parenthesizedOrSingle(() => this.sortItem());
      orderBy = { type: 'OrderBy', sortItems, location: this.loc(orderStart) };
    }
    return { type: 'TableFunctionTableArgument', table, partitionBy, emptyTableTreatment, orderBy, location: this.loc(start) };
  }

  /** '(' [item (',' item)*] ')' | item */
  private parenthesizedOrSingle<T>(item: () => T): T[] {
    return this.isSym('(') ? this.parenthesizedList(item, true) : [item()];
  }

  private descriptor(): Descriptor {
    const start = this.advance().start;
    this.expectSym('(');
    const fields: DescriptorField[] = [];
    do {
      const fieldStart = this.tok.start;
      const name = this.identifier();
      const fieldType = this.atSym(',') || this.atSym(')') ? undefined : this.parseType();
      fields.push({ type: 'DescriptorField', name, fieldType, location: this.loc(fieldStart) });
    } while (this.acceptSym(','));
    this.expectSym(')');
    return { type: 'Descriptor', fields, isNull: false, location: this.loc(start) };
  }

  /** CAST '(' NULL AS DESCRIPTOR ')' */
  private nullDescriptorAhead(): boolean {
    return (
      this.isKw('CAST') &&
      this.isSym('(', this.peek()) &&
      this.isKw('NULL', this.peek(2)) &&
      this.isKw('AS', this.peek(3)) &&
      this.isKw('DESCRIPTOR', this.peek(4)) &&
      this.isSym(')', this.peek(5))
    );
  }

  private nullDescriptor(): Descriptor {
    const start = this.tok.start;
    for (let i = 0; i < 6; i++) this.advance();
    return { type: 'Descriptor', fields: [], isNull: true, location: this.loc(start) };
  }

  /** '(' qualifiedName ',' qualifiedName (',' qualifiedName)* ')' */
  private copartitionTables(): CopartitionTables {
    const start = this.expectSym('(').start;
    const tables: QualifiedName[] = [this.qualifiedName()];
    this.expectSym(',');
    tables.push(this.qualifiedName());
    while (this.acceptSym(',')) tables.push(this.qualifiedName());
    this.expectSym(')');
    return { type: 'CopartitionTables', tables, location: this.loc(start) };
  }
}
