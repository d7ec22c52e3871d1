// What a statement produces, in Presto's terms: rows, an update count (DML, CTAS) or nothing (DDL),
// and the updateType a Presto coordinator reports for it.
import { StatementType } from '@duckdb/node-api';

export type StatementKind =
  | { kind: 'rows' }
  | { kind: 'count'; updateType: string }
  | { kind: 'ddl'; updateType: string };

const ROW_PRODUCING = new Set<StatementType>([StatementType.SELECT, StatementType.EXPLAIN, StatementType.PRAGMA, StatementType.CALL, StatementType.RELATION]);

/**
 * The kind of a statement the project wrote itself (its own SQL carries no Presto tree; a user's
 * statement is classified on its tree: lib/sql/statement-output.ts).
 */
export function classifyStatement(type: StatementType): StatementKind {
  if (ROW_PRODUCING.has(type)) return { kind: 'rows' };
  switch (type) {
    case StatementType.INSERT:
      return { kind: 'count', updateType: 'INSERT' };
    case StatementType.DELETE:
      return { kind: 'count', updateType: 'DELETE' };
    case StatementType.UPDATE:
      return { kind: 'count', updateType: 'UPDATE' };
    default:
      return { kind: 'ddl', updateType: StatementType[type] ?? 'UNKNOWN' };
  }
}
