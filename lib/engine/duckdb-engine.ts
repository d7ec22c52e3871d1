// The Engine on an embedded, in-memory DuckDB: opens the instance, plans statements on pooled
// connections (prepare without running) and hands out executions that stream Presto JSON rows.
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection, type DuckDBPreparedStatement } from '@duckdb/node-api';
import type { Engine, Plan, PlanAbort } from './engine.types.js';
import type { OutputColumn, PrestoType, Session } from '../protocol/types.js';
import { VivaceError } from '../protocol/vivace-error.js';
import { ConnectionPool } from './connection-pool.js';
import { CONNECTION_SETUP_SQL } from './presto-macros.js';
import { prestoTypeOf } from './duckdb-types.js';
import { renderRowsSql } from './row-renderer.js';
import { toVivaceError, syntaxErrorAt, type ErrorContext } from './duckdb-errors.js';
import { prestoColumnNames, rewriteStatement } from './statement-rewriter.js';
import { astNumber, parseAst, stringifyAst, type SerializedStatement } from './duckdb-ast.js';
import { rewritePrestoLiterals } from './presto-literals.js';
import { StreamingExecution, UpdateExecution } from './duckdb-execution.js';
import { PlanCache, SMALL_RESULT, type CachedQueryPlan } from './plan-cache.js';
import { classifyStatement } from './statement-kind.js';
import { embeddedQuery, statementOutput } from '../sql/statement-output.js';
import { needsEngineRewrite, outputNames } from '../sql/output-names.js';
import { REWRITTEN_FUNCTIONS } from './presto-ast.js';
import type { Statement } from '../sql/ast.js';
import { planDialectStatement } from './dialect/dialect-planner.js';
import { defaultTransactionLimits, transactionsOf, type TransactionLimits } from './dialect/transaction-registry.js';
import { attachTpchCatalog, type TpchCatalog, type TpchCatalogOptions } from './catalogs/tpch-catalog.js';
import { lockDownEngine, SANDBOX_INSTANCE_CONFIG } from './engine-sandbox.js';
import { attachSystemCatalog } from './catalogs/system-catalog.js';
import type { SystemTablesBinding } from './catalogs/system-tables.js';
import { CatalogNames } from './dialect/catalog-names.js';
import { stripTrailingSemicolons } from './dialect/sql-tokens.js';
import type { RewriteMap } from './rewrite-map.js';
import { parseStatement } from '../sql/parser.js';
import { admitStatement } from '../sql/statement-gate.js';
import { AdmittedQueries } from './admitted-queries.js';
import { TPCH_CATALOG } from './catalogs/tpch-schemas.js';
import { SYSTEM_CATALOG } from './catalogs/system-catalog.js';
import { rewriteMappedCatalogsMapped } from './dialect/catalog-rewrite.js';

export interface DuckDbEngineOptions {
  /** Parent of the tpch directory by default. Defaults to tempDirectory. */
  dataDirectory?: string;
  /** Spill directory; cannot change after first use. */
  tempDirectory: string;
  /** e.g. '4GB' */
  memoryLimit?: string;
  threads?: number;
  /** Concurrent statements (one per connection). Default 8. */
  maxConnections?: number;
  /**
   * DuckDB renders this far ahead of the reader. Larger is faster (default '4MB': ~10% over DuckDB's
   * default) but delays the first rows of a big query (engine.md: 16MB took 0.9 s).
   */
  streamingBufferSize?: string;
  /** The tpch catalog (data generated on first use under directory, default <dataDirectory>/tpch); false: none. */
  tpch?: TpchCatalogOptions | false;
  /** Open transactions (each pins a connection); default: half the pool, 2 per user, 5 m idle timeout. */
  transactions?: Partial<TransactionLimits>;
  /** The `system` catalog, served from whatever source is bound to it later (the coordinator's actors); absent: none. */
  system?: SystemTablesBinding;
}

const BIGINT: PrestoType = { base: 'bigint' };
/** Only the memory catalog takes writes (tpch and system are read-only connectors, as in Presto). */
const WRITABLE_CATALOGS: ReadonlySet<string> = new Set(['memory']);
/** The memory catalog's default schema is every session's default: nobody may drop it. */
const PROTECTED_SCHEMAS: ReadonlySet<string> = new Set(['memory.default']);
const ROWS_COLUMN: OutputColumn[] = [{ name: 'rows', type: BIGINT }];
const quoteIdent = (s: string) => `"${s.replace(/"/g, '""')}"`;

/** The DuckDB engine: the Engine contract, plus planning of SQL the project writes itself. */
export interface DuckDbEngine extends Engine {
  /**
   * Plans SQL the project wrote itself, in DuckDB's dialect and past the SQL gate (the sandbox still
   * holds). Never pass a user's text here: `plan` is the way in for it. Specs of the row encoding use
   * it for DuckDB types Presto SQL cannot spell.
   */
  planOwnSql: Engine['plan'];
}

export async function createDuckDbEngine(options: DuckDbEngineOptions): Promise<DuckDbEngine> {
  const config: Record<string, string> = {
    ...SANDBOX_INSTANCE_CONFIG,
    temp_directory: options.tempDirectory,
    // DuckDB's allocator (jemalloc) purges freed pages only when it allocates again, so a burst of
    // queries left its pages resident on an idle coordinator (~20 MB after 10,000 short queries); its
    // background thread returns them to the system within seconds.
    allocator_background_threads: 'true',
  };
  if (options.memoryLimit) config.memory_limit = options.memoryLimit;
  if (options.threads) config.threads = String(options.threads);
  const instance = await DuckDBInstance.create(':memory:', config);
  const bufferSize = options.streamingBufferSize ?? '4MB';
  const setup = async (c: DuckDBConnection) => {
    for (const sql of CONNECTION_SETUP_SQL) await c.run(sql);
    if (/^\d+(?:\.\d+)?\s*[KMG]?i?B$/i.test(bufferSize)) await c.run(`SET streaming_buffer_size = '${bufferSize}'`);
  };
  const pool = new ConnectionPool(instance, options.maxConnections ?? 8, setup);
  const first = await pool.acquire();
  const tpchDirectory = options.tpch === false ? undefined : options.tpch?.directory ?? join(options.dataDirectory ?? options.tempDirectory, 'tpch');
  let tpch: TpchCatalog | undefined;
  let system: Awaited<ReturnType<typeof attachSystemCatalog>> | undefined;
  try {
    await first.run(`CREATE SCHEMA IF NOT EXISTS memory."default"`);
    tpch = tpchDirectory === undefined ? undefined : await attachTpchCatalog(instance, { ...(options.tpch || {}), directory: tpchDirectory });
    system = options.system ? await attachSystemCatalog(instance, options.system, options.tempDirectory) : undefined;
    await pool.fill();
    // Only the generated tpch data and the spill directory (which holds the system catalog's file) stay reachable.
    await lockDownEngine(first, tpchDirectory === undefined ? [options.tempDirectory] : [tpchDirectory, options.tempDirectory]);
  } finally {
    pool.release(first);
  }
  const transactions = transactionsOf(pool, { ...defaultTransactionLimits(pool.capacity), ...options.transactions });
  const cache = new PlanCache();
  const catalogs = new Set(['memory', ...(tpch ? [TPCH_CATALOG] : []), ...(system ? [SYSTEM_CATALOG] : [])]);
  const gate = (statement: Statement, sql: string, session: Session) =>
    admitStatement(statement, sql, {
      catalog: session.catalog, schema: session.schema, catalogs, writableCatalogs: WRITABLE_CATALOGS,
      protectedSchemas: PROTECTED_SCHEMAS, preparedStatements: session.preparedStatements,
    });
  // Only Presto's language reaches DuckDB: a user's statement is parsed as Trino SQL and held to the
  // allow-list first (lib/sql/statement-gate.ts), and so is SQL a statement leads to (EXECUTE's
  // prepared statement). The project's own rewrites (information_schema) are planned as they are.
  const admitted = new AdmittedQueries();
  const plan: Engine['plan'] = (sql, session, signal) => {
    const key = AdmittedQueries.key(sql, session.catalog, session.schema);
    let statement = admitted.get(key);
    if (!statement) {
      try {
        statement = parseStatement(sql);
        gate(statement, sql, session);
      } catch (err) {
        return Promise.reject(err);
      }
      admitted.remember(key, statement);
    }
    return planParsed(sql, session, signal, statement);
  };
  const planTrusted: Engine['plan'] = (sql, session, signal) => planParsed(sql, session, signal);
  /** `statement`: the tree of a user's statement (the project's own SQL has none: DuckDB classifies it). */
  const planParsed = (sql: string, session: Session, signal?: PlanAbort, statement?: Statement): Promise<Plan> => {
    const replans: Replans = {
      user: (s2, session2) => plan(s2, session2, signal),
      own: (s2, session2) => planTrusted(s2, session2, signal),
    };
    // Data of a tpch schema is generated on first use, before a connection is taken; a query ended
    // meanwhile stops waiting for it (the generation goes on for the next query).
    const generating = tpch?.beforePlan(sql, session);
    return generating
      ? untilAborted(generating, signal).then(() => planStatement(pool, cache, sql, session, replans, signal, statement))
      : planStatement(pool, cache, sql, session, replans, signal, statement);
  };
  return {
    plan,
    planOwnSql: planTrusted,
    close: async () => {
      tpch?.close();
      await transactions.rollbackIdle();
      // Prepared statements go before their connections, so none outlives its client context.
      await pool.close(() => cache.destroyPrepared());
      system?.close();
      instance.closeSync();
    },
  };
}

function streamingExecution(connection: DuckDBConnection, cache: PlanCache, plan: CachedQueryPlan, release: () => void, runtime: ErrorContext): StreamingExecution {
  const materialize = plan.small === true;
  const execution: StreamingExecution = new StreamingExecution(
    connection,
    async () => {
      const prepared = await cache.preparedOn(connection, plan.renderSql);
      return materialize ? prepared.run() : prepared.stream();
    },
    () => {
      const { processedRows, processedBytes } = execution.progress();
      // Only a run that reached its end tells the size; a cancelled one says nothing.
      if (execution.exhausted) plan.small = processedRows <= SMALL_RESULT.rows && processedBytes <= SMALL_RESULT.bytes;
      release();
    },
    runtime,
  );
  return execution.start();
}

/** How SQL a dialect statement leads to is planned: a user's (EXECUTE's) through the gate, the project's own as it is. */
interface Replans {
  user: Engine['plan'];
  own: Engine['plan'];
}

async function planStatement(pool: ConnectionPool, cache: PlanCache, sql: string, session: Session, replans: Replans, signal?: PlanAbort, statement?: Statement): Promise<Plan> {
  // A statement of an open transaction runs on the connection the transaction pinned (dialect/transaction-registry.ts).
  const transactions = transactionsOf(pool);
  const lease = await transactions.lease(session.transactionId);
  const connection = lease.connection;
  let held = true;
  const giveBack = () => {
    if (!held) return;
    held = false;
    lease.release();
  };
  // An abort while planning interrupts whatever DuckDB runs for the plan on this connection.
  const interrupt = () => connection.interrupt();
  if (signal?.aborted) {
    giveBack();
    throw abortReason(signal);
  }
  const stopListening = signal?.onAbort(interrupt);
  const context: ErrorContext = { sql, catalog: session.catalog ?? 'memory', schema: session.schema ?? 'default' };
  try {
    await useSchema(connection, cache.schemaOf, context.catalog!, context.schema!);
    // Presto-only statements (SHOW, USE, SET SESSION, PREPARE, EXECUTE, transactions, ...): never cached.
    const dialectPlan = await planDialectStatement({
      sql, tree: statement, session, connection, release: giveBack, plan: replans.user, planOwn: replans.own, transactions, clearPlanCache: () => cache.clear(),
    });
    if (dialectPlan) return dialectPlan;
    const runtime: ErrorContext = { catalog: context.catalog, schema: context.schema };
    const cacheKey = PlanCache.key(sql, session, context.catalog!, context.schema!);
    const cached = cache.get(cacheKey);
    if (cached) {
      return makePlan(cached.columns, undefined, () => streamingExecution(connection, cache, cached, giveBack, runtime), giveBack, () => held);
    }
    // Text rewrites keep a map back to the SQL as written, so error locations point at what the user wrote.
    const stripped = stripTrailingSemicolons(sql);
    const literals = rewritePrestoLiterals(stripped);
    const rewritten = rewriteMappedCatalogsMapped(literals.text, literals.map);
    const text = rewritten.text;
    if (text !== stripped) context.rewritten = rewritten;
    // DuckDB's JSON tree of the statement is needed only for its rewrites (division, a few Presto
    // functions); reading it costs the main thread ~100 ms for a 3 MB tree (an IN list of 20,000 numbers).
    const serialized = statement && !needsEngineRewrite(statement, REWRITTEN_FUNCTIONS) ? undefined : await serialize(connection, text);
    if (serialized?.error && serialized.error_type === 'parser') {
      const offset = serialized.position === undefined ? undefined : rewritten.map.toOriginal(astNumber(serialized.position));
      throw syntaxErrorAt(sql, offset, serialized.error_message ?? 'syntax error');
    }
    const extracted = await connection.extractStatements(text).catch((err: unknown) => {
      throw toVivaceError(err, context);
    });
    if (extracted.count === 0) throw new VivaceError('SYNTAX_ERROR', 'line 1:1: Empty statement', { location: { lineNumber: 1, columnNumber: 1 } });
    if (extracted.count > 1) throw new VivaceError('SYNTAX_ERROR', 'Multiple statements in one request are not supported');
    const ast = !serialized || serialized.error ? undefined : serialized.statements?.[0]?.node;
    // Presto division and functions (statement-rewriter.ts); a statement needing neither runs as written.
    const inner = ast ? await rewriteSql(connection, ast, text, session) : text;
    const prepared = await prepareRewritten(connection, inner, text, context);
    const kind = statement ? statementOutput(statement) : classifyStatement(prepared.statementType);
    if (kind.kind === 'rows') {
      const columns = outputColumns(prepared, ast, statement);
      prepared.destroySync();
      const renderSql = renderRowsSql(inner, columns.map((c) => c.duckdb), session.timeZone);
      const output = columns.map(({ name, type }) => ({ name, type }));
      const planned: CachedQueryPlan = { columns: output, renderSql };
      cache.set(cacheKey, planned);
      return makePlan(output, undefined, () => streamingExecution(connection, cache, planned, giveBack, runtime), giveBack, () => held);
    }
    prepared.destroySync();
    cache.clear();
    const embedded = statement && kind.kind === 'count' ? embeddedQuery(statement) : undefined;
    const runSql = embedded ? await rewriteEmbeddedQuery(connection, text, embedded, rewritten.map, session) : text;
    const columns = kind.kind === 'count' ? ROWS_COLUMN : [];
    return makePlan(columns, kind.updateType, () => new UpdateExecution(connection, runSql, kind.kind === 'count', giveBack, runtime).start(), giveBack, () => held);
  } catch (err) {
    giveBack();
    throw signal?.aborted ? abortReason(signal) : toVivaceError(err, context);
  } finally {
    stopListening?.();
  }
}

const abortReason = (signal: PlanAbort) =>
  signal.reason instanceof VivaceError ? signal.reason : new VivaceError('USER_CANCELED', 'Query was canceled');

/** `work`, or the abort's reason as soon as `signal` aborts. */
function untilAborted<T>(work: Promise<T>, signal: PlanAbort | undefined): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) return Promise.reject(abortReason(signal));
  return new Promise<T>((resolve, reject) => {
    const stop = signal.onAbort(() => reject(abortReason(signal)));
    work.then(resolve, reject).finally(stop);
  });
}

function makePlan(columns: OutputColumn[], updateType: string | undefined, execute: () => StreamingExecution | UpdateExecution, release: () => void, held: () => boolean): Plan {
  let executed = false;
  return {
    columns,
    ...(updateType ? { updateType } : {}),
    execute() {
      if (executed) throw new VivaceError('GENERIC_INTERNAL_ERROR', 'Plan already executed');
      if (!held()) throw new VivaceError('GENERIC_INTERNAL_ERROR', 'Plan was released');
      executed = true;
      return execute();
    },
    release() {
      // After execute() the execution owns the connection.
      if (!executed) release();
    },
  };
}

async function useSchema(connection: DuckDBConnection, currentSchema: WeakMap<DuckDBConnection, string>, catalog: string, schema: string): Promise<void> {
  const database = CatalogNames.duckdbName(catalog);
  const target = `${quoteIdent(database)}.${quoteIdent(schema)}`;
  if (currentSchema.get(connection) === target) return;
  try {
    await connection.run(`USE ${target}`);
    currentSchema.set(connection, target);
  } catch (err) {
    currentSchema.delete(connection);
    const reader = await connection.runAndReadAll('SELECT count(*) FROM duckdb_databases() WHERE database_name = $1', [database]);
    if (Number(reader.getRows()[0]?.[0] ?? 0) === 0) throw new VivaceError('CATALOG_NOT_FOUND', `Catalog '${catalog}' does not exist`, { cause: err });
    throw new VivaceError('SCHEMA_NOT_FOUND', `Schema '${catalog}.${schema}' does not exist`, { cause: err });
  }
}

async function serialize(connection: DuckDBConnection, sql: string): Promise<SerializedStatement> {
  const reader = await connection.runAndReadAll('SELECT json_serialize_sql($1::VARCHAR)', [sql]);
  return parseAst(String(reader.getRows()[0]![0]));
}

/** The statement with Presto division and functions rewritten, or the text itself when it needs none. */
async function rewriteSql(connection: DuckDBConnection, ast: unknown, text: string, session: Session): Promise<string> {
  const tree = structuredClone(ast);
  if (rewriteStatement(tree, { timeZone: session.timeZone }) === 0) return text;
  const json = stringifyAst({ error: false, statements: [{ node: tree, named_param_map: [] }] });
  const reader = await connection.runAndReadAll('SELECT json_deserialize_sql($1::JSON)', [json]);
  return String(reader.getRows()[0]![0]);
}

/**
 * INSERT ... <query> and CREATE TABLE ... AS <query>: rewrite the query part (json_serialize_sql takes
 * SELECTs only). `at` is where the tree put the query in the SQL as written; `map` leads there in `text`.
 * (A CTAS's trailing WITH [NO] DATA makes the part no query: it then runs as written.)
 */
async function rewriteEmbeddedQuery(connection: DuckDBConnection, text: string, at: { start: number }, map: RewriteMap, session: Session): Promise<string> {
  const start = map.toRewritten(at.start);
  const query = text.slice(start);
  const serialized = await serialize(connection, query);
  const ast = serialized.error ? undefined : serialized.statements?.[0]?.node;
  if (!ast) return text;
  const rewritten = await rewriteSql(connection, ast, query, session);
  return rewritten === query ? text : `${text.slice(0, start)}${rewritten}`;
}

/**
 * Prepares the rewritten statement. Its errors point into DuckDB's rewritten text, so on failure the
 * text as written is prepared too (error path only): its error, with a location in the user's SQL, is
 * reported unless it only says that a rewritten Presto function does not exist.
 */
async function prepareRewritten(connection: DuckDBConnection, inner: string, text: string, context: ErrorContext): Promise<DuckDBPreparedStatement> {
  try {
    return await connection.prepare(inner);
  } catch (err) {
    if (inner === text) throw toVivaceError(err, context);
    const original = await connection.prepare(text).then(
      (p) => {
        p.destroySync();
        return undefined;
      },
      (e: unknown) => e,
    );
    if (original !== undefined && !/Function with name|lambda/i.test(String((original as Error).message))) throw toVivaceError(original, context);
    throw toVivaceError(err, { ...context, sql: undefined });
  }
}

/** Presto's output names from the statement's tree (a user's) or DuckDB's (the project's own SQL). */
function outputColumns(prepared: DuckDBPreparedStatement, ast: unknown, statement: Statement | undefined): (OutputColumn & { duckdb: ReturnType<DuckDBPreparedStatement['columnType']> })[] {
  const duckdbNames: string[] = [];
  for (let i = 0; i < prepared.columnCount; i++) duckdbNames.push(prepared.columnName(i));
  const names = statement ? outputNames(statement, duckdbNames) : prestoColumnNames(ast as Parameters<typeof prestoColumnNames>[0], duckdbNames);
  return names.map((name, i) => {
    const duckdb = prepared.columnType(i);
    return { name, type: prestoTypeOf(duckdb), duckdb };
  });
}
