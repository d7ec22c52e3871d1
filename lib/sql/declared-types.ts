// The Trino types a query's output columns declare in its tree, where DuckDB's types cannot say them:
// `varchar(n)` and `char(n)` (DuckDB has one VARCHAR), `time(p)` and `timestamp(p)` for any p (DuckDB has
// seconds, milliseconds, microseconds and nanoseconds), `interval year to month` (DuckDB has one
// INTERVAL). Read off a select item that is a literal or a cast, or a column whose declared type the FROM
// clause shows (tables, subqueries, WITH queries); anything else is left to DuckDB's type.
import type { Expression, QualifiedName, Query, Relation, SingleColumn, Statement, With } from './ast.js';
import type { PrestoType } from '../protocol/types.js';
import { fold, partsOf, qualifyTable, type QualifiedTable } from './names.js';
import { lossyColumnType } from './column-declarations.js';
import { fractionDigits, hasTimeZone, hasZone } from './temporal-literals.js';
import { dateLiteral, temporalLiteralCast, timeLiteral, timestampLiteral } from './temporal-literal-values.js';
import { sketchCallType } from './sketch-calls.js';

/** The lower-case name a call names (its last part). */
const callName = (e: Extract<Expression, { type: 'FunctionCall' }>) => fold(e.name.parts[e.name.parts.length - 1]!.value);

/** Precision of a timestamp-valued expression the tree declares, else Trino's default 3. */
function timestampPrecision(e: Expression | undefined): number {
  const t = e && declaredType(e);
  return t && (t.base === 'timestamp' || t.base === 'timestamp with time zone') ? (t as { precision: number }).precision : 3;
}


const CURRENT_TIME_TYPES = {
  CURRENT_TIMESTAMP: 'timestamp with time zone', CURRENT_TIME: 'time with time zone', LOCALTIMESTAMP: 'timestamp', LOCALTIME: 'time', CURRENT_DATE: 'date',
} as const;

const YEAR_MONTH: ReadonlySet<string> = new Set(['YEAR', 'MONTH']);

/**
 * The Trino type of a value the tree types whole (a string literal, and arrays, maps and rows built of
 * them, NULL taking the others' type), for typeof; undefined where any part is the engine's to tell.
 */
export function fullyDeclaredType(e: Expression): PrestoType | undefined {
  if (e.type !== 'StringLiteral' && e.type !== 'ArrayConstructor' && e.type !== 'Row' && e.type !== 'FunctionCall') return undefined;
  const t = declaredType(e);
  return t && !hasUndeclared(t) ? t : undefined;
}

function hasUndeclared(t: PrestoType): boolean {
  if (t === UNDECLARED || t.base === 'unknown') return true;
  return ((t as { params?: PrestoType[] }).params ?? []).some(hasUndeclared);
}

/**
 * A part of a declared type that the engine's type tells: an element or field the tree does not type, in a
 * constructor whose other parts it does (MAP(ARRAY['a'], ARRAY[1]) is map(varchar(1), integer)).
 */
export const UNDECLARED: PrestoType = Object.freeze({ base: 'undeclared' });

/** What a constructor's element declares: varchar(n), char(n), unknown and constructors of them; else UNDECLARED. */
function elementType(e: Expression, column: ColumnType | undefined): PrestoType {
  const t = declaredType(e, column) ?? column?.(e);
  // Temporal types inside constructors are left to the engine's type (it renders their digits).
  return t && NESTED_BASES.has(t.base) ? t : UNDECLARED;
}

const NESTED_BASES: ReadonlySet<string> = new Set(['varchar', 'char', 'unknown', 'array', 'map', 'row']);

/** Trino's common super type of two elements' declared types (varchar(2) and varchar(5): varchar(5)), or UNDECLARED. */
function commonType(a: PrestoType, b: PrestoType): PrestoType {
  if (a.base === 'unknown') return b;
  if (b.base === 'unknown') return a;
  if (a === UNDECLARED || b === UNDECLARED || a.base !== b.base) return UNDECLARED;
  const [x, y] = [a as { length?: number; params?: PrestoType[] }, b as { length?: number; params?: PrestoType[] }];
  if (a.base === 'varchar') return x.length === undefined || y.length === undefined ? { base: 'varchar' } : { base: 'varchar', length: Math.max(x.length, y.length) };
  if (a.base === 'char') return { base: 'char', length: Math.max(x.length ?? 1, y.length ?? 1) };
  if (x.params?.length !== y.params?.length) return UNDECLARED;
  const params = x.params!.map((p, i) => commonType(p, y.params![i]!));
  return a.base === 'row' ? { base: 'row', params, fieldNames: params.map(() => undefined) } : ({ base: a.base, params } as PrestoType);
}

/** The type of ARRAY[...]'s elements: their common type (array(unknown) when empty or all NULL). */
function arrayElement(values: readonly Expression[], column: ColumnType | undefined): PrestoType {
  return values.reduce<PrestoType>((t, v) => commonType(t, elementType(v, column)), { base: 'unknown' });
}

/** A constructor's type, or undefined when the engine's type tells all of it. */
const constructed = (t: PrestoType): PrestoType | undefined => (isUndeclared(t) ? undefined : t);

/** Whether nothing in `t` is declared beyond the engine's type. */
function isUndeclared(t: PrestoType): boolean {
  if (t === UNDECLARED) return true;
  const params = (t as { params?: PrestoType[] }).params;
  return params !== undefined && params.length > 0 && params.every(isUndeclared);
}

/** The declared type of a column reference, from the FROM clause around it. */
type ColumnType = (e: Expression) => PrestoType | undefined;

/** The Trino type of an expression, when the tree alone tells it and DuckDB's would say less. */
export function declaredType(e: Expression, column?: ColumnType): PrestoType | undefined {
  switch (e.type) {
    case 'ArrayConstructor':
      return constructed({ base: 'array', params: [arrayElement(e.values, column)] });
    case 'Row': {
      const params = e.items.map((item) => elementType(item, column));
      return constructed({ base: 'row', params, fieldNames: params.map(() => undefined) });
    }
    case 'NullLiteral':
      // Trino types a bare NULL `unknown` (DuckDB: INTEGER).
      return { base: 'unknown' };
    case 'StringLiteral':
      // Trino types a string literal varchar(n), n its length in code points.
      return { base: 'varchar', length: [...e.value].length };
    case 'GenericLiteral': {
      const type = fold(e.typeName.value);
      if (type === 'char') return { base: 'char', length: Math.max(1, [...e.value].length) };
      if (type === 'date') return { base: 'date' };
      if (type === 'timestamp') return { base: hasZone(e.value) ? 'timestamp with time zone' : 'timestamp', precision: fractionDigits(e.value) };
      if (type === 'time') return { base: hasTimeZone(e.value) ? 'time with time zone' : 'time', precision: fractionDigits(e.value) };
      return undefined;
    }
    case 'IntervalLiteral':
      return { base: YEAR_MONTH.has(e.startField) ? 'interval year to month' : 'interval day to second' };
    case 'ArithmeticUnaryExpression':
      return e.value.type === 'IntervalLiteral' ? declaredType(e.value) : undefined;
    case 'Cast':
      // A cast declares what a column definition of its type would (column-declarations.ts).
      return lossyColumnType(e.targetType);
    case 'AtTimeZone':
      return { base: 'timestamp with time zone', precision: timestampPrecision(e.value) };
    case 'CurrentTime':
      // Trino: current_timestamp is timestamp(3) with time zone, current_timestamp(p) of p digits; so are current_time, localtime and localtimestamp.
      return { base: CURRENT_TIME_TYPES[e.function], ...(e.function === 'CURRENT_DATE' ? {} : { precision: e.precision ?? 3 }) };
    case 'FunctionCall': {
      const name = callName(e);
      // MAP(ARRAY[keys], ARRAY[values]): map(key type, value type).
      if (name === 'map' && e.arguments.length === 2 && e.arguments.every((a) => a.type === 'ArrayConstructor')) {
        const [keys, values] = e.arguments as Extract<Expression, { type: 'ArrayConstructor' }>[];
        return constructed({ base: 'map', params: [arrayElement(keys!.values, column), arrayElement(values!.values, column)] });
      }
      const sketch = sketchCallType(e, (a) => declaredType(a, column) ?? column?.(a));
      if (sketch) return sketch;
      if (name === 'with_timezone' || name === 'at_timezone') return { base: 'timestamp with time zone', precision: timestampPrecision(e.arguments[0]) };
      // Truncating or shifting a timestamp keeps its type (Trino: date_trunc('month', timestamp(3)) is timestamp(3)).
      const shifted = name === 'date_trunc' ? e.arguments[1] : name === 'date_add' ? e.arguments[2] : undefined;
      if (shifted) {
        const t = declaredType(shifted);
        return t?.base === 'timestamp with time zone' || t?.base === 'timestamp' ? t : undefined;
      }
      return undefined;
    }
    default:
      return undefined;
  }
}

/** The declared Trino types of a table's columns by lower-case name (tpch's varchar bounds), or undefined when none are known. */
export type TableColumns = (table: QualifiedTable) => ReadonlyMap<string, PrestoType> | undefined;

/**
 * What is known of a relation's output columns, by lower-case name: the declared type, or undefined where
 * DuckDB's type stands. A name twice is kept untyped (a reference to it is ambiguous). A name that is absent
 * may still be a column (one a `*` over an unseen relation brings): a reference that would meet it is
 * ambiguous in SQL, so no statement that runs takes a type from the wrong column.
 */
type Columns = ReadonlyMap<string, PrestoType | undefined>;

/** One relation of a FROM clause: its correlation name (none for an unaliased subquery) and its columns. */
interface FromRelation {
  name?: string;
  columns: Columns;
}

/**
 * The WITH queries in scope, by lower-case name: their columns, or undefined when nothing is known of them.
 * Each WITH adds a link to its enclosing scope (not a copy: a statement may hold thousands of WITH queries).
 */
interface Scope {
  readonly queries: ReadonlyMap<string, Columns | undefined>;
  readonly enclosing?: Scope;
}

/** What resolving names needs: the session's names and declared tables, the WITH queries in scope, and the budget. */
interface Resolver {
  context: DeclaredContext;
  scope: Scope;
  /** Column entries left to build: a hostile statement (thousands of `SELECT *, x` over wide ones) stops here. */
  budget: { left: number };
}

/** Column entries the subqueries and WITH queries of one statement may build; past it, DuckDB's types stand. */
const COLUMN_BUDGET = 100_000;

/** The WITH queries of a query added to the scope, each seeing those before it (not itself, unless RECURSIVE). */
function withScope(w: With | undefined, resolver: Resolver): Resolver {
  if (!w) return resolver;
  const queries = new Map<string, Columns | undefined>();
  const scope: Scope = { queries, enclosing: resolver.scope };
  for (const q of w.queries) {
    // A recursive query's columns depend on themselves, and column aliases rename by position: left to DuckDB.
    const columns = w.recursive || q.columnNames ? undefined : queryColumns(q.query, { ...resolver, scope });
    queries.set(fold(q.name.value), columns);
  }
  return { ...resolver, scope };
}

/** The WITH query a one-part name means, innermost first: found (its columns, maybe unknown) or not. */
function withQuery(scope: Scope | undefined, name: string): { columns: Columns | undefined } | undefined {
  for (let s = scope; s; s = s.enclosing) if (s.queries.has(name)) return { columns: s.queries.get(name) };
  return undefined;
}

/** A table's or WITH query's columns by its name (a one-part name is a WITH query when one is in scope). */
function namedColumns(name: QualifiedName, { context, scope }: Resolver): Columns | undefined {
  const parts = partsOf(name);
  const query = parts.length === 1 ? withQuery(scope, parts[0]!) : undefined;
  if (query) return query.columns;
  const table = qualifyTable(parts, context.catalog, context.schema);
  return table && context.tableColumns?.(table);
}

/**
 * The relations of a FROM clause with their columns; undefined when any of them cannot be seen into
 * (UNNEST, LATERAL, a table function, column aliases, a USING or NATURAL join, a set operation).
 */
function fromRelations(relation: Relation, resolver: Resolver): FromRelation[] | undefined {
  switch (relation.type) {
    case 'Table': {
      const columns = namedColumns(relation.name, resolver);
      return columns && [{ name: fold(relation.name.parts[relation.name.parts.length - 1]!.value), columns }];
    }
    case 'TableSubquery': {
      const columns = queryColumns(relation.query, resolver);
      return columns && [{ columns }];
    }
    case 'AliasedRelation': {
      if (relation.columnNames) return undefined;
      const inner = relation.relation;
      const columns = inner.type === 'Table' ? namedColumns(inner.name, resolver) : inner.type === 'TableSubquery' ? queryColumns(inner.query, resolver) : undefined;
      return columns && [{ name: fold(relation.alias.value), columns }];
    }
    case 'Join': {
      if (relation.criteria?.type === 'JoinUsing' || relation.criteria?.type === 'NaturalJoin') return undefined;
      const left = fromRelations(relation.left, resolver);
      const right = left && fromRelations(relation.right, resolver);
      return right && [...left!, ...right];
    }
    default:
      return undefined;
  }
}

/** The declared type of a column reference (`c` or `t.c`): exactly one relation must have it. */
function columnReference(e: Expression, from: readonly FromRelation[]): PrestoType | undefined {
  if (e.type === 'Identifier') {
    const name = fold(e.value);
    const having = from.filter((r) => r.columns.has(name));
    return having.length === 1 ? having[0]!.columns.get(name) : undefined;
  }
  if (e.type === 'DereferenceExpression' && e.base.type === 'Identifier') {
    const name = fold(e.base.value);
    const named = from.filter((r) => r.name === name);
    return named.length === 1 ? named[0]!.columns.get(fold(e.field.value)) : undefined;
  }
  return undefined;
}

/** What a select item's expression declares: its own type (a literal, a cast), else the column it names. */
function itemType(e: Expression, from: readonly FromRelation[] | undefined): PrestoType | undefined {
  const column = from ? (c: Expression) => columnReference(c, from) : undefined;
  return declaredType(e, column) ?? column?.(e);
}

/** The name Trino gives a select item's column, when it can be referenced: its alias, or the column it names. */
function itemName(item: SingleColumn): string | undefined {
  if (item.alias) return fold(item.alias.value);
  if (item.expression.type === 'Identifier') return fold(item.expression.value);
  if (item.expression.type === 'DereferenceExpression') return fold(item.expression.field.value);
  return undefined;
}

/** The columns a subquery or WITH query outputs, as far as its tree tells them; undefined for a set operation or VALUES. */
function queryColumns(query: Query, outer: Resolver): Columns | undefined {
  const resolver = withScope(query.with, outer);
  const body = query.body;
  if (body.type === 'TableSubquery') return queryColumns(body.query, resolver);
  if (body.type !== 'QuerySpecification') return undefined;
  const from = body.from ? fromRelations(body.from, resolver) : [];
  const items = body.select.selectItems;
  // SELECT * FROM one relation: its columns as they are (a chain of such queries shares one map).
  if (items.length === 1 && items[0]!.type === 'AllColumns' && !items[0]!.target && from?.length === 1) return from[0]!.columns;
  const columns = new Map<string, PrestoType | undefined>();
  const add = (name: string, type: PrestoType | undefined) => {
    resolver.budget.left--;
    columns.set(name, columns.has(name) ? undefined : type);
  };
  for (const item of items) {
    if (item.type === 'SingleColumn') {
      const name = itemName(item);
      if (name !== undefined) add(name, itemType(item.expression, from));
    } else if (from && item.aliases.length === 0) {
      // `*` or `t.*`: the columns known of those relations (others stay absent, see Columns).
      const target = item.target;
      const relations = !target ? from : target.type === 'Identifier' ? from.filter((r) => r.name === fold(target.value)) : [];
      for (const relation of relations) for (const [name, type] of relation.columns) add(name, type);
    }
  }
  return resolver.budget.left < 0 ? undefined : columns;
}

/** What a select item declares: its Trino type. (A timestamp with time zone carries its zone in each value.) */
export interface DeclaredOutput {
  type?: PrestoType;
  /**
   * A date, time or timestamp literal's value as Trino renders it: every fraction digit up to 12 (DuckDB
   * holds 9, 6 with a time zone offset) and ISO years (`-2001-08-22`, `+10000-01-01`).
   */
  text?: string;
}

/** The text Trino renders a temporal literal's value as (or a cast of one to its kind), or undefined for another expression. */
function literalText(e: Expression): string | undefined {
  if (e.type === 'Cast') {
    const cast = temporalLiteralCast(e);
    return cast && 'text' in cast ? cast.text : undefined;
  }
  if (e.type !== 'GenericLiteral') return undefined;
  const type = fold(e.typeName.value);
  const literal = type === 'date' ? dateLiteral(e.value) : type === 'time' ? timeLiteral(e.value) : type === 'timestamp' ? timestampLiteral(e.value) : undefined;
  return literal && 'text' in literal ? literal.text : undefined;
}

/** How declared outputs are read: the session's names, and the declared columns of tables. */
export interface DeclaredContext {
  catalog?: string;
  schema?: string;
  tableColumns?: TableColumns;
}

/**
 * Per output column, what its select item declares (empty where DuckDB's type stands): a literal's or a
 * cast's type, or the declared type of the column it names (tpch's varchar bounds), read through tables,
 * subqueries and WITH queries as Trino types them. Only a plain SELECT (set operations unify types); a lone
 * `*` over one relation takes its columns by `outputNames`.
 */
export function declaredOutputs(statement: Statement, context: DeclaredContext, outputNames: readonly string[] = []): DeclaredOutput[] | undefined {
  if (statement.type !== 'Query' || statement.body.type !== 'QuerySpecification') return undefined;
  const body = statement.body;
  const resolver = withScope(statement.with, { context, scope: { queries: new Map() }, budget: { left: COLUMN_BUDGET } });
  const from = body.from ? fromRelations(body.from, resolver) : undefined;
  const items = body.select.selectItems;
  if (items.length === 1 && items[0]!.type === 'AllColumns' && !items[0]!.target) {
    // SELECT * over one relation: its columns, by the names DuckDB gave the output.
    if (from?.length !== 1) return undefined;
    return outputNames.map((name) => ({ type: from[0]!.columns.get(fold(name)) }));
  }
  if (items.some((item) => item.type !== 'SingleColumn')) return undefined;
  return items.map((item) => {
    if (item.type !== 'SingleColumn') return {};
    const text = literalText(item.expression);
    return { type: itemType(item.expression, from), ...(text !== undefined && { text }) };
  });
}
