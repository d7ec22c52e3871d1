// The Trino types a query's output columns declare in its tree, where DuckDB's types cannot say them:
// `varchar(n)` and `char(n)` (DuckDB has one VARCHAR), `time(p)` and `timestamp(p)` for any p (DuckDB has
// seconds, milliseconds, microseconds and nanoseconds), `interval year to month` (DuckDB has one
// INTERVAL). Read off a select item that is a literal or a cast; anything else is left to DuckDB's type.
import type { Expression, QualifiedName, Relation, Statement } from './ast.js';
import type { PrestoType } from '../protocol/types.js';
import { fold, qualifyTable, type QualifiedTable } from './names.js';
import { lossyColumnType } from './column-declarations.js';
import { fractionDigits, hasTimeZone, hasZone } from './temporal-literals.js';

/** The lower-case name a call names (its last part). */
const callName = (e: Extract<Expression, { type: 'FunctionCall' }>) => fold(e.name.parts[e.name.parts.length - 1]!.value);

/** Precision of a timestamp-valued expression the tree declares, else Trino's default 3. */
function timestampPrecision(e: Expression | undefined): number {
  const t = e && declaredType(e);
  return t && (t.base === 'timestamp' || t.base === 'timestamp with time zone') ? (t as { precision: number }).precision : 3;
}


const YEAR_MONTH: ReadonlySet<string> = new Set(['YEAR', 'MONTH']);

/** The Trino type of an expression, when the tree alone tells it and DuckDB's would say less. */
export function declaredType(e: Expression): PrestoType | undefined {
  switch (e.type) {
    case 'NullLiteral':
      // Trino types a bare NULL `unknown` (DuckDB: INTEGER).
      return { base: 'unknown' };
    case 'StringLiteral':
      // Trino types a string literal varchar(n), n its length in code points.
      return { base: 'varchar', length: [...e.value].length };
    case 'GenericLiteral': {
      const type = fold(e.typeName.value);
      if (type === 'char') return { base: 'char', length: Math.max(1, [...e.value].length) };
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
      // Trino: current_timestamp is timestamp(3) with time zone, current_timestamp(p) of p digits.
      return e.function === 'CURRENT_TIMESTAMP' ? { base: 'timestamp with time zone', precision: e.precision ?? 3 } : undefined;
    case 'FunctionCall': {
      const name = callName(e);
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
 * Per correlation name (alias or table name), the declared column types of the FROM clause's tables;
 * undefined when any relation is not a table whose columns are known (a subquery, UNNEST, a CTE).
 */
function fromColumns(relation: Relation, columnsOf: (name: QualifiedName) => ReadonlyMap<string, PrestoType> | undefined): Map<string, ReadonlyMap<string, PrestoType>> | undefined {
  switch (relation.type) {
    case 'Table': {
      const columns = columnsOf(relation.name);
      return columns && new Map([[fold(relation.name.parts[relation.name.parts.length - 1]!.value), columns]]);
    }
    case 'AliasedRelation': {
      if (relation.relation.type !== 'Table' || relation.columnNames) return undefined;
      const columns = columnsOf(relation.relation.name);
      return columns && new Map([[fold(relation.alias.value), columns]]);
    }
    case 'Join': {
      if (relation.criteria?.type === 'JoinUsing' || relation.criteria?.type === 'NaturalJoin') return undefined;
      const left = fromColumns(relation.left, columnsOf);
      const right = left && fromColumns(relation.right, columnsOf);
      return right && new Map([...left!, ...right]);
    }
    default:
      return undefined;
  }
}

/** The declared type of a column reference (`c` or `t.c`) among the FROM clause's tables: one table must have it. */
function columnReference(e: Expression, from: Map<string, ReadonlyMap<string, PrestoType>>): PrestoType | undefined {
  if (e.type === 'Identifier') {
    const name = fold(e.value);
    const having = [...from.values()].filter((columns) => columns.has(name));
    return having.length === 1 ? having[0]!.get(name) : undefined;
  }
  if (e.type === 'DereferenceExpression' && e.base.type === 'Identifier') return from.get(fold(e.base.value))?.get(fold(e.field.value));
  return undefined;
}

/** What a select item declares: its Trino type. (A timestamp with time zone carries its zone in each value.) */
export interface DeclaredOutput {
  type?: PrestoType;
}

/** How declared outputs are read: the session's names, and the declared columns of tables. */
export interface DeclaredContext {
  catalog?: string;
  schema?: string;
  tableColumns?: TableColumns;
}

/**
 * Per output column, what its select item declares (empty where DuckDB's type stands): a literal's or a
 * cast's type, or a column's declared type (tpch's varchar bounds) where the FROM clause names only tables
 * whose columns are known. Only a plain SELECT (set operations unify types); a lone `*` over one such
 * table takes its columns by `outputNames`.
 */
export function declaredOutputs(statement: Statement, context: DeclaredContext, outputNames: readonly string[] = []): DeclaredOutput[] | undefined {
  if (statement.type !== 'Query' || statement.body.type !== 'QuerySpecification') return undefined;
  const body = statement.body;
  const ctes = new Set((statement.with?.queries ?? []).map((q) => fold(q.name.value)));
  const columnsOf = (name: QualifiedName) => {
    const parts = name.parts.map((p) => fold(p.value));
    if (parts.length === 1 && ctes.has(parts[0]!)) return undefined;
    const table = qualifyTable(parts, context.catalog, context.schema);
    return table && context.tableColumns?.(table);
  };
  const from = body.from && context.tableColumns ? fromColumns(body.from, columnsOf) : undefined;
  const items = body.select.selectItems;
  if (items.length === 1 && items[0]!.type === 'AllColumns' && !items[0]!.target) {
    // SELECT * over one known table: its columns, by the names DuckDB gave the output.
    const tables = from ? [...from.values()] : [];
    if (tables.length !== 1) return undefined;
    return outputNames.map((name) => ({ type: tables[0]!.get(fold(name)) }));
  }
  if (items.some((item) => item.type !== 'SingleColumn')) return undefined;
  return items.map((item) => {
    if (item.type !== 'SingleColumn') return {};
    const type = declaredType(item.expression) ?? (from ? columnReference(item.expression, from) : undefined);
    return { type };
  });
}
