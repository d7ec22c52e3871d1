// The Trino types a query's output columns declare in its tree, where DuckDB's types cannot say them:
// `varchar(n)` and `char(n)` (DuckDB has one VARCHAR), `time(p)` and `timestamp(p)` for any p (DuckDB has
// seconds, milliseconds, microseconds and nanoseconds), `interval year to month` (DuckDB has one
// INTERVAL). Read off a select item that is a literal or a cast; anything else is left to DuckDB's type.
import type { DataType, Expression, NumericParameter, Statement } from './ast.js';
import type { PrestoType } from '../protocol/types.js';
import { fold } from './names.js';
import { fractionDigits, hasZone } from './temporal-literals.js';

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
    case 'StringLiteral':
      // Trino types a string literal varchar(n), n its length in code points.
      return { base: 'varchar', length: [...e.value].length };
    case 'GenericLiteral': {
      const type = fold(e.typeName.value);
      if (type === 'char') return { base: 'char', length: Math.max(1, [...e.value].length) };
      if (type === 'timestamp' && !hasZone(e.value)) return { base: 'timestamp', precision: fractionDigits(e.value) };
      if (type === 'time' && !hasZone(e.value)) return { base: 'time', precision: fractionDigits(e.value) };
      return undefined;
    }
    case 'IntervalLiteral':
      return { base: YEAR_MONTH.has(e.startField) ? 'interval year to month' : 'interval day to second' };
    case 'ArithmeticUnaryExpression':
      return e.value.type === 'IntervalLiteral' ? declaredType(e.value) : undefined;
    case 'Cast':
      return castType(e.targetType);
    default:
      return undefined;
  }
}

/**
 * Per output column, the type its select item declares, or undefined where DuckDB's type stands. Only a
 * plain SELECT without `*` (set operations unify types; a star's columns are not items).
 */
export function declaredOutputTypes(statement: Statement): (PrestoType | undefined)[] | undefined {
  if (statement.type !== 'Query' || statement.body.type !== 'QuerySpecification') return undefined;
  const items = statement.body.select.selectItems;
  if (items.some((item) => item.type !== 'SingleColumn')) return undefined;
  return items.map((item) => (item.type === 'SingleColumn' ? declaredType(item.expression) : undefined));
}
