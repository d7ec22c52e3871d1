// Trino types a parameter from the operand beside it, as its analyzer coerces an unknown parameter to the
// other side's type (`? + 1`, `x = ?`, `? || 'a'`). DESCRIBE INPUT reads this where DuckDB leaves a parameter untyped;
// only literal neighbours are used (DuckDB already types parameters compared with columns).
import type { Expression, Statement } from './ast.js';
import type { PrestoType } from '../protocol/types.js';
import { walk } from './tree-walk.js';
import { decimalLiteralType } from './duckdb-printer.js';

/** The Trino type of a literal, for the literals a parameter can stand beside. */
function literalType(e: Expression): PrestoType | undefined {
  switch (e.type) {
    case 'LongLiteral':
      return { base: Math.abs(Number(e.value)) <= 2147483647 ? 'integer' : 'bigint' };
    case 'DoubleLiteral':
      return { base: 'double' };
    case 'DecimalLiteral': {
      const t = decimalLiteralType(e.value);
      return t && { base: 'decimal', precision: t.precision, scale: t.scale };
    }
    case 'BooleanLiteral':
      return { base: 'boolean' };
    case 'StringLiteral':
      return { base: 'varchar' };
    default:
      return undefined;
  }
}

/** Parameter index (from 0, in text order) -> type of the literal operand beside it in an operator or comparison. */
export function parameterTypesFromLiterals(statement: Statement): Map<number, PrestoType> {
  const found = new Map<number, PrestoType>();
  walk(statement, (node) => {
    if (node.type === 'ComparisonExpression' || node.type === 'ArithmeticBinaryExpression' || node.type === 'ConcatExpression') {
      for (const [mine, other] of [[node.left, node.right], [node.right, node.left]] as const) {
        const type = mine.type === 'Parameter' ? literalType(other) : undefined;
        if (mine.type === 'Parameter' && type) found.set(mine.index, type);
      }
    }
    return true;
  });
  return found;
}
