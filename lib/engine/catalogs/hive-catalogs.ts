// The engine's side of the hive catalogs (lib/connectors/hive): each attached as a DuckDB database that
// mirrors its metastore, brought up to date before every statement that names it; its DDL, INSERT, CTAS
// and SHOW CREATE TABLE planned here as plans whose execution does the connector's work.
import { addColumn, commentOn, dropColumn, renameColumn, renameTable } from '../../connectors/hive/hive-alter.js';
import { syncPartitionCall } from '../../sql/procedure-calls.js';
import { syncPartitionMetadata } from '../../connectors/hive/hive-sync-partitions.js';
import type { DuckDBConnection, DuckDBInstance, DuckDBPreparedStatement } from '@duckdb/node-api';
import type { HiveCatalogConfig } from '../../connectors/catalog.types.js';
import { HiveCatalog, systemTableOf, type ResolvedHiveTable } from '../../connectors/hive/hive-catalog.js';
import { createSchema, createTable, dropSchema, dropTable, showCreateTable } from '../../connectors/hive/hive-ddl.js';
import { createTableAs, insertInto } from '../../connectors/hive/hive-writes.js';
import { checkWholePartitions, columnNamesRead, deleteFromTable, matchingPartitionsSql } from '../../connectors/hive/hive-deletes.js';
import { duckdbFooterReader, FooterCache, HiveStatistics } from '../../connectors/hive/hive-statistics.js';
import { prestoTypeOfHive } from '../../connectors/hive/hive-types.js';
import type { PartitionRef, TableStatistics } from '../../connectors/table-statistics.js';
import type { Delete, Expression, QualifiedName, Query, ShowStats, Statement, Table } from '../../sql/ast.js';
import { parseStatement } from '../../sql/parser.js';
import { formatSql } from '../../sql/sql-formatter.js';
import { fold, partsOf, qualifyTable, type QualifiedTable } from '../../sql/names.js';
import { walk } from '../../sql/tree-walk.js';
import { writeTarget } from '../../sql/statement-gate.js';
import { outputNames } from '../../sql/output-names.js';
import { statementOutput } from '../../sql/statement-output.js';
import type { Translation } from '../../sql/duckdb-translation.js';
import type { Execution, ExecutionProgress, Plan, RowBatch } from '../engine.types.js';
import type { OutputColumn, PrestoType, Session } from '../../protocol/types.js';
import { VivaceError } from '../../protocol/vivace-error.js';
import { quoteIdentifier } from '../../sql/sql-formatter.js';
import { toVivaceError } from '../duckdb-errors.js';
import { registerConnectorCatalog, unregisterConnectorCatalog } from '../dialect/catalog-metadata.js';
import { registerCatalogSessionProperties, unregisterCatalogSessionProperties } from '../dialect/catalog-session.js';
import { HIVE_SESSION_PROPERTIES } from '../../protocol/catalog-session-properties.js';
import { staticRowsPlan, valuesPlan } from '../dialect/values-plan.js';
import { connectorStats, SHOW_STATS_COLUMNS } from '../dialect/show-stats.js';
import { SYSTEM_CATALOG } from './system-catalog.js';

const ROWS_COLUMN: OutputColumn[] = [{ name: 'rows', type: { base: 'bigint' } }];

/** What planning a hive statement needs of the engine. */
export interface HivePlanning {
  sql: string;
  session: Session;
  translate: (tree: Statement) => Translation;
  /** A pooled connection (set up as every user statement's), and how to give it back. */
  acquire: () => Promise<{ connection: DuckDBConnection; release: () => void }>;
  /** The Trino types of a query's output as a SELECT reports them (varchar(n), char(n) and timestamp(p) the tree declares). */
  queryTypes: (prepared: DuckDBPreparedStatement, query: Query) => PrestoType[];
  /** Whether the session's user reads `table` through a column mask or row filter (its statistics would show what they hide). */
  guarded?: (table: QualifiedTable) => boolean;
}

export class HiveCatalogs {
  /** Footers of every catalog's Parquet files, by (path, size, mtime), for statistics. */
  readonly footers: FooterCache;
  private footerQueue: Promise<unknown> = Promise.resolve();

  private constructor(private readonly catalogs: Map<string, HiveCatalog>, private readonly mirror: DuckDBConnection, private readonly otherRoots: readonly string[], footerConnection: DuckDBConnection) {
    // One footer query at a time on the connection kept for them, unprepared (see FooterReader).
    this.footers = new FooterCache(duckdbFooterReader((sql) => {
      const run = this.footerQueue.then(async () => (await footerConnection.runAndReadAll(sql)).getRows());
      this.footerQueue = run.catch(() => undefined);
      return run;
    }));
    this.closeFooters = () => footerConnection.closeSync();
  }

  private readonly closeFooters: () => void;

  /**
   * Opens the catalogs on `instance` before the engine locks it: each mirror attached, commits a crash left
   * rolled forward, dead staging removed, the metastore mirrored. `otherRoots`: the node's other directories
   * (tpch's, the spill directory), which no hive location may reach.
   */
  static async open(instance: DuckDBInstance, configs: readonly HiveCatalogConfig[], otherRoots: readonly string[]): Promise<HiveCatalogs> {
    const mirror = await instance.connect();
    const catalogs = new HiveCatalogs(new Map(), mirror, otherRoots, await instance.connect());
    for (const config of configs) await catalogs.add(config, configs.filter((c) => c !== config).map((c) => c.root));
    return catalogs;
  }

  /**
   * Opens one more catalog (at start, or one CREATE CATALOG made: its mirror is an in-memory database, which
   * DuckDB attaches after the lock too; its root lies in a directory the sandbox allowed at start).
   * `siblingRoots`: the other hive catalogs' roots (all of them when undefined).
   */
  async add(config: HiveCatalogConfig, siblingRoots: readonly string[] = this.roots): Promise<void> {
    const catalog = new HiveCatalog(config, [...this.otherRoots, ...siblingRoots.filter((r) => r !== config.root)]);
    await catalog.attach(this.mirror);
    registerConnectorCatalog(config.name);
    registerCatalogSessionProperties(config.name, HIVE_SESSION_PROPERTIES.map((property) => ({ property, defaultValue: hiveSessionDefault(config, property.name) })));
    try {
      catalog.recoverAll();
      await catalog.sync(this.mirror, []);
    } catch (err) {
      unregisterConnectorCatalog(config.name);
      unregisterCatalogSessionProperties(config.name);
      await this.mirror.run(`DETACH DATABASE IF EXISTS ${quoteIdentifier(config.name)}`);
      throw err;
    }
    this.catalogs.set(config.name, catalog);
  }

  /** Closes a catalog DROP CATALOG removed: its mirror detached, its files left as they are. */
  async remove(name: string): Promise<void> {
    if (!this.catalogs.delete(name)) return;
    unregisterConnectorCatalog(name);
    unregisterCatalogSessionProperties(name);
    await this.mirror.run(`DETACH DATABASE IF EXISTS ${quoteIdentifier(name)}`);
  }

  /** The configuration a catalog was opened with. */
  configOf(name: string): HiveCatalogConfig | undefined {
    return this.catalogs.get(name)?.config;
  }

  /**
   * The statistics of a hive table (or of the partitions `keep` retains) from its files' footers
   * (lib/connectors/hive/hive-statistics.ts); undefined for no hive table. The planner's entry.
   */
  statistics(table: QualifiedTable, keep?: (partition: PartitionRef) => boolean): Promise<TableStatistics | undefined> {
    const catalog = this.catalogs.get(table.catalog);
    return catalog ? new HiveStatistics(catalog, this.footers).statistics(table, keep) : Promise.resolve(undefined);
  }

  get names(): string[] {
    return [...this.catalogs.keys()];
  }

  get roots(): string[] {
    return [...this.catalogs.values()].map((c) => c.config.root);
  }

  /** The declared types of a hive table's columns DuckDB's types lose. */
  declared(table: QualifiedTable): ReadonlyMap<string, PrestoType> | undefined {
    return this.catalogs.get(table.catalog)?.declaredColumns(table.schema, table.table);
  }

  /** A hive table's hidden columns ($path, ...), each read by its name from the table's hidden source. */
  hiddenColumns(table: QualifiedTable): readonly { name: string; sql: string }[] | undefined {
    return this.catalogs.get(table.catalog)?.hiddenColumns(table.schema, table.table)?.map((name) => ({ name, sql: quoteIdentifier(name) }));
  }

  /** The relation a hive table is read from with all its hidden columns. */
  hiddenSource(table: QualifiedTable): { sql: string; columns: readonly string[] } | undefined {
    const catalog = this.catalogs.get(table.catalog);
    const columns = catalog?.hiddenColumns(table.schema, table.table);
    return catalog && columns && catalog.hiddenSource(table.schema, table.table, columns);
  }

  /** A hive table read through only the partitions a one-table query's WHERE leaves, or undefined (its view then). */
  prunedSource(table: QualifiedTable, where: Expression, qualifiers: ReadonlySet<string>): string | undefined {
    return this.catalogs.get(table.catalog)?.prunedReadSql(table.schema, table.table, where, qualifiers);
  }

  /** A hive table column's extra information (DESCRIBE's Extra: 'partition key'), or undefined. */
  columnExtra(table: QualifiedTable, column: string): string | undefined {
    return this.catalogs.get(table.catalog)?.columnExtra(table.schema, table.table, column);
  }

  /** The SQL of a hive table's system table (`"t$partitions"`, `"t$properties"`), or undefined. */
  systemTable(catalog: string, schema: string, table: string): string | undefined {
    return this.catalogs.get(catalog)?.systemTable(schema, table);
  }

  /**
   * Brings the mirror of every catalog the statement names (or the session is in) up to date, with the
   * files of the tables it reads. Resolves whether a view changed (the plan cache is stale then).
   */
  /**
   * Brings a catalog's mirror up to date after this node changed it (a write, DDL, DELETE, CALL); the next
   * statement's beforePlan then reports a change, so no cached plan outlives a view or macro it was bound to
   * (DuckDB does not rebind a prepared statement when a table macro is replaced: t$partitions read stale).
   */
  private async resync(catalog: HiveCatalog, tables: readonly QualifiedTable[]): Promise<void> {
    if (await catalog.sync(this.mirror, tables)) this.changedSincePlan = true;
  }

  private changedSincePlan = false;

  async beforePlan(statement: Statement, session: Session, tables: () => readonly QualifiedTable[]): Promise<boolean> {
    const named = new Set<string>();
    if (session.catalog !== undefined && this.catalogs.has(fold(session.catalog))) named.add(fold(session.catalog));
    const { firstParts, tableNames } = namesOf(statement);
    for (const first of firstParts) {
      if (this.catalogs.has(first)) named.add(first);
      // system.jdbc and system.metadata list every catalog's tables.
      if (first === SYSTEM_CATALOG) for (const name of this.catalogs.keys()) named.add(name);
    }
    // System tables (t$partitions) are no reads of the translation: their tables are mirrored as read.
    const systemReads: QualifiedTable[] = [];
    for (const parts of tableNames) {
      const t = qualifyTable(parts, session.catalog, session.schema);
      if (t && this.catalogs.has(t.catalog) && systemTableOf(t.table)) systemReads.push(t);
    }
    const read = [...tables(), ...systemReads];
    for (const t of read) if (this.catalogs.has(t.catalog)) named.add(t.catalog);
    let changed = this.changedSincePlan;
    this.changedSincePlan = false;
    for (const name of named) {
      const catalog = this.catalogs.get(name)!;
      if (await catalog.sync(this.mirror, read.filter((t) => t.catalog === name))) changed = true;
    }
    return changed;
  }

  /** A plan for a statement a hive catalog runs itself (its DDL and writes, SHOW CREATE TABLE); undefined for the rest. */
  plan(statement: Statement, planning: HivePlanning): Plan | undefined {
    const { session } = planning;
    if (statement.type === 'ShowCreate' && statement.objectType === 'TABLE') {
      const table = qualifyTable(partsOf(statement.name), session.catalog, session.schema);
      const catalog = table && this.catalogs.get(table.catalog);
      if (!table || !catalog) return undefined;
      const text = showCreateTable(table.schema, table.table, catalog);
      return staticRowsPlan([{ name: 'Create Table', type: { base: 'varchar' } }], [[text]]);
    }
    if (statement.type === 'ShowStats') return this.showStats(statement, planning);
    const target = writeTarget(statement);
    if (!target) return undefined;
    const parts = partsOf(target.name);
    const catalogName = target.schemaLevel ? (parts.length === 2 ? parts[0] : session.catalog && fold(session.catalog)) : qualifyTable(parts, session.catalog, session.schema)?.catalog;
    const catalog = catalogName === undefined ? undefined : this.catalogs.get(catalogName);
    if (!catalog) return undefined;
    const queryId = newQueryId();
    const ddl = { catalog, user: session.user, queryId };
    const output = statementOutput(statement);
    const updateType = output.kind === 'rows' ? undefined : output.updateType;
    const table = () => {
      const t = qualifyTable(parts, session.catalog, session.schema);
      if (!t) throw new VivaceError('MISSING_SCHEMA_NAME', 'Schema must be specified when session schema is not set');
      return t;
    };
    const sync = async () => {
      await this.resync(catalog, []);
    };
    /** A change to one table's metadata, its mirror brought up to date after. */
    const alterTable = (change: (t: QualifiedTable) => void) => workPlan([], updateType, async () => {
      const t = table();
      change(t);
      await this.resync(catalog, [t]);
    });
    const readOnly = target.schemaLevel ? undefined : discoveredWrite(statement, table(), catalog);
    if (readOnly === 'none') return workPlan(output.kind === 'rows' ? ROWS_COLUMN : [], updateType, async () => (output.kind === 'rows' ? 0 : undefined));
    switch (statement.type) {
      case 'CreateSchema':
        return workPlan([], updateType, async () => {
          createSchema(statement, parts[parts.length - 1]!, ddl);
          await sync();
        });
      case 'DropSchema':
        return workPlan([], updateType, async () => {
          if (statement.cascade) throw new VivaceError('NOT_SUPPORTED', 'This connector does not support dropping schemas with CASCADE option');
          dropSchema(statement, parts[parts.length - 1]!, ddl);
          await sync();
        });
      case 'CreateTable':
        return workPlan([], updateType, async () => {
          const t = table();
          createTable(statement, t.schema, t.table, ddl);
          await sync();
        });
      case 'DropTable':
        return workPlan([], updateType, async () => {
          const t = table();
          dropTable(statement, t.schema, t.table, ddl);
          await sync();
        });
      case 'Insert':
      case 'CreateTableAsSelect':
        return workPlan(ROWS_COLUMN, updateType, () => this.write(statement, table(), catalog, planning, queryId));
      case 'Delete':
        return workPlan(ROWS_COLUMN, updateType, () => this.delete(statement, table(), catalog, planning, queryId));
      case 'AddColumn':
        return alterTable((t) => addColumn(statement, catalog, t.schema, t.table));
      case 'DropColumn':
        return alterTable((t) => dropColumn(statement, catalog, t.schema, t.table));
      case 'RenameColumn':
        return alterTable((t) => renameColumn(statement, catalog, t.schema, t.table));
      case 'Comment':
        if (statement.objectType === 'VIEW') return undefined;
        return alterTable((t) => commentOn(statement, catalog, t.schema, t.table));
      case 'RenameTable':
        return workPlan([], updateType, async () => {
          const from = table();
          const to = renameTarget(statement.target, from);
          renameTable(catalog, from, to, statement.exists);
          await this.resync(catalog, [from, to]);
        });
      case 'Call':
        return workPlan([], updateType, async () => {
          syncPartitionMetadata(syncPartitionCall(statement, session.catalog), catalog, queryId);
          await sync();
        });
      default:
        throw new VivaceError('NOT_SUPPORTED', `${updateType ?? statement.type} is not supported by catalog '${catalog.name}'`);
    }
  }

  private async write(statement: Extract<Statement, { type: 'Insert' | 'CreateTableAsSelect' }>, t: QualifiedTable, catalog: HiveCatalog, planning: HivePlanning, queryId: string): Promise<number> {
    const query: Query = statement.query;
    // The tables the query reads are mirrored with their current files first.
    const translation = planning.translate(query);
    for (const name of new Set(translation.tables.map((r) => r.catalog))) {
      const other = this.catalogs.get(name);
      if (other) await other.sync(this.mirror, translation.tables.filter((r) => r.catalog === name));
    }
    const { connection, release } = await planning.acquire();
    try {
      const prepared = await connection.prepare(translation.sql);
      const duckdbNames: string[] = [];
      for (let i = 0; i < prepared.columnCount; i++) duckdbNames.push(prepared.columnName(i));
      // A CTAS declares what the query reports: CREATE TABLE t AS SELECT 'a' AS c makes c varchar(1), as Trino's.
      const types = planning.queryTypes(prepared, query);
      prepared.destroySync();
      const ctx = {
        catalog, user: planning.session.user, queryId, connection, properties: planning.session.properties,
        querySql: translation.sql, queryColumns: { names: outputNames(query, duckdbNames), types },
      };
      const rows = statement.type === 'Insert' ? await insertInto(statement, t.schema, t.table, ctx) : await createTableAs(statement, t.schema, t.table, ctx);
      await this.resync(catalog, [t]);
      return rows ?? 0;
    } finally {
      release();
    }
  }

  /** DELETE of whole partitions (or of an unpartitioned table's every row); Trino counts no rows there: NULL. */
  private async delete(statement: Delete, t: QualifiedTable, catalog: HiveCatalog, planning: HivePlanning, queryId: string): Promise<null> {
    if (!catalog.metastore.schema(t.schema)) throw new VivaceError('SCHEMA_NOT_FOUND', `Schema '${catalog.name}.${t.schema}' does not exist`);
    const resolved = catalog.resolve(t.schema, t.table);
    if (!resolved) throw new VivaceError('TABLE_NOT_FOUND', `Table '${catalog.name}.${t.schema}.${t.table}' does not exist`);
    const keys = resolved.partitionColumns.length;
    const recursive = catalog.config.recursiveDirectories;
    if (!statement.where) {
      deleteFromTable(resolved, keys === 0 ? undefined : catalog.metastore.partitionNames(t.schema, t.table, keys), catalog.metastore, queryId, recursive);
    } else {
      checkWholePartitions(statement.where, resolved);
      await this.resync(catalog, [t]);
      // The WHERE is evaluated over the table's partitions ("t$partitions"), as Trino's partition pruning does.
      const partitions = `${[catalog.name, t.schema, `${t.table}$partitions`].map((p) => quoteIdentifier(p)).join('.')}`;
      const predicate = planning.translate(parseStatement(`SELECT * FROM ${partitions} WHERE ${formatSql(statement.where)}`)).sql;
      const sql = matchingPartitionsSql(resolved, catalog.metastore.partitionNames(t.schema, t.table, keys), predicate);
      if (sql !== undefined) {
        const { connection, release } = await planning.acquire();
        let matched: string[];
        try {
          matched = (await connection.runAndReadAll(sql)).getRows().map((r) => String(r[0]));
        } finally {
          release();
        }
        deleteFromTable(resolved, matched, catalog.metastore, queryId, recursive);
      }
    }
    await this.resync(catalog, [t]);
    return null;
  }

  /**
   * SHOW STATS of a hive table, or of `SELECT * FROM t WHERE <partition columns only>`, from the footers
   * (Trino answers from the metastore's statistics, not a scan); undefined for any other relation, or
   * when the user reads the table masked or filtered: the engine's exact pass over the rows answers then.
   */
  private showStats(statement: ShowStats, planning: HivePlanning): Plan | undefined {
    const target = statsTarget(statement);
    if (!target) return undefined;
    const t = qualifyTable(partsOf(target.table.name), planning.session.catalog, planning.session.schema);
    const catalog = t && this.catalogs.get(t.catalog);
    if (!t || !catalog || systemTableOf(t.table) || planning.guarded?.(t)) return undefined;
    let resolved: ResolvedHiveTable | undefined;
    try {
      resolved = catalog.resolve(t.schema, t.table);
    } catch {
      return undefined;
    }
    if (!resolved) return undefined;
    const keys = new Set(resolved.partitionColumns.map((c) => c.name));
    const names = target.where && columnNamesRead(target.where);
    // A WHERE on partition columns only is evaluated over the partitions, as Trino's pruning enforces it.
    if (target.where && (keys.size === 0 || !names || [...names].some((n) => !keys.has(n)))) return undefined;
    const columns = [...resolved.dataColumns, ...resolved.partitionColumns].map((c) => ({ name: c.name, type: prestoTypeOfHive(c.hive) }));
    const rows = async () => {
      let keep: ((p: PartitionRef) => boolean) | undefined;
      if (target.where) {
        await catalog.sync(this.mirror, [t]);
        const partitions = [catalog.name, t.schema, `${t.table}$partitions`].map((p) => quoteIdentifier(p)).join('.');
        const predicate = planning.translate(parseStatement(`SELECT * FROM ${partitions} WHERE ${formatSql(target.where)}`)).sql;
        const sql = matchingPartitionsSql(resolved, catalog.partitionNames(t.schema, t.table, keys.size), predicate);
        const matched = new Set<string>();
        if (sql !== undefined) {
          const { connection, release } = await planning.acquire();
          try {
            for (const [name] of (await connection.runAndReadAll(sql)).getRows()) matched.add(String(name));
          } finally {
            release();
          }
        }
        keep = (p) => matched.has(p.name);
      }
      const statistics = await this.statistics(t, keep);
      if (!statistics) throw new VivaceError('TABLE_NOT_FOUND', `Table '${t.catalog}.${t.schema}.${t.table}' does not exist`);
      return connectorStats(columns, statistics).rows;
    };
    return valuesPlan({ columns: SHOW_STATS_COLUMNS, rows, release: () => undefined });
  }

  close(): void {
    this.mirror.closeSync();
    this.closeFooters();
  }
}

/**
 * What a statement writing `t` does when `t` is a discovered table (hive.auto-discover): CREATE TABLE
 * with an external_location registers it (undefined: planned as any); IF NOT EXISTS does nothing
 * ('none'); another CREATE fails as for any existing table; every other write fails: it is read-only.
 */
function discoveredWrite(statement: Statement, t: QualifiedTable, catalog: HiveCatalog): 'none' | undefined {
  const found = catalog.discovered(t.schema, t.table);
  if (!found) return undefined;
  const name = `${catalog.name}.${t.schema}.${t.table}`;
  if (statement.type === 'CreateTable' || statement.type === 'CreateTableAsSelect') {
    if (statement.type === 'CreateTable' && statement.properties.some((p) => fold(p.name.value) === 'external_location')) return undefined;
    if (statement.notExists) return 'none';
    throw new VivaceError('TABLE_ALREADY_EXISTS', `Table '${name}' already exists`);
  }
  const location = catalog.storedLocation(found.directory);
  const partitioned = found.keys.length === 0 ? '' : `, partitioned_by = ARRAY[${found.keys.map((k) => `'${k.split("'").join("''")}'`).join(', ')}]`;
  throw new VivaceError('NOT_SUPPORTED', `Table '${name}' is discovered from its files (hive.auto-discover) and is read-only: register it with CREATE TABLE ${name} (<columns>) WITH (external_location = '${location.split("'").join("''")}', format = 'PARQUET'${partitioned}) to write to it (SHOW CREATE TABLE ${name} shows that statement)`);
}

/** The table and WHERE of SHOW STATS FOR t or FOR (SELECT * FROM t [WHERE ...]); undefined for any other query. */
function statsTarget(statement: ShowStats): { table: Table; where?: Expression } | undefined {
  const relation = statement.relation;
  if (relation.type === 'Table') return relation.queryPeriod ? undefined : { table: relation };
  const q = relation.query;
  if (q.with || q.orderBy || q.offset || q.limit || q.body.type !== 'QuerySpecification') return undefined;
  const spec = q.body;
  if (spec.groupBy || spec.having || spec.windows.length > 0 || spec.select.distinct || spec.from?.type !== 'Table' || spec.from.queryPeriod) return undefined;
  const [item, ...more] = spec.select.selectItems;
  if (more.length > 0 || item?.type !== 'AllColumns' || item.target !== undefined || item.aliases.length > 0) return undefined;
  return { table: spec.from, ...(spec.where ? { where: spec.where } : {}) };
}

/** A hive catalog session property's default: the catalog's configuration (hive.insert-existing-partitions-behavior). */
function hiveSessionDefault(config: HiveCatalogConfig, property: string): string {
  return property === 'insert_existing_partitions_behavior' ? config.insertExistingPartitionsBehavior : '';
}

/** A query id in Trino's form for file names (the coordinator's id is not known to the engine here). */
function newQueryId(): string {
  const now = new Date();
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  const stamp = `${now.getUTCFullYear()}${pad(now.getUTCMonth() + 1)}${pad(now.getUTCDate())}_${pad(now.getUTCHours())}${pad(now.getUTCMinutes())}${pad(now.getUTCSeconds())}`;
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += letters[Math.floor(Math.random() * letters.length)];
  return `${stamp}_${pad(Math.floor(Math.random() * 100000), 5)}_${suffix}`;
}

/** A plan whose execution runs `work` once: DDL (no rows) or a write (its count as the one row and the update count). */
function workPlan(columns: OutputColumn[], updateType: string | undefined, work: () => Promise<number | null | void>): Plan {
  let pending: typeof work | undefined = work;
  const execute = (): Execution => {
    const once = pending;
    pending = undefined;
    if (!once) throw new VivaceError('GENERIC_INTERNAL_ERROR', 'Plan already executed');
    return new WorkExecution(once, columns.length > 0);
  };
  // Nothing is held before execution: the connection of a write is taken when it runs.
  return { columns, ...(updateType ? { updateType } : {}), execute, release: () => undefined };
}

class WorkExecution implements Execution {
  private done = false;
  private delivered = false;
  private canceled = false;
  private count?: number;
  private millis = 0;

  /** A write that counts no rows (a partition DELETE): its one row is NULL, and there is no update count. */
  private uncounted = false;

  constructor(private readonly work: () => Promise<number | null | void>, private readonly counts: boolean) {}

  get updateCount(): number | undefined {
    return this.count;
  }

  get exhausted(): boolean {
    return this.done && (this.delivered || !this.counts);
  }

  async next(): Promise<RowBatch | null> {
    if (this.canceled) throw new VivaceError('USER_CANCELED', 'Query was canceled');
    if (!this.done) {
      const started = performance.now();
      try {
        const n = await this.work();
        this.uncounted = n === null;
        this.count = this.counts && n !== null ? n ?? 0 : undefined;
      } catch (err) {
        throw err instanceof VivaceError ? err : toVivaceError(err);
      } finally {
        this.millis += performance.now() - started;
        this.done = true;
      }
    }
    if (!this.counts || this.delivered) return null;
    this.delivered = true;
    const json = `[${this.uncounted ? 'null' : this.count ?? 0}]`;
    return { json, rows: 1, bytes: json.length };
  }

  cancel(): void {
    this.canceled = true;
  }

  progress(): ExecutionProgress {
    return { processedRows: 0, processedBytes: 0, outputRows: this.delivered ? 1 : 0, cpuTimeMillis: Math.round(this.millis) };
  }
}

/** RENAME TO's target: `t` in the source's schema, `s.t` or `c.s.t` in the source's catalog (Trino's RenameTableTask). */
function renameTarget(target: QualifiedName, from: QualifiedTable): QualifiedTable {
  const parts = partsOf(target);
  if (parts.length === 1) return { ...from, table: parts[0]! };
  if (parts.length === 2) return { ...from, schema: parts[0]!, table: parts[1]! };
  if (parts.length === 3 && parts[0] === from.catalog) return { catalog: from.catalog, schema: parts[1]!, table: parts[2]! };
  if (parts.length === 3) throw new VivaceError('NOT_SUPPORTED', 'Table rename across catalogs is not supported');
  throw new VivaceError('SYNTAX_ERROR', `Too many dots in table name: ${parts.join('.')}`);
}

/** What beforePlan reads of a tree: the first part of every qualified name (folded) and every table's name parts. */
interface TreeNames {
  firstParts: readonly string[];
  tableNames: readonly (readonly string[])[];
}

/**
 * An admitted tree is planned again for every repetition of its text (admitted-queries.ts): its names are
 * gathered once, not walked twice per plan. They depend on the tree alone; the catalogs and the session
 * are applied to them on each plan.
 */
const TREE_NAMES = new WeakMap<Statement, TreeNames>();

function namesOf(statement: Statement): TreeNames {
  let names = TREE_NAMES.get(statement);
  if (names) return names;
  const firstParts = new Set<string>();
  const tableNames: (readonly string[])[] = [];
  walk(statement, (node) => {
    if (node.type === 'QualifiedName') firstParts.add(fold(node.parts[0]?.value ?? ''));
    if (node.type === 'Table') tableNames.push(partsOf(node.name));
  });
  names = { firstParts: [...firstParts], tableNames };
  TREE_NAMES.set(statement, names);
  return names;
}
