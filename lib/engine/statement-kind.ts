// What a statement produces, in Presto's terms: rows, an update count (DML, CTAS) or nothing (DDL),
// and the updateType a Presto coordinator reports for it.
import { StatementType } from '@duckdb/node-api';

export type StatementKind =
  | { kind: 'rows' }
  | { kind: 'count'; updateType: string }
  | { kind: 'ddl'; updateType: string };

const ROW_PRODUCING = new Set<StatementType>([StatementType.SELECT, StatementType.EXPLAIN, StatementType.PRAGMA, StatementType.CALL, StatementType.RELATION]);

/** Leading keywords, upper-cased, comments and quotes ignored: `create or replace table` -> ['CREATE','OR','REPLACE','TABLE']. */
function keywords(sql: string, n: number): string[] {
  const text = sql.replace(/--[^\n]*|\/\*[\s\S]*?\*\//g, ' ');
  return (text.match(/[A-Za-z_]+|\(/g) ?? []).slice(0, n).map((w) => w.toUpperCase());
}

export function classifyStatement(type: StatementType, sql: string): StatementKind {
  if (ROW_PRODUCING.has(type)) return { kind: 'rows' };
  switch (type) {
    case StatementType.INSERT:
      return { kind: 'count', updateType: 'INSERT' };
    case StatementType.DELETE:
      return { kind: 'count', updateType: 'DELETE' };
    case StatementType.UPDATE:
      return { kind: 'count', updateType: 'UPDATE' };
    case StatementType.MERGE_INTO:
      return { kind: 'count', updateType: 'MERGE' };
    case StatementType.CREATE:
    case StatementType.DROP:
    case StatementType.ALTER: {
      const words = keywords(sql, 12).filter((w) => !['OR', 'REPLACE', 'TEMP', 'TEMPORARY', 'IF', 'NOT', 'EXISTS', 'UNIQUE'].includes(w));
      const verb = words[0] ?? 'CREATE';
      const object = words[1] ?? '';
      const updateType = `${verb} ${object}`.trim();
      // CREATE TABLE ... AS <query> reports its row count like INSERT (Presto's CTAS).
      if (verb === 'CREATE' && object === 'TABLE' && isCreateTableAs(sql)) return { kind: 'count', updateType };
      return { kind: 'ddl', updateType };
    }
    default:
      return { kind: 'ddl', updateType: keywords(sql, 1)[0] ?? 'UNKNOWN' };
  }
}

/** A CREATE TABLE whose body is a query: `AS` follows the name (and optional column list). */
function isCreateTableAs(sql: string): boolean {
  const text = sql.replace(/--[^\n]*|\/\*[\s\S]*?\*\//g, ' ');
  return /^\s*create\s+(?:or\s+replace\s+)?(?:temp(?:orary)?\s+)?table\s+(?:if\s+not\s+exists\s+)?(?:"(?:[^"]|"")*"|[\w$.]+|\.)+\s*(?:\([^)]*\)\s*)?as\b/i.test(text);
}
