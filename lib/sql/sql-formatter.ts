// Prints a tree back as canonical Trino SQL on one line: keywords upper case, identifiers quoted when they
// were or must be, strings re-escaped, parentheses exactly where precedence needs them. Parsing the output
// gives the same tree (locations aside); spec/sql/parser.properties.spec.ts holds it to that.
import type {
  DataType,
  Expression,
  FrameBound,
  FunctionCall,
  GroupingElement,
  Identifier,
  Node,
  NumericParameter,
  OrderBy,
  Property,
  QualifiedName,
  Query,
  QueryBody,
  Relation,
  SelectItem,
  SortItem,
  Statement,
  Window,
  WindowSpecification,
} from './ast.js';
import { isReservedWord, isWordShaped } from './lexer.js';


/** Canonical Trino SQL for any node: a statement, an expression, a relation, a type... */
export function formatSql(node: Node): string {
  return TRINO.format(node);
}

export function identifier(id: Identifier): string {
  return TRINO.identifier(id);
}

export function expression(e: Expression): string {
  return TRINO.expression(e);
}

export function dataType(t: DataType): string {
  return TRINO.dataType(t);
}

// ------------------------------------------------------------------ names and literals

export function quoteIdentifier(value: string): string {
  return `"${value.split('"').join('""')}"`;
}



export function quoteString(value: string): string {
  return `'${value.split("'").join("''")}'`;
}


/**
 * Wraps `text` in parentheses when it starts with one of `words`: a non-reserved word the parser would
 * read as a keyword there (ALL as a set quantifier, DEFAULT, LOCAL, CURRENT / UNBOUNDED in a frame).
 */
function guardLeadingWord(text: string, words: readonly string[]): string {
  for (const word of words) {
    if (text.length >= word.length && text.slice(0, word.length).toUpperCase() === word) {
      const next = text.charCodeAt(word.length);
      const wordGoesOn = (next >= 48 && next <= 57) || (next >= 65 && next <= 90) || (next >= 97 && next <= 122) || next === 95;
      if (!wordGoesOn) return `(${text})`;
    }
  }
  return text;
}

/** ALL first in a select list, call arguments or GROUP BY would be read as the set quantifier. */
const guardQuantifier = (text: string): string => guardLeadingWord(text, ['ALL']);

// ------------------------------------------------------------------ expressions

const EXPRESSION_TYPES = new Set<string>([
  'NullLiteral', 'BooleanLiteral', 'LongLiteral', 'DecimalLiteral', 'DoubleLiteral', 'StringLiteral', 'BinaryLiteral',
  'GenericLiteral', 'IntervalLiteral', 'Identifier', 'Parameter', 'DereferenceExpression', 'SubscriptExpression',
  'FunctionCall', 'LambdaExpression', 'Cast', 'SimpleCaseExpression', 'SearchedCaseExpression', 'ComparisonExpression',
  'LogicalExpression', 'NotExpression', 'ArithmeticBinaryExpression', 'ArithmeticUnaryExpression', 'ConcatExpression',
  'BetweenPredicate', 'InPredicate', 'InListExpression', 'LikePredicate', 'IsNullPredicate',
  'QuantifiedComparisonExpression', 'ExistsPredicate', 'SubqueryExpression', 'Row', 'ArrayConstructor', 'AtTimeZone',
  'Extract', 'CurrentTime', 'CurrentUser', 'CurrentCatalog', 'CurrentSchema', 'CurrentPath', 'Trim', 'GroupingOperation',
]);

export function isExpression(node: Node): node is Expression {
  return EXPRESSION_TYPES.has(node.type);
}

/** Binding strength, as the parser reads it: OR 1, AND 2, NOT 3, predicates 4, || 5, + - 6, * / % 7, sign 8, AT 9, primary 10. */
function precedence(e: Expression): number {
  switch (e.type) {
    case 'LambdaExpression':
      return 0;
    case 'LogicalExpression':
      return e.operator === 'OR' ? 1 : 2;
    case 'NotExpression':
      return 3;
    case 'ComparisonExpression':
    case 'QuantifiedComparisonExpression':
    case 'BetweenPredicate':
    case 'InPredicate':
    case 'LikePredicate':
    case 'IsNullPredicate':
      return 4;
    case 'ConcatExpression':
      return 5;
    case 'ArithmeticBinaryExpression':
      return e.operator === '+' || e.operator === '-' ? 6 : 7;
    case 'ArithmeticUnaryExpression':
      return 8;
    case 'AtTimeZone':
      return 9;
    default:
      return 10;
  }
}

const isNumber = (e: Expression): boolean => e.type === 'LongLiteral' || e.type === 'DecimalLiteral' || e.type === 'DoubleLiteral';










// ------------------------------------------------------------------ types



// ------------------------------------------------------------------ queries and relations











// ------------------------------------------------------------------ statements

function likeFilter(s: { likePattern: string | undefined; escape: string | undefined }): string {
  if (s.likePattern === undefined) return '';
  return ` LIKE ${quoteString(s.likePattern)}${s.escape === undefined ? '' : ` ESCAPE ${quoteString(s.escape)}`}`;
}



function comment(text: string | undefined): string {
  return text === undefined ? '' : ` COMMENT ${quoteString(text)}`;
}

const ifExists = (b: boolean): string => (b ? 'IF EXISTS ' : '');
const ifNotExists = (b: boolean): string => (b ? 'IF NOT EXISTS ' : '');
const orReplace = (b: boolean): string => (b ? 'OR REPLACE ' : '');

// ------------------------------------------------------------------ the printer

/**
 * Prints a tree as SQL text. This class prints Trino SQL; a subclass overrides the methods where another
 * dialect spells a node differently (duckdb-printer.ts), and inherits the rest: precedence, parentheses,
 * clause order.
 */
export class SqlPrinter {
  /** Canonical Trino SQL for any node: a statement, an expression, a relation, a type... */
  format(node: Node): string {
    switch (node.type) {
      case 'Query':
        return this.query(node);
      case 'QualifiedName':
        return this.qualifiedName(node);
      case 'GenericDataType':
      case 'RowDataType':
      case 'DateTimeDataType':
      case 'IntervalDataType':
        return this.dataType(node);
      case 'Table':
      case 'AliasedRelation':
      case 'Join':
      case 'Unnest':
      case 'Lateral':
      case 'SampledRelation':
      case 'TableSubquery':
      case 'TableFunctionInvocation':
        return this.relation(node);
      case 'QuerySpecification':
      case 'Values':
      case 'Union':
      case 'Intersect':
      case 'Except':
        return this.queryBody(node);
      default:
        return isExpression(node) ? this.expression(node) : this.statement(node as Statement);
    }
  }

  identifier(id: Identifier): string {
    return id.quoted || !isWordShaped(id.value) || isReservedWord(id.value) ? quoteIdentifier(id.value) : id.value;
  }

  qualifiedName(name: QualifiedName): string {
    return name.parts.map((part) => this.identifier(part)).join('.');
  }

  /** `print` is called as a method of this printer, so a subclass's overrides apply to list items too. */
  protected list<T>(items: readonly T[], print: (this: this, item: T) => string): string {
    return items.map((item) => print.call(this, item)).join(', ');
  }

  /** `e` where at least `min` binding strength is needed. */
  operand(e: Expression, min: number): string {
    const text = this.expression(e);
    return precedence(e) < min ? `(${text})` : text;
  }

  /** The base of `.field` or `[index]`: a number needs parentheses (1.x would read as 1. x), and so does `array`. */
  postfixBase(e: Expression): string {
    if (isNumber(e) || (e.type === 'Identifier' && !e.quoted && e.value.toUpperCase() === 'ARRAY')) return `(${this.expression(e)})`;
    return this.operand(e, 10);
  }

  expression(e: Expression): string {
    switch (e.type) {
      case 'NullLiteral':
        return 'NULL';
      case 'BooleanLiteral':
        return e.value ? 'TRUE' : 'FALSE';
      case 'LongLiteral':
        return e.text;
      case 'DecimalLiteral':
      case 'DoubleLiteral':
        return e.value;
      case 'StringLiteral':
        return quoteString(e.value);
      case 'BinaryLiteral':
        return `X'${e.value}'`;
      case 'GenericLiteral':
        return `${this.identifier(e.typeName)} ${quoteString(e.value)}`;
      case 'IntervalLiteral': {
        const sign = e.sign === 'NEGATIVE' ? '-' : '';
        return `INTERVAL ${sign}${quoteString(e.value)} ${e.startField}${e.endField ? ` TO ${e.endField}` : ''}`;
      }
      case 'Identifier':
        return this.identifier(e);
      case 'Parameter':
        return '?';
      case 'DereferenceExpression':
        return `${this.postfixBase(e.base)}.${this.identifier(e.field)}`;
      case 'SubscriptExpression':
        return `${this.postfixBase(e.base)}[${this.operand(e.index, 5)}]`;
      case 'FunctionCall':
        return this.functionCall(e);
      case 'LambdaExpression': {
        const args = e.arguments.length === 1 ? this.identifier(e.arguments[0]) : `(${this.list(e.arguments, this.identifier)})`;
        return `${args} -> ${this.expression(e.body)}`;
      }
      case 'Cast':
        return `${e.safe ? 'TRY_CAST' : 'CAST'}(${this.expression(e.expression)} AS ${this.dataType(e.targetType)})`;
      case 'SimpleCaseExpression':
      case 'SearchedCaseExpression': {
        const parts = ['CASE'];
        if (e.type === 'SimpleCaseExpression') parts.push(this.expression(e.operand));
        for (const w of e.whenClauses) parts.push(`WHEN ${this.expression(w.operand)} THEN ${this.expression(w.result)}`);
        if (e.defaultValue) parts.push(`ELSE ${this.expression(e.defaultValue)}`);
        parts.push('END');
        return parts.join(' ');
      }
      case 'ComparisonExpression':
        return `${this.operand(e.left, 5)} ${e.operator} ${this.operand(e.right, 5)}`;
      case 'QuantifiedComparisonExpression':
        return `${this.operand(e.value, 5)} ${e.operator} ${e.quantifier} (${this.query(e.subquery.query)})`;
      case 'LogicalExpression': {
        const min = e.operator === 'OR' ? 2 : 3;
        return e.terms.map((t) => this.operand(t, min)).join(` ${e.operator} `);
      }
      case 'NotExpression':
        return `NOT ${this.operand(e.value, 3)}`;
      case 'ArithmeticBinaryExpression': {
        const p = precedence(e);
        return `${this.operand(e.left, p)} ${e.operator} ${this.operand(e.right, p + 1)}`;
      }
      case 'ArithmeticUnaryExpression': {
        // A sign right before a number would make a negative literal, and '-' before '-' a comment.
        const value = this.operand(e.value, 8);
        // AT TIME ZONE after a sign applies to the signed value (-x AT TIME ZONE z is (-x) AT TIME ZONE z).
        const wrap = isNumber(e.value) || value.startsWith('-') || value.startsWith('+') || e.value.type === 'AtTimeZone';
        return `${e.sign}${wrap && precedence(e.value) >= 8 ? `(${value})` : value}`;
      }
      case 'ConcatExpression':
        return `${this.operand(e.left, 5)} || ${this.operand(e.right, 6)}`;
      case 'BetweenPredicate':
        return `${this.operand(e.value, 5)} ${e.negated ? 'NOT ' : ''}BETWEEN ${this.operand(e.min, 5)} AND ${this.operand(e.max, 5)}`;
      case 'InPredicate':
        return `${this.operand(e.value, 5)} ${e.negated ? 'NOT ' : ''}IN ${this.expression(e.valueList)}`;
      case 'InListExpression':
        return `(${this.list(e.values, this.expression)})`;
      case 'LikePredicate': {
        const escape = e.escape ? ` ESCAPE ${this.operand(e.escape, 5)}` : '';
        return `${this.operand(e.value, 5)} ${e.negated ? 'NOT ' : ''}LIKE ${this.operand(e.pattern, 5)}${escape}`;
      }
      case 'IsNullPredicate':
        return `${this.operand(e.value, 5)} IS ${e.negated ? 'NOT ' : ''}NULL`;
      case 'ExistsPredicate':
        return `EXISTS (${this.query(e.subquery.query)})`;
      case 'SubqueryExpression':
        return `(${this.query(e.query)})`;
      case 'Row':
        return `ROW (${this.list(e.items, this.expression)})`;
      case 'ArrayConstructor':
        return `ARRAY[${this.list(e.values, this.expression)}]`;
      case 'AtTimeZone':
        return `${this.operand(e.value, 9)} AT TIME ZONE ${this.expression(e.timeZone)}`;
      case 'Extract':
        return `EXTRACT(${e.field} FROM ${this.operand(e.expression, 5)})`;
      case 'CurrentTime':
        return e.precision === undefined ? e.function : `${e.function}(${e.precision})`;
      case 'CurrentUser':
        return 'CURRENT_USER';
      case 'CurrentCatalog':
        return 'CURRENT_CATALOG';
      case 'CurrentSchema':
        return 'CURRENT_SCHEMA';
      case 'CurrentPath':
        return 'CURRENT_PATH';
      case 'Trim': {
        const character = e.trimCharacter ? `${this.operand(e.trimCharacter, 5)} ` : '';
        return `TRIM(${e.specification} ${character}FROM ${this.operand(e.trimSource, 5)})`;
      }
      case 'GroupingOperation':
        return `GROUPING (${this.list(e.groupingColumns, this.qualifiedName)})`;
    }
  }

  functionCall(call: FunctionCall): string {
    const name = this.qualifiedName(call.name);
    let args: string;
    if (call.arguments.length === 0 && !call.orderBy) {
      args = call.name.parts[call.name.parts.length - 1].value.toLowerCase() === 'count' ? '*' : '';
    } else {
      args = call.arguments.map((a, i) => (i === 0 && !call.distinct ? guardQuantifier(this.expression(a)) : this.expression(a))).join(', ');
      if (call.distinct) args = `DISTINCT ${args}`;
      if (call.orderBy) args += `${args ? ' ' : ''}${this.orderBy(call.orderBy)}`;
    }
    let text = `${name}(${args})`;
    if (call.filter) text += ` FILTER (WHERE ${this.expression(call.filter)})`;
    if (call.nullTreatment) text += ` ${call.nullTreatment} NULLS`;
    if (call.window) text += ` OVER ${this.window(call.window)}`;
    return text;
  }

  orderBy(o: OrderBy): string {
    return `ORDER BY ${this.list(o.sortItems, this.sortItem)}`;
  }

  sortItem(s: SortItem): string {
    let text = this.expression(s.sortKey);
    if (s.ordering) text += ` ${s.ordering}`;
    if (s.nullOrdering) text += ` NULLS ${s.nullOrdering}`;
    return text;
  }

  window(w: Window): string {
    return w.type === 'WindowReference' ? this.identifier(w.name) : `(${this.windowSpecification(w)})`;
  }

  windowSpecification(w: WindowSpecification): string {
    const parts: string[] = [];
    if (w.existingWindowName) parts.push(this.identifier(w.existingWindowName));
    if (w.partitionBy.length > 0) parts.push(`PARTITION BY ${this.list(w.partitionBy, this.expression)}`);
    if (w.orderBy) parts.push(this.orderBy(w.orderBy));
    if (w.frame) {
      const f = w.frame;
      parts.push(f.end ? `${f.frameType} BETWEEN ${this.frameBound(f.start)} AND ${this.frameBound(f.end)}` : `${f.frameType} ${this.frameBound(f.start)}`);
    }
    return parts.join(' ');
  }

  frameBound(b: FrameBound): string {
    switch (b.boundType) {
      case 'UNBOUNDED_PRECEDING':
        return 'UNBOUNDED PRECEDING';
      case 'UNBOUNDED_FOLLOWING':
        return 'UNBOUNDED FOLLOWING';
      case 'CURRENT_ROW':
        return 'CURRENT ROW';
      default:
        return `${guardLeadingWord(this.expression(b.value!), ['CURRENT', 'UNBOUNDED'])} ${b.boundType}`;
    }
  }

  dataType(t: DataType): string {
    switch (t.type) {
      case 'GenericDataType':
        return t.arguments.length === 0 ? this.identifier(t.name) : `${this.identifier(t.name)}(${this.list(t.arguments, this.typeParameter)})`;
      case 'RowDataType':
        return `ROW(${this.list(t.fields, (f) => (f.name ? `${this.identifier(f.name)} ${this.dataType(f.fieldType)}` : this.dataType(f.fieldType)))})`;
      case 'DateTimeDataType': {
        const precision = t.precision ? `(${this.typeParameter(t.precision)})` : '';
        return `${t.kind}${precision}${t.withTimeZone ? ' WITH TIME ZONE' : ''}`;
      }
      case 'IntervalDataType':
        return t.from === t.to ? `INTERVAL ${t.from}` : `INTERVAL ${t.from} TO ${t.to}`;
    }
  }

  typeParameter(p: DataType | NumericParameter): string {
    return p.type === 'NumericParameter' ? p.value : this.dataType(p);
  }

  query(q: Query): string {
    const parts: string[] = [];
    if (q.with) {
      const queries = q.with.queries.map((w) => {
        const columns = w.columnNames ? ` (${this.list(w.columnNames, this.identifier)})` : '';
        return `${this.identifier(w.name)}${columns} AS (${this.query(w.query)})`;
      });
      parts.push(`WITH ${q.with.recursive ? 'RECURSIVE ' : ''}${queries.join(', ')}`);
    }
    parts.push(this.queryBody(q.body));
    if (q.orderBy) parts.push(this.orderBy(q.orderBy));
    if (q.offset) parts.push(`OFFSET ${this.expression(q.offset.rowCount)} ROWS`);
    if (q.limit?.type === 'Limit') {
      parts.push(`LIMIT ${q.limit.rowCount.type === 'AllRows' ? 'ALL' : this.expression(q.limit.rowCount)}`);
    } else if (q.limit?.type === 'FetchFirst') {
      const count = q.limit.rowCount ? ` ${this.expression(q.limit.rowCount)}` : '';
      parts.push(`FETCH FIRST${count} ROWS ${q.limit.withTies ? 'WITH TIES' : 'ONLY'}`);
    }
    return parts.join(' ');
  }

  queryBody(b: QueryBody): string {
    switch (b.type) {
      case 'QuerySpecification': {
        const parts = [`SELECT ${b.select.distinct ? 'DISTINCT ' : ''}${this.selectItems(b.select.selectItems)}`];
        if (b.from) parts.push(`FROM ${this.relation(b.from)}`);
        if (b.where) parts.push(`WHERE ${this.expression(b.where)}`);
        if (b.groupBy) {
          const distinct = b.groupBy.distinct;
          const elements = b.groupBy.groupingElements.map((g, i) => (i === 0 && !distinct ? guardQuantifier(this.groupingElement(g)) : this.groupingElement(g)));
          parts.push(`GROUP BY ${distinct ? 'DISTINCT ' : ''}${elements.join(', ')}`);
        }
        if (b.having) parts.push(`HAVING ${this.expression(b.having)}`);
        if (b.windows.length > 0) {
          parts.push(`WINDOW ${this.list(b.windows, (w) => `${this.identifier(w.name)} AS (${this.windowSpecification(w.window)})`)}`);
        }
        return parts.join(' ');
      }
      case 'Values':
        return `VALUES ${this.list(b.rows, (r) => (r.type === 'Row' && r.items.length > 1 ? `(${this.list(r.items, this.expression)})` : this.expression(r)))}`;
      case 'Union':
      case 'Intersect':
      case 'Except': {
        const op = b.type === 'Union' ? 'UNION' : b.type === 'Intersect' ? 'INTERSECT' : 'EXCEPT';
        return `${this.queryBody(b.left)} ${op}${b.distinct ? '' : ' ALL'} ${this.queryBody(b.right)}`;
      }
      case 'TableSubquery':
        return `(${this.query(b.query)})`;
      case 'Table':
        return `TABLE ${this.qualifiedName(b.name)}`;
    }
  }

  selectItems(items: readonly SelectItem[]): string {
    return items.map((item, i) => this.selectItem(item, i === 0)).join(', ');
  }

  selectItem(item: SelectItem, first: boolean): string {
    if (item.type === 'SingleColumn') {
      const text = first ? guardQuantifier(this.expression(item.expression)) : this.expression(item.expression);
      return item.alias ? `${text} AS ${this.identifier(item.alias)}` : text;
    }
    if (!item.target) return '*';
    const aliases = item.aliases.length > 0 ? ` AS (${this.list(item.aliases, this.identifier)})` : '';
    return `${this.postfixBase(item.target)}.*${aliases}`;
  }

  groupingElement(g: GroupingElement): string {
    if (g.type === 'SimpleGroupBy') return this.groupingSet(g.expressions);
    const sets = this.list(g.sets, this.groupingSet);
    return g.groupingType === 'EXPLICIT' ? `GROUPING SETS (${sets})` : `${g.groupingType} (${sets})`;
  }

  groupingSet(expressions: readonly Expression[]): string {
    return expressions.length === 1 ? this.expression(expressions[0]) : `(${this.list(expressions, this.expression)})`;
  }

  relation(r: Relation): string {
    switch (r.type) {
      case 'Table': {
        const period = r.queryPeriod ? ` FOR ${r.queryPeriod.rangeType} AS OF ${this.operand(r.queryPeriod.end, 5)}` : '';
        return `${this.qualifiedName(r.name)}${period}`;
      }
      case 'AliasedRelation': {
        const columns = r.columnNames ? ` (${this.list(r.columnNames, this.identifier)})` : '';
        return `${this.primaryRelation(r.relation)} AS ${this.identifier(r.alias)}${columns}`;
      }
      case 'SampledRelation': {
        const inner = r.relation.type === 'AliasedRelation' ? this.relation(r.relation) : this.primaryRelation(r.relation);
        return `${inner} TABLESAMPLE ${r.samplingType} (${this.expression(r.samplePercentage)})`;
      }
      case 'Join': {
        const right = r.right.type === 'Join' ? `(${this.relation(r.right)})` : this.relation(r.right);
        if (r.joinType === 'IMPLICIT') return `${this.relation(r.left)}, ${right}`;
        if (r.joinType === 'CROSS') return `${this.relation(r.left)} CROSS JOIN ${this.sampledLevel(r.right)}`;
        if (r.criteria?.type === 'NaturalJoin') return `${this.relation(r.left)} NATURAL ${r.joinType} JOIN ${this.sampledLevel(r.right)}`;
        let criteria = '';
        if (r.criteria?.type === 'JoinOn') criteria = ` ON ${this.expression(r.criteria.expression)}`;
        else if (r.criteria?.type === 'JoinUsing') criteria = ` USING (${this.list(r.criteria.columns, this.identifier)})`;
        return `${this.relation(r.left)} ${r.joinType} JOIN ${right}${criteria}`;
      }
      case 'TableSubquery':
        return `(${this.query(r.query)})`;
      case 'Unnest':
        return `UNNEST(${this.list(r.expressions, this.expression)})${r.withOrdinality ? ' WITH ORDINALITY' : ''}`;
      case 'Lateral':
        return `LATERAL (${this.query(r.query)})`;
      case 'TableFunctionInvocation': {
        const args = r.arguments.map((a) => {
          const name = a.name ? `${this.identifier(a.name)} => ` : '';
          return name + this.tableFunctionValue(a.value);
        });
        const copartition = r.copartitioning.map((c) => `(${this.list(c.tables, this.qualifiedName)})`);
        const tail = copartition.length > 0 ? `${args.length > 0 ? ' ' : ''}COPARTITION ${copartition.join(', ')}` : '';
        return `TABLE(${this.qualifiedName(r.name)}(${args.join(', ')}${tail}))`;
      }
    }
  }

  /** A relation where only a relationPrimary may stand (under an alias): anything wider in parentheses. */
  primaryRelation(r: Relation): string {
    const wide = r.type === 'Join' || r.type === 'AliasedRelation' || r.type === 'SampledRelation';
    return wide ? `(${this.relation(r)})` : this.relation(r);
  }

  /** The right side of CROSS / NATURAL joins: a sampledRelation. */
  sampledLevel(r: Relation): string {
    return r.type === 'Join' ? `(${this.relation(r)})` : this.relation(r);
  }

  tableFunctionValue(value: Extract<Node, { type: 'TableFunctionArgument' }>['value']): string {
    if (value.type === 'Descriptor') {
      if (value.isNull) return 'CAST(NULL AS DESCRIPTOR)';
      return `DESCRIPTOR(${this.list(value.fields, (f) => (f.fieldType ? `${this.identifier(f.name)} ${this.dataType(f.fieldType)}` : this.identifier(f.name)))})`;
    }
    if (value.type !== 'TableFunctionTableArgument') return this.expression(value);
    const inner = value.table.type === 'AliasedRelation' ? value.table.relation : value.table;
    let table = inner.type === 'TableSubquery' ? `TABLE(${this.query(inner.query)})` : `TABLE(${this.relation(inner)})`;
    if (value.table.type === 'AliasedRelation') {
      const columns = value.table.columnNames ? ` (${this.list(value.table.columnNames, this.identifier)})` : '';
      table += ` AS ${this.identifier(value.table.alias)}${columns}`;
    }
    if (value.partitionBy) table += ` PARTITION BY (${this.list(value.partitionBy, this.expression)})`;
    if (value.emptyTableTreatment) table += ` ${value.emptyTableTreatment} WHEN EMPTY`;
    if (value.orderBy) table += ` ORDER BY (${this.list(value.orderBy.sortItems, this.sortItem)})`;
    return table;
  }

  properties(items: readonly Property[]): string {
    return items.map((p) => `${this.identifier(p.name)} = ${p.value ? guardLeadingWord(this.expression(p.value), ['DEFAULT']) : 'DEFAULT'}`).join(', ');
  }

  withProperties(items: readonly Property[]): string {
    return items.length > 0 ? ` WITH (${this.properties(items)})` : '';
  }

  columnDefinition(c: Extract<Node, { type: 'ColumnDefinition' }>): string {
    return `${this.qualifiedName(c.name)} ${this.dataType(c.columnType)}${c.nullable ? '' : ' NOT NULL'}${comment(c.comment)}${this.withProperties(c.properties)}`;
  }

  statement(s: Statement): string {
    switch (s.type) {
      case 'Query':
        return this.query(s);
      case 'Explain': {
        if (s.analyze) return `EXPLAIN ANALYZE ${s.verbose ? 'VERBOSE ' : ''}${this.statement(s.statement)}`;
        const options = s.options.length > 0 ? `(${this.list(s.options, (o) => `${o.option} ${o.value}`)}) ` : '';
        return `EXPLAIN ${options}${this.statement(s.statement)}`;
      }
      case 'ShowCatalogs':
        return `SHOW CATALOGS${likeFilter(s)}`;
      case 'ShowSchemas':
        return `SHOW SCHEMAS${s.catalog ? ` FROM ${this.identifier(s.catalog)}` : ''}${likeFilter(s)}`;
      case 'ShowTables':
        return `SHOW TABLES${s.schema ? ` FROM ${this.qualifiedName(s.schema)}` : ''}${likeFilter(s)}`;
      case 'ShowColumns':
        return `SHOW COLUMNS FROM ${this.qualifiedName(s.table)}${likeFilter(s)}`;
      case 'ShowFunctions':
        return `SHOW FUNCTIONS${s.schema ? ` FROM ${this.qualifiedName(s.schema)}` : ''}${likeFilter(s)}`;
      case 'ShowSession':
        return `SHOW SESSION${likeFilter(s)}`;
      case 'ShowCreate':
        return `SHOW CREATE ${s.objectType} ${this.qualifiedName(s.name)}`;
      case 'ShowStats':
        return `SHOW STATS FOR ${s.relation.type === 'Table' ? this.qualifiedName(s.relation.name) : `(${this.query(s.relation.query)})`}`;
      case 'DescribeInput':
        return `DESCRIBE INPUT ${this.identifier(s.name)}`;
      case 'DescribeOutput':
        return `DESCRIBE OUTPUT ${this.identifier(s.name)}`;
      case 'Use':
        return `USE ${s.catalog ? `${this.identifier(s.catalog)}.` : ''}${this.identifier(s.schema)}`;
      case 'SetSession':
        return `SET SESSION ${this.qualifiedName(s.name)} = ${this.expression(s.value)}`;
      case 'ResetSession':
        return `RESET SESSION ${this.qualifiedName(s.name)}`;
      case 'SetTimeZone':
        return `SET TIME ZONE ${s.timeZone ? guardLeadingWord(this.expression(s.timeZone), ['LOCAL']) : 'LOCAL'}`;
      case 'SetPath':
        return `SET PATH ${this.list(s.path, this.qualifiedName)}`;
      case 'SetRole':
        return `SET ROLE ${typeof s.role === 'string' ? s.role : this.identifier(s.role)}${s.catalog ? ` IN ${this.identifier(s.catalog)}` : ''}`;
      case 'Prepare':
        return `PREPARE ${this.identifier(s.name)} FROM ${this.statement(s.statement)}`;
      case 'Execute':
      case 'ExecuteImmediate': {
        const using = s.parameters.length > 0 ? ` USING ${this.list(s.parameters, this.expression)}` : '';
        const target = s.type === 'Execute' ? this.identifier(s.name) : `IMMEDIATE ${quoteString(s.statement.value)}`;
        return `EXECUTE ${target}${using}`;
      }
      case 'Deallocate':
        return `DEALLOCATE PREPARE ${this.identifier(s.name)}`;
      case 'StartTransaction': {
        const modes = this.list(s.transactionModes, (m) =>
          m.type === 'Isolation' ? `ISOLATION LEVEL ${m.level}` : `READ ${m.readOnly ? 'ONLY' : 'WRITE'}`,
        );
        return `START TRANSACTION${modes ? ` ${modes}` : ''}`;
      }
      case 'Commit':
        return 'COMMIT';
      case 'Rollback':
        return 'ROLLBACK';
      case 'CreateTable': {
        const elements = this.list(s.elements, (e) =>
          e.type === 'LikeClause' ? `LIKE ${this.qualifiedName(e.tableName)}${e.propertiesOption ? ` ${e.propertiesOption} PROPERTIES` : ''}` : this.columnDefinition(e),
        );
        return `CREATE ${orReplace(s.replace)}TABLE ${ifNotExists(s.notExists)}${this.qualifiedName(s.name)} (${elements})${comment(s.comment)}${this.withProperties(s.properties)}`;
      }
      case 'CreateTableAsSelect': {
        const columns = s.columnAliases ? ` (${this.list(s.columnAliases, this.identifier)})` : '';
        const head = `CREATE ${orReplace(s.replace)}TABLE ${ifNotExists(s.notExists)}${this.qualifiedName(s.name)}${columns}`;
        return `${head}${comment(s.comment)}${this.withProperties(s.properties)} AS ${this.query(s.query)}${s.withData ? '' : ' WITH NO DATA'}`;
      }
      case 'Insert': {
        const columns = s.columns ? ` (${this.list(s.columns, this.identifier)})` : '';
        return `INSERT INTO ${this.qualifiedName(s.target.name)}${columns} ${this.query(s.query)}`;
      }
      case 'Delete':
        return `DELETE FROM ${this.qualifiedName(s.table.name)}${s.where ? ` WHERE ${this.expression(s.where)}` : ''}`;
      case 'Update': {
        const sets = this.list(s.assignments, (a) => `${this.identifier(a.name)} = ${this.expression(a.value)}`);
        return `UPDATE ${this.qualifiedName(s.table.name)} SET ${sets}${s.where ? ` WHERE ${this.expression(s.where)}` : ''}`;
      }
      case 'Merge': {
        const target = s.target.type === 'Table' ? this.qualifiedName(s.target.name) : this.relation(s.target);
        const cases = s.cases.map((c) => {
          const condition = c.condition ? ` AND ${this.expression(c.condition)}` : '';
          if (c.type === 'MergeDelete') return `WHEN MATCHED${condition} THEN DELETE`;
          if (c.type === 'MergeUpdate') {
            return `WHEN MATCHED${condition} THEN UPDATE SET ${this.list(c.assignments, (a) => `${this.identifier(a.name)} = ${this.expression(a.value)}`)}`;
          }
          const columns = c.columns.length > 0 ? ` (${this.list(c.columns, this.identifier)})` : '';
          return `WHEN NOT MATCHED${condition} THEN INSERT${columns} VALUES (${this.list(c.values, this.expression)})`;
        });
        return `MERGE INTO ${target} USING ${this.relation(s.source)} ON ${this.expression(s.predicate)} ${cases.join(' ')}`;
      }
      case 'TruncateTable':
        return `TRUNCATE TABLE ${this.qualifiedName(s.name)}`;
      case 'DropTable':
        return `DROP TABLE ${ifExists(s.exists)}${this.qualifiedName(s.name)}`;
      case 'CreateSchema': {
        const principal = s.principal ? ` AUTHORIZATION ${s.principal.principalType === 'UNSPECIFIED' ? '' : `${s.principal.principalType} `}${this.identifier(s.principal.name)}` : '';
        return `CREATE SCHEMA ${ifNotExists(s.notExists)}${this.qualifiedName(s.name)}${principal}${this.withProperties(s.properties)}`;
      }
      case 'DropSchema':
        return `DROP SCHEMA ${ifExists(s.exists)}${this.qualifiedName(s.name)}${s.cascade ? ' CASCADE' : ''}`;
      case 'RenameSchema':
        return `ALTER SCHEMA ${this.qualifiedName(s.source)} RENAME TO ${this.identifier(s.target)}`;
      case 'RenameTable':
        return `ALTER TABLE ${ifExists(s.exists)}${this.qualifiedName(s.source)} RENAME TO ${this.qualifiedName(s.target)}`;
      case 'AddColumn':
        return `ALTER TABLE ${ifExists(s.tableExists)}${this.qualifiedName(s.name)} ADD COLUMN ${ifNotExists(s.columnNotExists)}${this.columnDefinition(s.column)}`;
      case 'DropColumn':
        return `ALTER TABLE ${ifExists(s.tableExists)}${this.qualifiedName(s.table)} DROP COLUMN ${ifExists(s.columnExists)}${this.qualifiedName(s.field)}`;
      case 'RenameColumn':
        return `ALTER TABLE ${ifExists(s.tableExists)}${this.qualifiedName(s.table)} RENAME COLUMN ${ifExists(s.columnExists)}${this.qualifiedName(s.source)} TO ${this.identifier(s.target)}`;
      case 'SetColumnType':
        return `ALTER TABLE ${ifExists(s.tableExists)}${this.qualifiedName(s.tableName)} ALTER COLUMN ${this.qualifiedName(s.columnName)} SET DATA TYPE ${this.dataType(s.columnType)}`;
      case 'DropNotNullConstraint':
        return `ALTER TABLE ${ifExists(s.tableExists)}${this.qualifiedName(s.table)} ALTER COLUMN ${this.identifier(s.column)} DROP NOT NULL`;
      case 'SetProperties':
        return `ALTER ${s.objectType} ${this.qualifiedName(s.name)} SET PROPERTIES ${this.properties(s.properties)}`;
      case 'CreateView': {
        const security = s.security ? ` SECURITY ${s.security}` : '';
        return `CREATE ${orReplace(s.replace)}VIEW ${this.qualifiedName(s.name)}${comment(s.comment)}${security} AS ${this.query(s.query)}`;
      }
      case 'DropView':
        return `DROP VIEW ${ifExists(s.exists)}${this.qualifiedName(s.name)}`;
      case 'CreateMaterializedView': {
        const grace = s.gracePeriod ? ` GRACE PERIOD ${this.expression(s.gracePeriod)}` : '';
        const head = `CREATE ${orReplace(s.replace)}MATERIALIZED VIEW ${ifNotExists(s.notExists)}${this.qualifiedName(s.name)}`;
        return `${head}${grace}${comment(s.comment)}${this.withProperties(s.properties)} AS ${this.query(s.query)}`;
      }
      case 'DropMaterializedView':
        return `DROP MATERIALIZED VIEW ${ifExists(s.exists)}${this.qualifiedName(s.name)}`;
      case 'Comment':
        return `COMMENT ON ${s.objectType} ${this.qualifiedName(s.name)} IS ${s.comment === undefined ? 'NULL' : quoteString(s.comment)}`;
      case 'Call':
        return `CALL ${this.qualifiedName(s.name)}(${this.list(s.arguments, (a) => (a.name ? `${this.identifier(a.name)} => ` : '') + this.expression(a.value))})`;
      default:
        return s.text;
    }
  }
}

const TRINO = new SqlPrinter();
