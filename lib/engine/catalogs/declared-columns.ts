// The Trino types the memory catalog's tables declare where DuckDB's column types lose them
// (varchar(n) is VARCHAR, time(3) is TIME, ...): kept per engine from the DDL that ran
// (lib/sql/column-declarations.ts), read by query output types, DESCRIBE, information_schema and
// system.jdbc (through the vivace_declared_type SQL function). A transaction's changes count from its
// COMMIT; a ROLLBACK drops them. With a file (a worker's memory catalog on disk) the registry is read from
// it at start and written back, whole and atomically, after every change that counts.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { VARCHAR, type DuckDBScalarFunction } from '@duckdb/node-api';
import { textScalarFunction } from '../row-scalar-function.js';
import { jsonSyntaxProblem } from '../../log/json-syntax.js';
import { defaultLogger, type Logger } from '../../log/logger.js';
import type { PrestoType } from '../../protocol/types.js';
import { formatType } from '../../protocol/presto-type.js';
import type { ColumnChange } from '../../sql/column-declarations.js';
import type { QualifiedTable } from '../../sql/names.js';

const keyOf = (t: { catalog: string; schema: string; table: string }) => `${t.catalog}\u0000${t.schema}\u0000${t.table}`;

/** The file's form: entries of the two maps, keys as in memory. */
interface Persisted {
  version: 1;
  tables: [string, [string, PrestoType][]][];
  views: [string, string][];
}

export class DeclaredColumns {
  private readonly tables = new Map<string, Map<string, PrestoType>>();
  /** Views' queries as written in Trino SQL, by table key. */
  private readonly views = new Map<string, string>();
  private readonly file: string | undefined;
  /** Connectors that declare their own tables' types (a hive catalog's metastore), asked first. */
  private readonly sources: ((table: QualifiedTable) => ReadonlyMap<string, PrestoType> | undefined)[] = [];

  /** `logger`: where an unreadable file is reported (default: the process's logger). */
  constructor(options: { file?: string; logger?: Logger } = {}) {
    this.file = options.file;
    if (this.file !== undefined) this.load(this.file, options.logger ?? defaultLogger());
  }

  /** Adds a connector's declarations (they are its metastore's, never recorded or saved here). */
  addSource(source: (table: QualifiedTable) => ReadonlyMap<string, PrestoType> | undefined): void {
    this.sources.push(source);
  }

  /** The declared types of a table's columns by lower-case name, or undefined when it declares none. */
  get(table: QualifiedTable): ReadonlyMap<string, PrestoType> | undefined {
    for (const source of this.sources) {
      const found = source(table);
      if (found) return found;
    }
    const columns = this.tables.get(keyOf(table));
    return columns && columns.size > 0 ? columns : undefined;
  }

  /** A view's query in Trino SQL, as CREATE VIEW gave it. */
  viewSql(table: QualifiedTable): string | undefined {
    return this.views.get(keyOf(table));
  }

  /** The declared type of one column (names compared in lower case). */
  typeOf(catalog: string, schema: string, table: string, column: string): PrestoType | undefined {
    const name = { catalog: catalog.toLowerCase(), schema: schema.toLowerCase(), table: table.toLowerCase() };
    for (const source of this.sources) {
      const found = source(name)?.get(column.toLowerCase());
      if (found) return found;
    }
    return this.tables.get(keyOf({ catalog: catalog.toLowerCase(), schema: schema.toLowerCase(), table: table.toLowerCase() }))?.get(column.toLowerCase());
  }

  /**
   * Changes of a statement that ran. Writes inside a transaction are refused (statement-gate.ts,
   * AUTOCOMMIT_WRITE_CONFLICT, as Trino's memory connector), so every change counts at once.
   */
  record(changes: readonly ColumnChange[]): void {
    if (changes.length === 0) return;
    for (const change of changes) this.apply(change);
    this.save();
  }

  /** A missing file is an empty registry; an unreadable one too, logged once (the tables still work). */
  private load(file: string, logger: Logger): void {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      return;
    }
    try {
      const data = JSON.parse(text) as Persisted;
      if (data.version !== 1 || !Array.isArray(data.tables) || !Array.isArray(data.views)) throw new Error('unknown form');
      for (const [key, columns] of data.tables) this.tables.set(key, new Map(columns));
      for (const [key, sql] of data.views) this.views.set(key, sql);
    } catch (err) {
      this.tables.clear();
      this.views.clear();
      // Without the file's text: it holds users' view SQL.
      logger.warn({ component: 'memory-catalog', event: 'declared_columns_unreadable', path: file, message: jsonSyntaxProblem(err) });
    }
  }

  /** Written to a temporary file and renamed over the old one, so a crash leaves one or the other whole. */
  private save(): void {
    if (this.file === undefined) return;
    const data: Persisted = { version: 1, tables: [...this.tables].map(([key, columns]) => [key, [...columns]]), views: [...this.views] };
    const temporary = `${this.file}.tmp`;
    writeFileSync(temporary, JSON.stringify(data));
    renameSync(temporary, this.file);
  }

  private apply(change: ColumnChange): void {
    switch (change.kind) {
      case 'define':
        this.tables.set(keyOf(change.table), new Map(change.columns));
        if (change.viewSql === undefined) this.views.delete(keyOf(change.table));
        else this.views.set(keyOf(change.table), change.viewSql);
        return;
      case 'drop':
        this.tables.delete(keyOf(change.table));
        this.views.delete(keyOf(change.table));
        return;
      case 'dropSchema':
        for (const map of [this.tables, this.views]) {
          for (const key of [...map.keys()]) if (key.startsWith(`${change.catalog}\u0000${change.schema}\u0000`)) map.delete(key);
        }
        return;
      case 'rename': {
        const columns = this.tables.get(keyOf(change.table));
        const view = this.views.get(keyOf(change.table));
        this.tables.delete(keyOf(change.table));
        this.views.delete(keyOf(change.table));
        if (columns) this.tables.set(keyOf(change.to), columns);
        if (view !== undefined) this.views.set(keyOf(change.to), view);
        return;
      }
      case 'addColumn': {
        const key = keyOf(change.table);
        const columns = this.tables.get(key) ?? new Map<string, PrestoType>();
        columns.set(change.column, change.type);
        this.tables.set(key, columns);
        return;
      }
      case 'dropColumn':
        this.tables.get(keyOf(change.table))?.delete(change.column);
        return;
      case 'renameColumn': {
        const columns = this.tables.get(keyOf(change.table));
        const type = columns?.get(change.column);
        if (!columns || !type) return;
        columns.delete(change.column);
        columns.set(change.to, type);
        return;
      }
    }
  }
}

/** vivace_declared_type(database, schema, table, column): a declared type as `DECLARED_TYPE_PREFIX` + its JSON, or NULL. */
export const DECLARED_TYPE_FUNCTION = 'vivace_declared_type';
/** vivace_declared_type_name(database, schema, table, column): a declared type's Trino name, or NULL. */
export const DECLARED_TYPE_NAME_FUNCTION = 'vivace_declared_type_name';
export const DECLARED_TYPE_PREFIX = 'vivace-declared:';

/** The declared type a vivace_declared_type() text carries, or undefined for any other text. */
export function declaredTypeOfText(text: string): PrestoType | undefined {
  return text.startsWith(DECLARED_TYPE_PREFIX) ? (JSON.parse(text.slice(DECLARED_TYPE_PREFIX.length)) as PrestoType) : undefined;
}

/** The SQL functions the catalog listings read the registry through (databases are DuckDB's names). */
export function declaredColumnFunctions(declared: DeclaredColumns, catalogOf: (database: string) => string | undefined): DuckDBScalarFunction[] {
  const lookup = ([database, schema, table, column]: (string | null)[]) => {
    const catalog = database === null || database === undefined ? undefined : catalogOf(database);
    return catalog === undefined || !schema || !table || !column ? undefined : declared.typeOf(catalog, schema, table, column);
  };
  const fn = (name: string, text: (type: PrestoType) => string) =>
    textScalarFunction(name, VARCHAR, [VARCHAR, VARCHAR, VARCHAR, VARCHAR], (args) => {
      const type = lookup(args);
      return type === undefined ? null : text(type);
    });
  return [fn(DECLARED_TYPE_FUNCTION, (t) => DECLARED_TYPE_PREFIX + JSON.stringify(t)), fn(DECLARED_TYPE_NAME_FUNCTION, (t) => formatType(t, 'trino'))];
}
