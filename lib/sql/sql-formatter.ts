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
  switch (node.type) {
    case 'Query':
      return query(node);
    case 'QualifiedName':
      return qualifiedName(node);
    case 'GenericDataType':
    case 'RowDataType':
    case 'DateTimeDataType':
    case 'IntervalDataType':
      return dataType(node);
    case 'Table':
    case 'AliasedRelation':
    case 'Join':
    case 'Unnest':
    case 'Lateral':
    case 'SampledRelation':
    case 'TableSubquery':
    case 'TableFunctionInvocation':
      return relation(node);
    case 'QuerySpecification':
    case 'Values':
    case 'Union':
    case 'Intersect':
    case 'Except':
      return queryBody(node);
    default:
      return isExpression(node) ? expression(node) : statement(node as Statement);
  }
}

// ------------------------------------------------------------------ names and literals

export function quoteIdentifier(value: string): string {
  return `"${value.split('"').join('""')}"`;
}

export function identifier(id: Identifier): string {
  return id.quoted || !isWordShaped(id.value) || isReservedWord(id.value) ? quoteIdentifier(id.value) : id.value;
}

function qualifiedName(name: QualifiedName): string {
  return name.parts.map(identifier).join('.');
}

export function quoteString(value: string): string {
  return `'${value.split("'").join("''")}'`;
}

function list<T>(items: readonly T[], print: (item: T) => string): string {
  return items.map(print).join(', ');
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

function isExpression(node: Node): node is Expression {
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

/** `e` where at least `min` binding strength is needed. */
function operand(e: Expression, min: number): string {
  const text = expression(e);
  return precedence(e) < min ? `(${text})` : text;
}

/** The base of `.field` or `[index]`: a number needs parentheses (1.x would read as 1. x), and so does `array`. */
function postfixBase(e: Expression): string {
  if (isNumber(e) || (e.type === 'Identifier' && !e.quoted && e.value.toUpperCase() === 'ARRAY')) return `(${expression(e)})`;
  return operand(e, 10);
}

export function expression(e: Expression): string {
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
      return `${identifier(e.typeName)} ${quoteString(e.value)}`;
    case 'IntervalLiteral': {
      const sign = e.sign === 'NEGATIVE' ? '-' : '';
      return `INTERVAL ${sign}${quoteString(e.value)} ${e.startField}${e.endField ? ` TO ${e.endField}` : ''}`;
    }
    case 'Identifier':
      return identifier(e);
    case 'Parameter':
      return '?';
    case 'DereferenceExpression':
      return `${postfixBase(e.base)}.${identifier(e.field)}`;
    case 'SubscriptExpression':
      return `${postfixBase(e.base)}[${operand(e.index, 5)}]`;
    case 'FunctionCall':
      return functionCall(e);
    case 'LambdaExpression': {
      const args = e.arguments.length === 1 ? identifier(e.arguments[0]) : `(${list(e.arguments, identifier)})`;
      return `${args} -> ${expression(e.body)}`;
    }
    case 'Cast':
      return `${e.safe ? 'TRY_CAST' : 'CAST'}(${expression(e.expression)} AS ${dataType(e.targetType)})`;
    case 'SimpleCaseExpression':
    case 'SearchedCaseExpression': {
      const parts = ['CASE'];
      if (e.type === 'SimpleCaseExpression') parts.push(expression(e.operand));
      for (const w of e.whenClauses) parts.push(`WHEN ${expression(w.operand)} THEN ${expression(w.result)}`);
      if (e.defaultValue) parts.push(`ELSE ${expression(e.defaultValue)}`);
      parts.push('END');
      return parts.join(' ');
    }
    case 'ComparisonExpression':
      return `${operand(e.left, 5)} ${e.operator} ${operand(e.right, 5)}`;
    case 'QuantifiedComparisonExpression':
      return `${operand(e.value, 5)} ${e.operator} ${e.quantifier} (${query(e.subquery.query)})`;
    case 'LogicalExpression': {
      const min = e.operator === 'OR' ? 2 : 3;
      return e.terms.map((t) => operand(t, min)).join(` ${e.operator} `);
    }
    case 'NotExpression':
      return `NOT ${operand(e.value, 3)}`;
    case 'ArithmeticBinaryExpression': {
      const p = precedence(e);
      return `${operand(e.left, p)} ${e.operator} ${operand(e.right, p + 1)}`;
    }
    case 'ArithmeticUnaryExpression': {
      // A sign right before a number would make a negative literal, and '-' before '-' a comment.
      const value = operand(e.value, 8);
      const wrap = isNumber(e.value) || value.startsWith('-') || value.startsWith('+');
      return `${e.sign}${wrap && precedence(e.value) >= 8 ? `(${value})` : value}`;
    }
    case 'ConcatExpression':
      return `${operand(e.left, 5)} || ${operand(e.right, 6)}`;
    case 'BetweenPredicate':
      return `${operand(e.value, 5)} ${e.negated ? 'NOT ' : ''}BETWEEN ${operand(e.min, 5)} AND ${operand(e.max, 5)}`;
    case 'InPredicate':
      return `${operand(e.value, 5)} ${e.negated ? 'NOT ' : ''}IN ${expression(e.valueList)}`;
    case 'InListExpression':
      return `(${list(e.values, expression)})`;
    case 'LikePredicate': {
      const escape = e.escape ? ` ESCAPE ${operand(e.escape, 5)}` : '';
      return `${operand(e.value, 5)} ${e.negated ? 'NOT ' : ''}LIKE ${operand(e.pattern, 5)}${escape}`;
    }
    case 'IsNullPredicate':
      return `${operand(e.value, 5)} IS ${e.negated ? 'NOT ' : ''}NULL`;
    case 'ExistsPredicate':
      return `EXISTS (${query(e.subquery.query)})`;
    case 'SubqueryExpression':
      return `(${query(e.query)})`;
    case 'Row':
      return `ROW (${list(e.items, expression)})`;
    case 'ArrayConstructor':
      return `ARRAY[${list(e.values, expression)}]`;
    case 'AtTimeZone':
      return `${operand(e.value, 9)} AT TIME ZONE ${expression(e.timeZone)}`;
    case 'Extract':
      return `EXTRACT(${e.field} FROM ${operand(e.expression, 5)})`;
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
      const character = e.trimCharacter ? `${operand(e.trimCharacter, 5)} ` : '';
      return `TRIM(${e.specification} ${character}FROM ${operand(e.trimSource, 5)})`;
    }
    case 'GroupingOperation':
      return `GROUPING (${list(e.groupingColumns, qualifiedName)})`;
  }
}

function functionCall(call: FunctionCall): string {
  const name = qualifiedName(call.name);
  let args: string;
  if (call.arguments.length === 0 && !call.orderBy) {
    args = call.name.parts[call.name.parts.length - 1].value.toLowerCase() === 'count' ? '*' : '';
  } else {
    args = call.arguments.map((a, i) => (i === 0 && !call.distinct ? guardQuantifier(expression(a)) : expression(a))).join(', ');
    if (call.distinct) args = `DISTINCT ${args}`;
    if (call.orderBy) args += `${args ? ' ' : ''}${orderBy(call.orderBy)}`;
  }
  let text = `${name}(${args})`;
  if (call.filter) text += ` FILTER (WHERE ${expression(call.filter)})`;
  if (call.nullTreatment) text += ` ${call.nullTreatment} NULLS`;
  if (call.window) text += ` OVER ${window(call.window)}`;
  return text;
}

function orderBy(o: OrderBy): string {
  return `ORDER BY ${list(o.sortItems, sortItem)}`;
}

function sortItem(s: SortItem): string {
  let text = expression(s.sortKey);
  if (s.ordering) text += ` ${s.ordering}`;
  if (s.nullOrdering) text += ` NULLS ${s.nullOrdering}`;
  return text;
}

function window(w: Window): string {
  return w.type === 'WindowReference' ? identifier(w.name) : `(${windowSpecification(w)})`;
}

function windowSpecification(w: WindowSpecification): string {
  const parts: string[] = [];
  if (w.existingWindowName) parts.push(identifier(w.existingWindowName));
  if (w.partitionBy.length > 0) parts.push(`PARTITION BY ${list(w.partitionBy, expression)}`);
  if (w.orderBy) parts.push(orderBy(w.orderBy));
  if (w.frame) {
    const f = w.frame;
    parts.push(f.end ? `${f.frameType} BETWEEN ${frameBound(f.start)} AND ${frameBound(f.end)}` : `${f.frameType} ${frameBound(f.start)}`);
  }
  return parts.join(' ');
}

function frameBound(b: FrameBound): string {
  switch (b.boundType) {
    case 'UNBOUNDED_PRECEDING':
      return 'UNBOUNDED PRECEDING';
    case 'UNBOUNDED_FOLLOWING':
      return 'UNBOUNDED FOLLOWING';
    case 'CURRENT_ROW':
      return 'CURRENT ROW';
    default:
      return `${guardLeadingWord(expression(b.value!), ['CURRENT', 'UNBOUNDED'])} ${b.boundType}`;
  }
}

// ------------------------------------------------------------------ types

export function dataType(t: DataType): string {
  switch (t.type) {
    case 'GenericDataType':
      return t.arguments.length === 0 ? identifier(t.name) : `${identifier(t.name)}(${list(t.arguments, typeParameter)})`;
    case 'RowDataType':
      return `ROW(${list(t.fields, (f) => (f.name ? `${identifier(f.name)} ${dataType(f.fieldType)}` : dataType(f.fieldType)))})`;
    case 'DateTimeDataType': {
      const precision = t.precision ? `(${typeParameter(t.precision)})` : '';
      return `${t.kind}${precision}${t.withTimeZone ? ' WITH TIME ZONE' : ''}`;
    }
    case 'IntervalDataType':
      return t.from === t.to ? `INTERVAL ${t.from}` : `INTERVAL ${t.from} TO ${t.to}`;
  }
}

function typeParameter(p: DataType | NumericParameter): string {
  return p.type === 'NumericParameter' ? p.value : dataType(p);
}

// ------------------------------------------------------------------ queries and relations

function query(q: Query): string {
  const parts: string[] = [];
  if (q.with) {
    const queries = q.with.queries.map((w) => {
      const columns = w.columnNames ? ` (${list(w.columnNames, identifier)})` : '';
      return `${identifier(w.name)}${columns} AS (${query(w.query)})`;
    });
    parts.push(`WITH ${q.with.recursive ? 'RECURSIVE ' : ''}${queries.join(', ')}`);
  }
  parts.push(queryBody(q.body));
  if (q.orderBy) parts.push(orderBy(q.orderBy));
  if (q.offset) parts.push(`OFFSET ${expression(q.offset.rowCount)} ROWS`);
  if (q.limit?.type === 'Limit') {
    parts.push(`LIMIT ${q.limit.rowCount.type === 'AllRows' ? 'ALL' : expression(q.limit.rowCount)}`);
  } else if (q.limit?.type === 'FetchFirst') {
    const count = q.limit.rowCount ? ` ${expression(q.limit.rowCount)}` : '';
    parts.push(`FETCH FIRST${count} ROWS ${q.limit.withTies ? 'WITH TIES' : 'ONLY'}`);
  }
  return parts.join(' ');
}

function queryBody(b: QueryBody): string {
  switch (b.type) {
    case 'QuerySpecification': {
      const parts = [`SELECT ${b.select.distinct ? 'DISTINCT ' : ''}${selectItems(b.select.selectItems)}`];
      if (b.from) parts.push(`FROM ${relation(b.from)}`);
      if (b.where) parts.push(`WHERE ${expression(b.where)}`);
      if (b.groupBy) {
        const distinct = b.groupBy.distinct;
        const elements = b.groupBy.groupingElements.map((g, i) => (i === 0 && !distinct ? guardQuantifier(groupingElement(g)) : groupingElement(g)));
        parts.push(`GROUP BY ${distinct ? 'DISTINCT ' : ''}${elements.join(', ')}`);
      }
      if (b.having) parts.push(`HAVING ${expression(b.having)}`);
      if (b.windows.length > 0) {
        parts.push(`WINDOW ${list(b.windows, (w) => `${identifier(w.name)} AS (${windowSpecification(w.window)})`)}`);
      }
      return parts.join(' ');
    }
    case 'Values':
      return `VALUES ${list(b.rows, (r) => (r.type === 'Row' && r.items.length > 1 ? `(${list(r.items, expression)})` : expression(r)))}`;
    case 'Union':
    case 'Intersect':
    case 'Except': {
      const op = b.type === 'Union' ? 'UNION' : b.type === 'Intersect' ? 'INTERSECT' : 'EXCEPT';
      return `${queryBody(b.left)} ${op}${b.distinct ? '' : ' ALL'} ${queryBody(b.right)}`;
    }
    case 'TableSubquery':
      return `(${query(b.query)})`;
    case 'Table':
      return `TABLE ${qualifiedName(b.name)}`;
  }
}

function selectItems(items: readonly SelectItem[]): string {
  return items.map((item, i) => selectItem(item, i === 0)).join(', ');
}

function selectItem(item: SelectItem, first: boolean): string {
  if (item.type === 'SingleColumn') {
    const text = first ? guardQuantifier(expression(item.expression)) : expression(item.expression);
    return item.alias ? `${text} AS ${identifier(item.alias)}` : text;
  }
  if (!item.target) return '*';
  const aliases = item.aliases.length > 0 ? ` AS (${list(item.aliases, identifier)})` : '';
  return `${postfixBase(item.target)}.*${aliases}`;
}

function groupingElement(g: GroupingElement): string {
  if (g.type === 'SimpleGroupBy') return groupingSet(g.expressions);
  const sets = list(g.sets, groupingSet);
  return g.groupingType === 'EXPLICIT' ? `GROUPING SETS (${sets})` : `${g.groupingType} (${sets})`;
}

function groupingSet(expressions: readonly Expression[]): string {
  return expressions.length === 1 ? expression(expressions[0]) : `(${list(expressions, expression)})`;
}

function relation(r: Relation): string {
  switch (r.type) {
    case 'Table': {
      const period = r.queryPeriod ? ` FOR ${r.queryPeriod.rangeType} AS OF ${operand(r.queryPeriod.end, 5)}` : '';
      return `${qualifiedName(r.name)}${period}`;
    }
    case 'AliasedRelation': {
      const columns = r.columnNames ? ` (${list(r.columnNames, identifier)})` : '';
      return `${primaryRelation(r.relation)} AS ${identifier(r.alias)}${columns}`;
    }
    case 'SampledRelation': {
      const inner = r.relation.type === 'AliasedRelation' ? relation(r.relation) : primaryRelation(r.relation);
      return `${inner} TABLESAMPLE ${r.samplingType} (${expression(r.samplePercentage)})`;
    }
    case 'Join': {
      const right = r.right.type === 'Join' ? `(${relation(r.right)})` : relation(r.right);
      if (r.joinType === 'IMPLICIT') return `${relation(r.left)}, ${right}`;
      if (r.joinType === 'CROSS') return `${relation(r.left)} CROSS JOIN ${sampledLevel(r.right)}`;
      if (r.criteria?.type === 'NaturalJoin') return `${relation(r.left)} NATURAL ${r.joinType} JOIN ${sampledLevel(r.right)}`;
      let criteria = '';
      if (r.criteria?.type === 'JoinOn') criteria = ` ON ${expression(r.criteria.expression)}`;
      else if (r.criteria?.type === 'JoinUsing') criteria = ` USING (${list(r.criteria.columns, identifier)})`;
      return `${relation(r.left)} ${r.joinType} JOIN ${right}${criteria}`;
    }
    case 'TableSubquery':
      return `(${query(r.query)})`;
    case 'Unnest':
      return `UNNEST(${list(r.expressions, expression)})${r.withOrdinality ? ' WITH ORDINALITY' : ''}`;
    case 'Lateral':
      return `LATERAL (${query(r.query)})`;
    case 'TableFunctionInvocation': {
      const args = r.arguments.map((a) => {
        const name = a.name ? `${identifier(a.name)} => ` : '';
        return name + tableFunctionValue(a.value);
      });
      const copartition = r.copartitioning.map((c) => `(${list(c.tables, qualifiedName)})`);
      const tail = copartition.length > 0 ? `${args.length > 0 ? ' ' : ''}COPARTITION ${copartition.join(', ')}` : '';
      return `TABLE(${qualifiedName(r.name)}(${args.join(', ')}${tail}))`;
    }
  }
}

/** A relation where only a relationPrimary may stand (under an alias): anything wider in parentheses. */
function primaryRelation(r: Relation): string {
  const wide = r.type === 'Join' || r.type === 'AliasedRelation' || r.type === 'SampledRelation';
  return wide ? `(${relation(r)})` : relation(r);
}

/** The right side of CROSS / NATURAL joins: a sampledRelation. */
function sampledLevel(r: Relation): string {
  return r.type === 'Join' ? `(${relation(r)})` : relation(r);
}

function tableFunctionValue(value: Extract<Node, { type: 'TableFunctionArgument' }>['value']): string {
  if (value.type === 'Descriptor') {
    if (value.isNull) return 'CAST(NULL AS DESCRIPTOR)';
    return `DESCRIPTOR(${list(value.fields, (f) => (f.fieldType ? `${identifier(f.name)} ${dataType(f.fieldType)}` : identifier(f.name)))})`;
  }
  if (value.type !== 'TableFunctionTableArgument') return expression(value);
  const inner = value.table.type === 'AliasedRelation' ? value.table.relation : value.table;
  let table = inner.type === 'TableSubquery' ? `TABLE(${query(inner.query)})` : `TABLE(${relation(inner)})`;
  if (value.table.type === 'AliasedRelation') {
    const columns = value.table.columnNames ? ` (${list(value.table.columnNames, identifier)})` : '';
    table += ` AS ${identifier(value.table.alias)}${columns}`;
  }
  if (value.partitionBy) table += ` PARTITION BY (${list(value.partitionBy, expression)})`;
  if (value.emptyTableTreatment) table += ` ${value.emptyTableTreatment} WHEN EMPTY`;
  if (value.orderBy) table += ` ORDER BY (${list(value.orderBy.sortItems, sortItem)})`;
  return table;
}

// ------------------------------------------------------------------ statements

function likeFilter(s: { likePattern: string | undefined; escape: string | undefined }): string {
  if (s.likePattern === undefined) return '';
  return ` LIKE ${quoteString(s.likePattern)}${s.escape === undefined ? '' : ` ESCAPE ${quoteString(s.escape)}`}`;
}

function properties(list: readonly Property[]): string {
  return list.map((p) => `${identifier(p.name)} = ${p.value ? guardLeadingWord(expression(p.value), ['DEFAULT']) : 'DEFAULT'}`).join(', ');
}

function withProperties(list: readonly Property[]): string {
  return list.length > 0 ? ` WITH (${properties(list)})` : '';
}

function comment(text: string | undefined): string {
  return text === undefined ? '' : ` COMMENT ${quoteString(text)}`;
}

const ifExists = (b: boolean): string => (b ? 'IF EXISTS ' : '');
const ifNotExists = (b: boolean): string => (b ? 'IF NOT EXISTS ' : '');
const orReplace = (b: boolean): string => (b ? 'OR REPLACE ' : '');

function columnDefinition(c: Extract<Node, { type: 'ColumnDefinition' }>): string {
  return `${qualifiedName(c.name)} ${dataType(c.columnType)}${c.nullable ? '' : ' NOT NULL'}${comment(c.comment)}${withProperties(c.properties)}`;
}

function statement(s: Statement): string {
  switch (s.type) {
    case 'Query':
      return query(s);
    case 'Explain': {
      if (s.analyze) return `EXPLAIN ANALYZE ${s.verbose ? 'VERBOSE ' : ''}${statement(s.statement)}`;
      const options = s.options.length > 0 ? `(${list(s.options, (o) => `${o.option} ${o.value}`)}) ` : '';
      return `EXPLAIN ${options}${statement(s.statement)}`;
    }
    case 'ShowCatalogs':
      return `SHOW CATALOGS${likeFilter(s)}`;
    case 'ShowSchemas':
      return `SHOW SCHEMAS${s.catalog ? ` FROM ${identifier(s.catalog)}` : ''}${likeFilter(s)}`;
    case 'ShowTables':
      return `SHOW TABLES${s.schema ? ` FROM ${qualifiedName(s.schema)}` : ''}${likeFilter(s)}`;
    case 'ShowColumns':
      return `SHOW COLUMNS FROM ${qualifiedName(s.table)}${likeFilter(s)}`;
    case 'ShowFunctions':
      return `SHOW FUNCTIONS${s.schema ? ` FROM ${qualifiedName(s.schema)}` : ''}${likeFilter(s)}`;
    case 'ShowSession':
      return `SHOW SESSION${likeFilter(s)}`;
    case 'ShowCreate':
      return `SHOW CREATE ${s.objectType} ${qualifiedName(s.name)}`;
    case 'ShowStats':
      return `SHOW STATS FOR ${s.relation.type === 'Table' ? qualifiedName(s.relation.name) : `(${query(s.relation.query)})`}`;
    case 'DescribeInput':
      return `DESCRIBE INPUT ${identifier(s.name)}`;
    case 'DescribeOutput':
      return `DESCRIBE OUTPUT ${identifier(s.name)}`;
    case 'Use':
      return `USE ${s.catalog ? `${identifier(s.catalog)}.` : ''}${identifier(s.schema)}`;
    case 'SetSession':
      return `SET SESSION ${qualifiedName(s.name)} = ${expression(s.value)}`;
    case 'ResetSession':
      return `RESET SESSION ${qualifiedName(s.name)}`;
    case 'SetTimeZone':
      return `SET TIME ZONE ${s.timeZone ? guardLeadingWord(expression(s.timeZone), ['LOCAL']) : 'LOCAL'}`;
    case 'SetPath':
      return `SET PATH ${list(s.path, qualifiedName)}`;
    case 'Prepare':
      return `PREPARE ${identifier(s.name)} FROM ${statement(s.statement)}`;
    case 'Execute':
    case 'ExecuteImmediate': {
      const using = s.parameters.length > 0 ? ` USING ${list(s.parameters, expression)}` : '';
      const target = s.type === 'Execute' ? identifier(s.name) : `IMMEDIATE ${quoteString(s.statement.value)}`;
      return `EXECUTE ${target}${using}`;
    }
    case 'Deallocate':
      return `DEALLOCATE PREPARE ${identifier(s.name)}`;
    case 'StartTransaction': {
      const modes = list(s.transactionModes, (m) =>
        m.type === 'Isolation' ? `ISOLATION LEVEL ${m.level}` : `READ ${m.readOnly ? 'ONLY' : 'WRITE'}`,
      );
      return `START TRANSACTION${modes ? ` ${modes}` : ''}`;
    }
    case 'Commit':
      return 'COMMIT';
    case 'Rollback':
      return 'ROLLBACK';
    case 'CreateTable': {
      const elements = list(s.elements, (e) =>
        e.type === 'LikeClause' ? `LIKE ${qualifiedName(e.tableName)}${e.propertiesOption ? ` ${e.propertiesOption} PROPERTIES` : ''}` : columnDefinition(e),
      );
      return `CREATE ${orReplace(s.replace)}TABLE ${ifNotExists(s.notExists)}${qualifiedName(s.name)} (${elements})${comment(s.comment)}${withProperties(s.properties)}`;
    }
    case 'CreateTableAsSelect': {
      const columns = s.columnAliases ? ` (${list(s.columnAliases, identifier)})` : '';
      const head = `CREATE ${orReplace(s.replace)}TABLE ${ifNotExists(s.notExists)}${qualifiedName(s.name)}${columns}`;
      return `${head}${comment(s.comment)}${withProperties(s.properties)} AS ${query(s.query)}${s.withData ? '' : ' WITH NO DATA'}`;
    }
    case 'Insert': {
      const columns = s.columns ? ` (${list(s.columns, identifier)})` : '';
      return `INSERT INTO ${qualifiedName(s.target.name)}${columns} ${query(s.query)}`;
    }
    case 'Delete':
      return `DELETE FROM ${qualifiedName(s.table.name)}${s.where ? ` WHERE ${expression(s.where)}` : ''}`;
    case 'Update': {
      const sets = list(s.assignments, (a) => `${identifier(a.name)} = ${expression(a.value)}`);
      return `UPDATE ${qualifiedName(s.table.name)} SET ${sets}${s.where ? ` WHERE ${expression(s.where)}` : ''}`;
    }
    case 'Merge': {
      const target = s.target.type === 'Table' ? qualifiedName(s.target.name) : relation(s.target);
      const cases = s.cases.map((c) => {
        const condition = c.condition ? ` AND ${expression(c.condition)}` : '';
        if (c.type === 'MergeDelete') return `WHEN MATCHED${condition} THEN DELETE`;
        if (c.type === 'MergeUpdate') {
          return `WHEN MATCHED${condition} THEN UPDATE SET ${list(c.assignments, (a) => `${identifier(a.name)} = ${expression(a.value)}`)}`;
        }
        const columns = c.columns.length > 0 ? ` (${list(c.columns, identifier)})` : '';
        return `WHEN NOT MATCHED${condition} THEN INSERT${columns} VALUES (${list(c.values, expression)})`;
      });
      return `MERGE INTO ${target} USING ${relation(s.source)} ON ${expression(s.predicate)} ${cases.join(' ')}`;
    }
    case 'TruncateTable':
      return `TRUNCATE TABLE ${qualifiedName(s.name)}`;
    case 'DropTable':
      return `DROP TABLE ${ifExists(s.exists)}${qualifiedName(s.name)}`;
    case 'CreateSchema': {
      const principal = s.principal ? ` AUTHORIZATION ${s.principal.principalType === 'UNSPECIFIED' ? '' : `${s.principal.principalType} `}${identifier(s.principal.name)}` : '';
      return `CREATE SCHEMA ${ifNotExists(s.notExists)}${qualifiedName(s.name)}${principal}${withProperties(s.properties)}`;
    }
    case 'DropSchema':
      return `DROP SCHEMA ${ifExists(s.exists)}${qualifiedName(s.name)}${s.cascade ? ' CASCADE' : ''}`;
    case 'RenameSchema':
      return `ALTER SCHEMA ${qualifiedName(s.source)} RENAME TO ${identifier(s.target)}`;
    case 'RenameTable':
      return `ALTER TABLE ${ifExists(s.exists)}${qualifiedName(s.source)} RENAME TO ${qualifiedName(s.target)}`;
    case 'AddColumn':
      return `ALTER TABLE ${ifExists(s.tableExists)}${qualifiedName(s.name)} ADD COLUMN ${ifNotExists(s.columnNotExists)}${columnDefinition(s.column)}`;
    case 'DropColumn':
      return `ALTER TABLE ${ifExists(s.tableExists)}${qualifiedName(s.table)} DROP COLUMN ${ifExists(s.columnExists)}${qualifiedName(s.field)}`;
    case 'RenameColumn':
      return `ALTER TABLE ${ifExists(s.tableExists)}${qualifiedName(s.table)} RENAME COLUMN ${ifExists(s.columnExists)}${qualifiedName(s.source)} TO ${identifier(s.target)}`;
    case 'SetColumnType':
      return `ALTER TABLE ${ifExists(s.tableExists)}${qualifiedName(s.tableName)} ALTER COLUMN ${qualifiedName(s.columnName)} SET DATA TYPE ${dataType(s.columnType)}`;
    case 'DropNotNullConstraint':
      return `ALTER TABLE ${ifExists(s.tableExists)}${qualifiedName(s.table)} ALTER COLUMN ${identifier(s.column)} DROP NOT NULL`;
    case 'SetProperties':
      return `ALTER ${s.objectType} ${qualifiedName(s.name)} SET PROPERTIES ${properties(s.properties)}`;
    case 'CreateView': {
      const security = s.security ? ` SECURITY ${s.security}` : '';
      return `CREATE ${orReplace(s.replace)}VIEW ${qualifiedName(s.name)}${comment(s.comment)}${security} AS ${query(s.query)}`;
    }
    case 'DropView':
      return `DROP VIEW ${ifExists(s.exists)}${qualifiedName(s.name)}`;
    case 'CreateMaterializedView': {
      const grace = s.gracePeriod ? ` GRACE PERIOD ${expression(s.gracePeriod)}` : '';
      const head = `CREATE ${orReplace(s.replace)}MATERIALIZED VIEW ${ifNotExists(s.notExists)}${qualifiedName(s.name)}`;
      return `${head}${grace}${comment(s.comment)}${withProperties(s.properties)} AS ${query(s.query)}`;
    }
    case 'DropMaterializedView':
      return `DROP MATERIALIZED VIEW ${ifExists(s.exists)}${qualifiedName(s.name)}`;
    case 'Comment':
      return `COMMENT ON ${s.objectType} ${qualifiedName(s.name)} IS ${s.comment === undefined ? 'NULL' : quoteString(s.comment)}`;
    case 'Call':
      return `CALL ${qualifiedName(s.name)}(${list(s.arguments, (a) => (a.name ? `${identifier(a.name)} => ` : '') + expression(a.value))})`;
    default:
      return s.text;
  }
}
