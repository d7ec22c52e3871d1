// Which partitions a scan's WHERE clause can skip, decided on the tree before any file is listed, as
// Trino's HivePartitionManager does with the predicate's domain on partition columns. Only what is sure is
// used: comparisons (=, <>, <, <=, >, >=), BETWEEN, IN (literals), IS [NOT] NULL of a partition column of an
// integer, string or date type against literals of that kind, and AND / OR of them; anything else (NOT,
// casts, expressions) keeps every partition, and the filter still runs on the rows kept. The same tests
// prune a table's files by `"$path"`, a varchar per file.
import type { Expression } from '../../sql/ast.js';
import { fold } from '../../sql/names.js';
import type { HiveType } from './hive-types.js';

/** Whether a partition, by its values in partition-column order (null: the default partition), may hold matching rows. */
export type PartitionFilter = (values: readonly (string | null)[]) => boolean;

const INTEGRAL = new Set(['tinyint', 'smallint', 'int', 'integer', 'bigint']);
const STRINGS = new Set(['string', 'varchar']);

/** A test of one partition value; undefined when the conjunct says nothing sure about it. */
type ValueTest = (value: string | null) => boolean;

export function partitionFilter(where: Expression | undefined, columns: readonly { name: string; hive: HiveType }[]): PartitionFilter {
  return (where && expressionFilter(where, columns)) ?? (() => true);
}

/**
 * The filter of a WHERE clause sure to rule some partitions out, or undefined. `qualifiers`: the names a
 * column may be qualified by (the table's alias); a reference qualified otherwise (an outer query's
 * column, in a correlated subquery) says nothing about this table.
 */
export function prunableFilter(where: Expression, columns: readonly { name: string; hive: HiveType }[], qualifiers: ReadonlySet<string>): PartitionFilter | undefined {
  return expressionFilter(where, columns, qualifiers);
}

/**
 * A filter no partition holding a row the expression keeps fails, or undefined when unsure. AND keeps the
 * sure terms (the others only restrict further); OR needs every term sure. A NULL partition value makes
 * a comparison NULL, so its partition goes.
 */
function expressionFilter(e: Expression, columns: readonly { name: string; hive: HiveType }[], qualifiers?: ReadonlySet<string>): PartitionFilter | undefined {
  if (e.type === 'LogicalExpression') {
    const terms = e.terms.map((t) => expressionFilter(t, columns, qualifiers));
    if (e.operator === 'AND') {
      const sure = terms.filter((t): t is PartitionFilter => t !== undefined);
      return sure.length === 0 ? undefined : (values) => sure.every((t) => t(values));
    }
    if (terms.some((t) => t === undefined)) return undefined;
    return (values) => terms.some((t) => t!(values));
  }
  const found = valueTest(e, columns, qualifiers);
  return found && ((values) => found.test(values[found.index] ?? null));
}

/** The partition column a reference names (`k`, or `t.k` in a one-table scan; `t` one of `qualifiers` when given), by index. */
function columnIndex(e: Expression, columns: readonly { name: string }[], qualifiers?: ReadonlySet<string>): number {
  if (e.type === 'DereferenceExpression' && qualifiers && !(e.base.type === 'Identifier' && qualifiers.has(fold(e.base.value)))) return -1;
  const name = e.type === 'Identifier' ? e.value : e.type === 'DereferenceExpression' ? e.field.value : undefined;
  if (name === undefined) return -1;
  return columns.findIndex((c) => c.name.toLowerCase() === fold(name));
}

/** A literal's value as the partition directory spells a value of `type`, or undefined when unsure. */
function literalText(e: Expression, type: HiveType): string | undefined {
  if (INTEGRAL.has(type.name) && e.type === 'LongLiteral') return BigInt(e.value).toString();
  if (STRINGS.has(type.name) && e.type === 'StringLiteral') return e.value;
  if (type.name === 'date' && e.type === 'GenericLiteral' && fold(e.typeName.value) === 'date' && ISO_DATE.test(e.value)) return e.value;
  return undefined;
}

/**
 * A partition value against a literal's text as their type orders them (integers as numbers, strings by
 * their UTF-8 bytes as Trino's and DuckDB's varchar); undefined when the value on disk is no such value.
 */
function compare(value: string, text: string, type: HiveType): number | undefined {
  // yyyy-mm-dd orders as its text; a value on disk spelled otherwise ('2026-1-5') is left to the filter.
  if (type.name === 'date') return ISO_DATE.test(value) ? (value < text ? -1 : value > text ? 1 : 0) : undefined;
  if (!INTEGRAL.has(type.name)) return Buffer.compare(Buffer.from(value, 'utf8'), Buffer.from(text, 'utf8'));
  // Plain decimal digits only: BigInt also reads '' as 0 and '0x10' as 16, which a cast may not.
  if (!DECIMAL.test(value)) return undefined;
  const a = BigInt(value);
  const b = BigInt(text);
  return a < b ? -1 : a > b ? 1 : 0;
}

const DECIMAL = /^[+-]?\d{1,40}$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

const HOLDS: Record<string, (c: number) => boolean> = {
  '=': (c) => c === 0, '<>': (c) => c !== 0, '<': (c) => c < 0, '<=': (c) => c <= 0, '>': (c) => c > 0, '>=': (c) => c >= 0,
};
/** The operator with its sides swapped (`3 < k` is `k > 3`). */
const FLIPPED: Record<string, string> = { '=': '=', '<>': '<>', '<': '>', '<=': '>=', '>': '<', '>=': '<=' };

/** Whether `value <operator> text` may hold: a NULL value never does, a value that is no such value may. */
function comparisonTest(operator: string, text: string, type: HiveType): ValueTest {
  const holds = HOLDS[operator]!;
  return (value) => {
    if (value === null) return false;
    const c = compare(value, text, type);
    return c === undefined || holds(c);
  };
}

function valueTest(e: Expression, columns: readonly { name: string; hive: HiveType }[], qualifiers?: ReadonlySet<string>): { index: number; test: ValueTest } | undefined {
  if (e.type === 'ComparisonExpression' && HOLDS[e.operator]) {
    for (const [ref, lit, operator] of [[e.left, e.right, e.operator], [e.right, e.left, FLIPPED[e.operator]!]] as const) {
      const index = columnIndex(ref, columns, qualifiers);
      if (index < 0) continue;
      const type = columns[index]!.hive;
      const text = literalText(lit, type);
      if (text !== undefined) return { index, test: comparisonTest(operator, text, type) };
    }
    return undefined;
  }
  if (e.type === 'BetweenPredicate' && !e.negated) {
    const index = columnIndex(e.value, columns, qualifiers);
    if (index < 0) return undefined;
    const type = columns[index]!.hive;
    const [min, max] = [literalText(e.min, type), literalText(e.max, type)];
    if (min === undefined || max === undefined) return undefined;
    const [atLeast, atMost] = [comparisonTest('>=', min, type), comparisonTest('<=', max, type)];
    return { index, test: (v) => atLeast(v) && atMost(v) };
  }
  if (e.type === 'InPredicate' && !e.negated && e.valueList.type === 'InListExpression') {
    const index = columnIndex(e.value, columns, qualifiers);
    if (index < 0) return undefined;
    const type = columns[index]!.hive;
    const texts = e.valueList.values.map((v) => literalText(v, type));
    if (texts.some((t) => t === undefined)) return undefined;
    const tests = texts.map((t) => comparisonTest('=', t!, type));
    return { index, test: (v) => tests.some((t) => t(v)) };
  }
  if (e.type === 'IsNullPredicate') {
    const index = columnIndex(e.value, columns, qualifiers);
    return index < 0 ? undefined : { index, test: (v) => (v === null) !== e.negated };
  }
  return undefined;
}
