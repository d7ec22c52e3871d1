// Which worker may run a statement, decided on its tree (the coordinator parses, never runs, SQL): a
// read-only query over catalogs every worker reads alike (their connector's `shared`: tpch, hive) or
// system.runtime runs on any alive worker; everything else (memory, other
// system tables that list memory's objects, DDL, DML, session and transaction statements, PREPARE and
// EXECUTE) goes to the worker holding the memory catalog. Text that does not parse may go anywhere: the
// worker answers the syntax error with its location.
import { walk, type Node, type Statement } from '../sql/index.js';
import { parsedStatement } from '../sql/statement-cache.js';
import { executedOf } from './executed-text.js';
import { partsOf, fold } from '../sql/names.js';
import { resolveTable } from '../sql/statement-gate.js';
import type { Session } from '../protocol/types.js';

export interface StatementRoute {
  /** 'any': any alive worker; 'memory': the worker holding the memory catalog */
  target: 'any' | 'memory';
  /** The statement reads system.runtime.* (the coordinator's snapshot rows go with it). */
  readsSystemRuntime: boolean;
  /** It reads system.runtime.completed_queries (the stored history's rows go with it too). */
  readsCompletedQueries: boolean;
  /** A query that reads no table: cheap enough to wait for its first rows in the planning call. */
  tableFree: boolean;
}

const ANYWHERE: StatementRoute = { target: 'any', readsSystemRuntime: false, readsCompletedQueries: false, tableFree: false };

/** `shared`: catalogs whose data every worker reads alike (Connectors.shared): a read-only query over them runs anywhere. */
export function routeOf(sql: string, session: Pick<Session, 'catalog' | 'schema'> & Partial<Pick<Session, 'preparedStatements'>>, shared: ReadonlySet<string>): StatementRoute {
  const statement = parsedStatement(sql);
  if (!statement) return ANYWHERE;
  // EXPLAIN (ANALYZE) of a query reads what the query reads.
  const subject = statement.type === 'Explain' ? statement.statement : statement;
  const read = tablesRead(subject, session);
  const anywhere = subject.type === 'Query' && !read.tableFunction && read.tables.every((t) => (t.catalog !== undefined && shared.has(t.catalog)) || isRuntime(t));
  // EXECUTE runs where it is sent, but what it runs may read system.runtime (the snapshot must go with it).
  const executed = executedStatement(subject, session);
  const executedReads = executed ? tablesRead(executed, session).tables : [];
  return {
    target: anywhere ? 'any' : 'memory',
    readsSystemRuntime: read.tables.some(isRuntime) || executedReads.some(isRuntime),
    readsCompletedQueries: [...read.tables, ...executedReads].some((t) => isRuntime(t) && fold(t.table) === 'completed_queries'),
    tableFree: statement.type === 'Query' && read.tables.length === 0 && !read.tableFunction,
  };
}

/** The statement EXECUTE (from the session's prepared statements) or EXECUTE IMMEDIATE runs, when it parses. */
function executedStatement(statement: Statement, session: Partial<Pick<Session, 'preparedStatements'>>): Statement | undefined {
  const run = executedOf(statement, session);
  return run && parsedStatement(run.text);
}

interface ResolvedTable {
  catalog?: string;
  schema?: string;
  table: string;
}

const isRuntime = (t: ResolvedTable) => t.catalog === 'system' && t.schema === 'runtime';

/** What a statement's tree names, whatever the session: its tables' name parts (WITH names excluded) and whether it calls a table function. */
interface NamedTables {
  parts: readonly string[][];
  tableFunction: boolean;
}

/**
 * Each tree's names, read once: trees are shared by text (statement-cache.ts), so a text sent again is
 * neither parsed nor walked again; only the session's catalog and schema are applied per query.
 */
const namedByTree = new WeakMap<Statement, NamedTables>();

/** The walk over a tree's names (an object, so that specs can count the walks). */
export const routeReading = {
  tablesNamed(statement: Statement): NamedTables {
    const cteNames = new Set<string>();
    walk(statement, (node) => {
      if (node.type === 'WithQuery') cteNames.add(fold(node.name.value));
    });
    const parts: string[][] = [];
    let tableFunction = false;
    walk(statement, (node: Node) => {
      if (node.type === 'TableFunctionInvocation') tableFunction = true;
      if (node.type !== 'Table') return;
      const named = partsOf(node.name);
      if (named.length === 1 && cteNames.has(named[0]!)) return;
      parts.push(named);
    });
    return { parts, tableFunction };
  },
};

/** The tables a statement names (WITH names excluded), resolved in the session, and whether it calls a table function. */
function tablesRead(statement: Statement, session: Pick<Session, 'catalog' | 'schema'>): { tables: ResolvedTable[]; tableFunction: boolean } {
  let named = namedByTree.get(statement);
  if (!named) namedByTree.set(statement, (named = routeReading.tablesNamed(statement)));
  const context = { catalog: session.catalog, schema: session.schema };
  return { tables: named.parts.map((parts) => resolveTable(parts, context)), tableFunction: named.tableFunction };
}
