// Prints a Trino tree as the DuckDB SQL that means the same: the translation every user statement takes to
// the engine. Only the tree reaches DuckDB, never the user's text. Names are quoted and resolved against
// the session (tables fully qualified, catalogs mapped to DuckDB databases), literals and types take
// DuckDB's spelling, and divisions, intervals and a few calls take the project's macros.
// Everything not overridden here prints as Trino SQL (SqlPrinter): DuckDB reads that the same way.
import type {
  DataType,
  Expression,
  FunctionCall,
  Identifier,
  LambdaExpression,
  Node,
  QualifiedName,
  Query,
  QueryBody,
  QuerySpecification,
  Relation,
  SelectItem,
  Statement,
  Table,
} from './ast.js';
import { SqlPrinter, quoteIdentifier, quoteString } from './sql-formatter.js';
import { duckdbType, hasRepeatedFieldNames, numeric, withoutRepeatMarks } from './duckdb-type-names.js';
import { dateLiteral, temporalLiteralCast, timeLiteral, timestampLiteral } from './temporal-literal-values.js';
import { parseZone } from './time-zones.js';
import { isColumn, mayMeetZones, typedColumnsIn, zonedMacro } from './zoned-timestamps.js';
import { ZonedTranslation } from './zoned-translation.js';
import { knownZone } from './static-zones.js';
import { InstantGrouping } from './zoned-grouping.js';
import { translateCall, type CallPrinter } from './duckdb-functions.js';
import { isSketchAggregate, sketchAggregate, sketchScalar, SKETCH_FUNCTION_NAMES } from './sketch-calls.js';
import { lookupFunction, resolveFunctionName } from './function-catalog.js';
import { declaredType } from './declared-types.js';
import { childrenOf, walk } from './tree-walk.js';
import { fold, partsOf, qualifyTable, type QualifiedTable } from './names.js';
import { positionAt } from './syntax-error.js';
import { IP_ADDRESS_FUNCTIONS, ifIpAddressSql, invalidIpAddressMessage, ipAddressValueSql, isIpAddressExpression, parseIpAddress } from './ip-address.js';
import type { ErrorName } from '../protocol/error-codes.js';
import { VivaceError } from '../protocol/vivace-error.js';

/** What a translation resolves names against. */
export interface TranslationContext {
  /** The session's catalog and schema: a name missing either is MISSING_CATALOG_NAME / MISSING_SCHEMA_NAME. */
  catalog?: string;
  schema?: string;
  timeZone?: string;
  /** The session's user (current_user). */
  user?: string;
  /** The query's start, epoch milliseconds: what current_timestamp and its kin read (zoned-translation.ts); absent: DuckDB's transaction start. */
  queryStart?: number;
  /** The server's version (version()). */
  version?: string;
  /** The DuckDB database serving a Presto catalog (`system` -> `vivace_system`). */
  databaseOf(catalog: string): string;
  /** SQL standing for a table the engine serves itself (information_schema), or undefined. */
  virtualTable?(catalog: string, schema: string, table: string): string | undefined;
  /**
   * A table's hidden columns (tpch's row_number), each with the DuckDB SQL computing it over the table's
   * columns: a statement naming one reads the table with them, and its `*` leaves them out, as in Trino.
   */
  hiddenColumns?(table: TableReference): readonly { name: string; sql: string }[] | undefined;
  /**
   * A relation reading the table with every one of its hidden columns after its own (a hive table's `$path`
   * comes from its files), or undefined: the hidden columns are computed over the table itself.
   */
  hiddenSource?(table: TableReference): { sql: string; columns: readonly string[] } | undefined;
  /**
   * A relation reading only what the WHERE clause of a query over this one table can reach (a hive table's
   * pruned partitions), or undefined: the table is read whole. `qualifiers`: the names a column may be
   * qualified by in `where` (the table's name or alias).
   */
  prunedSource?(table: TableReference, where: Expression, qualifiers: ReadonlySet<string>): string | undefined;
  /**
   * The access control's column masks and row filter on the user's reads of a table, or undefined: the
   * table is read as it is. With them, every read of the table reads a subquery instead (guardedSql).
   */
  guardedRead?(table: TableReference): GuardedRead | undefined;
  /** Catalogs whose tables hold no zoned value, besides tpch (zoned-timestamps.ts mayMeetZones). */
  zoneFreeCatalogs?: ReadonlySet<string>;
}

/** A table read through masks and a row filter: each a Trino expression, printed in its own context. */
export interface GuardedRead {
  /** The table's columns, in order: the subquery that stands for the table has these, but the excluded. */
  columns: readonly string[];
  /** Columns the user may not read (`allow: false`): left out of the subquery, whatever would reach them. */
  excluded: readonly string[];
  /** Masks of existing columns only; each expression reads the table's raw columns. */
  masks: readonly (GuardPart & { column: string })[];
  filter?: GuardPart;
}

export interface GuardPart {
  expression: Expression;
  /** The expression's text (its error locations). */
  text: string;
  /** Its names resolve in the table's catalog and schema, and it reads other tables as its environment's user. */
  context: TranslationContext;
}

/** The DuckDB SQL of a table's masks and filter, as one statement printed them (the engine checks their types). */
export interface GuardedSql {
  table: TableReference;
  /** Where the statement names the table (Trino places a mask's type error there). */
  location?: { lineNumber: number; columnNumber: number };
  masks: readonly { column: string; sql: string }[];
  filter?: string;
}

/** A table a statement reads or writes, by its Presto name (lower case). */
export type TableReference = QualifiedTable;

/** Marks around a traced node's text (private-use characters): start, index/text separator, end. */
export const TRACE = { open: '\uE000', separator: '\uE001', close: '\uE002' } as const;

/**
 * A cast to varchar(n) or char(n) printed as DuckDB's cast to VARCHAR (`text`), cut to n code points as
 * Trino cuts it (CAST('bbb' AS varchar(1)) is 'b'); char(n) drops its trailing spaces as Trino keeps a
 * char value, and the renderer pads it back to n (row-renderer.ts). Other targets: `text` as it is.
 */
function boundedText(target: DataType, text: string): string {
  if (target.type !== 'GenericDataType') return text;
  const name = fold(target.name.value);
  const length = numeric(target.arguments[0]);
  if (name === 'varchar' && length !== undefined) return `system.main.left(${text}, ${length})`;
  if (name === 'char') return `system.main.rtrim(system.main.left(${text}, ${length ?? 1}), ' ')`;
  return text;
}

/**
 * The CHECK constraint of a varchar(n) or char(n) column, which refuses a value longer than n but for
 * trailing spaces as Trino's INSERT does (GENERIC_USER_ERROR, duckdb-errors.ts). Trino names the value's
 * type in its message; the length of the value stands for it here (exact for a literal).
 */
function boundedColumnCheck(column: string, type: DataType): string {
  if (type.type !== 'GenericDataType') return '';
  const name = fold(type.name.value);
  const length = name === 'char' ? (numeric(type.arguments[0]) ?? 1) : name === 'varchar' ? numeric(type.arguments[0]) : undefined;
  if (length === undefined) return '';
  const message = `'Cannot truncate non-space characters when casting from varchar(' || system.main.length(${column}) || ') to ${name}(${length}) on INSERT'`;
  return ` CHECK (CASE WHEN system.main.length(system.main.rtrim(${column}, ' ')) > ${length} THEN system.main.error(${message}) ELSE true END)`;
}

/** Trino's decimal literal type: leading zeros do not count, and precision is at least 1. */
export function decimalLiteralType(text: string): { precision: number; scale: number } | undefined {
  let i = 0;
  if (text[i] === '+' || text[i] === '-') i++;
  let integral = '';
  let fraction = '';
  let seenPoint = false;
  for (; i < text.length; i++) {
    const c = text[i]!;
    if (c === '.' && !seenPoint) seenPoint = true;
    else if (c >= '0' && c <= '9') {
      if (seenPoint) fraction += c;
      else if (integral !== '' || c !== '0') integral += c;
    } else return undefined;
  }
  if (integral === '' && fraction === '' && !text.includes('0')) return undefined;
  return { precision: Math.max(1, integral.length + fraction.length), scale: fraction.length };
}

/** The one table a query specification reads and the WHERE clause over it, the qualifiers its columns may take. */
interface Pruning {
  table: Table;
  where: Expression;
  qualifiers: ReadonlySet<string>;
}

function pruningOf(b: QuerySpecification): Pruning | undefined {
  if (!b.where || !b.from) return undefined;
  if (b.from.type === 'Table') return { table: b.from, where: b.where, qualifiers: new Set([fold(b.from.name.parts[b.from.name.parts.length - 1]!.value)]) };
  if (b.from.type === 'AliasedRelation' && b.from.relation.type === 'Table') return { table: b.from.relation, where: b.where, qualifiers: new Set([fold(b.from.alias.value)]) };
  return undefined;
}

/**
 * The DuckDB printer of one statement. `tables` collects what the statement names; with `trace`, the text
 * of every expression and table carries marks of its source offset (duckdb-translation.ts reads them to
 * point DuckDB's errors back at the statement as written).
 */
export class DuckDbPrinter extends SqlPrinter implements CallPrinter {
  readonly tables: TableReference[] = [];
  /** DuckDB statements to run after the statement, on its connection: what DuckDB cannot say in it (column comments in CREATE TABLE). */
  readonly followUps: string[] = [];
  /** Where in the source the traced nodes lie, by mark index. */
  readonly marks: { start: number; end: number }[] = [];
  /** The masks and filters the statement's reads went through. */
  readonly guarded: GuardedSql[] = [];
  private readonly cteNames = new Set<string>();
  /** Every name the statement writes outside qualified names (table and function names): which hidden columns it may read. */
  private readonly writtenNames = new Set<string>();
  /** Whether the statement has a row type that names a field twice (casts of it to JSON drop DuckDB's suffixes). */
  private repeatsFieldNames = false;
  /** Per query specification being printed, its FROM tables read with hidden columns: what its `*` leaves out. */
  private readonly hiddenInScope: HiddenRead[][] = [];
  /** The query body whose scope query() pushed (it prints within it). */
  private scopedBody: QueryBody | undefined;
  /** The one table of the query specification being printed, with its WHERE clause (prunedSource). */
  private pruning: Pruning | undefined;
  /** Lambda parameters standing for something else while their body prints (map_filter's `vivace_e.key`). */
  private readonly bindings = new Map<string, string>();
  private tryDepth = 0;
  /** Whether the statement may meet zoned values: only then are values read through the zoned macros. */
  private meetsZones = false;
  /** Whether columns take the typed zoned macros directly (not in a statement with a subquery: typedColumnsIn). */
  private typedColumns = true;
  /** What makes and reads timestamp with time zone values (zoned-translation.ts). */
  private readonly zones: ZonedTranslation;

  constructor(
    private readonly context: TranslationContext,
    /** The statement's text, for the locations of errors found while translating. */
    private readonly sql: string,
    private readonly trace = false,
  ) {
    super();
    this.zones = new ZonedTranslation({
      expression: (e) => this.expression(e),
      dataType: (t) => this.dataType(t),
      meetsZones: () => this.meetsZones,
      typedColumns: () => this.typedColumns,
      sessionZoneName: (knownZone(context.timeZone ?? 'UTC') ?? parseZone(context.timeZone ?? 'UTC'))?.name ?? 'UTC',
      queryStart: context.queryStart,
      fail: (node, name, message) => this.fail(node, name, message),
    });
  }

  /** Whether the SQL printed holds the query's start (TranslationContext.queryStart). */
  get readsQueryStart(): boolean {
    return this.zones.readsQueryStart;
  }

  get timeZone(): string | undefined {
    return this.context.timeZone;
  }

  get version(): string | undefined {
    return this.context.version;
  }

  /** The DuckDB SQL of a statement. */
  translate(statement: Statement): string {
    walk(statement, (node, parent) => {
      if (node.type === 'WithQuery') this.cteNames.add(fold(node.name.value));
      else if (node.type === 'Identifier' && parent?.type !== 'QualifiedName') this.writtenNames.add(fold(node.value));
      else if (hasRepeatedFieldNames(node as DataType)) this.repeatsFieldNames = true;
    });
    this.meetsZones = mayMeetZones(statement, this.context.catalog, this.context.schema, this.context.zoneFreeCatalogs);
    this.typedColumns = !this.meetsZones || typedColumnsIn(statement);
    // Where zoned values may be met, groupings read instants (zoned-grouping.ts).
    return this.statement(this.meetsZones ? new InstantGrouping((e) => this.zones.staticZone(e) !== undefined, this.typedColumns).rewrite(statement) : statement);
  }

  /** The DuckDB SQL of a standalone expression (a mask or row filter of the access control). */
  translateExpression(expression: Expression): string {
    walk(expression, (node, parent) => {
      if (node.type === 'WithQuery') this.cteNames.add(fold(node.name.value));
      else if (node.type === 'Identifier' && parent?.type !== 'QualifiedName') this.writtenNames.add(fold(node.value));
    });
    // Zoned values are read through the zoned macros whatever the table: always correct, slower only there.
    this.meetsZones = true;
    this.typedColumns = typedColumnsIn(expression);
    return this.expression(expression);
  }

  private fail(node: Node, name: ErrorName, message: string): VivaceError {
    const location = positionAt(this.sql, node.location.start);
    return new VivaceError(name, `line ${location.lineNumber}:${location.columnNumber}: ${message}`, { location });
  }

  private mark(node: Node, text: string): string {
    if (!this.trace) return text;
    this.marks.push(node.location);
    return `${TRACE.open}${this.marks.length - 1}${TRACE.separator}${text}${TRACE.close}`;
  }

  // ---------------------------------------------------------------- names

  override identifier(id: Identifier): string {
    return quoteIdentifier(id.value);
  }

  /** A table's DuckDB name, fully qualified; CTE names stay bare. */
  private tableName(name: QualifiedName): string {
    const parts = partsOf(name);
    if (this.isCte(parts)) return quoteIdentifier(parts[0]!);
    return this.named(this.resolve(parts, name));
  }

  private isCte(parts: readonly string[]): boolean {
    return parts.length === 1 && this.cteNames.has(parts[0]!);
  }

  /** A resolved table's DuckDB name, recorded among the tables the statement names. */
  private named(ref: TableReference, sql?: string): string {
    this.tables.push(ref);
    return sql ?? this.qualified(ref);
  }

  /** A table name against the session, as Trino's MetadataUtil qualifies it. */
  private resolve(parts: string[], node: Node): TableReference {
    if (parts.length > 3) throw this.fail(node, 'SYNTAX_ERROR', `Too many dots in table name: ${parts.join('.')}`);
    const table = qualifyTable(parts, this.context.catalog, this.context.schema);
    if (table) return table;
    this.sessionCatalog(node);
    throw this.fail(node, 'MISSING_SCHEMA_NAME', 'Schema must be specified when session schema is not set');
  }

  private sessionCatalog(node: Node): string {
    if (!this.context.catalog) throw this.fail(node, 'MISSING_CATALOG_NAME', 'Catalog must be specified when session catalog is not set');
    return fold(this.context.catalog);
  }

  private qualified(ref: TableReference): string {
    return `${quoteIdentifier(this.context.databaseOf(ref.catalog))}.${quoteIdentifier(ref.schema)}.${quoteIdentifier(ref.table)}`;
  }

  /** A table in FROM: its DuckDB name, or the engine's own SQL for it (aliased by the table's name unless `aliased`). */
  private tableReference(table: Table, aliased: boolean, withHidden = true): string {
    const parts = partsOf(table.name);
    const ref = this.isCte(parts) ? undefined : this.resolve(parts, table.name);
    const virtual = ref && this.context.virtualTable?.(ref.catalog, ref.schema, ref.table);
    if (ref && virtual !== undefined) return this.mark(table, aliased ? `(${virtual})` : `(${virtual}) AS ${quoteIdentifier(ref.table)}`);
    if (table.queryPeriod) throw this.fail(table, 'NOT_SUPPORTED', 'This connector does not support versioned tables');
    const hidden = ref && withHidden ? this.hiddenColumnsRead(ref) : [];
    const guard = ref && this.context.guardedRead?.(ref);
    if (ref && guard) {
      const read = this.guardedSql(ref, guard, hidden, positionAt(this.sql, table.location.start));
      return this.mark(table, aliased ? read : `${read} AS ${quoteIdentifier(ref.table)}`);
    }
    const pruning = this.pruning;
    if (ref && hidden.length === 0 && pruning?.table === table) {
      const pruned = this.context.prunedSource?.(ref, pruning.where, pruning.qualifiers);
      if (pruned !== undefined) return this.mark(table, aliased ? this.named(ref, `(${pruned})`) : `${this.named(ref, `(${pruned})`)} AS ${quoteIdentifier(ref.table)}`);
    }
    if (ref && hidden.length > 0) {
      const source = this.hiddenSource(ref, hidden);
      const columns = hidden.map((c) => `${c.sql} AS ${quoteIdentifier(c.name)}`).join(', ');
      const read = source ?? `(SELECT *, ${columns} FROM ${this.named(ref)})`;
      return this.mark(table, aliased ? read : `${read} AS ${quoteIdentifier(ref.table)}`);
    }
    return this.mark(table, ref ? this.named(ref) : quoteIdentifier(parts[0]!));
  }

  /**
   * The subquery standing for a guarded table: its columns in order, a masked one as its mask (coerced to
   * the column's type: a CASE whose other branch is the column and never runs), the hidden columns the
   * statement reads, and only the rows the filter keeps. The table's raw values reach nothing else.
   */
  private guardedSql(ref: TableReference, guard: GuardedRead, hidden: readonly { name: string; sql: string }[], location: GuardedSql['location']): string {
    const printed: GuardedSql = { table: ref, location, masks: guard.masks.map((m) => ({ column: m.column, sql: this.guardPart(m) })) };
    const masks = new Map(printed.masks.map((m) => [m.column, m.sql]));
    const items = guard.columns.filter((c) => !guard.excluded.includes(c)).map((c) => {
      const mask = masks.get(c);
      return mask === undefined ? quoteIdentifier(c) : `CASE WHEN false THEN ${quoteIdentifier(c)} ELSE (${mask}) END AS ${quoteIdentifier(c)}`;
    });
    for (const h of hidden) items.push(`${h.sql} AS ${quoteIdentifier(h.name)}`);
    // Every column denied: the rows still count (count(*)), through a column of no value.
    if (items.length === 0 && guard.columns.length > 0) items.push('NULL AS "vivace_no_columns"');
    const filter = guard.filter && this.guardPart(guard.filter);
    this.guarded.push(filter === undefined ? printed : { ...printed, filter });
    const from = hidden.length > 0 && this.context.hiddenSource?.(ref);
    const relation = from ? `(SELECT * FROM ${this.named(ref, from.sql)}) AS ${quoteIdentifier(ref.table)}` : this.named(ref);
    return `(SELECT ${items.length > 0 ? items.join(', ') : '*'} FROM ${relation}${filter === undefined ? '' : ` WHERE ${filter}`})`;
  }

  /** The table read from its hidden source with the hidden columns the statement reads (the others left out), or undefined. */
  private hiddenSource(ref: TableReference, hidden: readonly { name: string }[]): string | undefined {
    const source = this.context.hiddenSource?.(ref);
    if (!source) return undefined;
    const read = new Set(hidden.map((h) => h.name));
    const unread = source.columns.filter((c) => !read.has(c)).map(quoteIdentifier);
    return `(SELECT *${unread.length > 0 ? ` EXCLUDE (${unread.join(', ')})` : ''} FROM ${this.named(ref, source.sql)})`;
  }

  /** A mask's or filter's DuckDB SQL, printed in its own context; the tables it reads count as the statement's. */
  private guardPart(part: GuardPart): string {
    const printer = new DuckDbPrinter(part.context, part.text);
    const sql = printer.translateExpression(part.expression);
    this.tables.push(...printer.tables);
    this.guarded.push(...printer.guarded);
    return sql;
  }

  /**
   * The WHERE of a DELETE or UPDATE: the user's condition, and the row filter of the table for the user,
   * so that rows the user cannot read are not changed either (as Trino's analysis of DELETE and UPDATE).
   */
  private dmlWhere(table: Table, where: Expression | undefined): string {
    const parts = partsOf(table.name);
    const filter = this.isCte(parts) ? undefined : this.context.guardedRead?.(this.resolve(parts, table.name))?.filter;
    if (!filter) return where ? ` WHERE ${this.expression(where)}` : '';
    const sql = this.guardPart(filter);
    this.guarded.push({ table: this.resolve(parts, table.name), location: positionAt(this.sql, table.location.start), masks: [], filter: sql });
    return ` WHERE (${sql})${where ? ` AND (${this.expression(where)})` : ''}`;
  }

  /** The hidden columns of a table that the statement names somewhere (it may read them). */
  private hiddenColumnsRead(ref: TableReference): readonly { name: string; sql: string }[] {
    return this.context.hiddenColumns?.(ref)?.filter((c) => this.writtenNames.has(c.name)) ?? [];
  }

  /** The tables of a FROM clause (not its subqueries) read with hidden columns, by correlation name. */
  private hiddenTables(relation: Relation | undefined, alias?: string): HiddenRead[] {
    switch (relation?.type) {
      case 'Table': {
        const parts = partsOf(relation.name);
        if (this.isCte(parts)) return [];
        const ref = this.resolve(parts, relation.name);
        const hidden = this.hiddenColumnsRead(ref);
        return hidden.length === 0 ? [] : [{ alias: alias ?? ref.table, columns: hidden.map((c) => c.name), table: alias === undefined ? ref : undefined }];
      }
      case 'AliasedRelation':
        return this.hiddenTables(relation.relation, fold(relation.alias.value));
      case 'SampledRelation':
        return this.hiddenTables(relation.relation, alias);
      case 'Join':
        return [...this.hiddenTables(relation.left), ...this.hiddenTables(relation.right)];
      default:
        return [];
    }
  }

  /**
   * `[catalog.]schema.table.column...` naming a column of an unaliased table read with hidden columns (in
   * this query or an enclosing one): that read is a derived table named after the table, so the column is
   * printed as `table.column...`; undefined for any other chain.
   */
  private hiddenTableColumn(chain: readonly Identifier[]): string | undefined {
    if (chain.length < 3 || this.hiddenInScope.length === 0) return undefined;
    for (const prefix of [3, 2]) {
      if (chain.length <= prefix) continue;
      const table = qualifyTable(chain.slice(0, prefix).map((id) => fold(id.value)), this.context.catalog, this.context.schema);
      if (!table) continue;
      for (let level = this.hiddenInScope.length - 1; level >= 0; level--) {
        const read = this.hiddenInScope[level]!.find((t) => t.table && t.table.catalog === table.catalog && t.table.schema === table.schema && t.table.table === table.table);
        if (read) return [quoteIdentifier(read.alias), ...chain.slice(prefix).map((id) => this.identifier(id))].join('.');
      }
    }
    return undefined;
  }

  /** A schema a statement creates or drops: [catalog.]schema. */
  private schemaName(name: QualifiedName): string {
    const parts = partsOf(name);
    if (parts.length > 2) throw this.fail(name, 'SYNTAX_ERROR', `Too many dots in schema name: ${parts.join('.')}`);
    const catalog = parts.length === 2 ? parts[0]! : this.sessionCatalog(name);
    return `${quoteIdentifier(this.context.databaseOf(catalog))}.${quoteIdentifier(parts[parts.length - 1]!)}`;
  }

  // ---------------------------------------------------------------- expressions

  override expression(e: Expression): string {
    return this.mark(e, this.expressionText(e));
  }

  private expressionText(e: Expression): string {
    // A literal cast to a lower precision of its kind: its value rounded half up, as Trino rounds (DuckDB truncates, or refuses TIMESTAMP_MS to _S).
    const literalCast = e.type === 'Cast' ? temporalLiteralCast(e) : undefined;
    if (literalCast && 'sql' in literalCast) return literalCast.sql;
    const zoned = this.zones.expression(e);
    if (zoned !== undefined) return zoned;
    switch (e.type) {
      case 'LongLiteral':
        return e.value.startsWith('-') ? `(${e.value})` : e.value;
      case 'DecimalLiteral': {
        const type = decimalLiteralType(e.value)!;
        return `CAST(${quoteString(e.value)} AS DECIMAL(${type.precision}, ${type.scale}))`;
      }
      case 'BinaryLiteral': {
        let bytes = '';
        for (let i = 0; i < e.value.length; i += 2) bytes += `\\x${e.value.slice(i, i + 2)}`;
        return `CAST(${quoteString(bytes)} AS BLOB)`;
      }
      case 'GenericLiteral':
        return this.genericLiteral(e);
      case 'IntervalLiteral':
        return this.intervalLiteral(e);
      case 'Identifier': {
        const bound = this.bindings.get(fold(e.value));
        return bound ?? this.identifier(e);
      }
      case 'LambdaExpression':
        return this.lambda(e);
      case 'CurrentUser':
        return quoteString(this.context.user ?? '');
      case 'CurrentCatalog':
        return this.context.catalog ? quoteString(this.context.catalog) : 'CAST(NULL AS VARCHAR)';
      case 'CurrentSchema':
        return this.context.schema ? quoteString(this.context.schema) : 'CAST(NULL AS VARCHAR)';
      case 'CurrentPath':
        // The SQL path is not settable here (SET PATH is refused): Trino's empty path.
        return "''";
      case 'Parameter':
        // Numbered: a translation may print an argument twice or out of order (transform_values, reduce).
        return `$${e.index + 1}`;
      case 'DereferenceExpression': {
        // catalog.schema.table.column: the catalog is a DuckDB database (system is vivace_system).
        const chain = identifierChain(e);
        const hidden = chain && this.hiddenTableColumn(chain);
        if (hidden !== undefined) return hidden;
        if (chain && chain.length >= 4) {
          const database = this.context.databaseOf(fold(chain[0]!.value));
          if (database !== fold(chain[0]!.value)) return [quoteIdentifier(database), ...chain.slice(1).map((id) => this.identifier(id))].join('.');
        }
        return super.expression(e);
      }
      case 'FunctionCall':
        return this.functionCall(e);
      case 'Cast': {
        // Trino casts a row of anonymous fields to a JSON array (DuckDB: an object keyed by empty names).
        if (e.expression.type === 'Row' && e.targetType.type === 'GenericDataType' && fold(e.targetType.name.value) === 'json') {
          return `json_array(${this.list(e.expression.items, this.expression)})`;
        }
        // Trino casts a value to the JSON that stands for it: a varchar becomes a JSON string (DuckDB's
        // cast would parse the text), numbers, arrays, maps and rows their JSON.
        if (e.targetType.type === 'GenericDataType' && fold(e.targetType.name.value) === 'json' && !this.repeatsFieldNames) return `to_json(${this.expression(e.expression)})`;
        return boundedText(e.targetType, this.ipAddressCast(e) ?? this.roundingCast(e) ?? this.sketchCast(e) ?? super.expression(e));
      }
      case 'ArithmeticBinaryExpression':
        if (e.operator === '/') return this.division(e.left, e.right);
        if ((e.operator === '+' || e.operator === '-') && isInterval(e.right) && !isInterval(e.left)) {
          return `${e.operator === '+' ? 'vivace_plus_interval' : 'vivace_minus_interval'}(${this.expression(e.left)}, ${this.expression(e.right)})`;
        }
        if (e.operator === '+' && isInterval(e.left) && !isInterval(e.right)) return `vivace_plus_interval(${this.expression(e.right)}, ${this.expression(e.left)})`;
        if (e.operator === '+' || e.operator === '-') return this.zones.arithmetic(e.operator, e.left, e.right, e) ?? super.expression(e);
        return super.expression(e);
      default:
        return super.expression(e);
    }
  }

  /**
   * CAST(column AS timestamp(p)), p below 9: through vivace_round_us or _ns (lib/engine/temporal-macros.ts),
   * rounding half up as Trino does (DuckDB truncates nanoseconds, and has no TIMESTAMP_MS to _S cast).
   * Columns only: their typed macro binds once, where any other argument would be bound again per level.
   */
  private roundingCast(e: Extract<Expression, { type: 'Cast' }>): string | undefined {
    const target = e.targetType;
    if (target.type !== 'DateTimeDataType' || target.kind !== 'TIMESTAMP' || target.withTimeZone || !isColumn(e.expression)) return undefined;
    const p = numeric(target.precision) ?? 3;
    if (p >= 9) return undefined;
    return `${e.safe ? 'TRY_CAST' : 'CAST'}(${zonedMacro(p <= 6 ? 'vivace_round_us' : 'vivace_round_ns', e.expression, this.typedColumns)}(${this.expression(e.expression)}, ${p}) AS ${this.dataType(target)})`;
  }

  private genericLiteral(e: Extract<Expression, { type: 'GenericLiteral' }>): string {
    const type = fold(e.typeName.value);
    if (type === 'date' || type === 'time' || type === 'timestamp') {
      // The precision is the literal's digits; a zone makes a timestamp `with time zone` (a zoned value).
      const literal = type === 'date' ? dateLiteral(e.value) : type === 'time' ? timeLiteral(e.value) : timestampLiteral(e.value);
      if ('sql' in literal) return literal.sql;
      // Trino: DateTimes' `Invalid TIMESTAMP due to daylight savings transition`, reported as any literal it cannot read.
      throw this.fail(e, 'INVALID_LITERAL', `'${e.value}' is not a valid ${type.toUpperCase()} literal`);
    }
    if (type === 'decimal') {
      const text = e.value.trim();
      const decimal = decimalLiteralType(text);
      if (!decimal || decimal.precision > 38) throw this.fail(e, 'INVALID_LITERAL', `'${e.value}' is not a valid DECIMAL literal`);
      return `CAST(${quoteString(text)} AS DECIMAL(${decimal.precision}, ${decimal.scale}))`;
    }
    if (type === 'ipaddress') return this.ipAddressLiteral(e);
    const target = duckdbType({ type: 'GenericDataType', name: e.typeName, arguments: [], location: e.typeName.location });
    return `CAST(${quoteString(e.value)} AS ${target})`;
  }

  /** IPADDRESS 'text', read here as Trino casts it while planning: text it refuses is INVALID_CAST_ARGUMENT. */
  private ipAddressLiteral(e: Extract<Expression, { type: 'GenericLiteral' }>): string {
    const value = parseIpAddress(e.value);
    if (value === undefined) throw this.fail(e, 'INVALID_CAST_ARGUMENT', invalidIpAddressMessage(e.value));
    return ipAddressValueSql(value);
  }

  /**
   * Casts to ipaddress (from text, bytes or an ipaddress: the engine's function looks at the value's type),
   * and to varchar or varbinary from an ipaddress: one the tree shows, or a column that may hold one
   * (DuckDB picks the branch by its type while planning); and to json, in a statement with rows that
   * repeat a field name, without the suffixes DuckDB's struct needs; undefined for other casts.
   */
  private ipAddressCast(e: Extract<Expression, { type: 'Cast' }>): string | undefined {
    const target = e.targetType.type === 'GenericDataType' ? fold(e.targetType.name.value) : undefined;
    if (target === 'json' && this.repeatsFieldNames) return withoutRepeatMarks(super.expression(e));
    if (target === 'ipaddress') return `${e.safe ? IP_ADDRESS_FUNCTIONS.tryCast : IP_ADDRESS_FUNCTIONS.cast}(${this.expression(e.expression)})`;
    const write = target === 'varchar' ? 'text' : target === 'varbinary' ? 'bytes' : undefined;
    if (write === undefined) return undefined;
    if (isIpAddressExpression(e.expression)) return `${IP_ADDRESS_FUNCTIONS[write]}(${this.expression(e.expression)})`;
    // Only a column reference is printed twice: it is short, and cannot nest (a nested cast would double per level).
    if (e.expression.type === 'Identifier' || e.expression.type === 'DereferenceExpression') return ifIpAddressSql(this.expression(e.expression), write, super.expression(e));
    return undefined;
  }

  /** INTERVAL 'v' FIELD as DuckDB reads it; ranges (YEAR TO MONTH, DAY TO SECOND, ...) spelled out in units. */
  private intervalLiteral(e: Extract<Expression, { type: 'IntervalLiteral' }>): string {
    const sign = e.sign === 'NEGATIVE' ? '-' : '';
    if (!e.endField || e.endField === e.startField) return `(${sign}INTERVAL ${quoteString(e.value)} ${e.startField})`;
    const units = intervalUnits(e.value, e.startField, e.endField);
    if (!units) throw this.fail(e, 'INVALID_LITERAL', `'${e.value}' is not a valid INTERVAL ${e.startField} TO ${e.endField} literal`);
    return `(${sign}CAST(${quoteString(units)} AS INTERVAL))`;
  }

  /**
   * A cast to P4HyperLogLog makes a HyperLogLog dense (Trino's castToP4Hll); bytes the tree shows to be a
   * varbinary or already a P4HyperLogLog keep their form.
   */
  private sketchCast(e: Extract<Expression, { type: 'Cast' }>): string | undefined {
    if (e.targetType.type !== 'GenericDataType' || fold(e.targetType.name.value) !== 'p4hyperloglog') return undefined;
    const from = e.expression.type === 'BinaryLiteral' ? { base: 'varbinary' } : declaredType(e.expression);
    if (from?.base === 'varbinary' || from?.base === 'P4HyperLogLog') return undefined;
    return `${SKETCH_FUNCTION_NAMES.toP4}(${super.expression(e)})`;
  }

  private lambda(e: LambdaExpression): string {
    const params = e.arguments.map((a) => quoteIdentifier(a.value)).join(', ');
    // Parameters shadow any binding of an enclosing rewritten lambda.
    const shadowed = e.arguments.map((a) => [fold(a.value), this.bindings.get(fold(a.value))] as const);
    for (const [name] of shadowed) this.bindings.delete(name);
    try {
      return `(lambda ${params}: ${this.expression(e.body)})`;
    } finally {
      for (const [name, value] of shadowed) if (value !== undefined) this.bindings.set(name, value);
    }
  }

  lambdaOverEntry(f: LambdaExpression, field: (i: number) => string): string {
    const saved = new Map(this.bindings);
    f.arguments.forEach((a, i) => this.bindings.set(fold(a.value), field(i)));
    try {
      return `(lambda "vivace_e": ${this.expression(f.body)})`;
    } finally {
      this.bindings.clear();
      for (const [k, v] of saved) this.bindings.set(k, v);
    }
  }

  override functionCall(call: FunctionCall): string {
    const name = this.callName(call);
    const zoned = call.window ? undefined : this.zones.call(name, call);
    if (typeof zoned === 'string') return zoned;
    return zoned ? this.printCall(this.callName(zoned), zoned) : this.printCall(name, call);
  }

  private callName(call: FunctionCall): string {
    return resolveFunctionName(call.name.parts.map((p) => p.value), this.context.catalog) ?? fold(call.name.parts[call.name.parts.length - 1]!.value);
  }

  /** A call as DuckDB spells it (a translation of duckdb-functions.ts, else as written). */
  private printCall(name: string, call: FunctionCall): string {
    const plain = !call.distinct && !call.orderBy && !call.filter && !call.window && !call.nullTreatment;
    if (plain) {
      const translated = translateCall(name, call.arguments, this) ?? sketchScalar(name, call.arguments, (a) => this.expression(a));
      if (translated !== undefined) return translated;
    }
    // A sketch aggregate is the engine's function over list(x) of the group (sketch-calls.ts).
    if (isSketchAggregate(name) && !call.nullTreatment) {
      // A bare NULL is typed (DuckDB's list of NULL has no element type to read); Trino's unknown adds nothing.
      const args = call.arguments.map((a) => (a.type === 'NullLiteral' ? 'CAST(NULL AS BIGINT)' : this.expression(a)));
      // A list that may hold each value once says DISTINCT (not over a window, where DuckDB has none).
      const sketch = sketchAggregate(name, args, (argument, distinct) => this.callText('list', distinct && !call.distinct && !call.window ? `DISTINCT ${argument}` : argument, call));
      if (sketch !== undefined) return sketch;
    }
    const inTry = name === 'try';
    if (inTry) this.tryDepth++;
    let args: string;
    try {
      args = call.arguments.length === 0 && !call.orderBy && name === 'count' ? '*' : this.list(call.arguments, this.expression);
    } finally {
      if (inTry) this.tryDepth--;
    }
    return this.callText(name, args, call);
  }

  /** `name(args)` with the call's DISTINCT, ORDER BY, null treatment, FILTER and OVER. */
  private callText(name: string, printedArgs: string, call: FunctionCall): string {
    let args = printedArgs;
    if (call.distinct) args = `DISTINCT ${args}`;
    if (call.orderBy) args += ` ${this.orderBy(call.orderBy)}`;
    // DuckDB reads IGNORE NULLS inside the parentheses.
    if (call.nullTreatment) args += ` ${call.nullTreatment} NULLS`;
    let text = `${name}(${args})`;
    if (call.filter) text += ` FILTER (WHERE ${this.expression(call.filter)})`;
    if (call.window) text += ` OVER ${this.window(call.window)}`;
    return text;
  }

  /**
   * Presto division: integer operands truncate and fail on zero (vivace_divide's typed overloads); over
   * aggregates the untyped vivace_divide_any; inside TRY, NULL on zero (TRY refuses the volatile error()).
   * Two literal operands, one of them decimal, are typed as Trino types their quotient.
   */
  private division(left: Expression, right: Expression): string {
    const args = `${this.expression(left)}, ${this.expression(right)}`;
    if (containsAggregate(left) || containsAggregate(right)) return `vivace_divide_any(${args})`;
    const call = `${this.tryDepth > 0 ? 'vivace_try_divide' : 'vivace_divide'}(${args})`;
    const decimal = decimalQuotientType(left, right);
    return decimal ? `CAST(${call} AS DECIMAL(${decimal.precision}, ${decimal.scale}))` : call;
  }

  override dataType(t: DataType): string {
    return duckdbType(t);
  }

  // ---------------------------------------------------------------- queries and relations

  override queryBody(b: QueryBody): string {
    switch (b.type) {
      case 'Values':
        // DuckDB wants every row in parentheses (VALUES 1, 2 is Trino's).
        return `VALUES ${this.list(b.rows, (r) => (r.type === 'Row' ? `(${this.list(r.items, this.expression)})` : `(${this.expression(r)})`))}`;
      case 'Table':
        // TABLE t is SELECT * FROM t: never its hidden columns.
        return `SELECT * FROM ${this.tableReference(b, false, false)}`;
      case 'QuerySpecification': {
        const outer = this.pruning;
        this.pruning = pruningOf(b);
        try {
          // query() put the scope of a body with an ORDER BY in place already.
          if (this.scopedBody === b) return super.queryBody(b);
          this.hiddenInScope.push(this.hiddenTables(b.from));
          try {
            return super.queryBody(b);
          } finally {
            this.hiddenInScope.pop();
          }
        } finally {
          this.pruning = outer;
        }
      }
      default:
        return super.queryBody(b);
    }
  }

  /** A query's ORDER BY may name its FROM tables' columns as well: their hidden reads stay in scope for it. */
  override query(q: Query): string {
    if (q.body.type !== 'QuerySpecification' || !q.orderBy) return super.query(q);
    const outer = this.scopedBody;
    this.hiddenInScope.push(this.hiddenTables(q.body.from));
    this.scopedBody = q.body;
    try {
      return super.query(q);
    } finally {
      this.hiddenInScope.pop();
      this.scopedBody = outer;
    }
  }

  /** `*` and `t.*` over tables read with hidden columns leave those out (DuckDB's EXCLUDE), as Trino's `*` does. */
  override selectItem(item: SelectItem, first: boolean): string {
    const hidden = this.hiddenInScope[this.hiddenInScope.length - 1] ?? [];
    if (item.type !== 'AllColumns' || hidden.length === 0) return super.selectItem(item, first);
    if (!item.target) {
      const excluded = hidden.flatMap((t) => t.columns.map((c) => `${quoteIdentifier(t.alias)}.${quoteIdentifier(c)}`));
      return `* EXCLUDE (${excluded.join(', ')})`;
    }
    const target = item.target;
    const table = target.type === 'Identifier' ? hidden.find((t) => t.alias === fold(target.value)) : undefined;
    if (!table) return super.selectItem(item, first);
    const aliases = item.aliases.length > 0 ? ` AS (${this.list(item.aliases, this.identifier)})` : '';
    return `${this.postfixBase(item.target)}.* EXCLUDE (${table.columns.map(quoteIdentifier).join(', ')})${aliases}`;
  }

  override relation(r: Relation): string {
    switch (r.type) {
      case 'Table':
        return this.tableReference(r, false);
      case 'AliasedRelation': {
        if (r.relation.type !== 'Table') return super.relation(r);
        const columns = r.columnNames ? ` (${this.list(r.columnNames, this.identifier)})` : '';
        return `${this.tableReference(r.relation, true)} AS ${this.identifier(r.alias)}${columns}`;
      }
      case 'TableFunctionInvocation':
        return this.tableFunction(r);
      case 'SampledRelation': {
        const inner = r.relation.type === 'AliasedRelation' ? this.relation(r.relation) : this.primaryRelation(r.relation);
        return `${inner} TABLESAMPLE ${r.samplingType} (${this.expression(r.samplePercentage)} PERCENT)`;
      }
      default:
        return super.relation(r);
    }
  }

  /** TABLE(sequence(start => 0, stop => n, step => 1)): Trino's table of `sequential_number` bigint. */
  private tableFunction(r: Extract<Relation, { type: 'TableFunctionInvocation' }>): string {
    const name = resolveFunctionName(r.name.parts.map((p) => p.value), this.context.catalog);
    if (name !== 'sequence' || r.copartitioning.length > 0) throw this.fail(r, 'FUNCTION_NOT_FOUND', `Table function '${formatName(r.name)}' not registered`);
    const PARAMETERS = ['start', 'stop', 'step'];
    const values = new Map<string, Expression>();
    r.arguments.forEach((argument, i) => {
      const parameter = argument.name ? fold(argument.name.value) : PARAMETERS[i];
      if (parameter === undefined || !PARAMETERS.includes(parameter)) throw this.fail(argument, 'INVALID_FUNCTION_ARGUMENT', `Unexpected argument name: ${argument.name?.value ?? i + 1}`);
      if (values.has(parameter)) throw this.fail(argument, 'INVALID_FUNCTION_ARGUMENT', `Duplicate argument name: ${parameter}`);
      const value = argument.value;
      if (value.type === 'TableFunctionTableArgument' || value.type === 'Descriptor') throw this.fail(argument, 'INVALID_FUNCTION_ARGUMENT', `Invalid argument ${parameter}. Expected expression, got ${value.type === 'Descriptor' ? 'descriptor' : 'table'}`);
      values.set(parameter, value);
    });
    const stop = values.get('stop');
    if (!stop) throw this.fail(r, 'INVALID_FUNCTION_ARGUMENT', 'Missing argument: STOP');
    const bigint = (e: Expression | undefined, fallback: string) => (e ? `CAST(${this.expression(e)} AS BIGINT)` : fallback);
    const series = `generate_series(${bigint(values.get('start'), '0')}, ${bigint(stop, '0')}, ${bigint(values.get('step'), '1')})`;
    return `(SELECT generate_series AS "sequential_number" FROM ${series})`;
  }

  // ---------------------------------------------------------------- statements

  override statement(s: Statement): string {
    switch (s.type) {
      case 'Query':
        return this.query(s);
      case 'CreateTable': {
        if (s.properties.length > 0) throw this.fail(s.properties[0]!, 'INVALID_TABLE_PROPERTY', `Catalog 'memory' table property '${s.properties[0]!.name.value}' does not exist`);
        if (s.comment !== undefined) throw this.fail(s, 'NOT_SUPPORTED', 'Table comments in CREATE TABLE are not supported: use COMMENT ON TABLE');
        const elements = s.elements.map((e) => {
          if (e.type === 'LikeClause') throw this.fail(e, 'NOT_SUPPORTED', 'CREATE TABLE ... LIKE is not supported');
          if (e.properties.length > 0) throw this.fail(e.properties[0]!, 'INVALID_COLUMN_PROPERTY', `Catalog 'memory' column property '${e.properties[0]!.name.value}' does not exist`);
          const column = this.identifier(e.name.parts[e.name.parts.length - 1]!);
          // DuckDB has no inline column comment: COMMENT ON COLUMN follows, as Trino's memory connector keeps one.
          if (e.comment !== undefined) this.followUps.push(`COMMENT ON COLUMN ${this.tableName(s.name)}.${column} IS ${quoteString(e.comment)}`);
          return `${column} ${this.dataType(e.columnType)}${e.nullable ? '' : ' NOT NULL'}${boundedColumnCheck(column, e.columnType)}`;
        });
        return `CREATE ${s.replace ? 'OR REPLACE ' : ''}TABLE ${s.notExists ? 'IF NOT EXISTS ' : ''}${this.tableName(s.name)} (${elements.join(', ')})`;
      }
      case 'CreateTableAsSelect': {
        if (s.properties.length > 0) throw this.fail(s.properties[0]!, 'INVALID_TABLE_PROPERTY', `Catalog 'memory' table property '${s.properties[0]!.name.value}' does not exist`);
        if (s.comment !== undefined) throw this.fail(s, 'NOT_SUPPORTED', 'Table comments in CREATE TABLE are not supported: use COMMENT ON TABLE');
        const columns = s.columnAliases ? ` (${this.list(s.columnAliases, this.identifier)})` : '';
        const head = `CREATE ${s.replace ? 'OR REPLACE ' : ''}TABLE ${s.notExists ? 'IF NOT EXISTS ' : ''}${this.tableName(s.name)}${columns}`;
        return `${head} AS ${this.query(s.query)}${s.withData ? '' : ' WITH NO DATA'}`;
      }
      case 'Insert': {
        const columns = s.columns ? ` (${this.list(s.columns, this.identifier)})` : '';
        return `INSERT INTO ${this.tableName(s.target.name)}${columns} ${this.query(s.query)}`;
      }
      case 'Delete':
        return `DELETE FROM ${this.tableName(s.table.name)}${this.dmlWhere(s.table, s.where)}`;
      case 'Update': {
        const sets = this.list(s.assignments, (a) => `${this.identifier(a.name)} = ${this.expression(a.value)}`);
        return `UPDATE ${this.tableName(s.table.name)} SET ${sets}${this.dmlWhere(s.table, s.where)}`;
      }
      case 'TruncateTable':
        return `TRUNCATE TABLE ${this.tableName(s.name)}`;
      case 'DropTable':
        return `DROP TABLE ${s.exists ? 'IF EXISTS ' : ''}${this.tableName(s.name)}`;
      case 'CreateView': {
        if (s.comment !== undefined || s.security) throw this.fail(s, 'NOT_SUPPORTED', 'View comments and SECURITY are not supported');
        return `CREATE ${s.replace ? 'OR REPLACE ' : ''}VIEW ${this.tableName(s.name)} AS ${this.query(s.query)}`;
      }
      case 'DropView':
        return `DROP VIEW ${s.exists ? 'IF EXISTS ' : ''}${this.tableName(s.name)}`;
      case 'CreateSchema':
        if (s.properties.length > 0) throw this.fail(s.properties[0]!, 'INVALID_SCHEMA_PROPERTY', `Catalog 'memory' schema property '${s.properties[0]!.name.value}' does not exist`);
        if (s.principal) throw this.fail(s.principal, 'NOT_SUPPORTED', 'CREATE SCHEMA ... AUTHORIZATION is not supported');
        return `CREATE SCHEMA ${s.notExists ? 'IF NOT EXISTS ' : ''}${this.schemaName(s.name)}`;
      case 'DropSchema':
        return `DROP SCHEMA ${s.exists ? 'IF EXISTS ' : ''}${this.schemaName(s.name)}${s.cascade ? ' CASCADE' : ''}`;
      case 'RenameTable': {
        const from = partsOf(s.source);
        const to = partsOf(s.target);
        const source = this.resolve(from, s.source);
        const target = this.resolve(to, s.target);
        if (to.length > 1 && (target.schema !== source.schema || target.catalog !== source.catalog)) {
          throw this.fail(s.target, 'NOT_SUPPORTED', 'Table rename across schemas is not supported');
        }
        // DuckDB takes the new name unqualified: the table stays in its schema.
        return `ALTER TABLE ${s.exists ? 'IF EXISTS ' : ''}${this.tableName(s.source)} RENAME TO ${quoteIdentifier(target.table)}`;
      }
      case 'AddColumn': {
        const c = s.column;
        if (c.comment !== undefined || c.properties.length > 0) throw this.fail(c, 'NOT_SUPPORTED', 'Column comments and properties in ADD COLUMN are not supported');
        const definition = `${this.identifier(c.name.parts[c.name.parts.length - 1]!)} ${this.dataType(c.columnType)}${c.nullable ? '' : ' NOT NULL'}`;
        return `ALTER TABLE ${s.tableExists ? 'IF EXISTS ' : ''}${this.tableName(s.name)} ADD COLUMN ${s.columnNotExists ? 'IF NOT EXISTS ' : ''}${definition}`;
      }
      case 'DropColumn':
        if (s.field.parts.length > 1) throw this.fail(s.field, 'NOT_SUPPORTED', 'Dropping a nested field is not supported');
        return `ALTER TABLE ${s.tableExists ? 'IF EXISTS ' : ''}${this.tableName(s.table)} DROP COLUMN ${s.columnExists ? 'IF EXISTS ' : ''}${this.identifier(s.field.parts[0]!)}`;
      case 'RenameColumn':
        if (s.source.parts.length > 1) throw this.fail(s.source, 'NOT_SUPPORTED', 'Renaming a nested field is not supported');
        return `ALTER TABLE ${s.tableExists ? 'IF EXISTS ' : ''}${this.tableName(s.table)} RENAME COLUMN ${this.identifier(s.source.parts[0]!)} TO ${this.identifier(s.target)}`;
      case 'Comment': {
        const text = s.comment === undefined ? 'NULL' : quoteString(s.comment);
        if (s.objectType === 'COLUMN') {
          const column = s.name.parts[s.name.parts.length - 1]!;
          const table = { ...s.name, parts: s.name.parts.slice(0, -1) };
          return `COMMENT ON COLUMN ${this.tableName(table)}.${this.identifier(column)} IS ${text}`;
        }
        return `COMMENT ON ${s.objectType} ${this.tableName(s.name)} IS ${text}`;
      }
      default:
        throw this.fail(s, 'NOT_SUPPORTED', `${s.type} is not supported`);
    }
  }
}

// ------------------------------------------------------------------ helpers on the tree

const formatName = (name: QualifiedName) => name.parts.map((p) => p.value).join('.');

/** A FROM table read with hidden columns: its correlation name, the hidden columns, and its name when not aliased. */
interface HiddenRead {
  alias: string;
  columns: string[];
  table: TableReference | undefined;
}

/** `a.b.c` as its identifiers, or undefined when the base is not a plain name. */
function identifierChain(e: Expression): Identifier[] | undefined {
  if (e.type === 'Identifier') return [e];
  if (e.type !== 'DereferenceExpression') return undefined;
  const base = identifierChain(e.base);
  return base && [...base, e.field];
}

const isInterval = (e: Expression): boolean =>
  e.type === 'IntervalLiteral' || (e.type === 'Cast' && e.targetType.type === 'IntervalDataType') || (e.type === 'ArithmeticUnaryExpression' && isInterval(e.value));

/** Whether an expression holds an aggregate or window call outside its subqueries (they bind on their own). */
function containsAggregate(e: Node): boolean {
  const stack: Node[] = [e];
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (n.type === 'SubqueryExpression' || n.type === 'ExistsPredicate' || n.type === 'Query') continue;
    if (n.type === 'FunctionCall') {
      if (n.window) return true;
      const name = n.name.parts[n.name.parts.length - 1]!.value;
      if (lookupFunction(name, 'aggregate') !== undefined) return true;
    }
    for (const c of childrenOf(n)) stack.push(c);
  }
  return false;
}

/** Trino's literal types as decimals: integer -> decimal(10,0), bigint -> decimal(19,0). */
function literalDecimal(e: Expression): { precision: number; scale: number; decimal: boolean } | undefined {
  if (e.type === 'ArithmeticUnaryExpression') return literalDecimal(e.value);
  if (e.type === 'LongLiteral') {
    const small = Math.abs(Number(e.value)) <= 2147483647;
    return { precision: small ? 10 : 19, scale: 0, decimal: false };
  }
  if (e.type === 'DecimalLiteral') {
    const t = decimalLiteralType(e.value);
    return t && { ...t, decimal: true };
  }
  if (e.type === 'GenericLiteral' && fold(e.typeName.value) === 'decimal') {
    const t = decimalLiteralType(e.value.trim());
    return t && { ...t, decimal: true };
  }
  return undefined;
}

/**
 * Trino's decimal division type (DecimalOperators): scale max(s1,s2), precision
 * min(38, p1 + s2 + max(0, s2 - s1)). Only known when both operands are literals and one is decimal.
 */
function decimalQuotientType(a: Expression, b: Expression): { precision: number; scale: number } | undefined {
  const x = literalDecimal(a);
  const y = literalDecimal(b);
  if (!x || !y || (!x.decimal && !y.decimal)) return undefined;
  const scale = Math.max(x.scale, y.scale);
  const precision = Math.min(38, Math.max(x.precision + y.scale + Math.max(0, y.scale - x.scale), scale, 1));
  return { precision, scale };
}

/** Reads unsigned digits at `from`: the number and where it ends (undefined without a digit). */
function digits(text: string, from: number): { value: string; end: number } | undefined {
  let end = from;
  while (end < text.length && text.charCodeAt(end) >= 48 && text.charCodeAt(end) <= 57) end++;
  return end === from ? undefined : { value: text.slice(from, end), end };
}

const FIELD_ORDER = ['YEAR', 'MONTH', 'DAY', 'HOUR', 'MINUTE', 'SECOND'] as const;
const UNIT = { YEAR: 'years', MONTH: 'months', DAY: 'days', HOUR: 'hours', MINUTE: 'minutes', SECOND: 'seconds' } as const;
/** The separator before each field in Trino's range literals: '1-2' year to month, '1 02:03:04.5' day to second. */
const SEPARATOR = { MONTH: '-', HOUR: ' ', MINUTE: ':', SECOND: ':' } as const;

/**
 * A range interval literal's value as DuckDB interval text ('1 days 2 hours ...'), or undefined when it is
 * not one: Trino's forms ('y-m', 'd h:m:s.f', 'h:m', ...), a leading '-' negating the whole.
 */
export function intervalUnits(value: string, from: (typeof FIELD_ORDER)[number], to: (typeof FIELD_ORDER)[number]): string | undefined {
  const first = FIELD_ORDER.indexOf(from);
  const last = FIELD_ORDER.indexOf(to);
  if (first < 0 || last <= first || (first <= 1 && last >= 2)) return undefined;
  const text = value.trim();
  let at = 0;
  const negative = text[0] === '-';
  if (negative) at++;
  const parts: string[] = [];
  for (let f = first; f <= last; f++) {
    const field = FIELD_ORDER[f]!;
    if (f > first) {
      if (text[at] !== SEPARATOR[field as keyof typeof SEPARATOR]) return undefined;
      at++;
    }
    const number = digits(text, at);
    if (!number) return undefined;
    let amount = number.value;
    at = number.end;
    if (field === 'SECOND' && text[at] === '.') {
      const fraction = digits(text, at + 1);
      if (!fraction) return undefined;
      amount += `.${fraction.value}`;
      at = fraction.end;
    }
    parts.push(`${negative ? '-' : ''}${amount} ${UNIT[field]}`);
  }
  return at === text.length ? parts.join(' ') : undefined;
}
