// Presto types a parameter DuckDB leaves untyped (`? + 1`) from the operand beside it, as Presto's
// analyzer coerces an unknown parameter to the other side's type. Only literal neighbours are used:
// DuckDB already types parameters compared with columns.
import type { DuckDBConnection } from '@duckdb/node-api';
import type { PrestoType } from '../../protocol/types.js';
import { astNumber, parseAst, type AstNode } from '../duckdb-ast.js';

const isNode = (v: unknown): v is AstNode => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The Presto type of a DuckDB constant's type, for the scalar types a literal can have. */
function literalType(type: unknown): PrestoType | undefined {
  if (!isNode(type)) return undefined;
  switch (type.id) {
    case 'INTEGER':
      return { base: 'integer' };
    case 'BIGINT':
      return { base: 'bigint' };
    case 'DOUBLE':
      return { base: 'double' };
    case 'FLOAT':
      return { base: 'real' };
    case 'BOOLEAN':
      return { base: 'boolean' };
    case 'VARCHAR':
      return { base: 'varchar' };
    case 'DECIMAL': {
      const info = type.type_info;
      // parseAst keeps numbers as marked text (exact beyond 2^53); astNumber reads them.
      if (isNode(info) && info.width !== undefined && info.scale !== undefined) {
        return { base: 'decimal', precision: astNumber(info.width), scale: astNumber(info.scale) };
      }
      return undefined;
    }
    default:
      return undefined;
  }
}

/** Parameter number (1-based) -> type of the literal operand beside it in an operator or comparison. */
export async function parameterTypesFromLiterals(connection: DuckDBConnection, sql: string): Promise<Map<number, PrestoType>> {
  const found = new Map<number, PrestoType>();
  const reader = await connection.runAndReadAll('SELECT json_serialize_sql($1::VARCHAR)', [sql]);
  const serialized = parseAst(String(reader.getRows()[0]?.[0] ?? '{}'));
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      value.forEach(visit);
      return;
    }
    if (!isNode(value)) return;
    const operands =
      value.class === 'COMPARISON' ? [value.left, value.right]
      : Array.isArray(value.children) && value.is_operator === true ? value.children
      : undefined;
    if (operands?.length === 2) {
      for (const [mine, other] of [[operands[0], operands[1]], [operands[1], operands[0]]]) {
        if (isNode(mine) && mine.class === 'PARAMETER' && isNode(other) && other.class === 'CONSTANT' && isNode(other.value)) {
          const type = literalType(other.value.type);
          if (type) found.set(astNumber(mine.identifier), type);
        }
      }
    }
    for (const key of Object.keys(value)) visit(value[key]);
  };
  if (!serialized.error) visit(serialized.statements);
  return found;
}
