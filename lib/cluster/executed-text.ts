// The text an EXECUTE's distributed plan is made of: its prepared statement (the session's, or EXECUTE
// IMMEDIATE's text) with the USING values bound on the tree (parameter-binding.ts), printed back as Trino
// SQL. The coordinator and every worker derive it alike from the statement and the session, which carries
// the prepared statements to each task, so no SQL travels. A row count (`OFFSET ?`, `LIMIT ?`, `FETCH
// FIRST ? ROWS`) binds only from an integer literal (the engine evaluates any other expression, and checks
// it, when it runs the statement): otherwise, and for a marker count that does not match, there is no such
// text and the statement runs as one task, whose planning reports what is wrong.
import type { Expression, Statement } from '../sql/ast.js';
import { formatSql } from '../sql/sql-formatter.js';
import { fold } from '../sql/names.js';
import { parsedStatement } from '../sql/statement-cache.js';
import { bindParameters, parametersOf, rowCountParameters } from '../sql/parameter-binding.js';
import type { Session } from '../protocol/types.js';

/**
 * The prepared statement's text an EXECUTE (the session's, its name as written or folded) or EXECUTE
 * IMMEDIATE runs, and its USING values; undefined for any other statement or an unknown name.
 */
export function executedOf(statement: Statement, session: Partial<Pick<Session, 'preparedStatements'>>): { text: string; values: readonly Expression[] } | undefined {
  if (statement.type === 'ExecuteImmediate') return { text: statement.statement.value, values: statement.parameters };
  if (statement.type !== 'Execute') return undefined;
  const prepared = session.preparedStatements ?? {};
  const key = Object.keys(prepared).find((name) => name === statement.name.value || name.toLowerCase() === fold(statement.name.value));
  return key === undefined ? undefined : { text: prepared[key]!, values: statement.parameters };
}

/** `sql` when it is no EXECUTE; an EXECUTE's bound statement as Trino text; undefined when it cannot be bound here. */
export function plannedText(sql: string, session: Pick<Session, 'preparedStatements'>): string | undefined {
  const statement = parsedStatement(sql);
  if (!statement || (statement.type !== 'Execute' && statement.type !== 'ExecuteImmediate')) return sql;
  const run = executedOf(statement, session);
  const tree = run && parsedStatement(run.text);
  if (!run || !tree || tree.type !== 'Query' || parametersOf(tree).length !== run.values.length) return undefined;
  const counts = new Map<number, bigint>();
  for (const marker of rowCountParameters(tree)) {
    const value = run.values[marker.position]!;
    if (value.type !== 'LongLiteral') return undefined;
    const count = BigInt(value.value);
    // Out of range (negative; FETCH FIRST 0): the engine's check fails it as Trino's analyzer does.
    if (count < 0n || (marker.clause === 'FETCH FIRST' && count === 0n)) return undefined;
    counts.set(marker.position, count);
  }
  return formatSql(bindParameters(tree, run.values, counts));
}
