// How a Trino `timestamp with time zone` value lives in DuckDB: a STRUCT of its instant (the UTC wall
// time as a TIMESTAMP of the value's precision: _S, _MS, plain or _NS) and the zone it carries
// (`America/New_York`, `UTC`, `+02:00`). DuckDB's TIMESTAMPTZ keeps the instant only, so a zone that
// varies from row to row (VALUES, CASE, UNION, a zone column, a stored table) would be lost.
// The translation builds these values (literals, AT TIME ZONE, casts, current_timestamp, ...) and reads
// them through the macros of lib/engine/zoned-macros.ts, which take plain DuckDB values unchanged.
// Pure: SQL text builders and a check on the tree, no DuckDB.
import type { DataType, Expression, Node, Statement } from './ast.js';
import { fold, partsOf, qualifyTable } from './names.js';
import { childrenOf } from './tree-walk.js';
import { duckdbTimestamp, hasZone } from './temporal-literals.js';

/** Field names of the zoned STRUCT: distinctive, so that a result column of this shape is a zoned value. */
export const ZONED_UTC = 'vivace_utc';
export const ZONED_ZONE = 'vivace_zone';

/** The DuckDB type of a timestamp(p) with time zone. */
export const zonedType = (precision: number): string => `STRUCT(${ZONED_UTC} ${duckdbTimestamp(precision)}, ${ZONED_ZONE} VARCHAR)`;

/** The DuckDB types of the four precisions DuckDB keeps: 0, 3, 6 and 9 digits. */
export const ZONED_PRECISIONS = [0, 3, 6, 9] as const;

/** A zoned value of `utc` (a naive UTC timestamp) in zone `zone` (SQL text), cast to precision `p`. */
export const zonedValue = (utc: string, zone: string, precision: number): string =>
  `CAST(struct_pack(${ZONED_UTC} := ${utc}, ${ZONED_ZONE} := ${zone}) AS ${zonedType(precision)})`;

/** Calls whose value is a timestamp with time zone: they make zoned values (and their first argument may be one). */
const PRODUCING_CALLS: ReadonlySet<string> = new Set(['now', 'at_timezone', 'with_timezone', 'from_unixtime', 'from_iso8601_timestamp']);

const isZonedType = (t: DataType | Node): boolean => {
  if (t.type === 'DateTimeDataType') return t.kind === 'TIMESTAMP' && t.withTimeZone;
  return childrenOf(t).some(isZonedType);
};

/** Whether a node makes a zoned value by itself. */
function makesZoned(n: Node): boolean {
  switch (n.type) {
    case 'GenericLiteral':
      return fold(n.typeName.value) === 'timestamp' && hasZone(n.value);
    case 'AtTimeZone':
      return true;
    case 'CurrentTime':
      return n.function === 'CURRENT_TIMESTAMP';
    case 'FunctionCall':
      return PRODUCING_CALLS.has(fold(n.name.parts[n.name.parts.length - 1]!.value));
    case 'Cast':
      return isZonedType(n.targetType);
    default:
      return false;
  }
}

/** Catalogs whose tables never hold zoned values (tpch's columns are numbers, text and dates). */
const ZONE_FREE_CATALOGS: ReadonlySet<string> = new Set(['tpch']);

/** Whether `e` names a column (`c`, `t.c`): nothing in it is a call. */
export function isColumn(e: Node): boolean {
  if (e.type === 'Identifier') return true;
  return e.type === 'DereferenceExpression' && isColumn(e.base);
}

/**
 * The zoned macro `name` (lib/engine/zoned-macros.ts) to read `e` through: for a column, its typed
 * overloads themselves, which DuckDB expands in place (a column of another type costs nothing); else the
 * wrapper binding `e` once. DuckDB binds a typed macro's argument over and over (measured: ~20x per level
 * of such macros nested in each other's arguments), so only an argument without calls may take them.
 */
export const zonedMacro = (name: string, e: Node, typedColumns = true): string => (typedColumns && isColumn(e) ? `vivace_typed_${name}` : name);

/** The macro reading `e`'s instant (vivace_instant_key). */
export const instantKey = (e: Node, typedColumns = true): string => zonedMacro('vivace_instant_key', e, typedColumns);

/** Nodes that make a subquery a column reference may reach out of. */
const CORRELATING: ReadonlySet<string> = new Set(['SubqueryExpression', 'ExistsPredicate', 'QuantifiedComparisonExpression', 'Lateral', 'TableSubquery']);

/**
 * Whether a statement's columns may take the typed macros directly: not when it has a subquery. DuckDB
 * cannot choose a typed overload for a correlated column (an outer query's column read in a subquery:
 * "Macro vivace_typed_vivace_instant_key() has multiple overloads that match"), so there every column
 * goes through the untyped wrapper, which binds it once and then dispatches.
 */
export function typedColumnsIn(statement: Node): boolean {
  const stack: Node[] = [statement];
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (CORRELATING.has(n.type)) return false;
    for (const c of childrenOf(n)) stack.push(c);
  }
  return true;
}

/**
 * Whether a statement may meet zoned values: it makes one (a literal, AT TIME ZONE, a cast, ...) or reads a
 * table that may store one (any catalog but tpch). Where it cannot, the translation reads no value through
 * the zoned macros and stays what it was: a tpch query pays nothing for zones. `alsoZoneFree`: catalogs
 * whose tables the caller knows hold none either (a fragment's exchange tables, lib/cluster/stage-sql.ts).
 */
export function mayMeetZones(statement: Statement, catalog: string | undefined, schema: string | undefined, alsoZoneFree?: ReadonlySet<string>): boolean {
  const ctes = new Set<string>();
  const stack: Node[] = [statement];
  const tables: string[][] = [];
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (makesZoned(n)) return true;
    if (n.type === 'WithQuery') ctes.add(fold(n.name.value));
    if (n.type === 'Table') tables.push(partsOf(n.name));
    for (const c of childrenOf(n)) stack.push(c);
  }
  return tables.some((parts) => {
    if (parts.length === 1 && ctes.has(parts[0]!)) return false;
    const table = qualifyTable(parts, catalog, schema);
    return !table || !(ZONE_FREE_CATALOGS.has(table.catalog) || alsoZoneFree?.has(table.catalog));
  });
}

/** Whether arithmetic writes an interval in it (a literal, a cast to one, `n * INTERVAL '1' HOUR`). */
function mentionsInterval(e: Expression): boolean {
  const stack: Expression[] = [e];
  while (stack.length > 0) {
    const x = stack.pop()!;
    if (x.type === 'IntervalLiteral' || (x.type === 'Cast' && x.targetType.type === 'IntervalDataType')) return true;
    if (x.type === 'ArithmeticUnaryExpression') stack.push(x.value);
    if (x.type === 'ArithmeticBinaryExpression') stack.push(x.left, x.right);
  }
  return false;
}

const TEMPORAL_LITERALS: ReadonlySet<string> = new Set(['timestamp', 'date', 'time']);

/**
 * Whether an expression surely is no timestamp with time zone, nor compares with one: a literal of another
 * kind (a number, a string, ...; dates and timestamps do compare with zoned values), a boolean predicate,
 * arithmetic without an interval. Such an operand is never read through the zoned macros.
 */
export function surelyUnzoned(e: Expression): boolean {
  switch (e.type) {
    case 'LongLiteral':
    case 'DoubleLiteral':
    case 'DecimalLiteral':
    case 'StringLiteral':
    case 'BooleanLiteral':
    case 'NullLiteral':
    case 'BinaryLiteral':
    case 'IntervalLiteral':
    case 'Parameter':
      // A parameter is a literal by the time the statement runs (EXECUTE ... USING); DESCRIBE INPUT reads its type beside the other operand.
      return true;
    case 'GenericLiteral':
      return !TEMPORAL_LITERALS.has(fold(e.typeName.value));
    // Booleans, and arithmetic without an interval (a difference of zoned values is an interval).
    case 'ComparisonExpression':
    case 'LogicalExpression':
    case 'NotExpression':
    case 'BetweenPredicate':
    case 'InPredicate':
    case 'LikePredicate':
    case 'IsNullPredicate':
    case 'ExistsPredicate':
    case 'ArithmeticUnaryExpression':
      return true;
    case 'ArithmeticBinaryExpression':
      return !mentionsInterval(e.left) && !mentionsInterval(e.right);
    default:
      return false;
  }
}
