// What a query offers the resource-group selectors (Trino's SelectionCriteria) and its query_priority: the
// session's user, its groups (the group provider's), the authenticated principal, source and client tags,
// and the statement's query type as Trino's StatementUtils.getQueryType classes its parse tree.
import type { Session } from '../protocol/types.js';
import type { Statement } from '../sql/ast.js';
import { fold } from '../sql/names.js';
import { parsedStatement } from '../sql/statement-cache.js';
import { sessionPropertyValue } from '../protocol/session-properties.js';
import type { QueryType } from './resource-groups-config.js';
import type { SelectionCriteria } from './resource-group-tree.js';

export function selectionOf(session: Session, sql: string, userGroups?: (user: string) => readonly string[]): { criteria: SelectionCriteria; priority: number } {
  const criteria: SelectionCriteria = { user: session.user, originalUser: session.user, clientTags: session.clientTags, userGroups: userGroups?.(session.user) ?? [] };
  // Trino's authenticatedUser: the principal the request authenticated as (absent without authentication)
  if (session.authenticatedUser !== undefined) criteria.authenticatedUser = session.authenticatedUser;
  if (session.source !== undefined) criteria.source = session.source;
  const queryType = queryTypeOf(sql, session);
  if (queryType) criteria.queryType = queryType;
  let priority = 1;
  try {
    priority = sessionPropertyValue(session, 'query_priority');
  } catch {
    // an invalid value fails the query elsewhere (validateSessionProperties); here it counts as the default
  }
  return { criteria, priority };
}

/** Trino's StatementUtils: the query type of each statement class (EXPLAIN ANALYZE and EXECUTE aside). */
const BY_TYPE: Readonly<Partial<Record<Statement['type'], QueryType>>> = {
  Query: 'SELECT',
  Explain: 'EXPLAIN',
  ShowCatalogs: 'DESCRIBE', ShowSchemas: 'DESCRIBE', ShowTables: 'DESCRIBE', ShowColumns: 'DESCRIBE', ShowFunctions: 'DESCRIBE',
  ShowSession: 'DESCRIBE', ShowCreate: 'DESCRIBE', ShowStats: 'DESCRIBE', DescribeInput: 'DESCRIBE', DescribeOutput: 'DESCRIBE',
  ShowGrants: 'DESCRIBE', ShowRoles: 'DESCRIBE', ShowRoleGrants: 'DESCRIBE',
  TableExecute: 'ALTER_TABLE_EXECUTE',
  CreateTableAsSelect: 'INSERT', RefreshMaterializedView: 'INSERT', Insert: 'INSERT',
  Update: 'UPDATE', Delete: 'DELETE', Merge: 'MERGE', Analyze: 'ANALYZE',
};

/**
 * Trino's query type of `sql` (StatementUtils.getQueryType of the statement QueryPreparer prepares): EXPLAIN
 * ANALYZE has its statement's type, EXECUTE and EXECUTE IMMEDIATE the type of the statement they run; every
 * other statement not classed above is DATA_DEFINITION. Undefined: text that does not parse, or EXECUTE of a
 * statement the session has not prepared. Read from the parse tree every reader of the text shares
 * (statement-cache.ts), so a comment, a string or a parenthesis cannot change it.
 */
export function queryTypeOf(sql: string, session: Partial<Pick<Session, 'preparedStatements'>> = {}): QueryType | undefined {
  const statement = parsedStatement(sql);
  return statement && queryTypeOfStatement(statement, session);
}

function queryTypeOfStatement(statement: Statement, session: Partial<Pick<Session, 'preparedStatements'>>, depth = 0): QueryType | undefined {
  if (statement.type === 'Explain' && statement.analyze) return queryTypeOfStatement(statement.statement, session, depth);
  if (statement.type === 'Execute' || statement.type === 'ExecuteImmediate') {
    // A prepared EXECUTE is not prepared again (PREPARE of an EXECUTE runs it once): one level is all there is.
    if (depth > 0) return undefined;
    const text = statement.type === 'ExecuteImmediate' ? statement.statement.value : preparedText(statement.name.value, session);
    const executed = text === undefined ? undefined : parsedStatement(text);
    return executed && queryTypeOfStatement(executed, session, depth + 1);
  }
  return BY_TYPE[statement.type] ?? 'DATA_DEFINITION';
}

/** The session's prepared statement of that name (names fold as identifiers do). */
function preparedText(name: string, session: Partial<Pick<Session, 'preparedStatements'>>): string | undefined {
  const prepared = session.preparedStatements ?? {};
  if (Object.hasOwn(prepared, name)) return prepared[name];
  const key = Object.keys(prepared).find((n) => fold(n) === fold(name));
  return key === undefined ? undefined : prepared[key];
}
