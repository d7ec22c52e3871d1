// Which partitions a scan's WHERE clause can skip, decided on the tree before any file is listed, as
// Trino's HivePartitionManager does with the predicate's domain on partition columns. Only what is sure is
// used: a conjunct `key = literal`, `key IN (literals)` or `key IS NULL` on a partition column of an integer
// or string type, with a literal of that kind; anything else keeps every partition (the filter still runs).
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
  const tests: { index: number; test: ValueTest }[] = [];
  for (const conjunct of conjuncts(where)) {
    const found = conjunctTest(conjunct, columns);
    if (found) tests.push(found);
  }
  return (values) => tests.every(({ index, test }) => test(values[index] ?? null));
}

function conjuncts(e: Expression | undefined): Expression[] {
  if (!e) return [];
  if (e.type === 'LogicalExpression' && e.operator === 'AND') return e.terms.flatMap(conjuncts);
  return [e];
}

/** The partition column a reference names (`k`, or `t.k` in a one-table scan), by index. */
function columnIndex(e: Expression, columns: readonly { name: string }[]): number {
  const name = e.type === 'Identifier' ? e.value : e.type === 'DereferenceExpression' ? e.field.value : undefined;
  if (name === undefined) return -1;
  return columns.findIndex((c) => c.name.toLowerCase() === fold(name));
}

/** A literal's value as the partition directory spells a value of `type`, or undefined when unsure. */
function literalText(e: Expression, type: HiveType): string | undefined {
  if (INTEGRAL.has(type.name) && e.type === 'LongLiteral') return BigInt(e.value).toString();
  if (STRINGS.has(type.name) && e.type === 'StringLiteral') return e.value;
  return undefined;
}

/** Whether a partition value of `type` equals the literal's text (integers compared as numbers). */
function equals(value: string | null, text: string, type: HiveType): boolean {
  if (value === null) return false;
  if (!INTEGRAL.has(type.name)) return value === text;
  try {
    return BigInt(value) === BigInt(text);
  } catch {
    return true; // not a number on disk: keep it, the filter decides
  }
}

function conjunctTest(e: Expression, columns: readonly { name: string; hive: HiveType }[]): { index: number; test: ValueTest } | undefined {
  if (e.type === 'ComparisonExpression' && e.operator === '=') {
    for (const [ref, lit] of [[e.left, e.right], [e.right, e.left]] as const) {
      const index = columnIndex(ref, columns);
      if (index < 0) continue;
      const type = columns[index]!.hive;
      const text = literalText(lit, type);
      if (text !== undefined) return { index, test: (v) => equals(v, text, type) };
    }
    return undefined;
  }
  if (e.type === 'InPredicate' && !e.negated && e.valueList.type === 'InListExpression') {
    const index = columnIndex(e.value, columns);
    if (index < 0) return undefined;
    const type = columns[index]!.hive;
    const texts = e.valueList.values.map((v) => literalText(v, type));
    if (texts.some((t) => t === undefined)) return undefined;
    return { index, test: (v) => texts.some((t) => equals(v, t!, type)) };
  }
  if (e.type === 'IsNullPredicate' && !e.negated) {
    const index = columnIndex(e.value, columns);
    return index < 0 ? undefined : { index, test: (v) => v === null };
  }
  return undefined;
}
