// Parsed statements by text, for the coordinator's readers of one query's text: the resource-group
// selection (its query type), the catalog statements, the worker route and the spooling choice each read
// the tree, and they read it from one parse. The tree depends on the text alone (no session goes into it),
// so the same text parses once for every query that sends it (a dashboard's SELECT sent again and again).
// Trees are read-only (ast.ts's fields are readonly): a reader that needs a different tree builds one
// (mapTree), never changes this one.
import type { Statement } from './ast.js';
import { parseStatement } from './parser.js';

/** The parser the cache calls on a miss (an object, so that specs can count the parses). */
export const statementParser = {
  parse: (sql: string): Statement => parseStatement(sql),
};

/** Texts kept, most recently used last; longer texts are parsed every time (they are rarely sent twice). */
export const PARSE_CACHE_ENTRIES = 512;
export const PARSE_CACHE_MAX_TEXT = 8192;

/** null: the text does not parse (its error is the worker's to report, with its location). */
const parsed = new Map<string, Statement | null>();

/** The tree of `sql`, or undefined when it does not parse. */
export function parsedStatement(sql: string): Statement | undefined {
  const known = parsed.get(sql);
  if (known !== undefined) {
    // Least recently used goes first: touched entries move to the end.
    parsed.delete(sql);
    parsed.set(sql, known);
    return known ?? undefined;
  }
  let statement: Statement | null;
  try {
    statement = statementParser.parse(sql);
  } catch {
    statement = null;
  }
  if (sql.length <= PARSE_CACHE_MAX_TEXT) {
    parsed.set(sql, statement);
    if (parsed.size > PARSE_CACHE_ENTRIES) parsed.delete(parsed.keys().next().value!);
  }
  return statement ?? undefined;
}

/** Forgets every kept tree (specs that count parses start from nothing). */
export function clearParsedStatements(): void {
  parsed.clear();
}
