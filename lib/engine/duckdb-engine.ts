// The Engine on an embedded, in-memory DuckDB: opens the instance, plans statements on pooled
// connections (prepare without running) and hands out executions that stream Presto JSON rows.
import { syncPartitionCall } from '../sql/procedure-calls.js';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection, type DuckDBPreparedStatement } from '@duckdb/node-api';
import type { Engine, Plan, PlanAbort } from './engine.types.js';
import type { OutputColumn, PrestoType, Session } from '../protocol/types.js';
import { VivaceError } from '../protocol/vivace-error.js';
import { ConnectionPool } from './connection-pool.js';
import { CONNECTION_SETUP_SQL } from './presto-macros.js';
import { filledType, prestoTypeOf } from '../connectors/duckdb-types.js';
import { ipAddressFunctions } from './ip-address-functions.js';
import { sketchFunctions } from './sketch-functions.js';
import { acceptsDeclared, renderRowsSql } from './row-renderer.js';
import { declaredOutputs, type DeclaredOutput } from '../sql/declared-types.js';
import { columnChanges } from '../sql/column-declarations.js';
import { DeclaredColumns, declaredColumnFunctions } from './catalogs/declared-columns.js';
import { partsOf, type QualifiedTable } from '../sql/names.js';
import { walk } from '../sql/tree-walk.js';
import { tpchHiddenColumns, tpchScaleFactor, tpchTableColumns } from '../connectors/tpch/tpch-metadata.js';
import { vivaceVersion } from '../protocol/vivace-version.js';
import { StreamingExecution, UpdateExecution } from './duckdb-execution.js';
import { profileDirectory, ScanProfiles } from './scan-profile.js';
import { PlanCache, SMALL_RESULT, type CachedQueryPlan } from './plan-cache.js';
import { SmallQueries } from './small-queries.js';
import { classifyStatement } from './statement-kind.js';
import type { Statement } from '../sql/ast.js';
import { planDialectStatement, type BoundStatement } from './dialect/dialect-planner.js';
import type { FragmentPlanning } from './dialect/explain-statement.js';
import type { DistributedPlan } from '../planner/fragment.types.js';
import { dialectStatementOf } from '../sql/dialect-statement.js';
import { defaultTransactionLimits, transactionsOf, type TransactionLimits } from './dialect/transaction-registry.js';
import { attachTpchCatalog, type TpchCatalog, type TpchCatalogOptions } from '../connectors/tpch/tpch-catalog.js';
import { lockDownEngine, SANDBOX_INSTANCE_CONFIG } from './engine-sandbox.js';
import { attachSystemCatalog } from './catalogs/system-catalog.js';
import type { SystemTablesBinding } from '../connectors/system/system-tables.js';
import { CatalogNames } from './dialect/catalog-names.js';
import { statementOutput } from '../sql/statement-output.js';
import { outputNames } from '../sql/output-names.js';
import { toVivaceError, type ErrorContext } from './duckdb-errors.js';
import { succinctBytes } from './dialect/explain-format.js';
import { parseDataSize } from '../protocol/data-size.js';
import type { ParquetFooter } from '../connectors/hive/hive-splits.js';
import { parquetSchemaSql, topLevelColumns } from '../connectors/hive/parquet-column-types.js';
import { translateStatement, type TableReference, type Translation, type TranslationContext } from '../sql/duckdb-translation.js';
import { informationSchemaSql } from './dialect/information-schema.js';
import { parseStatement } from '../sql/parser.js';
import { admitExpression, admitStatement } from '../sql/statement-gate.js';
import { checkParameterCount } from '../sql/parameter-binding.js';
import { catalogOpen, checkCatalogAccess, checkCatalogReads } from '../sql/catalog-access.js';
import { checkExpressionReads, checkTableAccess, tableAccessContext, type StatementAccess } from '../sql/table-access.js';
import { accessFunctions, checkGuardTypes, listingSql, statementGuards, type GuardPath, type StatementGuards } from './access-guards.js';
import { AdmittedQueries } from './admitted-queries.js';
import { TPCH_CATALOG } from '../connectors/tpch/tpch-schemas.js';
import { SYSTEM_CATALOG, SYSTEM_COMPLETED_QUERIES_FUNCTION, SYSTEM_QUERIES_FUNCTION } from './catalogs/system-catalog.js';
import { quoteString } from '../sql/sql-formatter.js';
import type { HiveCatalogConfig } from '../connectors/catalog.types.js';
import { checkCatalogSessionProperties } from '../protocol/catalog-session-properties.js';
import { catalogSessionLookup } from './dialect/catalog-session.js';
import { HiveCatalogs } from './catalogs/hive-catalogs.js';
import { catalogFingerprint, createdHiveCatalog, storedProperties, type CatalogSync } from '../connectors/dynamic-catalogs.js';
import { isServableCatalogName } from '../connectors/catalog-files.js';

export interface DuckDbEngineOptions {
  /** Parent of the tpch directory by default. Defaults to tempDirectory. */
  dataDirectory?: string;
  /** Spill directory; cannot change after first use. */
  tempDirectory: string;
  /** e.g. '4GB' */
  memoryLimit?: string;
  /** The limit its out-of-memory errors name, when not memoryLimit (a stage task's instance: the task's, task-memory.ts). */
  memoryLimitName?: string;
  threads?: number;
  /** Concurrent statements (one per connection). Default 8. */
  maxConnections?: number;
  /**
   * Run small table-free queries (a plan reading no table whose last run returned one small chunk) on a
   * second instance with one thread (small-queries.ts): with `threads` above 1, DuckDB wakes its background
   * threads for every statement, most of a `SELECT 1`'s cost. A worker turns it on; no effect at threads=1.
   */
  smallQueries?: boolean;
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
  /**
   * The access control's rules on catalogs, schemas and tables (lib/security/access-control.ts), held
   * against every user statement, with its masks and row filters applied to the tables read; absent: everything.
   */
  access?: StatementAccess;
  /**
   * Keep the `memory` catalog on disk in this directory (a worker's data directory): its tables in
   * `memory.duckdb` (DuckDB names a file's database after its stem, so the catalog keeps its name) and
   * their declared column types beside it, so both survive a restart. Absent: in memory, gone at close.
   */
  memoryDirectory?: string;
  /**
   * Hive catalogs over directory trees (lib/connectors/hive): each root is allowed in the sandbox, its
   * metastore mirrored as a DuckDB database named after the catalog, its DDL and writes the connector's.
   */
  hive?: readonly HiveCatalogConfig[];
  /**
   * catalog.management=dynamic: the directories (real paths) created catalogs' roots lie under, allowed in the
   * sandbox from the start, so that syncCatalogs can open a hive catalog CREATE CATALOG made later.
   */
  dynamicRoots?: readonly string[];
  /**
   * false: no memory catalog is served (no catalog file names one); DuckDB's main database stays, unseen.
   * `catalog`: its name as users write it (its file's: `scratch`); its DuckDB database stays `memory`.
   */
  memory?: false | { catalog: string };
  /**
   * The distributed plan of a user's statement (a worker's: its connectors' layouts and the planner,
   * lib/cluster/planner-metadata.ts), which EXPLAIN prints fragment by fragment. Absent: one fragment.
   */
  distributedPlan?: (sql: string, session: Session) => DistributedPlan | undefined;
}

/** The memory catalog's database file in `memoryDirectory`: its stem is the catalog's name. */
export const MEMORY_DATABASE_FILE = 'memory.duckdb';
/** The declared column types of the memory catalog's tables, beside its file. */
export const DECLARED_COLUMNS_FILE = 'memory-declared-columns.json';

const BIGINT: PrestoType = { base: 'bigint' };
/** DuckDB's main database: the memory catalog's tables (whatever name a catalog file serves it under). */
const MEMORY_DATABASE = 'memory';
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
  /**
   * A Parquet file's row groups (their rows and first column chunk's data_page_offset, in order), lower-case column names and top-level columns' types, from its footer: a lake
   * split's row groups (lib/connectors/hive/hive-splits.ts). Run unprepared: DuckDB 1.5.6 fails with an
   * internal error, invalidating the database, when a prepared parquet_metadata statement runs a second time.
   */
  parquetFooter(path: string): Promise<ParquetFooter>;
  /** Whether `user` reads `table` through the access control's masks or row filter (never the case without rules). */
  readsGuarded(user: string, table: QualifiedTable): boolean;
  /**
   * Brings the hive catalogs to a dynamic cluster's set (a task's CatalogSync): opens those missing, closes
   * the file or created ones no longer in it, reopens one whose properties changed. Built-in ones stay.
   * Rejects (CONFIGURATION_INVALID) without `dynamicRoots`.
   */
  syncCatalogs(sync: CatalogSync): Promise<void>;
  /** What planning the statements so far cost: parses of users' statements, plans analysed, plans reused (specs hold the hot path to it). */
  planStats(): EnginePlanStats;
  /**
   * The buffer memory DuckDB holds now on this instance (`duckdb_memory()`'s flushed counters, every tag),
   * read on a bare connection of its own (no macros, no settings; opened at first use), so it runs beside
   * the pool's statements and costs the engine no set-up connection (a task engine's sampler, task-memory.ts).
   */
  memoryInUse(): Promise<number>;
}

/**
 * Counts of the engine's planning work since it started. A repeated user query is parsed once (its admitted
 * tree is kept), analysed and prepared once (the plan cache, and its render statement per connection), and
 * from then on only runs: `reused` grows, the others do not.
 */
export interface EnginePlanStats {
  /** Users' statements parsed as Trino SQL (not found among the admitted trees). */
  parsed: number;
  /** Query plans analysed: the statement prepared to learn its columns (not found in the plan cache). */
  analysed: number;
  /** Query plans taken from the plan cache. */
  reused: number;
  /** Render statements prepared on a connection (one per plan and connection that runs it). */
  renderPrepares: number;
  /** Queries run on the one-thread instance of small table-free queries (DuckDbEngineOptions.smallQueries). */
  smallRuns: number;
}

/** A memory limit as Trino's errors write a data size (DataSize.succinctBytes: 16MB), when it is one. */
function memoryLimitNameOf(limit: string | undefined): string | undefined {
  if (!limit) return undefined;
  try {
    return succinctBytes(parseDataSize(limit));
  } catch {
    return undefined;
  }
}

export async function createDuckDbEngine(options: DuckDbEngineOptions): Promise<DuckDbEngine> {
  const config: Record<string, string> = {
    ...SANDBOX_INSTANCE_CONFIG,
    temp_directory: options.tempDirectory,
    // DuckDB's allocator (jemalloc) purges freed pages only when it allocates again, so a burst of
    // queries left its pages resident on an idle coordinator (~20 MB after 10,000 short queries); its
    // background thread returns them to the system within seconds.
    allocator_background_threads: 'true',
    // DuckDB's external file cache keeps a file's blocks by path and modification time: a file rewritten
    // at the same path with the same size within that time's granularity was read stale (an exchange file
    // of another query, a lake file replaced in place). The files are local; the OS caches them anyway.
    enable_external_file_cache: 'false',
  };
  if (options.memoryLimit) config.memory_limit = options.memoryLimit;
  const memoryLimitName = memoryLimitNameOf(options.memoryLimitName ?? options.memoryLimit);
  if (options.threads) config.threads = String(options.threads);
  const memoryFile = options.memoryDirectory === undefined ? undefined : join(options.memoryDirectory, MEMORY_DATABASE_FILE);
  if (options.memoryDirectory !== undefined) mkdirSync(options.memoryDirectory, { recursive: true });
  const instance = await DuckDBInstance.create(memoryFile ?? ':memory:', config);
  const bufferSize = options.streamingBufferSize ?? '4MB';
  // Every connection profiles what its statements' table scans read (the rows and bytes processed).
  const scans = new ScanProfiles(profileDirectory(options.tempDirectory));
  const setupMacros = async (c: DuckDBConnection) => {
    for (const sql of CONNECTION_SETUP_SQL) await c.run(sql);
  };
  const setup = async (c: DuckDBConnection) => {
    await setupMacros(c);
    await scans.setUp(c);
    if (/^\d+(?:\.\d+)?\s*[KMG]?i?B$/i.test(bufferSize)) await c.run(`SET streaming_buffer_size = '${bufferSize}'`);
  };
  // Declared column types DuckDB loses (varchar(n), ...), read by listings through SQL functions.
  const declared = new DeclaredColumns(options.memoryDirectory === undefined ? {} : { file: join(options.memoryDirectory, DECLARED_COLUMNS_FILE) });
  // The engine's scalar functions, instance-wide, registered before any connection's set-up: the sketch
  // functions first, as the connections' macros name them (cardinality of a sketch).
  const registerFunctions = (c: DuckDBConnection) => {
    for (const fn of sketchFunctions()) c.registerScalarFunction(fn);
    for (const fn of declaredColumnFunctions(declared, (database) => CatalogNames.prestoName(database))) c.registerScalarFunction(fn);
    for (const fn of ipAddressFunctions()) c.registerScalarFunction(fn);
    if (options.access) for (const fn of accessFunctions(options.access)) c.registerScalarFunction(fn);
  };
  const registrar = await instance.connect();
  registerFunctions(registrar);
  registrar.closeSync();
  const pool = new ConnectionPool(instance, options.maxConnections ?? 8, setup);
  const first = await pool.acquire();
  const tpchDirectory = options.tpch === false ? undefined : options.tpch?.directory ?? join(options.dataDirectory ?? options.tempDirectory, 'tpch');
  // The names users write for tpch's and memory's databases (a catalog file's: tiny, scratch), served until close.
  const tpchName = options.tpch === false ? undefined : options.tpch?.catalog ?? TPCH_CATALOG;
  const memoryName = options.memory === false ? undefined : options.memory?.catalog ?? MEMORY_DATABASE;
  const renamed = new Map([...(tpchName === undefined ? [] : [[TPCH_CATALOG, tpchName] as const]), ...(memoryName === undefined ? [] : [[MEMORY_DATABASE, memoryName] as const])].filter(([database, name]) => database !== name));
  for (const [database, name] of renamed) CatalogNames.map(name, database);
  const unserve = () => {
    for (const name of renamed.values()) CatalogNames.unmap(name);
  };
  // Emptied by any statement but a query, and when tpch's views are replaced (a schema generated).
  const cache = new PlanCache();
  let tpch: TpchCatalog | undefined;
  let system: Awaited<ReturnType<typeof attachSystemCatalog>> | undefined;
  let hive: HiveCatalogs | undefined;
  let small: SmallQueries | undefined;
  try {
    await first.run(`CREATE SCHEMA IF NOT EXISTS memory."default"`);
    tpch = tpchDirectory === undefined ? undefined : await attachTpchCatalog(instance, { ...(options.tpch || {}), directory: tpchDirectory, onViewsReplaced: () => cache.clear() });
    const connectors = new Map<string, string>([...(options.hive ?? []).map((c) => [c.name, 'hive'] as const), ...(tpchName === undefined ? [] : [[tpchName, 'tpch'] as const]), ...(memoryName === undefined ? [] : [[memoryName, 'memory'] as const])]);
    system = options.system ? await attachSystemCatalog(instance, options.system, options.tempDirectory, { connectors, hidden: memoryName === undefined ? [MEMORY_DATABASE] : [], renamed, ...(options.dynamicRoots ? { otherConnector: 'hive' } : {}) }) : undefined;
    // Before the lock: a catalog's mirror is ATTACHed, and nothing may reach another catalog's directory.
    if ((options.hive && options.hive.length > 0) || options.dynamicRoots) {
      hive = await HiveCatalogs.open(instance, options.hive ?? [], [...(tpchDirectory === undefined ? [] : [tpchDirectory]), options.tempDirectory, ...(options.memoryDirectory === undefined ? [] : [options.memoryDirectory])]);
      declared.addSource((table) => hive?.declared(table));
    }
    await pool.fill();
    // Only the generated tpch data and the spill directory (which holds the system catalog's file) stay
    // reachable; the memory catalog's file was opened before the lock and needs no directory of its own.
    // The profiles' directory stays writable: DuckDB writes a statement's profile there as it ends.
    await lockDownEngine(first, [...(tpchDirectory === undefined ? [] : [tpchDirectory]), options.tempDirectory, scans.directory, ...(hive?.roots ?? []), ...(options.dynamicRoots ?? [])]);
    if (options.smallQueries && options.threads !== 1) {
      small = await SmallQueries.open({
        tempDirectory: options.tempDirectory,
        ...(options.memoryLimit ? { memoryLimit: options.memoryLimit } : {}),
        connections: SMALL_QUERY_CONNECTIONS,
        registerFunctions,
        setup: setupMacros,
      });
    }
  } catch (err) {
    unserve();
    throw err;
  } finally {
    pool.release(first);
  }
  const transactions = transactionsOf(pool, { ...defaultTransactionLimits(pool.capacity), ...options.transactions });
  // Memory and hive catalogs take writes (tpch and system are read-only connectors, as in Presto).
  const memory = memoryName === undefined ? [] : [memoryName];
  const catalogs = new Set([...memory, ...(tpch && tpchName ? [tpchName] : []), ...(system ? [SYSTEM_CATALOG] : []), ...(hive?.names ?? [])]);
  const writableCatalogs = new Set([...memory, ...(hive?.names ?? [])]);
  // The memory catalog's default schema is every session's default: nobody may drop it.
  const protectedSchemas: ReadonlySet<string> = new Set(memory.map((m) => `${m}.default`));
  const gate = (statement: Statement, sql: string, session: Session) =>
    admitStatement(statement, sql, {
      catalog: session.catalog, schema: session.schema, catalogs, writableCatalogs,
      protectedSchemas, preparedStatements: session.preparedStatements,
      inTransaction: session.transactionId !== undefined && session.transactionId !== 'NONE',
    });
  // Only Presto's language reaches DuckDB: a user's statement is parsed as Trino SQL and held to the
  // allow-list first (lib/sql/statement-gate.ts), and so is SQL a statement leads to (EXECUTE's
  // prepared statement). The project's own rewrites (information_schema) are planned as they are.
  const admitted = new AdmittedQueries();
  let parsed = 0;
  const plan: Engine['plan'] = (sql, session, signal) => {
    const key = AdmittedQueries.key(sql, session.catalog, session.schema);
    let statement = admitted.get(key);
    if (!statement) {
      try {
        parsed++;
        statement = parseStatement(sql);
        // A marker outside EXECUTE has no value (Trino's QueryPreparer, before any analysis: none were supplied).
        checkParameterCount(statement, sql, 0);
        gate(statement, sql, session);
      } catch (err) {
        return Promise.reject(err);
      }
      admitted.remember(key, statement);
    }
    try {
      checkAccess(statement, session);
      // The Session header's catalog properties, as Trino checks them when a query begins.
      checkCatalogSessionProperties(session.properties, catalogSessionLookup((catalog) => catalogs.has(catalog)));
    } catch (err) {
      return Promise.reject(err);
    }
    return planParsed(sql, session, signal, statement);
  };
  // Per user, so outside the admitted cache.
  const checkAccess = (statement: Statement, session: Session) => {
    const { access } = options;
    if (!access) return;
    checkCatalogAccess(statement, { catalog: session.catalog, schema: session.schema, accessOf: (catalog) => access.catalogAccess(session.user, catalog) });
    checkTableAccess(statement, tableAccessContext(access, session.user, session));
  };
  /** A prepared statement's tree with its parameters bound (EXECUTE), held to the gate as any user's statement. */
  const planBound = (bound: BoundStatement, session: Session, signal?: PlanAbort): Promise<Plan> => {
    try {
      gate(bound.tree, bound.sql, session);
      checkAccess(bound.tree, session);
    } catch (err) {
      return Promise.reject(err);
    }
    return planParsed(bound.sql, session, signal, bound.tree, bound.key);
  };
  const planTrusted: Engine['plan'] = (sql, session, signal) => planParsed(sql, session, signal);
  // A user's statement reaches DuckDB only as its tree's translation (lib/sql/duckdb-translation.ts).
  const translationContext = (session: Session, guards?: StatementGuards, path: GuardPath = []): TranslationContext => ({
    catalog: session.catalog,
    schema: session.schema,
    timeZone: session.timeZone,
    user: session.user,
    // The query's start (the coordinator's, carried to every task with the session): current_timestamp and its kin read it.
    ...(session.startTime > 0 ? { queryStart: session.startTime } : {}),
    version: vivaceVersion(),
    databaseOf: (catalog) => CatalogNames.duckdbName(catalog),
    hiddenColumns: (table) => (table.catalog === tpchName ? tpchHiddenColumns(table.schema, table.table) : hive?.hiddenColumns(table)),
    hiddenSource: (table) => hive?.hiddenSource(table),
    prunedSource: (table, where, qualifiers) => hive?.prunedSource(table, where, qualifiers),
    virtualTable: (catalog, schema, table) => {
      const inner = virtualTable(session, catalog, schema, table);
      // Listings of tables and columns show what the user may see (Trino's filterTables, filterColumns).
      return (options.access && listingSql({ catalog, schema, table }, inner, session.user)) ?? inner;
    },
    // A mask or filter reads in its table's schema, as its environment's user (Trino's ViewExpression).
    ...(guards ? { guardedRead: guards.readAs(session.user, path, (user, table, next) => translationContext({ ...session, user, catalog: table.catalog, schema: table.schema }, guards, next)) } : {}),
  });
  /** EXPLAIN's fragments: the hook's plan unless the user reads a table through a mask or filter (then it runs as one task). */
  const fragmentPlanning = (session: Session, guards?: StatementGuards): FragmentPlanning | undefined => {
    const { distributedPlan, access } = options;
    if (!distributedPlan) return undefined;
    return {
      plan(text, planSession) {
        const plan = distributedPlan(text, planSession);
        return plan && !plan.tables.some((t) => access?.tableGuard(planSession.user, t) !== undefined) ? plan : undefined;
      },
      translate(text, exchange) {
        const context = translationContext(session, guards);
        const virtual = context.virtualTable;
        return translateStatement(parseStatement(text), text, { ...context, virtualTable: (catalog, schema, table) => exchange({ catalog, schema, table }) ?? virtual?.(catalog, schema, table) }).sql;
      },
    };
  };
  const virtualTable = (session: Session, catalog: string, schema: string, table: string): string | undefined => {
    if (schema === 'information_schema') return informationSchemaSql(catalog, table);
    const system = hive?.systemTable(catalog, schema, table);
    if (system !== undefined) return system;
    // system.runtime.queries shows the queries its reader may view (the access control's rule).
    if (catalog === SYSTEM_CATALOG && schema === 'runtime' && table === 'queries') return `SELECT * FROM ${SYSTEM_QUERIES_FUNCTION}(${quoteString(session.user)})`;
    if (catalog === SYSTEM_CATALOG && schema === 'runtime' && table === 'completed_queries') return `SELECT * FROM ${SYSTEM_COMPLETED_QUERIES_FUNCTION}(${quoteString(session.user)})`;
    return undefined;
  };
  const catalogVisibility = (session: Session) => {
    const { access } = options;
    // Listings show the catalogs served (DuckDB's main database is the memory catalog's, served or not) the user may see.
    if (!access) return memoryName === undefined ? { catalogVisible: (catalog: string) => catalogs.has(catalog) } : {};
    return {
      catalogVisible: (catalog: string) => catalogs.has(catalog) && catalogOpen(access.catalogAccess(session.user, catalog)),
      schemaVisible: (catalog: string, schema: string) => access.schemaVisible(session.user, catalog, schema),
      tableVisible: (table: QualifiedTable) => access.tableVisible(session.user, table),
      columnVisible: (table: QualifiedTable, column: string) => access.columnVisible(session.user, table, column),
      // Plans cached under other rules are planned again.
      rulesKey: String(access.rulesGeneration()),
    };
  };
  /** The masks and filters the statement's reads may meet, with the columns of their tables. */
  const guardsOf = (statement: Statement, session: Session) =>
    statementGuards(options.access!, statement, session, pool, (expression, text, table, user) => {
      const where = { catalog: table.catalog, schema: table.schema };
      admitExpression(expression, text, { ...where, catalogs, writableCatalogs, protectedSchemas });
      checkCatalogReads(expression, { ...where, accessOf: (catalog) => options.access!.catalogAccess(user, catalog) });
      checkExpressionReads(expression, tableAccessContext(options.access!, user, where));
    });
  /**
   * A user's statement that may read system.runtime.completed_queries (its tree names the table) has the rows loaded first, without blocking, from a source that
   * reads them from files (the coordinator's history); the scan then serves them.
   */
  const planParsed = (sql: string, session: Session, signal?: PlanAbort, statement?: Statement, key?: string): Promise<Plan> => {
    const system = options.system;
    if (statement && system?.loadsCompletedQueries && mayReadCompletedQueries(statement)) {
      return untilAborted(system.prepareCompletedQueries(session.user), signal).then(() => planLoaded(sql, session, signal, statement, key));
    }
    return planLoaded(sql, session, signal, statement, key);
  };
  /** `statement`: the tree of a user's statement (the project's own SQL has none: DuckDB classifies it). */
  const planLoaded = (sql: string, session: Session, signal?: PlanAbort, statement?: Statement, key?: string): Promise<Plan> => {
    if (statement?.type === 'Call') {
      // The one procedure served is a hive catalog's (hive-catalogs.ts runs it); its arguments bind first.
      try {
        const call = syncPartitionCall(statement, session.catalog);
        if (!hive?.names.includes(call.catalog)) throw new VivaceError('PROCEDURE_NOT_FOUND', `Procedure not registered: ${call.catalog}.system.sync_partition_metadata`);
      } catch (err) {
        return Promise.reject(err);
      }
    }
    const replans: Replans = {
      user: (s2, session2) => plan(s2, session2, signal),
      own: (s2, session2) => planTrusted(s2, session2, signal),
      bound: (b, session2) => planBound(b, session2, signal),
      ...(memoryLimitName === undefined ? {} : { memoryLimit: memoryLimitName }),
    };
    const withGuards = (guards: StatementGuards | undefined) => {
      // One translation per tree and plan: tpch's beforePlan and the planning itself share it.
      const translations = new Map<Statement, Translation>();
      const translate = (tree: Statement) => {
        let translation = translations.get(tree);
        if (!translation) {
          translation = translateStatement(tree, sql, translationContext(session, guards));
          translations.set(tree, translation);
        }
        return translation;
      };
      // Data of a tpch schema is generated on first use, before a connection is taken; a query ended
      // meanwhile stops waiting for it (the generation goes on for the next query).
      const generating = statement && tpch?.beforePlan(() => tablesOf(statement, sql, translate));
      const fragments = fragmentPlanning(session, guards);
      const planned = () => planStatement(pool, small, cache, scans, sql, session, replans, signal, statement && { tree: statement, translate, declared, memoryCatalog: memoryName, ...(fragments ? { fragments } : {}), ...(key === undefined ? {} : { key }), ...catalogVisibility(session), ...(hive ? { columnExtra: (table: QualifiedTable, column: string) => hive?.columnExtra(table, column) } : {}) });
      if (statement && hive) {
        const hiveCatalogs = hive;
        // A hive catalog's own statements (DDL, writes, SHOW CREATE TABLE); other statements read its mirror,
        // brought up to date first. Either waits for the tpch data it reads (a CTAS from tpch).
        const hivePlanned = async (): Promise<Plan> => {
          const own = hiveCatalogs.plan(statement, { sql, session, translate, acquire: async () => {
            const connection = await pool.acquire();
            return { connection, release: () => pool.release(connection) };
          }, queryTypes: (prepared, query) => outputColumns(prepared, query, session, declared).map((c) => c.type), guarded: (table) => options.access?.tableGuard(session.user, table) !== undefined });
          if (own) return own;
          if (await untilAborted(hiveCatalogs.beforePlan(statement, session, () => tablesOf(statement, sql, translate)), signal)) cache.clear();
          return planned();
        };
        return generating ? untilAborted(generating, signal).then(hivePlanned) : hivePlanned();
      }
      return generating ? untilAborted(generating, signal).then(planned) : planned();
    };
    return statement && options.access ? untilAborted(guardsOf(statement, session), signal).then(withGuards) : withGuards(undefined);
  };
  const parquetFooter: DuckDbEngine['parquetFooter'] = async (path) => {
    const connection = await pool.acquire();
    try {
      const groups = await connection.runAndReadAll(`SELECT row_group_id, max(row_group_num_rows), min(data_page_offset) FILTER (WHERE column_id = 0) FROM parquet_metadata(${quoteString(path)}) GROUP BY 1 ORDER BY 1`);
      const schema = (await connection.runAndReadAll(parquetSchemaSql(quoteString(path)))).getRows();
      const columnTypes = topLevelColumns(schema).get(path) ?? [];
      return { rowGroupRows: groups.getRows().map((r) => Number(r[1])), rowGroupStarts: groups.getRows().map((r) => Number(r[2])), columns: new Set(schema.map((r) => String(r[1]).toLowerCase())), columnTypes };
    } catch (err) {
      throw toVivaceError(err, { sql: '', catalog: undefined, schema: undefined });
    } finally {
      pool.release(connection);
    }
  };
  // The hive catalogs a dynamic cluster's tasks may close or reopen (from files or created), by their fingerprint.
  const managed = new Map<string, string>();
  for (const config of options.hive ?? []) if (config.file !== undefined) managed.set(config.name, catalogFingerprint({ name: config.name, properties: storedProperties(config.file) }));
  let lastSync: string | undefined;
  let syncing: Promise<void> = Promise.resolve();
  const applySync = async (sync: CatalogSync): Promise<void> => {
    const key = JSON.stringify(sync.catalogs.map(catalogFingerprint));
    if (key === lastSync) return;
    if (!options.dynamicRoots || !hive) throw new VivaceError('CONFIGURATION_INVALID', 'This worker was not started with catalog.management=dynamic, which its coordinator uses');
    const hiveCatalogs = hive;
    const desired = new Map(sync.catalogs.map((c) => [c.name, c]));
    // A set that names a catalog another connector serves here is refused before anything changes.
    for (const name of desired.keys()) {
      if (!isServableCatalogName(name)) throw new VivaceError('CONFIGURATION_INVALID', `Catalog name ${JSON.stringify(name.slice(0, 200))} cannot be served here`);
      if (!managed.has(name) && catalogs.has(name)) throw new VivaceError('CONFIGURATION_INVALID', `Catalog '${name}' is served here by another connector than the coordinator's hive`);
    }
    for (const [name, fingerprint] of [...managed]) {
      const wanted = desired.get(name);
      if (wanted && catalogFingerprint(wanted) === fingerprint) continue;
      await hiveCatalogs.remove(name);
      managed.delete(name);
      catalogs.delete(name);
      writableCatalogs.delete(name);
    }
    for (const wanted of desired.values()) {
      if (managed.has(wanted.name)) continue;
      const others = hiveCatalogs.names.map((name) => hiveCatalogs.configOf(name)!);
      await hiveCatalogs.add(createdHiveCatalog(wanted.name, wanted.properties, options.dynamicRoots, others));
      managed.set(wanted.name, catalogFingerprint(wanted));
      catalogs.add(wanted.name);
      writableCatalogs.add(wanted.name);
    }
    cache.clear();
    lastSync = key;
  };
  let sampler: Promise<DuckDBConnection> | undefined;
  let sampling: Promise<unknown> = Promise.resolve();
  const memoryInUse = (): Promise<number> => {
    const read = sampling.then(async () => {
      sampler ??= instance.connect();
      const rows = (await (await sampler).runAndReadAll('SELECT CAST(sum(memory_usage_bytes) AS BIGINT) FROM duckdb_memory()')).getRows();
      const bytes = Number(rows[0]?.[0]);
      return Number.isSafeInteger(bytes) && bytes > 0 ? bytes : 0;
    });
    sampling = read.catch(() => undefined); // one statement at a time on the connection
    return read;
  };
  return {
    plan,
    planOwnSql: planTrusted,
    parquetFooter,
    memoryInUse,
    syncCatalogs: (sync) => (syncing = syncing.then(() => applySync(sync), () => applySync(sync))),
    readsGuarded: (user, table) => options.access?.tableGuard(user, table) !== undefined,
    planStats: () => ({ parsed, analysed: cache.analysed, reused: cache.counts.reused, renderPrepares: cache.counts.renderPrepares, smallRuns: small?.runs ?? 0 }),
    close: async () => {
      tpch?.close();
      await transactions.rollbackIdle();
      // Prepared statements go before their connections, so none outlives its client context.
      await small?.close((connections) => cache.destroyPrepared(connections));
      await pool.close(() => cache.destroyPrepared());
      await sampling;
      if (sampler) (await sampler).closeSync();
      system?.close();
      hive?.close();
      instance.closeSync();
      scans.close();
      unserve();
    },
  };
}

function streamingExecution(connection: DuckDBConnection, cache: PlanCache, plan: CachedQueryPlan, release: () => void, runtime: ErrorContext, scans: ScanProfiles): StreamingExecution {
  const materialize = plan.small === true;
  const execution: StreamingExecution = new StreamingExecution(
    connection,
    async () => {
      // A text of one query's start would only push the connection's kept statements out.
      if (plan.queryStart !== undefined) return materialize ? connection.run(plan.renderSql) : connection.stream(plan.renderSql);
      const prepared = await cache.preparedOn(connection, plan.renderSql);
      return materialize ? prepared.run() : prepared.stream();
    },
    () => {
      const { outputRows = 0, outputBytes = 0 } = execution.progress();
      // Only a run that reached its end tells the size; a cancelled one says nothing.
      if (execution.exhausted) plan.small = outputRows <= SMALL_RESULT.rows && outputBytes <= SMALL_RESULT.bytes;
      release();
    },
    runtime,
    { profiles: scans, readsTables: plan.readsTables },
  );
  return execution.start();
}

/** How SQL a dialect statement leads to is planned: a user's (EXECUTE's) through the gate, the project's own as it is. */
interface Replans {
  user: Engine['plan'];
  own: Engine['plan'];
  bound: (bound: BoundStatement, session: Session) => Promise<Plan>;
  /** The instance's memory limit as its errors name it (ErrorContext.memoryLimit). */
  memoryLimit?: string;
}

/** A user's statement: its tree, its translation to DuckDB SQL, and the engine's declared column types. */
interface UserStatement {
  tree: Statement;
  translate: (tree: Statement) => Translation;
  declared: DeclaredColumns;
  /** The memory catalog's name (its tables' declared column types are kept); undefined: none. */
  memoryCatalog: string | undefined;
  /** Whether the statement's user may see a catalog (the catalogs rule); absent: every catalog. */
  catalogVisible?: (catalog: string) => boolean;
  /** Whether the user may see a table, and a column of it, in SHOW TABLES / COLUMNS (the tables rule); absent: all. */
  tableVisible?: (table: QualifiedTable) => boolean;
  schemaVisible?: (catalog: string, schema: string) => boolean;
  columnVisible?: (table: QualifiedTable, column: string) => boolean;
  /** A column's Extra in DESCRIBE (a hive partition column's 'partition key'). */
  columnExtra?: (table: QualifiedTable, column: string) => string | undefined;
  /** The generation of the access rules the statement is planned under (part of its cache key). */
  rulesKey?: string;
  /** What the plan cache knows the tree by, when its text alone does not tell it (a prepared statement's bound values). */
  key?: string;
  /** The distributed plans EXPLAIN prints (DuckDbEngineOptions.distributedPlan). */
  fragments?: FragmentPlanning;
}

/** The tables a statement (or what EXPLAIN explains, or SHOW STATS reads) reads or writes; none for other dialect statements. */
function tablesOf(statement: Statement, sql: string, translate: (tree: Statement) => Translation): readonly TableReference[] {
  // An admitted tree stands for one text in one session catalog and schema (admitted-queries.ts), so
  // its tables hold for every later plan of it: a repeated query is not translated for them again.
  let tables = TABLES_OF.get(statement);
  if (tables) return tables;
  const dialect = statement.type === 'ShowStats' ? dialectStatementOf(statement, sql) : undefined;
  const inner = statement.type === 'Explain' ? statement.statement : dialect?.kind === 'showStats' ? dialect.query : statement;
  try {
    tables = translate(inner).tables;
  } catch {
    // A CTAS another connector writes (a hive table's properties are no memory table's): what its query reads.
    if (inner.type === 'CreateTableAsSelect') {
      try {
        tables = translate(inner.query).tables;
        TABLES_OF.set(statement, tables);
        return tables;
      } catch { /* as below */ }
    }
    // Not a statement DuckDB runs (SHOW, USE, ...), or one its planning refuses anyway.
    tables = [];
  }
  TABLES_OF.set(statement, tables);
  return tables;
}

const TABLES_OF = new WeakMap<Statement, readonly TableReference[]>();

async function planStatement(pool: ConnectionPool, small: SmallQueries | undefined, cache: PlanCache, scans: ScanProfiles, sql: string, session: Session, replans: Replans, signal?: PlanAbort, user?: UserStatement): Promise<Plan> {
  const statement = user?.tree;
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
  const context: ErrorContext = { sql, catalog: session.catalog, schema: session.schema, ...(replans.memoryLimit === undefined ? {} : { memoryLimit: replans.memoryLimit }) };
  try {
    // A user's statement names every table fully (its translation); the project's own SQL runs in memory.default.
    if (!user) await useSchema(connection, cache.schemaOf, 'memory', 'default');
    // Presto-only statements (SHOW, USE, SET SESSION, PREPARE, EXECUTE, transactions, ...): never cached.
    const dialectPlan = await planDialectStatement({
      sql, tree: statement, session, connection, release: giveBack, plan: replans.user, planOwn: replans.own, planBound: replans.bound, transactions, clearPlanCache: () => cache.clear(),
      viewSql: user && ((view) => user.declared.viewSql(view)),
      ...(user?.memoryCatalog === undefined ? {} : { defaultCatalog: user.memoryCatalog }),
      translate: user && ((tree) => user.translate(tree).sql),
      ...(user?.key === undefined ? {} : { boundKey: user.key }),
      ...(user?.catalogVisible ? { catalogVisible: user.catalogVisible } : {}),
      ...(user?.tableVisible ? { tableVisible: user.tableVisible } : {}),
      ...(user?.schemaVisible ? { schemaVisible: user.schemaVisible } : {}),
      ...(user?.columnVisible ? { columnVisible: user.columnVisible } : {}),
      ...(user?.columnExtra ? { columnExtra: user.columnExtra } : {}),
      ...(user?.fragments ? { fragments: user.fragments } : {}),
    });
    if (dialectPlan) return dialectPlan;
    const runtime: ErrorContext = { catalog: context.catalog, schema: context.schema, ...(context.memoryLimit === undefined ? {} : { memoryLimit: context.memoryLimit }) };
    const cacheKey = PlanCache.key(`${user?.key === undefined ? sql : `${sql}\u0000${user.key}`}${user?.rulesKey === undefined ? '' : `\u0000rules ${user.rulesKey}`}`, session);
    const cached = cache.get(cacheKey, session.startTime);
    // A plan analysed while the catalog changed (DDL, tpch's views replaced) is not kept: it may read the old.
    const generation = cache.generation;
    if (cached) {
      // A small table-free query runs on the one-thread instance when one of its connections is idle.
      const lease = user && cached.small === true && cached.tableFree === true && !inTransaction(session) ? small?.tryAcquire() : undefined;
      if (lease) {
        giveBack();
        small!.runs++;
        return makePlan(cached.columns, undefined, () => streamingExecution(lease.connection, cache, cached, lease.release, runtime, scans), lease.release, lease.held);
      }
      return makePlan(cached.columns, undefined, () => streamingExecution(connection, cache, cached, giveBack, runtime, scans), giveBack, () => held);
    }
    // The project's own COPY ... TO (a stage's Parquet output, lib/worker/stage-runner.ts) is not prepared:
    // DuckDB binds a statement over read_parquet again on every run (multi-file scans opt out of its
    // statement cache), so a prepare first only bound it twice, 1-3 ms before a leaf's scan began. It
    // only writes a file, so every cached plan still holds (the cache is kept), and it answers DuckDB's
    // count of the rows it wrote.
    if (!user && sql.startsWith('COPY ')) {
      return makePlan(ROWS_COLUMN, 'COPY', () => new UpdateExecution(connection, sql, true, giveBack, runtime, undefined, { profiles: scans, readsTables: true }).start(), giveBack, () => held);
    }
    // A user's statement runs as its translation; errors in it point back at the statement as written.
    const translation = user?.translate(user.tree);
    const text = translation ? translation.sql : sql;
    if (translation) context.rewritten = { text, toOriginal: (offset) => translation.toOriginal(offset) };
    // A mask of another type than its column's, a filter that is not boolean: Trino's errors, before anything runs.
    if (translation && translation.guarded.length > 0) await checkGuardTypes(connection, translation.guarded, (catalog) => CatalogNames.duckdbName(catalog));
    const prepared = await connection.prepare(text).catch((err: unknown) => {
      throw toVivaceError(err, context);
    });
    const kind = statement ? statementOutput(statement) : classifyStatement(prepared.statementType);
    if (kind.kind === 'rows') {
      const columns = outputColumns(prepared, statement, session, user?.declared);
      prepared.destroySync();
      const renderSql = renderRowsSql(text, columns.map((c) => c.duckdb), session.timeZone, columns.map((c) => c.declared ?? {}));
      const output = columns.map(({ name, type }) => ({ name, type }));
      // The project's own SQL (a stage's) reads Parquet files it names itself: always profiled.
      const planned: CachedQueryPlan = { columns: output, renderSql, readsTables: translation ? translation.tables.length > 0 : true, ...(user && namesNoTable(user.tree) ? { tableFree: true as const } : {}), ...(translation?.readsQueryStart ? { queryStart: session.startTime } : {}) };
      cache.set(cacheKey, planned, generation);
      cache.analysed++;
      return makePlan(output, undefined, () => streamingExecution(connection, cache, planned, giveBack, runtime, scans), giveBack, () => held);
    }
    prepared.destroySync();
    cache.clear();
    const columns = kind.kind === 'count' ? ROWS_COLUMN : [];
    // What the statement declares about memory tables' columns counts once it has run (or at its COMMIT).
    const noOp = statement !== undefined && (await isNoOp(connection, statement, translation));
    const changes = statement && !noOp && user?.memoryCatalog !== undefined ? columnChanges(statement, session, user.memoryCatalog) : [];
    const recordChanges = () => user?.declared.record(changes);
    // A CREATE TABLE IF NOT EXISTS that does nothing must not comment the table already there.
    const run = [text, ...(noOp ? [] : translation?.followUps ?? [])].join('; ');
    return makePlan(columns, kind.updateType, () => new UpdateExecution(connection, run, kind.kind === 'count', giveBack, runtime, recordChanges, { profiles: scans, readsTables: translation ? translation.tables.length > 0 : true }).start(), giveBack, () => held);
  } catch (err) {
    giveBack();
    throw signal?.aborted ? abortReason(signal) : toVivaceError(err, context);
  } finally {
    stopListening?.();
  }
}

/** Connections of the small-query instance (small-queries.ts): more such queries at once run on the main one. */
const SMALL_QUERY_CONNECTIONS = 2;

const inTransaction = (session: Session) => session.transactionId !== undefined && session.transactionId !== 'NONE';

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

type DuckDBColumnType = ReturnType<DuckDBPreparedStatement['columnType']>;

/**
 * Whether CREATE TABLE IF NOT EXISTS or ADD COLUMN IF NOT EXISTS will do nothing (the table or column is
 * there already): its declarations must not replace what the existing table declares.
 */
async function isNoOp(connection: DuckDBConnection, statement: Statement, translation: Translation | undefined): Promise<boolean> {
  const table = translation?.tables[0];
  if (!table) return false;
  const database = CatalogNames.duckdbName(table.catalog);
  if (statement.type === 'CreateTable' && statement.notExists) {
    const found = await connection.runAndReadAll(
      'SELECT count(*) FROM duckdb_tables() WHERE database_name = $1 AND schema_name = $2 AND lower(table_name) = $3',
      [database, table.schema, table.table],
    );
    return Number(found.getRows()[0]?.[0] ?? 0) > 0;
  }
  if (statement.type === 'AddColumn' && statement.columnNotExists) {
    const column = statement.column.name.parts[statement.column.name.parts.length - 1]!.value.toLowerCase();
    const found = await connection.runAndReadAll(
      'SELECT count(*) FROM duckdb_columns() WHERE database_name = $1 AND schema_name = $2 AND lower(table_name) = $3 AND lower(column_name) = $4',
      [database, table.schema, table.table, column],
    );
    return Number(found.getRows()[0]?.[0] ?? 0) > 0;
  }
  return false;
}

const TPCH_COLUMN_MAPS = new Map<string, ReadonlyMap<string, PrestoType>>();

/** The declared Trino types of a tpch table's columns where DuckDB's types lose them: the varchar bounds. */
function declaredTableColumns(table: QualifiedTable): ReadonlyMap<string, PrestoType> | undefined {
  if (CatalogNames.duckdbName(table.catalog) !== TPCH_CATALOG || tpchScaleFactor(table.schema) === undefined) return undefined;
  let columns = TPCH_COLUMN_MAPS.get(table.table);
  if (!columns) {
    const list = tpchTableColumns(table.table);
    if (!list) return undefined;
    columns = new Map(list.map((c) => [c.name, c.type]));
    TPCH_COLUMN_MAPS.set(table.table, columns);
  }
  return columns;
}

/**
 * Presto's output names from the statement's tree (a user's), or DuckDB's (the project's own SQL names its
 * columns). Types are DuckDB's, or what the tree declares where DuckDB's cannot say it (varchar(n),
 * char(n), timestamp(p), time(p), interval year to month: lib/sql/declared-types.ts).
 */
function outputColumns(prepared: DuckDBPreparedStatement, statement: Statement | undefined, session: Session, registry?: DeclaredColumns): (OutputColumn & { duckdb: DuckDBColumnType; declared?: DeclaredOutput })[] {
  const tableColumns = (table: QualifiedTable) => declaredTableColumns(table) ?? registry?.get(table);
  const duckdbNames: string[] = [];
  for (let i = 0; i < prepared.columnCount; i++) duckdbNames.push(prepared.columnName(i));
  const names = statement ? outputNames(statement, duckdbNames) : duckdbNames;
  const declared = statement
    ? declaredOutputs(statement, { catalog: session.catalog, schema: session.schema, tableColumns }, duckdbNames)
    : undefined;
  return names.map((name, i) => {
    const duckdb = prepared.columnType(i);
    const said = declared?.[i];
    const column = said?.type && acceptsDeclared(said.type, duckdb)
      ? { name, type: filledType(said.type, duckdb), duckdb, declared: said }
      : { name, type: prestoTypeOf(duckdb), duckdb };
    return session.prefix === 'X-Presto-' ? inMilliseconds(column) : column;
  });
}

/**
 * prestodb's timestamps and times are milliseconds (its types carry no precision, and its client reads
 * `yyyy-MM-dd HH:mm:ss.SSS`): for X-Presto- clients they render with 3 digits whatever the Trino precision.
 */
function inMilliseconds<C extends OutputColumn & { duckdb: DuckDBColumnType; declared?: DeclaredOutput }>(column: C): C {
  const base = column.type.base;
  if (base !== 'timestamp' && base !== 'time' && base !== 'timestamp with time zone') return column;
  const type = { ...column.type, precision: 3 } as PrestoType;
  if (!acceptsDeclared(type, column.duckdb)) return column;
  // Not a literal's exact text either: its digits are Trino's precision.
  return { ...column, type, declared: { type } };
}

/** Whether a statement names no relation of a catalog: no table (of any kind) or table function, and is no EXECUTE. */
function namesNoTable(statement: Statement): boolean {
  if (statement.type === 'Execute' || statement.type === 'ExecuteImmediate') return false;
  let found = false;
  walk(statement, (node) => {
    if (found) return false;
    if (node.type === 'Table' || node.type === 'TableFunctionInvocation') found = true;
    return undefined;
  });
  return !found;
}

/**
 * Whether a statement's tree may read system.runtime.completed_queries: a table of that name in any catalog
 * and schema (loading the rows for another such table costs a read, nothing else), or an EXECUTE whose
 * prepared text is not in this tree.
 */
function mayReadCompletedQueries(statement: Statement): boolean {
  if (statement.type === 'Execute' || statement.type === 'ExecuteImmediate') return true;
  let found = false;
  walk(statement, (node) => {
    if (found) return false;
    if (node.type === 'Table' && partsOf(node.name).at(-1) === 'completed_queries') found = true;
    return undefined;
  });
  return found;
}
