// One hive catalog on a node: its file metastore, its location rules, and the DuckDB database (attached in
// memory, named after the catalog) that mirrors the metastore as schemas and views over each table's files,
// so SELECT, DESCRIBE, SHOW and information_schema go through the engine's usual path. All state is on
// disk: the mirror is brought up to date before every statement that names the catalog.
import { existsSync, readdirSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join, relative } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { HiveCatalogConfig } from '../catalog.types.js';
import type { PrestoType } from '../../protocol/types.js';
import { VivaceError } from '../../protocol/vivace-error.js';
import { quoteIdentifier, quoteString } from '../../sql/sql-formatter.js';
import { FileMetastore, type HiveColumn, type TableMetadata } from './hive-metastore.js';
import { checkUnderRoot, isWithin, resolveLocation, rootChecker, type LocationRules } from './hive-locations.js';
import { directoryStamp, filesSignature, filesUnchanged, listDataFiles, type DataFile } from './hive-files.js';
import { hasMarker, recover } from './hive-commit.js';
import { hiveTypeOf, isLossy, parseHiveType, prestoTypeOfHive, type HiveType } from './hive-types.js';
import { parsePartitionName } from './partition-names.js';
import { prunableFilter } from './partition-pruning.js';
import type { Expression } from '../../sql/ast.js';
import { propertiesOf, READABLE_FORMATS } from './hive-table-properties.js';
import { tableReadSql, type ReadableTable } from './hive-read-sql.js';
import { hiddenColumnsOf, hiddenReadSql, partitionsSql, propertiesSql } from './hive-hidden-sql.js';
import type { HiveStorageFormat } from '../catalog.types.js';
import { discoveredMetadata, discoveredSignature, discoverTables, overlaps, unionColumns, type DiscoveredTable } from './hive-discovery.js';
import { prestoTypeOf } from '../duckdb-types.js';
import { parquetSchemaSql, topLevelColumns, unreadableColumns } from './parquet-column-types.js';

/** What the metastore's `writerVersion` says for files written here. */
const WRITER_VERSION = 'vivace';

interface MirroredTable {
  signature: string;
  /** The metadata's stamp and directoryStamp when the view was made from a listing (absent: always list). */
  directories?: string;
  /** That listing's files: one rewritten in place (same name, new size or time) moves no directory's stamp. */
  files?: readonly DataFile[];
  /** What the view's reader knows of the Parquet footers (absent: the view reads as an error). */
  read?: Pick<ReadableTable, 'presentColumns' | 'sameColumns' | 'unreadableColumns'>;
  declared?: ReadonlyMap<string, PrestoType>;
}

/** Trino's system tables of a hive table (`"t$partitions"`), by suffix. */
const SYSTEM_TABLES = ['partitions', 'properties'] as const;
type SystemTableKind = (typeof SYSTEM_TABLES)[number];

/**
 * Discovered tables' columns (hive.auto-discover), read from their footers when a node's mirror syncs,
 * by root, schema and table: every HiveCatalog of the process (the engine's, a worker's split reader,
 * the coordinator's split lister) resolves a discovered table with them. A sync drops its root's entries
 * whose directories are no table any more; DISCOVERED_LIMIT bounds what dropped catalogs' roots leave.
 */
const DISCOVERED_COLUMNS = new Map<string, { signature: string; columns?: HiveColumn[]; error?: string }>();
const DISCOVERED_LIMIT = 10_000;

/** Remembers a discovered table's columns, the oldest entry going first past the limit. */
function rememberColumns(k: string, entry: { signature: string; columns?: HiveColumn[]; error?: string }): void {
  DISCOVERED_COLUMNS.delete(k);
  DISCOVERED_COLUMNS.set(k, entry);
  while (DISCOVERED_COLUMNS.size > DISCOVERED_LIMIT) DISCOVERED_COLUMNS.delete(DISCOVERED_COLUMNS.keys().next().value!);
}

/** Forgets the columns of `root`'s tables other than `kept` (keys): their directories vanished or were registered. */
function forgetColumns(root: string, kept: ReadonlySet<string>): void {
  const prefix = discoveryKey(root, '', '').slice(0, -2);
  for (const k of [...DISCOVERED_COLUMNS.keys()]) if (k.startsWith(prefix) && !kept.has(k)) DISCOVERED_COLUMNS.delete(k);
}

/** How many discovered tables' columns the process holds (for specs: the map stays bounded). */
export const discoveredColumnsHeld = (): number => DISCOVERED_COLUMNS.size;

/** The table macro a table's hidden columns are read from (macros are no tables: listings never show them). */
const hiddenMacro = (table: string) => `vivace$hidden$${table}`;
const systemMacro = (table: string, kind: SystemTableKind) => `${table}$${kind}`;

/** `t$partitions` as its table and kind, or undefined for any other name. */
export function systemTableOf(name: string): { table: string; kind: SystemTableKind } | undefined {
  const at = name.lastIndexOf('$');
  if (at <= 0) return undefined;
  const kind = name.slice(at + 1) as SystemTableKind;
  return SYSTEM_TABLES.includes(kind) ? { table: name.slice(0, at), kind } : undefined;
}

export interface ResolvedHiveTable {
  schema: string;
  table: string;
  metadata: TableMetadata;
  /** The absolute directory holding the data (managed: the metastore's table directory). */
  location: string;
  dataColumns: { name: string; hive: HiveType }[];
  partitionColumns: { name: string; hive: HiveType }[];
}

export class HiveCatalog {
  readonly metastore: FileMetastore;
  readonly rules: LocationRules;
  private readonly mirrored = new Map<string, MirroredTable>();
  private readonly schemas = new Set<string>();
  private queue: Promise<unknown> = Promise.resolve();

  constructor(readonly config: HiveCatalogConfig, otherRoots: readonly string[]) {
    this.rules = { root: config.root, otherRoots };
    if (config.metastoreDirectory !== config.root) checkUnderRoot(config.metastoreDirectory, this.rules);
    this.metastore = new FileMetastore(config.metastoreDirectory, WRITER_VERSION);
  }

  get name(): string {
    return this.config.name;
  }

  /** The DuckDB database mirroring the catalog: ATTACH, before the engine locks its configuration. */
  async attach(connection: DuckDBConnection): Promise<void> {
    await connection.run(`ATTACH ':memory:' AS ${quoteIdentifier(this.name)}`);
  }

  /** Runs `work` after every earlier mirror change of this catalog (one at a time per node). */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** A stored location (`local:///x`, or an absolute path) as a checked absolute directory. */
  location(text: string): string {
    return resolveLocation(text, this.rules, 'HIVE_INVALID_METADATA');
  }

  /** How a location is stored: `local:///` plus its path under the root, as Trino's local file system names it. */
  storedLocation(path: string): string {
    return `local:///${relative(this.config.root, path).split('\\').join('/')}`;
  }

  /**
   * A table's metadata: the metastore's, else (hive.auto-discover) a discovered directory's, as an
   * external PARQUET table with its columns from the footers (none known yet: undefined).
   */
  tableMetadata(schema: string, table: string): TableMetadata | undefined {
    const registered = this.metastore.table(schema, table);
    if (registered) return registered;
    const found = this.discovered(schema, table);
    if (!found) return undefined;
    const known = DISCOVERED_COLUMNS.get(discoveryKey(this.config.root, schema, table));
    if (known?.error !== undefined) throw new VivaceError('HIVE_INVALID_METADATA', known.error);
    return discoveredMetadata(found, known?.columns ?? [], this.storedLocation(found.directory));
  }

  /** A discovered table (hive.auto-discover on, a directory of data files no metastore table describes), or undefined. */
  discovered(schema: string, table: string): DiscoveredTable | undefined {
    if (!this.config.autoDiscover || this.metastore.table(schema, table)) return undefined;
    return this.discoverTables({ schema, table })[0];
  }

  /**
   * The discovered tables (all, or the one `only` names: then only its schema's and its own directory are
   * looked at, and the metastore's locations only once that directory is there, so a statement naming a
   * missing table costs a stat or two, not a walk of every registered table).
   */
  private discoverTables(only?: { schema: string; table: string }): DiscoveredTable[] {
    if (!this.config.autoDiscover) return [];
    // Directories the metastore uses: its own, registered tables' and schemas' locations (read when first asked).
    let known: { used: string[]; registered: Map<string, Set<string>> } | undefined;
    const metastoreUse = () => {
      if (known) return known;
      const used: string[] = [];
      if (this.config.metastoreDirectory !== this.config.root) used.push(this.config.metastoreDirectory);
      const registered = new Map<string, Set<string>>();
      for (const schema of this.metastore.schemaNames()) {
        const location = this.metastore.schema(schema)?.parameters?.location;
        if (location !== undefined) used.push(this.location(location));
        const tables = new Set(this.metastore.tableNames(schema));
        registered.set(schema, tables);
        for (const table of tables) {
          const resolved = this.resolveQuietly(schema, table);
          if (resolved) used.push(resolved.location);
        }
      }
      known = { used, registered };
      return known;
    };
    const metastoreDirectory = this.config.metastoreDirectory;
    return discoverTables(this.config.root, {
      schemaTaken: (directory) => {
        const { used } = metastoreUse();
        return used.some((u) => isWithin(directory, u)) || (used[0] === metastoreDirectory && isWithin(metastoreDirectory, directory));
      },
      tableTaken: (directory) => overlaps(directory, metastoreUse().used),
      registered: (schema, table) => (only ? this.metastore.table(schema, table) !== undefined : metastoreUse().registered.get(schema)?.has(table) ?? false),
      recursive: this.config.recursiveDirectories,
      ...(only ? { only } : {}),
    });
  }

  /** Reads a discovered table's columns from its files' footers when they changed (the union by name over the files). */
  private async discoverColumns(connection: DuckDBConnection, found: DiscoveredTable): Promise<void> {
    const k = discoveryKey(this.config.root, found.schema, found.table);
    const signature = discoveredSignature(found);
    if (DISCOVERED_COLUMNS.get(k)?.signature === signature) return;
    try {
      // Prepared only to read its columns' types (never run): hive_partitioning off, the keys are the directories'.
      const prepared = await connection.prepare(`SELECT * FROM read_parquet([${found.files.map((f) => quoteString(f.path)).join(', ')}], union_by_name = true, hive_partitioning = false)`);
      const columns: { name: string; type: string | undefined }[] = [];
      try {
        for (let i = 0; i < prepared.columnCount; i++) {
          let type: string | undefined;
          try {
            type = hiveTypeOf(prestoTypeOf(prepared.columnType(i)));
          } catch {
            type = undefined; // a type Hive cannot hold (unsigned, time, uuid, ...): the column is left out
          }
          columns.push({ name: prepared.columnName(i), type });
        }
      } finally {
        prepared.destroySync();
      }
      rememberColumns(k, { signature, columns: unionColumns([columns], found.keys) });
    } catch (err) {
      rememberColumns(k, { signature, error: `Cannot read the Parquet footers of discovered table ${found.schema}.${found.table}: ${err instanceof Error ? err.message : String(err)}` });
    }
  }

  /** Registered partitions' names, or a discovered table's partition directories. */
  partitionNames(schema: string, table: string, depth: number): string[] {
    if (this.metastore.table(schema, table)) return this.metastore.partitionNames(schema, table, depth);
    return this.discovered(schema, table)?.partitions ?? [];
  }

  /** The table's metadata and data directory, or undefined when there is no such table. */
  resolve(schema: string, table: string): ResolvedHiveTable | undefined {
    const metadata = this.tableMetadata(schema, table);
    if (!metadata) return undefined;
    const stored = metadata.externalLocation ?? metadata.parameters?.location;
    const location = stored === undefined ? this.metastore.tableDirectory(schema, table) : this.location(stored);
    checkUnderRoot(location, this.rules);
    const columns = (list: TableMetadata['dataColumns']) => list.map((c) => ({ name: c.name, hive: parseHiveType(c.type) }));
    return { schema, table, metadata, location, dataColumns: columns(metadata.dataColumns), partitionColumns: columns(metadata.partitionColumns ?? []) };
  }

  /** The declared Trino types DuckDB's loses (varchar(n), char(n), timestamp(3)) of a mirrored table's columns. */
  declaredColumns(schema: string, table: string): ReadonlyMap<string, PrestoType> | undefined {
    return this.mirrored.get(key(schema, table))?.declared;
  }

  /** Rolls forward every commit left by a crash and removes dead staging, over the whole catalog (at start). */
  recoverAll(): void {
    for (const schema of this.metastore.schemaNames()) {
      const directory = this.metastore.schemaDirectory(schema);
      for (const table of this.metastore.tableNames(schema)) {
        const resolved = this.resolveQuietly(schema, table);
        if (resolved) recover(resolved.location, this.metastore);
      }
      this.recoverUnregistered(directory, true);
    }
  }

  /** Directories of a schema that no table describes yet may hold a CTAS's commit marker. */
  private recoverUnregistered(schemaDirectory: string, always = false): boolean {
    let changed = false;
    for (const entry of listDirectories(schemaDirectory)) {
      const path = join(schemaDirectory, entry);
      if (always || hasMarker(path)) changed = recover(path, this.metastore) || changed;
    }
    return changed;
  }

  private resolveQuietly(schema: string, table: string): ResolvedHiveTable | undefined {
    try {
      return this.resolve(schema, table);
    } catch {
      return undefined;
    }
  }

  /**
   * Brings the mirror up to date: schemas and tables as the metastore has them, and the file lists of
   * `tables` (those the statement reads). Returns whether any view changed (cached plans are stale then).
   */
  sync(connection: DuckDBConnection, tables: readonly { schema: string; table: string }[]): Promise<boolean> {
    return this.exclusive(async () => {
      let changed = false;
      const db = quoteIdentifier(this.name);
      const schemas = new Set(this.metastore.schemaNames());
      // Discovered tables by schema, their columns read (from the footers) when their files changed.
      const discovered = new Map<string, Map<string, DiscoveredTable>>();
      const foundKeys = new Set<string>();
      for (const found of this.discoverTables()) {
        foundKeys.add(discoveryKey(this.config.root, found.schema, found.table));
        schemas.add(found.schema);
        const tables = discovered.get(found.schema) ?? new Map<string, DiscoveredTable>();
        tables.set(found.table, found);
        discovered.set(found.schema, tables);
        await this.discoverColumns(connection, found);
      }
      if (this.config.autoDiscover) forgetColumns(this.config.root, foundKeys);
      for (const schema of this.schemas) {
        if (schemas.has(schema)) continue;
        await connection.run(`DROP SCHEMA IF EXISTS ${db}.${quoteIdentifier(schema)} CASCADE`);
        this.schemas.delete(schema);
        for (const k of [...this.mirrored.keys()]) if (k.startsWith(`${schema}\u0000`)) this.mirrored.delete(k);
        changed = true;
      }
      // A system table (t$partitions) is read from its table's mirror.
      const wanted = new Set(tables.map((t) => key(t.schema, systemTableOf(t.table)?.table ?? t.table)));
      for (const schema of schemas) {
        if (!this.schemas.has(schema)) {
          await connection.run(`CREATE SCHEMA IF NOT EXISTS ${db}.${quoteIdentifier(schema)}`);
          this.schemas.add(schema);
          changed = true;
        }
        if (wanted.size > 0 && this.recoverUnregistered(this.metastore.schemaDirectory(schema))) changed = true;
        const names = new Set([...this.metastore.tableNames(schema), ...(discovered.get(schema)?.keys() ?? [])]);
        for (const k of [...this.mirrored.keys()]) {
          const [s, t] = k.split('\u0000') as [string, string];
          if (s !== schema || names.has(t)) continue;
          await connection.run(`DROP VIEW IF EXISTS ${db}.${quoteIdentifier(s)}.${quoteIdentifier(t)}`);
          await this.dropMacros(connection, s, t);
          this.mirrored.delete(k);
          changed = true;
        }
        for (const table of names) {
          const k = key(schema, table);
          const found = discovered.get(schema)?.get(table);
          const stamp = found ? `discovered:${hashText(discoveredSignature(found))}` : String(this.metastore.tableStamp(schema, table));
          const mirrored = this.mirrored.get(k);
          // A table the statement reads gets its files listed; others only follow their metadata.
          if (mirrored && !wanted.has(k) && mirrored.signature.startsWith(`${stamp}\u0002`)) continue;
          if (await this.mirrorTable(connection, schema, table, stamp, mirrored)) changed = true;
        }
      }
      return changed;
    });
  }

  /** (Re)creates a table's view when its metadata or files changed; a table whose metadata is unusable reads as an error. */
  private async mirrorTable(connection: DuckDBConnection, schema: string, table: string, stamp: string, previous: MirroredTable | undefined): Promise<boolean> {
    const name = `${quoteIdentifier(this.name)}.${quoteIdentifier(schema)}.${quoteIdentifier(table)}`;
    let sql: string;
    let signature: string;
    let directories: string | undefined;
    let read: MirroredTable['read'];
    let declared: Map<string, PrestoType> | undefined;
    let files: readonly DataFile[] | undefined;
    const comments: string[] = [];
    const macros: string[] = [];
    const macro = (macroName: string, body: string) => `CREATE OR REPLACE MACRO ${quoteIdentifier(this.name)}.${quoteIdentifier(schema)}.${quoteIdentifier(macroName)}() AS TABLE ${body}`;
    try {
      const resolved = this.resolve(schema, table);
      if (!resolved) return false;
      if (hasMarker(resolved.location)) recover(resolved.location, this.metastore);
      if (!this.config.recursiveDirectories) {
        const names = resolved.partitionColumns.length === 0 ? [] : this.partitionNames(schema, table, resolved.partitionColumns.length);
        const paths = names.map((name) => relative(resolved.location, this.partitionDirectory(resolved, name)));
        directories = `${stamp}\u0002${directoryStamp(resolved.location, paths)}`;
        if (directories === previous?.directories && (await filesUnchanged(previous.files ?? []))) return false;
      }
      const readable = this.readable(resolved);
      files = readable.files;
      signature = `${stamp}\u0002${filesSignature(readable.files)}\u0002${readable.table.partitions.map((p) => p.name).join('/')}`;
      if (signature === previous?.signature) {
        this.mirrored.set(key(schema, table), { ...previous, ...(directories === undefined ? {} : { directories, files: readable.files }) });
        return false;
      }
      const present = resolved.metadata.storageFormat === 'PARQUET' && readable.files.length > 0 ? await parquetColumns(connection, readable.files.map((f) => f.path), resolved.dataColumns) : undefined;
      read = present ? { presentColumns: present.names, sameColumns: present.same, ...(present.unreadable.size > 0 ? { unreadableColumns: present.unreadable } : {}) } : {};
      const withColumns = { ...readable.table, ...read };
      sql = tableReadSql(withColumns);
      macros.push(macro(hiddenMacro(table), hiddenReadSql(withColumns, readable.files, this.config.root)));
      const properties = propertiesSql(resolved.metadata.parameters ?? {});
      if (properties !== undefined) macros.push(macro(systemMacro(table, 'properties'), properties));
      if (resolved.partitionColumns.length > 0) macros.push(macro(systemMacro(table, 'partitions'), partitionsSql(readable.table)));
      declared = new Map();
      for (const c of [...resolved.dataColumns, ...resolved.partitionColumns]) if (isLossy(c.hive)) declared.set(c.name, prestoTypeOfHive(c.hive));
      // Comments as the metastore keeps them, for DESCRIBE and information_schema.
      for (const c of [...resolved.metadata.dataColumns, ...(resolved.metadata.partitionColumns ?? [])]) {
        if (typeof c.comment === 'string') comments.push(`COMMENT ON COLUMN ${name}.${quoteIdentifier(c.name)} IS ${quoteString(c.comment)}`);
      }
      const tableComment = resolved.metadata.parameters?.comment;
      if (typeof tableComment === 'string') comments.push(`COMMENT ON VIEW ${name} IS ${quoteString(tableComment)}`);
    } catch (err) {
      // Reading it fails with the reason; listing it still works.
      const message = err instanceof Error ? err.message : String(err);
      sql = `SELECT error(${quoteString(`Table '${this.name}.${schema}.${table}' cannot be read: ${message}`)}) AS "error"`;
      signature = `${stamp}\u0002error`;
      directories = undefined;
    }
    await connection.run(`CREATE OR REPLACE VIEW ${name} AS ${sql}`);
    for (const comment of comments) await connection.run(comment);
    await this.dropMacros(connection, schema, table);
    for (const statement of macros) await connection.run(statement);
    this.mirrored.set(key(schema, table), { signature, ...(directories === undefined || files === undefined ? {} : { directories, files }), ...(read ? { read } : {}), ...(declared && declared.size > 0 ? { declared } : {}) });
    return true;
  }

  private async dropMacros(connection: DuckDBConnection, schema: string, table: string): Promise<void> {
    for (const name of [hiddenMacro(table), ...SYSTEM_TABLES.map((k) => systemMacro(table, k))]) {
      await connection.run(`DROP MACRO TABLE IF EXISTS ${quoteIdentifier(this.name)}.${quoteIdentifier(schema)}.${quoteIdentifier(name)}`);
    }
  }

  /** The hidden columns of a table (read from its metadata: the statement may be the first to meet the table here). */
  hiddenColumns(schema: string, table: string): readonly string[] | undefined {
    if (systemTableOf(table)) return undefined;
    try {
      const metadata = this.tableMetadata(schema, table);
      return metadata && hiddenColumnsOf((metadata.partitionColumns ?? []).length > 0);
    } catch {
      return undefined;
    }
  }

  /**
   * A column's extra information as Trino's Hive connector shows it (DESCRIBE's Extra): 'partition key'
   * for a partition column (HiveUtil.columnExtraInfo), else undefined.
   */
  columnExtra(schema: string, table: string, column: string): string | undefined {
    try {
      return this.tableMetadata(schema, table)?.partitionColumns?.some((c) => c.name === column) ? 'partition key' : undefined;
    } catch {
      return undefined;
    }
  }

  /** The relation a table is read from with its hidden columns. */
  hiddenSource(schema: string, table: string, columns: readonly string[]): { sql: string; columns: readonly string[] } {
    return { sql: `${quoteIdentifier(this.name)}.${quoteIdentifier(schema)}.${quoteIdentifier(hiddenMacro(table))}()`, columns };
  }

  /**
   * The SQL reading only the partitions a one-table query's WHERE clause leaves, listed now (as Trino's
   * split source lists the pruned partitions for each query), or undefined when the clause rules none out
   * or the table is not mirrored: the view over every file then serves. The view's footer knowledge holds
   * for any subset of its files. `qualifiers`: the names the table's columns may be qualified by.
   */
  prunedReadSql(schema: string, table: string, where: Expression, qualifiers: ReadonlySet<string>): string | undefined {
    const read = this.mirrored.get(key(schema, table))?.read;
    if (!read) return undefined;
    const resolved = this.resolveQuietly(schema, table);
    if (!resolved || resolved.partitionColumns.length === 0) return undefined;
    const keep = prunableFilter(where, resolved.partitionColumns, qualifiers);
    if (!keep) return undefined;
    return tableReadSql({ ...this.readable(resolved, keep).table, ...read });
  }

  /** The SQL standing for a system table (`t$partitions` of a partitioned table, `t$properties`), or undefined. */
  systemTable(schema: string, name: string): string | undefined {
    const system = systemTableOf(name);
    if (!system) return undefined;
    let metadata: TableMetadata | undefined;
    try {
      metadata = this.tableMetadata(schema, system.table);
    } catch {
      return undefined;
    }
    if (!metadata) return undefined;
    if (system.kind === 'partitions' ? (metadata.partitionColumns ?? []).length === 0 : Object.keys(metadata.parameters ?? {}).length === 0) return undefined;
    return `SELECT * FROM ${quoteIdentifier(this.name)}.${quoteIdentifier(schema)}.${quoteIdentifier(systemMacro(system.table, system.kind))}()`;
  }

  /**
   * A partition's directory: its name under the table's location, or, for an external table with no such
   * directory, the location its metadata names (sync_partition_metadata with case_sensitive => false keeps
   * a `TAG=x` directory as partition tag=x's location, as Trino's procedure registers it). A managed table's
   * partitions are always at their names (FileHiveMetastore refuses others), so only an external table's
   * missing directory costs a metadata read.
   */
  partitionDirectory(resolved: ResolvedHiveTable, name: string): string {
    const directory = join(resolved.location, name);
    if (resolved.metadata.tableType !== 'EXTERNAL_TABLE' || existsSync(directory)) return directory;
    const stored = this.metastore.partition(resolved.schema, resolved.table, name)?.location;
    return typeof stored === 'string' ? this.location(stored) : directory;
  }

  /**
   * The table's partitions and data files. `keep`: the partitions a statement's WHERE clause leaves (by
   * their values, name, or directory relative to the table's location, asked for only when needed); the
   * others are neither checked nor listed, as Trino's HivePartitionManager prunes before the split source
   * lists a directory.
   */
  readable(resolved: ResolvedHiveTable, keep: (values: readonly (string | null)[], name: string, path: () => string) => boolean = () => true): { table: ReadableTable; files: { path: string; size: number; mtimeMs: number }[] } {
    const properties = propertiesOf(resolved.metadata);
    if (!READABLE_FORMATS.has(properties.format as HiveStorageFormat)) throw new VivaceError('NOT_SUPPORTED', `Storage format ${properties.format} is not supported by this catalog (no reader here)`);
    const recursive = this.config.recursiveDirectories;
    const keys = resolved.partitionColumns.map((c) => c.name);
    const files: { path: string; size: number; mtimeMs: number }[] = [];
    const partitions: ReadableTable['partitions'][number][] = [];
    if (keys.length === 0) {
      const listed = listDataFiles(resolved.location, recursive);
      files.push(...listed);
      partitions.push({ values: [], files: listed.map((f) => f.path) });
    } else {
      const check = rootChecker(this.rules);
      for (const partition of this.partitionNames(resolved.schema, resolved.table, keys.length)) {
        const values = parsePartitionName(partition, keys);
        if (!values) continue;
        let found: string | undefined;
        const directoryOf = () => (found ??= this.partitionDirectory(resolved, partition));
        if (!keep(values, partition, () => relative(resolved.location, directoryOf()))) continue;
        const directory = directoryOf();
        check(directory);
        const listed = listDataFiles(directory, recursive);
        files.push(...listed);
        const relocated = directory !== join(resolved.location, partition);
        partitions.push({ values, files: listed.map((f) => f.path), name: partition, ...(relocated ? { relocated } : {}) });
      }
    }
    return { table: { properties, dataColumns: resolved.dataColumns, partitionColumns: resolved.partitionColumns, partitions }, files };
  }
}

const key = (schema: string, table: string) => `${schema}\u0000${table}`;
const discoveryKey = (root: string, schema: string, table: string) => `${root}\u0000${schema}\u0000${table}`;

/** A short, stable digest of a long text (a stamp's part). */
function hashText(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}

function listDirectories(directory: string): string[] {
  try {
    return readdirSync(directory, { withFileTypes: true }).filter((e) => e.isDirectory() && !e.name.startsWith('.')).map((e) => e.name);
  } catch {
    return [];
  }
}

/**
 * The lower-case column names the Parquet files' footers have (union over the files), whether every
 * file has the same columns of the same types (then a reader needs no union by name, which reads every
 * file's footer at each bind: ~20 ms a statement for 84 files), and the declared data columns some file
 * holds in a type Trino would not read as declared (parquet-column-types.ts), with Trino's message.
 */
async function parquetColumns(connection: DuckDBConnection, files: readonly string[], declared: readonly { name: string; hive: HiveType }[]): Promise<{ names: Set<string>; same: boolean; unreadable: Map<string, string> }> {
  const rows = (await connection.runAndReadAll(parquetSchemaSql(`[${files.map(quoteString).join(', ')}]`))).getRows();
  const names = new Set<string>();
  const byFile = new Map<string, string[]>();
  for (const [file, name, type, , logical] of rows) {
    names.add(String(name).toLowerCase());
    const list = byFile.get(String(file)) ?? [];
    list.push(`${String(name).toLowerCase()}:${String(type)}:${String(logical ?? '')}`);
    byFile.set(String(file), list);
  }
  const shapes = new Set([...byFile.values()].map((l) => l.sort().join(',')));
  const unreadable = unreadableColumns(declared.map((c) => ({ name: c.name, type: prestoTypeOfHive(c.hive) })), topLevelColumns(rows).values());
  return { names, same: shapes.size <= 1 && byFile.size === files.length, unreadable };
}
