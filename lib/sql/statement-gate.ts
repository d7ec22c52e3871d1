// The allow-list every statement passes before anything runs: statement kinds the project serves,
// functions Trino has and the project maps, tables in the project's catalogs only (never DuckDB's own
// catalogs, schemas or views), and writes to the memory catalog only. Works on the parse tree alone.
import { isSyncPartitionMetadata, syncPartitionTarget } from './procedure-calls.js';
import type { FunctionCall, Node, QualifiedName, Statement, Table, TableFunctionInvocation } from './ast.js';
import { isAllowedFunction, resolveFunctionName } from './function-catalog.js';
import { positionAt } from './syntax-error.js';
import { walk } from './tree-walk.js';
import { fold, partsOf } from './names.js';
import { parseStatement } from './parser.js';
import type { ErrorName } from '../protocol/error-codes.js';
import { VivaceError } from '../protocol/vivace-error.js';
import { isSketchName, sketchFunctionTypes } from './sketch-types.js';

export interface GateContext {
  /** The session's catalog and schema, if any. */
  catalog?: string;
  schema?: string;
  /** Catalogs statements may read, lower-case (memory, tpch, system). */
  catalogs: ReadonlySet<string>;
  /** Catalogs statements may write, lower-case (memory). */
  writableCatalogs: ReadonlySet<string>;
  /** Schemas nobody may drop or rename, `catalog.schema` lower-case (memory.default). */
  protectedSchemas: ReadonlySet<string>;
  /** The session's prepared statements (Prepared-Statement headers), by name: EXECUTE checks what it runs. */
  preparedStatements?: Readonly<Record<string, string>>;
  /** The statement runs in an explicit transaction (START TRANSACTION), where no catalog takes writes. */
  inTransaction?: boolean;
}

/** Statements that run in the project (anything else Trino parses is NOT_SUPPORTED). */
const SERVED = new Set<Statement['type']>([
  'Query', 'Explain', 'ShowCatalogs', 'ShowSchemas', 'ShowTables', 'ShowColumns', 'ShowFunctions', 'ShowSession', 'ShowStats',
  'ShowCreate', 'DescribeInput', 'DescribeOutput', 'Use', 'SetSession', 'ResetSession', 'SetRole', 'Prepare', 'Execute',
  'ExecuteImmediate', 'Deallocate', 'StartTransaction', 'Commit', 'Rollback', 'CreateTable', 'CreateTableAsSelect',
  'Insert', 'Delete', 'Update', 'TruncateTable', 'DropTable', 'CreateSchema', 'DropSchema', 'RenameTable',
  'AddColumn', 'DropColumn', 'RenameColumn', 'CreateView', 'DropView', 'Comment',
]);

/** What Trino prints for a statement type in "... is not supported" (CREATE FUNCTION, MERGE, ...). */
function statementName(type: string): string {
  let words = '';
  for (let i = 0; i < type.length; i++) {
    const c = type[i]!;
    words += i > 0 && c >= 'A' && c <= 'Z' ? ` ${c}` : c.toUpperCase();
  }
  return words;
}


/** DuckDB's own catalogs and schemas: never a user's (a pooled connection's temp catalog above all). */
const DUCKDB_CATALOGS = new Set(['temp', 'system', 'vivace_system']);
const DUCKDB_SCHEMAS = new Set(['pg_catalog']);

/**
 * DuckDB's built-in views, which an unqualified name would reach through DuckDB's search path
 * (system.main.duckdb_*, sqlite_*, pg_catalog.pg_*). information_schema is the project's own (rewritten).
 */
const DUCKDB_VIEWS = new Set([
  'duckdb_columns', 'duckdb_constraints', 'duckdb_databases', 'duckdb_indexes', 'duckdb_logs', 'duckdb_schemas',
  'duckdb_tables', 'duckdb_types', 'duckdb_views', 'pragma_database_list', 'sqlite_master', 'sqlite_schema',
  'sqlite_temp_master', 'sqlite_temp_schema', 'pg_am', 'pg_attrdef', 'pg_attribute', 'pg_class', 'pg_collation',
  'pg_constraint', 'pg_database', 'pg_depend', 'pg_description', 'pg_enum', 'pg_index', 'pg_indexes', 'pg_namespace',
  'pg_prepared_statements', 'pg_proc', 'pg_sequence', 'pg_sequences', 'pg_settings', 'pg_tables', 'pg_tablespace',
  'pg_type', 'pg_views',
]);

/** Trino's type names the project maps to DuckDB (ROW, TIMESTAMP, TIME and INTERVAL are trees of their own). */
const TYPE_NAMES = new Set([
  'boolean', 'tinyint', 'smallint', 'integer', 'int', 'bigint', 'real', 'double', 'decimal', 'varchar', 'char',
  'varbinary', 'json', 'date', 'uuid', 'array', 'map', 'timestamp', 'time', 'ipaddress',
  // Sketches (sketch-types.ts): columns and casts, no literals.
  'hyperloglog', 'p4hyperloglog', 'setdigest', 'qdigest', 'tdigest',
]);
const CONTAINER_TYPES = new Set(['array', 'map']);


function failAt(sql: string, node: Node, errorName: ErrorName, message: string): VivaceError {
  const location = positionAt(sql, node.location.start);
  return new VivaceError(errorName, `line ${location.lineNumber}:${location.columnNumber}: ${message}`, { location });
}

/**
 * Throws the VivaceError Trino would answer when `statement` may not run here; returns when it may.
 * `sql` is the text the tree was parsed from (for error locations).
 */
export function admitStatement(statement: Statement, sql: string, context: GateContext): void {
  checkSetTableProperties(statement, sql, context);
  checkStatementKind(statement, sql);
  checkWriteTarget(statement, sql, context);
  checkNodes(statement, sql, context);
}

/**
 * Holds an expression the project did not write itself to the same allow-list (functions, types, tables):
 * a column mask or row filter of the access control, which reaches DuckDB inside a user's statement.
 */
export function admitExpression(expression: Node, text: string, context: GateContext): void {
  checkNodes(expression, text, context);
}

function checkNodes(statement: Node, sql: string, context: GateContext): void {
  const cteNames = new Set<string>();
  walk(statement, (node) => {
    if (node.type === 'WithQuery') cteNames.add(fold(node.name.value));
  });
  walk(statement, (node) => {
    switch (node.type) {
      case 'FunctionCall':
        return checkFunction(node, sql, context);
      case 'TableFunctionInvocation':
        return checkTableFunction(node, sql);
      case 'Table':
        return checkTable(node, sql, context, cteNames);
      case 'GenericDataType':
        return checkTypeName(node.name.value, node, sql);
      case 'GenericLiteral':
        return checkTypeName(node.typeName.value, node, sql, true);
      case 'Prepare':
      case 'Explain':
        return checkStatementKind(node.statement, sql, node.type === 'Prepare');
      case 'Execute':
        return checkPreparedBody(node.name.value, context);
      default:
        return undefined;
    }
  });
}

/**
 * ALTER TABLE ... SET PROPERTIES as Trino's SetPropertiesTask runs it here: the catalog resolved
 * (getRequiredCatalogHandle), then the connector's setTableProperties, which no connector here has (Trino's
 * Hive, memory and tpch connectors keep ConnectorMetadata's default: NOT_SUPPORTED).
 */
function checkSetTableProperties(statement: Statement, sql: string, context: GateContext): void {
  if (statement.type !== 'SetProperties' || statement.objectType !== 'TABLE') return;
  const parts = partsOf(statement.name);
  const catalog = parts.length === 3 ? parts[0] : context.catalog === undefined ? undefined : fold(context.catalog);
  if (catalog !== undefined && !context.catalogs.has(catalog)) throw failAt(sql, statement, 'CATALOG_NOT_FOUND', `Catalog '${catalog}' does not exist`);
  throw new VivaceError('NOT_SUPPORTED', 'This connector does not support setting table properties');
}

function checkStatementKind(statement: Statement, sql: string, prepared = false): void {
  if (prepared && (statement.type === 'Prepare' || statement.type === 'Execute' || statement.type === 'ExecuteImmediate' || statement.type === 'Deallocate')) {
    // Trino's PrepareTask: a prepared statement that prepares or executes would recurse.
    throw new VivaceError('NOT_SUPPORTED', `Invalid statement type for prepared statement: ${statement.type === 'ExecuteImmediate' ? 'EXECUTE IMMEDIATE' : statement.type.toUpperCase()}`);
  }
  // CREATE and DROP CATALOG run on the coordinator, also when EXECUTE runs them: a worker only keeps them prepared.
  if (prepared && (statement.type === 'CreateCatalog' || statement.type === 'DropCatalog')) return;
  if (!SERVED.has(statement.type)) {
    if (statement.type === 'Call' && isSyncPartitionMetadata(statement)) return;
    if (statement.type === 'SetProperties' && statement.objectType === 'TABLE') throw new VivaceError('NOT_SUPPORTED', 'This connector does not support setting table properties');
    if (statement.type === 'Call') throw failAt(sql, statement, 'PROCEDURE_NOT_FOUND', `Procedure not registered: ${partsOf(statement.name).join('.')}`);
    throw failAt(sql, statement, 'NOT_SUPPORTED', `${statementName(statement.type)} is not supported`);
  }
}

/**
 * A prepared statement may come from a header rather than PREPARE: what EXECUTE would run is parsed
 * and held to PREPARE's rule, so `p=EXECUTE p` fails at once instead of recursing. (Its functions and
 * tables are checked when it is planned, with its parameters bound.)
 */
function checkPreparedBody(name: string, context: GateContext): void {
  const prepared = context.preparedStatements;
  if (!prepared) return;
  const text = Object.hasOwn(prepared, name) ? prepared[name] : Object.hasOwn(prepared, fold(name)) ? prepared[fold(name)] : undefined;
  if (text === undefined) return;
  // Anywhere in it: EXPLAIN EXECUTE p loops as surely as EXECUTE p.
  walk(parseStatement(text), (node) => {
    if (PREPARED_FORBIDDEN.has(node.type)) checkStatementKind(node as Statement, text, true);
  });
}

const PREPARED_FORBIDDEN = new Set<Node['type']>(['Prepare', 'Execute', 'ExecuteImmediate', 'Deallocate']);

function checkFunction(call: FunctionCall, sql: string, context: GateContext): void {
  const parts = call.name.parts.map((p) => p.value);
  const name = resolveFunctionName(parts, context.catalog);
  const kind = call.window ? 'window' : undefined;
  if (name === undefined || !isAllowedFunction(name, kind)) {
    const sketches = name === undefined ? undefined : sketchFunctionTypes(name);
    if (sketches) throw failAt(sql, call, 'NOT_SUPPORTED', `Function '${parts.join('.')}' is not supported: ${sketches} values are not computed here`);
    throw failAt(sql, call, 'FUNCTION_NOT_FOUND', `Function '${parts.join('.')}' not registered`);
  }
}

function checkTableFunction(call: TableFunctionInvocation, sql: string): void {
  const parts = call.name.parts.map((p) => p.value);
  const name = resolveFunctionName(parts);
  if (name === undefined || !isAllowedFunction(name, 'table')) {
    throw failAt(sql, call, 'FUNCTION_NOT_FOUND', `Table function '${parts.join('.')}' not registered`);
  }
}

/**
 * Types Trino has and the project maps: `CAST(x AS hugeint)` is Trino's TYPE_NOT_FOUND, and so is a
 * literal of an unknown type (`E'...'`, which DuckDB would read as an escape string, not as Trino does).
 */
function checkTypeName(name: string, node: Node, sql: string, literal = false): void {
  const folded = fold(name);
  if (TYPE_NAMES.has(folded) && !(literal && (CONTAINER_TYPES.has(folded) || isSketchName(folded)))) return;
  throw failAt(sql, node, 'TYPE_NOT_FOUND', `Unknown type: ${folded}`);
}

/** The catalog, schema and table a table name means in the session, as Trino resolves it. */
export function resolveTable(parts: string[], context: Pick<GateContext, 'catalog' | 'schema'>): { catalog?: string; schema?: string; table: string } {
  const table = parts[parts.length - 1]!;
  if (parts.length === 3) return { catalog: parts[0], schema: parts[1], table };
  if (parts.length === 2) return { catalog: context.catalog ? fold(context.catalog) : undefined, schema: parts[0], table };
  return { catalog: context.catalog ? fold(context.catalog) : undefined, schema: context.schema ? fold(context.schema) : undefined, table };
}

function checkTable(node: Table, sql: string, context: GateContext, cteNames: ReadonlySet<string>): void {
  const parts = partsOf(node.name);
  if (parts.length === 1 && cteNames.has(parts[0]!)) return;
  if (parts.length > 3) throw failAt(sql, node, 'SYNTAX_ERROR', `Too many dots in table name: ${parts.join('.')}`);
  const { catalog, schema, table } = resolveTable(parts, context);
  const shown = `${catalog ?? '?'}.${schema ?? '?'}.${table}`;
  // Names DuckDB would resolve to its own objects rather than the session's catalog.
  if (parts.length === 3 && !context.catalogs.has(parts[0]!)) throw failAt(sql, node, 'CATALOG_NOT_FOUND', `Catalog '${parts[0]}' does not exist`);
  if (parts.length === 2 && (DUCKDB_CATALOGS.has(parts[0]!) || DUCKDB_SCHEMAS.has(parts[0]!))) throw failAt(sql, node, 'TABLE_NOT_FOUND', `Table '${shown}' does not exist`);
  if (schema !== undefined && DUCKDB_SCHEMAS.has(schema)) throw failAt(sql, node, 'TABLE_NOT_FOUND', `Table '${shown}' does not exist`);
  if (parts.length < 3 && DUCKDB_VIEWS.has(table)) throw failAt(sql, node, 'TABLE_NOT_FOUND', `Table '${shown}' does not exist`);
}

/** The name a DDL or DML statement writes (a table, view or schema), if it writes one. */
export function writeTarget(statement: Statement): { name: QualifiedName; schemaLevel: boolean; dropsSchema: boolean } | undefined {
  switch (statement.type) {
    case 'CreateTable':
    case 'CreateTableAsSelect':
    case 'TruncateTable':
    case 'DropTable':
    case 'CreateView':
    case 'DropView':
      return { name: statement.name, schemaLevel: false, dropsSchema: false };
    case 'Comment':
      // COMMENT ON COLUMN [catalog.][schema.]table.column: the table is all but the last part.
      if (statement.objectType !== 'COLUMN') return { name: statement.name, schemaLevel: false, dropsSchema: false };
      return { name: { ...statement.name, parts: statement.name.parts.slice(0, -1) }, schemaLevel: false, dropsSchema: false };
    case 'Insert':
      return { name: statement.target.name, schemaLevel: false, dropsSchema: false };
    case 'Delete':
    case 'Update':
      return { name: statement.table.name, schemaLevel: false, dropsSchema: false };
    case 'RenameTable':
      return { name: statement.source, schemaLevel: false, dropsSchema: false };
    case 'AddColumn':
      return { name: statement.name, schemaLevel: false, dropsSchema: false };
    case 'DropColumn':
    case 'RenameColumn':
      return { name: statement.table, schemaLevel: false, dropsSchema: false };
    case 'Call': {
      const name = syncPartitionTarget(statement);
      return name && { name, schemaLevel: false, dropsSchema: false };
    }
    case 'CreateSchema':
      return { name: statement.name, schemaLevel: true, dropsSchema: false };
    case 'DropSchema':
      return { name: statement.name, schemaLevel: true, dropsSchema: true };
    default:
      return undefined;
  }
}

function checkWriteTarget(statement: Statement, sql: string, context: GateContext): void {
  const target = writeTarget(statement);
  if (!target) return;
  const parts = partsOf(target.name);
  const session = context.catalog ? fold(context.catalog) : undefined;
  const catalogPosition = target.schemaLevel ? 2 : 3;
  if (parts.length > catalogPosition) throw failAt(sql, target.name, 'SYNTAX_ERROR', `Too many dots in name: ${parts.join('.')}`);
  const catalog = parts.length === catalogPosition ? parts[0]! : session ?? 'memory';
  if (!context.catalogs.has(catalog)) throw failAt(sql, target.name, 'CATALOG_NOT_FOUND', `Catalog '${catalog}' does not exist`);
  if (!context.writableCatalogs.has(catalog)) {
    throw failAt(sql, target.name, 'NOT_SUPPORTED', `Catalog '${catalog}' is read-only: this connector does not support writes`);
  }
  // Trino's memory connector writes only in autocommit (the transaction manager's checkConnectorWrite).
  if (context.inTransaction) throw new VivaceError('AUTOCOMMIT_WRITE_CONFLICT', `Catalog only supports writes using autocommit: ${catalog}`);
  if (statement.type === 'RenameTable') {
    const to = partsOf(statement.target);
    const toCatalog = to.length === 3 ? to[0]! : catalog;
    if (!context.writableCatalogs.has(toCatalog)) throw failAt(sql, statement.target, 'NOT_SUPPORTED', `Catalog '${toCatalog}' is read-only: this connector does not support writes`);
  }
  if (target.dropsSchema) {
    const schema = `${catalog}.${parts[parts.length - 1]}`;
    if (context.protectedSchemas.has(schema)) throw failAt(sql, target.name, 'PERMISSION_DENIED', `Access Denied: Cannot drop schema ${schema}`);
  }
  if (!target.schemaLevel) {
    const schema = parts.length >= 2 ? parts[parts.length - 2]! : context.schema ? fold(context.schema) : undefined;
    if (schema !== undefined && (DUCKDB_SCHEMAS.has(schema) || schema === 'information_schema')) {
      throw failAt(sql, target.name, 'NOT_SUPPORTED', `Schema '${catalog}.${schema}' is read-only`);
    }
  }
}
