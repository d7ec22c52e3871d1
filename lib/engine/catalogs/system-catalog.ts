// Presto's `system` catalog on DuckDB: JS table functions serve runtime.{nodes,queries,tasks} from the
// live SystemTablesSource (rows are read when a scan starts, so a cached prepared statement still sees
// fresh data), and views over them live in a small read-only database attached as `vivace_system`
// (`system` is reserved in DuckDB; CatalogNames maps the Presto name, catalog-rewrite.ts the statements).
// Read-only, so CREATE TABLE system.runtime.x fails instead of adding a table to the catalog. The jdbc
// schema and the metadata tables JDBC and SQLAlchemy read are views over DuckDB's catalog (system-jdbc.ts).
import { quoteString } from '../../sql/sql-formatter.js';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import {
  BIGINT,
  BOOLEAN,
  DuckDBTableFunction,
  LIST,
  TIMESTAMPTZ,
  VARCHAR,
  listValue,
  timestampTZValue,
  type DuckDBConnection,
  type DuckDBInstance,
  type DuckDBType,
  type DuckDBValue,
} from '@duckdb/node-api';
import { CatalogNames } from '../dialect/catalog-names.js';
import { systemJdbcFunctions, systemJdbcSql } from './system-jdbc.js';
import type { SystemCompletedQueryRow, SystemNodeRow, SystemQueryRow, SystemTaskRow, SystemTablesSource } from '../../connectors/system/system-tables.js';

export const SYSTEM_CATALOG = 'system';
export const SYSTEM_DATABASE = 'vivace_system';

interface Column<R> {
  name: string;
  type: DuckDBType;
  value: (row: R) => DuckDBValue;
}

const varchar = <R>(name: string, value: (row: R) => string | null): Column<R> => ({ name, type: VARCHAR, value });
const boolean = <R>(name: string, value: (row: R) => boolean): Column<R> => ({ name, type: BOOLEAN, value });
const bigint = <R>(name: string, value: (row: R) => number | null): Column<R> => ({
  name,
  type: BIGINT,
  value: (row) => {
    const n = value(row);
    return n === null ? null : BigInt(Math.round(n));
  },
});
// DuckDB has no millisecond TIMESTAMPTZ, so these are Presto timestamp(6) with time zone holding whole milliseconds.
const timestamp = <R>(name: string, value: (row: R) => number | null): Column<R> => ({
  name,
  type: TIMESTAMPTZ,
  value: (row) => {
    const ms = value(row);
    return ms === null ? null : timestampTZValue(BigInt(Math.round(ms)) * 1000n);
  },
});

const NODE_COLUMNS: Column<SystemNodeRow>[] = [
  varchar('node_id', (r) => r.nodeId),
  varchar('http_uri', (r) => r.httpUri),
  varchar('node_version', (r) => r.nodeVersion),
  boolean('coordinator', (r) => r.coordinator),
  varchar('state', (r) => r.state),
];

const QUERY_COLUMNS: Column<SystemQueryRow>[] = [
  varchar('query_id', (r) => r.queryId),
  varchar('state', (r) => r.state),
  varchar('user', (r) => r.user),
  varchar('source', (r) => r.source),
  varchar('query', (r) => r.query),
  { name: 'resource_group_id', type: LIST(VARCHAR), value: (r) => (r.resourceGroupId === null ? null : listValue(r.resourceGroupId)) },
  bigint('queued_time_ms', (r) => r.queuedTimeMs),
  bigint('analysis_time_ms', (r) => r.analysisTimeMs),
  bigint('planning_time_ms', (r) => r.planningTimeMs),
  timestamp('created', (r) => r.created),
  timestamp('started', (r) => r.started),
  timestamp('last_heartbeat', (r) => r.lastHeartbeat),
  timestamp('end', (r) => r.end),
  varchar('error_type', (r) => r.errorType),
  varchar('error_code', (r) => r.errorCode),
];

/** system.runtime.completed_queries (ours): system.runtime.queries' columns, then what a finished query adds. */
const COMPLETED_QUERY_COLUMNS: Column<SystemCompletedQueryRow>[] = [
  ...(QUERY_COLUMNS as Column<SystemCompletedQueryRow>[]),
  varchar('error_message', (r) => r.errorMessage),
  bigint('output_rows', (r) => r.outputRows),
  bigint('output_bytes', (r) => r.outputBytes),
  bigint('physical_input_rows', (r) => r.physicalInputRows),
  bigint('physical_input_bytes', (r) => r.physicalInputBytes),
  bigint('cpu_time_ms', (r) => r.cpuTimeMs),
  bigint('wall_time_ms', (r) => r.wallTimeMs),
  bigint('peak_memory_bytes', (r) => r.peakMemoryBytes),
];

const TASK_COLUMNS: Column<SystemTaskRow>[] = [
  varchar('node_id', (r) => r.nodeId),
  varchar('task_id', (r) => r.taskId),
  varchar('stage_id', (r) => r.stageId),
  varchar('query_id', (r) => r.queryId),
  varchar('state', (r) => r.state),
  bigint('splits', (r) => r.splits),
  bigint('queued_splits', (r) => r.queuedSplits),
  bigint('running_splits', (r) => r.runningSplits),
  bigint('completed_splits', (r) => r.completedSplits),
  bigint('split_scheduled_time_ms', (r) => r.splitScheduledTimeMs),
  bigint('split_cpu_time_ms', (r) => r.splitCpuTimeMs),
  bigint('split_blocked_time_ms', (r) => r.splitBlockedTimeMs),
  bigint('raw_input_bytes', (r) => r.rawInputBytes),
  bigint('raw_input_rows', (r) => r.rawInputRows),
  bigint('processed_input_bytes', (r) => r.processedInputBytes),
  bigint('processed_input_rows', (r) => r.processedInputRows),
  bigint('output_bytes', (r) => r.outputBytes),
  bigint('output_rows', (r) => r.outputRows),
  bigint('physical_input_bytes', (r) => r.physicalInputBytes),
  bigint('physical_written_bytes', (r) => r.physicalWrittenBytes),
  timestamp('created', (r) => r.created),
  timestamp('start', (r) => r.start),
  timestamp('last_heartbeat', (r) => r.lastHeartbeat),
  timestamp('end', (r) => r.end),
];

/** DuckDB's vector size: a table function fills at most this many rows per call. */
const CHUNK_ROWS = 2048;

interface ScanState<R> {
  rows: R[];
  at: number;
}

/**
 * `table`: the Presto name, for error messages. `viewer`: the function takes one VARCHAR argument, the
 * user whose statement scans the table (NULL for the project's own SQL), and `read` gets it.
 */
function tableFunction<R>(name: string, table: string, columns: Column<R>[], read: (viewer?: string) => R[], viewer = false): DuckDBTableFunction {
  const created = DuckDBTableFunction.create({
    name,
    bindFunction: (bind) => {
      for (const c of columns) bind.addResultColumn(c.name, c.type);
      if (viewer) {
        const user = bind.getParameter(0);
        bind.setBindData({ viewer: typeof user === 'string' ? user : undefined });
      }
    },
    initFunction: (init) => {
      // One scanning thread: every call hops to the JS main thread anyway.
      init.setMaxThreads(1);
      try {
        const bound = init.bindData as { viewer?: string } | undefined;
        init.setInitData({ rows: read(bound?.viewer), at: 0 } satisfies ScanState<R>);
      } catch (err) {
        init.setError(`Reading ${table} failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    },
    mainFunction: (info, output) => {
      const state = info.initData as ScanState<R> | undefined;
      const batch = state ? state.rows.slice(state.at, state.at + CHUNK_ROWS) : [];
      if (state) state.at += batch.length;
      output.rowCount = batch.length;
      if (batch.length === 0) return;
      output.setColumns(columns.map((c) => batch.map(c.value)));
    },
  });
  if (viewer) created.addParameter(VARCHAR);
  return created;
}

const q = (s: string) => `"${s.replace(/"/g, '""')}"`;

/**
 * Every DuckDB database that is a served catalog (database_name), with its Presto name (catalog); `hidden`:
 * databases that serve none; `renamed`: databases served under another name (tpch as `tiny`).
 */
const catalogsSql = (hidden: readonly string[], renamed: ReadonlyMap<string, string>) => {
  const names = [[SYSTEM_DATABASE, SYSTEM_CATALOG], ...renamed].map(([database, catalog]) => `WHEN ${quoteString(database!)} THEN ${quoteString(catalog!)}`).join(' ');
  return `(SELECT database_name, CASE database_name ${names} ELSE database_name END AS catalog
  FROM duckdb_databases() WHERE NOT internal${hidden.map((h) => ` AND database_name <> ${quoteString(h)}`).join('')})`;
};

/** The catalog's DDL, run once on a scratch database that is then attached read-only. */
function catalogSql(database: string, functions: Record<'nodes' | 'queries' | 'tasks' | 'completed_queries', string>, served: ServedCatalogs): string[] {
  const CATALOGS = catalogsSql(served.hidden ?? [], served.renamed ?? new Map());
  const connectors = served.connectors ?? new Map<string, string>();
  const other = served.otherConnector === undefined ? 'catalog' : quoteString(served.otherConnector);
  const connectorName = connectors.size === 0 && served.otherConnector === undefined ? 'catalog'
    : `CASE catalog ${[...connectors, ...(served.otherConnector === undefined ? [] : [[SYSTEM_CATALOG, SYSTEM_CATALOG]])].map(([catalog, connector]) => `WHEN ${quoteString(catalog!)} THEN ${quoteString(connector!)}`).join(' ')} ELSE ${other} END`;
  return [
    `CREATE SCHEMA ${q(database)}.runtime`,
    `CREATE SCHEMA ${q(database)}.metadata`,
    ...Object.entries(functions).map(([table, fn]) => `CREATE VIEW ${q(database)}.runtime.${table} AS SELECT * FROM ${fn}(${VIEWER_TABLES.has(table) ? 'NULL' : ''})`),
    // memory, tpch and system are their connectors' names; a hive catalog says hive, as Trino's connector_name.
    `CREATE VIEW ${q(database)}.metadata.catalogs AS
       SELECT catalog AS catalog_name, catalog AS connector_id, ${connectorName} AS connector_name FROM ${CATALOGS}`,
    ...systemJdbcSql(database, CATALOGS, ['tpch', SYSTEM_DATABASE]),
  ];
}

/** The table function behind system.runtime.queries; its argument is the reading user. */
export const SYSTEM_QUERIES_FUNCTION = 'vivace_system_queries';
/** The table function behind system.runtime.completed_queries; its argument is the reading user. */
export const SYSTEM_COMPLETED_QUERIES_FUNCTION = 'vivace_system_completed_queries';
/** The runtime tables whose function takes the reading user. */
const VIEWER_TABLES = new Set(['queries', 'completed_queries']);

export interface SystemCatalog {
  close(): void;
}

/**
 * Registers the table functions on the instance and attaches the `system` catalog. `directory` holds
 * the catalog's small database file (views only) until close.
 */
/** How the node's catalogs are served, for system.metadata.catalogs and system.jdbc. */
export interface ServedCatalogs {
  /** The connector of each catalog served under another name than its connector's (a hive catalog `lake`, tpch as `tiny`). */
  connectors?: ReadonlyMap<string, string>;
  /** Databases no catalog is (memory's, when no file names it). */
  hidden?: readonly string[];
  /** DuckDB database -> the catalog's name, for databases served under another name (tpch as `tiny`). */
  renamed?: ReadonlyMap<string, string>;
  /** The connector of every catalog `connectors` does not name (catalog.management=dynamic: hive, the only one CREATE CATALOG makes). */
  otherConnector?: string;
}

export async function attachSystemCatalog(instance: DuckDBInstance, source: SystemTablesSource, directory: string, served: ServedCatalogs = {}): Promise<SystemCatalog> {
  // Table functions live on the instance, but stay valid only while the registering connection is open.
  const connection: DuckDBConnection = await instance.connect();
  const functions = { nodes: 'vivace_system_nodes', queries: SYSTEM_QUERIES_FUNCTION, tasks: 'vivace_system_tasks', completed_queries: SYSTEM_COMPLETED_QUERIES_FUNCTION };
  connection.registerTableFunction(tableFunction(functions.nodes, 'system.runtime.nodes', NODE_COLUMNS, () => source.nodes()));
  // The viewer's queries only: each user statement names its user (lib/engine/duckdb-engine.ts virtualTable).
  connection.registerTableFunction(tableFunction(functions.queries, 'system.runtime.queries', QUERY_COLUMNS, (viewer) => source.queries(viewer), true));
  connection.registerTableFunction(tableFunction(functions.tasks, 'system.runtime.tasks', TASK_COLUMNS, () => source.tasks()));
  connection.registerTableFunction(
    tableFunction(functions.completed_queries, 'system.runtime.completed_queries', COMPLETED_QUERY_COLUMNS, (viewer) => source.completedQueries?.(viewer) ?? [], true),
  );
  for (const fn of systemJdbcFunctions()) connection.registerScalarFunction(fn);

  mkdirSync(directory, { recursive: true });
  const file = join(directory, `vivace-system-${process.pid}-${randomUUID().slice(0, 8)}.duckdb`);
  const sqlString = (s: string) => `'${s.replace(/'/g, "''")}'`;
  const build = 'vivace_system_build';
  await connection.run(
    [`ATTACH ${sqlString(file)} AS ${build}`, ...catalogSql(build, functions, served), `DETACH ${build}`, `ATTACH ${sqlString(file)} AS ${SYSTEM_DATABASE} (READ_ONLY)`].join(';\n'),
  );
  CatalogNames.map(SYSTEM_CATALOG, SYSTEM_DATABASE);
  return {
    close() {
      connection.closeSync();
      // Linux lets an open file be unlinked; the instance closes right after.
      rmSync(file, { force: true });
      rmSync(`${file}.wal`, { force: true });
    },
  };
}
