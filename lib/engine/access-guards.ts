// The access control's tables rules where the engine meets them: the columns of tables read through a
// mask or row filter (the subquery standing for such a table lists them), the types of masks and filters
// (Trino's TYPE_MISMATCH before anything runs), and the listings' SQL functions that hide the tables and
// columns a user may not see (information_schema, system.jdbc).
import { BOOLEAN, DuckDBScalarFunction, VARCHAR, type DuckDBConnection, type DuckDBType } from '@duckdb/node-api';
import type { Expression, Node, Statement } from '../sql/ast.js';
import type { GuardedRead, GuardedSql, TranslationContext } from '../sql/duckdb-translation.js';
import { partsOf, qualifyTable, type QualifiedTable } from '../sql/names.js';
import { quoteIdentifier, quoteString } from '../sql/sql-formatter.js';
import type { GuardExpression, StatementAccess, TableGuard } from '../sql/table-access.js';
import { walk } from '../sql/tree-walk.js';
import { formatType } from '../protocol/presto-type.js';
import type { PrestoType } from '../protocol/types.js';
import { VivaceError } from '../protocol/vivace-error.js';
import { prestoTypeOf } from '../connectors/duckdb-types.js';
import { CatalogNames } from './dialect/catalog-names.js';
import { rows } from './dialect/catalog-metadata.js';
import { tpchTableColumns } from '../connectors/tpch/tpch-metadata.js';
import { TPCH_CATALOG } from '../connectors/tpch/tpch-schemas.js';

export const TABLE_VISIBLE_FUNCTION = 'vivace_table_visible';
export const COLUMN_VISIBLE_FUNCTION = 'vivace_column_visible';
export const SCHEMA_VISIBLE_FUNCTION = 'vivace_schema_visible';

/** The masks and filters a read is printed inside of, outermost first: a table met again under its own is recursion. */
export type GuardPath = readonly { key: string; what: string; error: 'INVALID_ROW_FILTER' | 'INVALID_COLUMN_MASK' }[];

const keyOf = (t: QualifiedTable) => `${t.catalog}\u0000${t.schema}\u0000${t.table}`;

/**
 * vivace_table_visible(user, catalog, schema, table) and vivace_column_visible(user, catalog, schema,
 * table, column): the access control's listing rules as SQL functions. A rules file that fails to load
 * hides everything rather than failing a listing half-way.
 */
export function accessFunctions(access: StatementAccess): DuckDBScalarFunction[] {
  const fn = (name: string, arity: number, visible: (args: string[]) => boolean) =>
    DuckDBScalarFunction.create({
      name,
      returnType: BOOLEAN,
      parameterTypes: Array.from({ length: arity }, () => VARCHAR),
      mainFunction: (_info, input, output) => {
        const columns = Array.from({ length: arity }, (_, i) => input.getColumnValues(i));
        for (let row = 0; row < input.rowCount; row++) {
          const args = columns.map((c) => c[row]);
          let answer = false;
          if (args.every((a) => typeof a === 'string')) {
            try {
              answer = visible(args as string[]);
            } catch {
              answer = false;
            }
          }
          output.setItem(row, answer);
        }
        output.flush();
      },
    });
  return [
    fn(SCHEMA_VISIBLE_FUNCTION, 3, ([user, catalog, schema]) => access.schemaVisible(user!, catalog!, schema!)),
    fn(TABLE_VISIBLE_FUNCTION, 4, ([user, catalog, schema, table]) => access.tableVisible(user!, { catalog: catalog!, schema: schema!, table: table! })),
    fn(COLUMN_VISIBLE_FUNCTION, 5, ([user, catalog, schema, table, column]) => access.columnVisible(user!, { catalog: catalog!, schema: schema!, table: table! }, column!)),
  ];
}

/** The listings that name schemas, tables and columns, by `schema.table` (information_schema's in any catalog): their name columns. */
const LISTINGS: Record<string, { catalog: string; schema: string; table?: string; column?: string }> = {
  'information_schema.schemata': { catalog: 'catalog_name', schema: 'schema_name' },
  'jdbc.schemas': { catalog: 'table_catalog', schema: 'table_schem' },
  'information_schema.tables': { catalog: 'table_catalog', schema: 'table_schema', table: 'table_name' },
  'information_schema.views': { catalog: 'table_catalog', schema: 'table_schema', table: 'table_name' },
  'information_schema.columns': { catalog: 'table_catalog', schema: 'table_schema', table: 'table_name', column: 'column_name' },
  'jdbc.tables': { catalog: 'table_cat', schema: 'table_schem', table: 'table_name' },
  'jdbc.columns': { catalog: 'table_cat', schema: 'table_schem', table: 'table_name', column: 'column_name' },
  'metadata.table_comments': { catalog: 'catalog_name', schema: 'schema_name', table: 'table_name' },
};

/**
 * `inner` (the SQL of a listing table, or undefined for the table itself) with only the rows `user` may
 * see; undefined when the table lists no schemas, tables or columns.
 */
export function listingSql(table: QualifiedTable, inner: string | undefined, user: string): string | undefined {
  const listing = table.schema === 'information_schema' ? LISTINGS[`information_schema.${table.table}`] : table.catalog === 'system' ? LISTINGS[`${table.schema}.${table.table}`] : undefined;
  if (!listing) return undefined;
  const source = inner === undefined ? [CatalogNames.duckdbName(table.catalog), table.schema, table.table].map(quoteIdentifier).join('.') : `(${inner})`;
  const names = [listing.catalog, listing.schema, listing.table, listing.column].filter((c) => c !== undefined).map(quoteIdentifier).join(', ');
  const fn = listing.table === undefined ? SCHEMA_VISIBLE_FUNCTION : listing.column === undefined ? TABLE_VISIBLE_FUNCTION : COLUMN_VISIBLE_FUNCTION;
  const visible = `${fn}(${quoteString(user)}, ${names})`;
  return `SELECT * FROM ${source} WHERE ${visible}`;
}

/** Per statement plan: the guards of the tables it may read and the columns of those tables. */
export class StatementGuards {
  private readonly columns = new Map<string, readonly string[]>();
  private readonly pending: QualifiedTable[] = [];

  constructor(
    private readonly access: StatementAccess,
    private readonly user: string,
    /**
     * Holds a mask or filter to the statement gate's allow-list and to the rights of `user`, whom it runs
     * as, its names resolved in its table's schema.
     */
    private readonly admit: (expression: Expression, text: string, table: QualifiedTable, user: string) => void,
  ) {}

  /**
   * The tables of `statement` (resolved in the session) and of the masks and filters that guard them,
   * as each guard's user reads them, whose columns the translation will need: tpch's are known, the
   * others wait for fetchColumns.
   */
  collect(statement: Statement, session: { catalog?: string; schema?: string }): this {
    const queue: { node: Node; user: string; catalog?: string; schema?: string }[] = [{ node: statement, user: this.user, ...session }];
    const seen = new Set<string>();
    while (queue.length > 0) {
      const { node, user, catalog, schema } = queue.shift()!;
      walk(node, (n) => {
        if (n.type !== 'Table') return true;
        const parts = partsOf(n.name);
        const table = parts.length <= 3 ? qualifyTable(parts, catalog, schema) : undefined;
        const guard = table && this.guardOf(user, table);
        if (!table || !guard || seen.has(`${user}\u0000${keyOf(table)}`)) return true;
        seen.add(`${user}\u0000${keyOf(table)}`);
        this.need(table);
        for (const part of [...guard.masks.values(), ...(guard.filter ? [guard.filter] : [])]) {
          queue.push({ node: part.expression, user: part.user ?? user, catalog: table.catalog, schema: table.schema });
        }
        return true;
      });
    }
    return this;
  }

  /** Whether some guarded table's columns must come from DuckDB's catalog. */
  get needsColumns(): boolean {
    return this.pending.length > 0;
  }

  /** The columns of the guarded tables that are not tpch's, from DuckDB's catalog. */
  async fetchColumns(connection: DuckDBConnection): Promise<void> {
    for (const table of this.pending.splice(0)) {
      const found = await rows(
        connection,
        `SELECT column_name FROM duckdb_columns() WHERE database_name = $1 AND schema_name = $2 AND table_name = $3 ORDER BY column_index`,
        [CatalogNames.duckdbName(table.catalog), table.schema, table.table],
      );
      this.columns.set(keyOf(table), found.map((r) => String(r[0])));
    }
  }

  /**
   * The printer's hook (TranslationContext.guardedRead) for reads as `user` inside the masks and filters of
   * `path`. A mask or filter that reads its own table as the same user again is Trino's recursion error.
   */
  readAs(user: string, path: GuardPath, contextOf: (user: string, table: QualifiedTable, path: GuardPath) => TranslationContext): (table: QualifiedTable) => GuardedRead | undefined {
    return (table) => {
      const guard = this.guardOf(user, table);
      if (!guard) return undefined;
      const key = `${user}\u0000${keyOf(table)}`;
      const loop = path.find((p) => p.key === key);
      if (loop) throw new VivaceError(loop.error, `${loop.what} is recursive`);
      const columns = this.columns.get(keyOf(table)) ?? tpchColumnsOf(table);
      // Fail closed: a guarded table is never printed without knowing its columns.
      if (columns === undefined) throw new VivaceError('GENERIC_INTERNAL_ERROR', `The columns of ${table.catalog}.${table.schema}.${table.table} are not known to apply its masks`);
      const existing = new Set(columns);
      const name = `${table.catalog}.${table.schema}.${table.table}`;
      const part = (p: GuardExpression, step: GuardPath[number]) => {
        this.admit(p.expression, p.text, table, p.user ?? user);
        return { expression: p.expression, text: p.text, context: contextOf(p.user ?? user, table, [...path, step]) };
      };
      return {
        columns,
        excluded: guard.restrictedColumns.filter((c) => existing.has(c)),
        masks: [...guard.masks]
          .filter(([column]) => existing.has(column))
          .map(([column, mask]) => ({ column, ...part(mask, { key, what: `Column mask for '${name}.${column}'`, error: 'INVALID_COLUMN_MASK' }) })),
        ...(guard.filter ? { filter: part(guard.filter, { key, what: `Row filter for '${name}'`, error: 'INVALID_ROW_FILTER' }) } : {}),
      };
    };
  }

  private guardOf(user: string, table: QualifiedTable): TableGuard | undefined {
    return this.access.tableGuard(user, table);
  }

  private need(table: QualifiedTable): void {
    if (tpchColumnsOf(table) !== undefined || this.columns.has(keyOf(table))) return;
    if (!this.pending.some((t) => keyOf(t) === keyOf(table))) this.pending.push(table);
  }
}

/**
 * The guards a user's statement may meet, the columns of their tables fetched on a pooled connection
 * when DuckDB's catalog must tell them (tpch's are known without it).
 */
export async function statementGuards(
  access: StatementAccess,
  statement: Statement,
  session: { user: string; catalog?: string; schema?: string },
  pool: { acquire(): Promise<DuckDBConnection>; release(connection: DuckDBConnection): void },
  admit: (expression: Expression, text: string, table: QualifiedTable, user: string) => void,
): Promise<StatementGuards> {
  const guards = new StatementGuards(access, session.user, admit).collect(statement, session);
  if (!guards.needsColumns) return guards;
  const connection = await pool.acquire();
  try {
    await guards.fetchColumns(connection);
  } finally {
    pool.release(connection);
  }
  return guards;
}

function tpchColumnsOf(table: QualifiedTable): readonly string[] | undefined {
  if (CatalogNames.duckdbName(table.catalog) !== TPCH_CATALOG) return undefined;
  return tpchTableColumns(table.table)?.map((c) => c.name);
}

const INTEGERS = ['tinyint', 'smallint', 'integer', 'bigint'];
const NUMBERS = [...INTEGERS, 'real', 'double'];

/** Whether Trino coerces a mask's type to its column's (TypeCoercion.canCoerce, for the types masks meet). */
function coercible(from: PrestoType, to: PrestoType): boolean {
  if (from.base === 'unknown' || from.base === 'null' || formatType(from, 'trino') === formatType(to, 'trino')) return true;
  if (from.base === to.base && ['varchar', 'char', 'decimal', 'timestamp', 'time'].includes(from.base)) return true;
  if (INTEGERS.includes(from.base) && INTEGERS.includes(to.base)) return INTEGERS.indexOf(from.base) <= INTEGERS.indexOf(to.base);
  if (INTEGERS.includes(from.base) && (to.base === 'decimal' || to.base === 'real' || to.base === 'double')) return true;
  return NUMBERS.includes(from.base) && to.base === 'double';
}

const typeOf = (t: DuckDBType): PrestoType => {
  try {
    return prestoTypeOf(t);
  } catch {
    return { base: t.toString().toLowerCase() };
  }
};

/**
 * Trino's analysis of masks and filters: a mask must have its column's type (or one Trino coerces to
 * it), a filter must be boolean. Checked on DuckDB's plan of the guarded SQL, before the statement runs.
 */
export async function checkGuardTypes(connection: DuckDBConnection, guarded: readonly GuardedSql[], databaseOf: (catalog: string) => string): Promise<void> {
  for (const read of guarded) {
    const { table } = read;
    const items = read.masks.flatMap((m, i) => [`(${m.sql}) AS "m${i}"`, `${quoteIdentifier(m.column)} AS "c${i}"`]);
    if (read.filter !== undefined) items.push(`(${read.filter}) AS "f"`);
    if (items.length === 0) continue;
    const from = [databaseOf(table.catalog), table.schema, table.table].map(quoteIdentifier).join('.');
    // A table that is not there fails the statement itself, with Trino's message.
    const prepared = await connection.prepare(`SELECT ${items.join(', ')} FROM ${from}`).catch(() => undefined);
    if (!prepared) continue;
    try {
      const at = read.location ? `line ${read.location.lineNumber}:${read.location.columnNumber}: ` : '';
      read.masks.forEach((m, i) => {
        const mask = typeOf(prepared.columnType(2 * i));
        const column = typeOf(prepared.columnType(2 * i + 1));
        if (!coercible(mask, column)) {
          throw new VivaceError('TYPE_MISMATCH', `${at}Expected column mask for '${table.catalog}.${table.schema}.${table.table}.${m.column}' to be of type ${formatType(column, 'trino')}, but was ${formatType(mask, 'trino')}`);
        }
      });
      if (read.filter !== undefined) {
        const filter = typeOf(prepared.columnType(items.length - 1));
        if (!['boolean', 'unknown', 'null'].includes(filter.base)) {
          throw new VivaceError('TYPE_MISMATCH', `${at}Expected row filter for '${table.catalog}.${table.schema}.${table.table}' to be of type BOOLEAN, but was ${formatType(filter, 'trino')}`);
        }
      }
    } finally {
      prepared.destroySync();
    }
  }
}
