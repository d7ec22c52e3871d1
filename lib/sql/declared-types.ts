// The Trino types a query's output columns declare in its tree, where DuckDB's types cannot say them:
// `varchar(n)` and `char(n)` (DuckDB has one VARCHAR), `time(p)` and `timestamp(p)` for any p (DuckDB has
// seconds, milliseconds, microseconds and nanoseconds), `interval year to month` (DuckDB has one
// INTERVAL). Read off a select item that is a literal or a cast; anything else is left to DuckDB's type.
import type { DataType, Expression, NumericParameter, Statement } from './ast.js';
import type { PrestoType } from '../protocol/types.js';
import { fold } from './names.js';
import { fractionDigits, hasTimeZone, hasZone } from './temporal-literals.js';
import { literalZone, parseZone, type Zone } from './time-zones.js';

/** The lower-case name a call names (its last part). */
const callName = (e: Extract<Expression, { type: 'FunctionCall' }>) => fold(e.name.parts[e.name.parts.length - 1]!.value);

/** Calls that keep their first argument's zone: truncation in it. */
const ZONE_KEEPING = new Set(['date_trunc']);

/**
 * The zone a `timestamp with time zone` expression carries, where the tree states it: a literal's zone,
 * AT TIME ZONE / with_timezone / at_timezone with a constant zone, current_timestamp and now() in the
 * session's zone, and what date_trunc or interval arithmetic makes of those. Undefined elsewhere.
 */
export function zoneOf(e: Expression, sessionZone: Zone): Zone | undefined {
  switch (e.type) {
    case 'GenericLiteral':
      return fold(e.typeName.value) === 'timestamp' ? literalZone(e.value) : undefined;
    case 'AtTimeZone':
      return e.timeZone.type === 'StringLiteral' ? parseZone(e.timeZone.value) : undefined;
    case 'CurrentTime':
      return e.function === 'CURRENT_TIMESTAMP' ? sessionZone : undefined;
    case 'FunctionCall': {
      const name = callName(e);
      const [first, second] = e.arguments;
      if ((name === 'with_timezone' || name === 'at_timezone') && second?.type === 'StringLiteral') return parseZone(second.value);
      if (name === 'now' && e.arguments.length === 0) return sessionZone;
      if (name === 'date_trunc' && second) return zoneOf(second, sessionZone);
      if (ZONE_KEEPING.has(name) && first) return zoneOf(first, sessionZone);
      return undefined;
    }
    case 'ArithmeticBinaryExpression':
      if (e.operator === '+' || e.operator === '-') return zoneOf(e.left, sessionZone) ?? (e.operator === '+' ? zoneOf(e.right, sessionZone) : undefined);
      return undefined;
    default:
      return undefined;
  }
}

/** Precision of a timestamp-valued expression the tree declares, else Trino's default 3. */
function timestampPrecision(e: Expression | undefined): number {
  const t = e && declaredType(e);
  return t && (t.base === 'timestamp' || t.base === 'timestamp with time zone') ? (t as { precision: number }).precision : 3;
}

const numeric = (p: DataType | NumericParameter | undefined): number | undefined => (p?.type === 'NumericParameter' ? Number(p.value) : undefined);

const YEAR_MONTH: ReadonlySet<string> = new Set(['YEAR', 'MONTH']);

/** The Trino type a cast target declares, where DuckDB's result type would say less. */
function castType(t: DataType): PrestoType | undefined {
  switch (t.type) {
    case 'GenericDataType': {
      const name = fold(t.name.value);
      const length = numeric(t.arguments[0]);
      if (name === 'varchar') return length === undefined ? undefined : { base: 'varchar', length };
      if (name === 'char') return { base: 'char', length: length ?? 1 };
      return undefined;
    }
    case 'DateTimeDataType': {
      // Trino: TIMESTAMP and TIME without a precision are timestamp(3) and time(3).
      const precision = numeric(t.precision) ?? 3;
      if (t.kind === 'TIME') return t.withTimeZone ? undefined : { base: 'time', precision };
      return t.withTimeZone ? undefined : { base: 'timestamp', precision };
    }
    case 'IntervalDataType':
      return { base: YEAR_MONTH.has(t.from) ? 'interval year to month' : 'interval day to second' };
    default:
      return undefined;
  }
}

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
      return castType(e.targetType);
    case 'AtTimeZone':
      return { base: 'timestamp with time zone', precision: timestampPrecision(e.value) };
    case 'FunctionCall': {
      const name = callName(e);
      if (name === 'with_timezone' || name === 'at_timezone') return { base: 'timestamp with time zone', precision: timestampPrecision(e.arguments[0]) };
      if (name === 'date_trunc') {
        const t = e.arguments[1] && declaredType(e.arguments[1]);
        return t?.base === 'timestamp with time zone' ? t : undefined;
      }
      return undefined;
    }
    default:
      return undefined;
  }
}

/** What a select item declares: its Trino type, and for a timestamp with time zone the zone it renders in. */
export interface DeclaredOutput {
  type?: PrestoType;
  zone?: Zone;
}

/**
 * Per output column, what its select item declares (empty where DuckDB's type stands). Only a plain
 * SELECT without `*` (set operations unify types; a star's columns are not items).
 */
export function declaredOutputs(statement: Statement, sessionZone: Zone): DeclaredOutput[] | undefined {
  if (statement.type !== 'Query' || statement.body.type !== 'QuerySpecification') return undefined;
  const items = statement.body.select.selectItems;
  if (items.some((item) => item.type !== 'SingleColumn')) return undefined;
  return items.map((item) => (item.type === 'SingleColumn' ? { type: declaredType(item.expression), zone: zoneOf(item.expression, sessionZone) } : {}));
}
