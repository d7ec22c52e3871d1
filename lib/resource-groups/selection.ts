// What a query offers the resource-group selectors (Trino's SelectionCriteria) and its query_priority: the
// session's user, its groups (the group provider's), the authenticated principal, source and client tags, and the statement's query type as Trino's StatementUtils.getQueryType
// classes it, read from its leading keywords (no regular expression over the SQL).
import type { Session } from '../protocol/types.js';
import { sessionPropertyValue } from '../protocol/session-properties.js';
import type { QueryType } from './resource-groups-config.js';
import type { SelectionCriteria } from './resource-group-tree.js';

export function selectionOf(session: Session, sql: string, userGroups?: (user: string) => readonly string[]): { criteria: SelectionCriteria; priority: number } {
  const criteria: SelectionCriteria = { user: session.user, originalUser: session.user, clientTags: session.clientTags, userGroups: userGroups?.(session.user) ?? [] };
  // Trino's authenticatedUser: the principal the request authenticated as (absent without authentication)
  if (session.authenticatedUser !== undefined) criteria.authenticatedUser = session.authenticatedUser;
  if (session.source !== undefined) criteria.source = session.source;
  const queryType = queryTypeOf(sql);
  if (queryType) criteria.queryType = queryType;
  let priority = 1;
  try {
    priority = sessionPropertyValue(session, 'query_priority');
  } catch {
    // an invalid value fails the query elsewhere (validateSessionProperties); here it counts as the default
  }
  return { criteria, priority };
}

/** The index just past a comment that opens at `i` (to the end of the text when unclosed), or `i` when none does. */
function pastComment(sql: string, i: number): number {
  const two = sql.slice(i, i + 2);
  if (two !== '--' && two !== '/*') return i;
  const end = sql.indexOf(two === '--' ? '\n' : '*/', i + 2);
  return end < 0 ? sql.length : end + (two === '--' ? 1 : 2);
}

/** The statement's words, uppercased, past blanks, comments and opening parentheses (at most `limit`). */
function leadingWords(sql: string, limit: number): string[] {
  const words: string[] = [];
  let i = 0;
  while (i < sql.length && words.length < limit) {
    const next = pastComment(sql, i);
    if (next !== i) {
      i = next;
      continue;
    }
    const start = i;
    while (i < sql.length && isWordChar(sql[i]!)) i++;
    if (i > start) words.push(sql.slice(start, i).toUpperCase());
    else if (sql[i++] === '(' && words.length > 0) words.push('(');
    // anything else (blanks, quotes, punctuation) only separates words
  }
  return words;
}

function isWordChar(ch: string): boolean {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch === '_';
}

const BY_FIRST_WORD: Readonly<Record<string, QueryType>> = {
  SELECT: 'SELECT',
  WITH: 'SELECT',
  VALUES: 'SELECT',
  TABLE: 'SELECT',
  EXPLAIN: 'EXPLAIN',
  DESCRIBE: 'DESCRIBE',
  SHOW: 'DESCRIBE',
  INSERT: 'INSERT',
  UPDATE: 'UPDATE',
  MERGE: 'MERGE',
  DELETE: 'DELETE',
  ANALYZE: 'ANALYZE',
};

const DATA_DEFINITION_WORDS = new Set(['CREATE', 'DROP', 'ALTER', 'COMMENT', 'GRANT', 'REVOKE', 'DENY', 'SET', 'RESET', 'USE', 'START', 'COMMIT', 'ROLLBACK', 'PREPARE', 'DEALLOCATE', 'CALL', 'TRUNCATE', 'REFRESH']);

/** Trino's query type of `sql`, or undefined (EXECUTE of a prepared statement, or text it cannot class). */
export function queryTypeOf(sql: string): QueryType | undefined {
  const words = leadingWords(sql, 40);
  const first = words[0];
  if (first === undefined) return undefined;
  if (first === 'EXPLAIN' && words[1] === 'ANALYZE') {
    // EXPLAIN ANALYZE has the type of the statement it runs
    const rest = words.slice(words[2] === 'VERBOSE' ? 3 : 2);
    return queryTypeOf(rest.join(' '));
  }
  if (Object.hasOwn(BY_FIRST_WORD, first)) return BY_FIRST_WORD[first];
  if (!DATA_DEFINITION_WORDS.has(first)) return undefined;
  if (first === 'REFRESH' && words[1] === 'MATERIALIZED') return 'INSERT';
  if (first === 'ALTER' && words[1] === 'TABLE' && words.includes('EXECUTE')) return 'ALTER_TABLE_EXECUTE';
  if (first === 'CREATE') {
    // CREATE TABLE AS is an INSERT: after the table's name comes AS, WITH or COMMENT, not its columns' '('
    const at = words.indexOf('TABLE');
    if (at > 0 && at <= 3) {
      const decider = words.slice(at + 1).find((w) => w === '(' || w === 'AS' || w === 'WITH' || w === 'COMMENT');
      if (decider !== undefined && decider !== '(') return 'INSERT';
    }
  }
  return 'DATA_DEFINITION';
}
