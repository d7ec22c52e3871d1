// Recognises the Presto statements the project answers itself (SHOW ..., USE, SET SESSION, PREPARE,
// EXECUTE, DESCRIBE INPUT/OUTPUT, EXPLAIN, transactions) from their Trino parse tree. Anything else, and
// text that is not Trino SQL, is `undefined`: the engine plans it (a user's statement has passed the
// SQL gate, which reports syntax errors, before it gets here).
import { parseStatement } from '../../sql/parser.js';
import { dialectStatementOf, type DialectStatement, type LikeFilter } from '../../sql/dialect-statement.js';

export type { DialectStatement, LikeFilter };

export function parseDialectStatement(sql: string): DialectStatement | undefined {
  let statement;
  try {
    statement = parseStatement(sql);
  } catch {
    return undefined;
  }
  return dialectStatementOf(statement, sql);
}
