// The engine's one entry into the Presto dialect layer: answers the statements DuckDB does not know
// (SHOW ..., DESCRIBE, EXPLAIN, USE, SET/RESET SESSION, PREPARE/EXECUTE/DEALLOCATE, transactions) and
// rewrites per-catalog information_schema references; anything else is left to the engine (undefined).
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Plan } from '../engine.types.js';
import type { Session } from '../../protocol/types.js';
import { VivaceError } from '../../protocol/vivace-error.js';
import type { DialectStatement } from '../../sql/dialect-statement.js';
import { dialectStatementOf } from '../../sql/dialect-statement.js';
import type { QualifiedTable } from '../../sql/names.js';
import type { Statement } from '../../sql/ast.js';
import { valuesPlan } from './values-plan.js';
import { showCatalogs, showColumns, showCreateTable, showCreateView, showSchemas, showTables, type ShowResult } from './show-metadata.js';
import { showFunctions } from './show-functions.js';
import { showStats } from './show-stats.js';
import { resetSessionStatement, setRoleStatement, setSessionStatement, showSession, useStatement } from './session-statements.js';
import { catalogSessionLookup } from './catalog-session.js';
import { listCatalogs } from './catalog-metadata.js';
import type { CatalogSessionLookup } from '../../protocol/catalog-session-properties.js';
import { positionAt } from '../../sql/syntax-error.js';
import {
  deallocateStatement,
  DESCRIBE_OUTPUT_COLUMNS,
  describeInput,
  describeOutputRows,
  preparedStatement,
  prepareStatement,
  describedStatement,
  executePrepared,
} from './prepared-statements.js';
import type { TransactionRegistry } from './transaction-registry.js';
import { planExplain, type FragmentPlanning } from './explain-statement.js';

/** A prepared statement's tree with its markers bound to values. */
export interface BoundStatement {
  tree: Statement;
  /** The prepared statement's text (the tree's locations, and the USING values', point into it). */
  sql: string;
  /** What the bound values add to `sql` for caches keyed by text (parameter-binding.ts bindingKey). */
  key: string;
}

export interface DialectContext {
  sql: string;
  /** The statement's Trino tree when the SQL gate parsed it (a user's statement); the project's own SQL has none. */
  tree?: Statement;
  session: Session;
  /** The statement's connection, already on the session's catalog and schema. */
  connection: DuckDBConnection;
  /** Gives the connection back (idempotent). Dialect plans call it once their rows exist. */
  release: () => void;
  /**
   * Plans a user's SQL (a prepared statement with its parameters) as a new statement through the engine
   * and its gate (used after `release`, so a pool of one works).
   */
  plan: (sql: string, session: Session) => Promise<Plan>;
  /** Plans a prepared statement's tree with its parameters bound (EXECUTE), through the gate. */
  planBound: (bound: BoundStatement, session: Session) => Promise<Plan>;
  /** Set when `tree` is a prepared statement's with its parameters bound: their key (BoundStatement.key). */
  boundKey?: string;
  /** Plans SQL the project wrote itself (information_schema rewrites, DuckDB syntax) without the gate. */
  planOwn: (sql: string, session: Session) => Promise<Plan>;
  transactions: TransactionRegistry;
  /** Results of statements planned earlier may no longer hold (ROLLBACK of DDL). */
  clearPlanCache: () => void;
  /** A view's query as CREATE VIEW gave it, in Trino SQL (SHOW CREATE VIEW). */
  viewSql?: (view: { catalog: string; schema: string; table: string }) => string | undefined;
  /** The catalog USE falls back to when neither the statement nor the session names one (the memory catalog); absent: none. */
  defaultCatalog?: string;
  /** Whether the user may see a catalog (SHOW CATALOGS lists only those, as Trino's filterCatalogs). */
  catalogVisible?: (catalog: string) => boolean;
  /** Whether the user may see a table, and a column of it (SHOW TABLES, SHOW COLUMNS, DESCRIBE: Trino's filterTables, filterColumns). */
  tableVisible?: (table: QualifiedTable) => boolean;
  schemaVisible?: (catalog: string, schema: string) => boolean;
  columnVisible?: (table: QualifiedTable, column: string) => boolean;
  /** A column's Extra in SHOW COLUMNS / DESCRIBE (a hive partition column's 'partition key'), undefined for none. */
  columnExtra?: (table: QualifiedTable, column: string) => string | undefined;
  /** The DuckDB SQL of a user's statement (EXPLAIN's, a prepared one's); absent for the project's own SQL. */
  translate?: (statement: Statement) => string;
  /** The distributed plans of a user's statements, which EXPLAIN prints; absent: every statement is one fragment. */
  fragments?: FragmentPlanning;
}

function translator(ctx: DialectContext): (statement: Statement) => string {
  if (!ctx.translate) throw new VivaceError('GENERIC_INTERNAL_ERROR', 'A dialect statement without its translation');
  return ctx.translate;
}

/**
 * A Plan for a Presto-only statement, or undefined when the engine should plan it itself (and always for
 * the project's own SQL, which is DuckDB's).
 */
export async function planDialectStatement(ctx: DialectContext): Promise<Plan | undefined> {
  const statement = ctx.tree && dialectStatementOf(ctx.tree, ctx.sql);
  return statement ? planStatement(ctx, statement) : undefined;
}

/** `line L:C: ` of the statement itself, where Trino places an error about the whole statement. */
/** The catalogs this engine serves, for a catalog session property's checks. */
async function servedCatalogs(connection: DuckDBConnection): Promise<CatalogSessionLookup> {
  const served = new Set(await listCatalogs(connection));
  return catalogSessionLookup((catalog) => served.has(catalog));
}

function statementAt(ctx: DialectContext): string {
  const position = positionAt(ctx.sql, ctx.tree?.location.start ?? 0);
  return `line ${position.lineNumber}:${position.columnNumber}: `;
}

/** A plan over rows computed now; the connection goes back at once. */
function rowsNow(ctx: DialectContext, result: ShowResult): Plan {
  ctx.release();
  return valuesPlan({ columns: result.columns, rows: async () => result.rows, release: () => undefined });
}

function sessionPlan(ctx: DialectContext, updateType: string, sessionUpdates: Plan['sessionUpdates']): Plan {
  ctx.release();
  return valuesPlan({ columns: [], updateType, sessionUpdates, release: () => undefined });
}

async function planStatement(ctx: DialectContext, s: DialectStatement): Promise<Plan> {
  const { connection } = ctx;
  // Names resolve against the session as Trino resolves them: none missing (MISSING_CATALOG_NAME / _SCHEMA_NAME).
  const session: Session = ctx.session;
  switch (s.kind) {
    case 'showCatalogs':
      return rowsNow(ctx, await showCatalogs(connection, s.like, ctx.catalogVisible));
    case 'showSchemas':
      return rowsNow(ctx, await showSchemas(connection, session, s.catalog, s.like, ctx.schemaVisible));
    case 'showTables':
      return rowsNow(ctx, await showTables(connection, session, s.schema, s.like, ctx.tableVisible));
    case 'showColumns':
      return rowsNow(ctx, await showColumns(connection, session, s.table, s.like, ctx.columnVisible, ctx.columnExtra));
    case 'showCreateTable':
      return rowsNow(ctx, await showCreateTable(connection, session, s.table));
    case 'showCreateView':
      return rowsNow(ctx, await showCreateView(connection, session, s.view, (view) => ctx.viewSql?.(view)));
    case 'showStats':
      return rowsNow(ctx, await showStats(connection, translator(ctx)(s.query)));
    case 'showFunctions':
      return rowsNow(ctx, await showFunctions(connection, s.like));
    case 'showSession':
      return rowsNow(ctx, showSession(session, s.like, ctx.catalogVisible));
    case 'describeInput':
      return rowsNow(ctx, await describeInput(connection, session, preparedStatement(session, s.name), translator(ctx)));
    case 'describeOutput':
      return describeOutput(ctx, preparedStatement(session, s.name));
    case 'explain':
      return planExplain(ctx, s);
    case 'use':
      return sessionPlan(ctx, 'USE', await useStatement(connection, session, s.catalog, s.schema, ctx.defaultCatalog));
    case 'setSession':
      return sessionPlan(ctx, 'SET SESSION', setSessionStatement(s.name, s.value, await servedCatalogs(connection)));
    case 'resetSession':
      return sessionPlan(ctx, 'RESET SESSION', resetSessionStatement(s.name, await servedCatalogs(connection)));
    case 'setRole':
      return sessionPlan(ctx, 'SET ROLE', await setRoleStatement(connection, s.role, s.catalog, statementAt(ctx)));
    case 'prepare':
      return sessionPlan(ctx, 'PREPARE', prepareStatement(s.name, s.statement));
    case 'deallocate':
      return sessionPlan(ctx, 'DEALLOCATE', deallocateStatement(session, s.name));
    case 'execute':
    case 'executeImmediate': {
      const sql = s.kind === 'execute' ? preparedStatement(session, s.name) : s.statement;
      ctx.release();
      return executePrepared(ctx, sql, s.parameters);
    }
    case 'startTransaction':
      return startTransaction(ctx);
    case 'commit':
    case 'rollback':
      return endTransaction(ctx, s.kind === 'commit');
  }
}

async function describeOutput(ctx: DialectContext, sql: string): Promise<Plan> {
  ctx.release();
  // Parameters are not known yet: plan with NULLs in their place (DuckDB cannot render an unbound `?`).
  const planned = await ctx.planBound(describedStatement(sql), ctx.session);
  planned.release();
  return valuesPlan({ columns: DESCRIBE_OUTPUT_COLUMNS, rows: async () => describeOutputRows(ctx.session, sql, planned.columns), release: () => undefined });
}

function startTransaction(ctx: DialectContext): Plan {
  if (ctx.session.transactionId === undefined) throw new VivaceError('INCOMPATIBLE_CLIENT', 'Client does not support transactions');
  if (ctx.session.transactionId !== 'NONE') throw new VivaceError('NOT_SUPPORTED', 'Nested transactions not supported');
  const id = ctx.transactions.newId();
  // BEGIN runs when the statement executes, so a plan released unexecuted pins nothing.
  return valuesPlan({
    columns: [],
    updateType: 'START TRANSACTION',
    sessionUpdates: { startedTransactionId: id },
    rows: async () => {
      await ctx.transactions.begin(ctx.connection, id, ctx.session.user);
      return [];
    },
    release: ctx.release,
  });
}

function endTransaction(ctx: DialectContext, commit: boolean): Plan {
  const id = ctx.session.transactionId;
  if (id === undefined || id === 'NONE') throw new VivaceError('NOT_IN_TRANSACTION', 'No transaction in progress');
  return valuesPlan({
    columns: [],
    updateType: commit ? 'COMMIT' : 'ROLLBACK',
    sessionUpdates: { clearTransactionId: true },
    rows: async () => {
      try {
        await ctx.transactions.finish(id, commit);
      } finally {
        // DDL rolled back (or committed by another connection's view) changes what cached plans mean.
        ctx.clearPlanCache();
      }
      return [];
    },
    release: ctx.release,
  });
}
