// The catalogs rule of the access control, held against a statement's tree: every catalog the statement
// reads must be open to the user (`read-only` or `all`), and the one it writes must be `all`. Denials use
// Trino's AccessDeniedException messages, with the object's fully qualified name.
import type { Node, QualifiedName, Statement } from './ast.js';
import { fold, partsOf } from './names.js';
import { resolveTable, writeTarget } from './statement-gate.js';
import { walk } from './tree-walk.js';
import { VivaceError } from '../protocol/vivace-error.js';

export type CatalogAccessLevel = 'all' | 'read-only' | 'none';

export interface CatalogAccessContext {
  /** The session's catalog and schema, if any. */
  catalog?: string;
  schema?: string;
  /** What the statement's user may do in a catalog (lower-case name). */
  accessOf(catalog: string): CatalogAccessLevel;
}

/** Trino's AccessDeniedException: PERMISSION_DENIED, 403 over HTTP. */
export const accessDenied = (message: string) => new VivaceError('PERMISSION_DENIED', `Access Denied: ${message}`);

/**
 * The catalogs rule, the one place it is decided: a catalog is open to a user with `read-only` or `all`
 * (SHOW CATALOGS lists it, statements may read it), closed with `none`.
 */
export function catalogOpen(access: CatalogAccessLevel): boolean {
  return access !== 'none';
}

/** Trino's denial for a closed catalog. */
export function checkCatalogOpen(catalog: string, access: CatalogAccessLevel): void {
  if (!catalogOpen(access)) throw accessDenied(`Cannot access catalog ${catalog}`);
}

/** Throws PERMISSION_DENIED when the statement's user may not read or write a catalog it names. */
export function checkCatalogAccess(statement: Statement, context: CatalogAccessContext): void {
  // EXPLAIN is analysed as what it explains, and held to the same rights, as in Trino.
  const subject = statement.type === 'Explain' ? statement.statement : statement;
  checkWrite(subject, context);
  checkCatalogReads(subject, context);
}

/** Every catalog a tree (a statement, or a mask or filter of the access control) reads must be open to the user. */
export function checkCatalogReads(subject: Node, context: CatalogAccessContext): void {
  const cteNames = new Set<string>();
  walk(subject, (node) => {
    if (node.type === 'WithQuery') cteNames.add(fold(node.name.value));
    // A prepared statement is checked when it is executed (Trino's PREPARE does not analyse it).
    return node.type !== 'Prepare';
  });
  walk(subject, (node) => {
    if (node.type === 'Prepare') return false;
    const catalog = catalogRead(node, context, cteNames);
    if (catalog !== undefined) checkCatalogOpen(catalog, context.accessOf(catalog));
    return true;
  });
}

/** The catalog a node reads, if it names one (tables, and the metadata statements' objects). */
function catalogRead(node: Node, context: CatalogAccessContext, cteNames: ReadonlySet<string>): string | undefined {
  const session = context.catalog === undefined ? undefined : fold(context.catalog);
  switch (node.type) {
    case 'Table': {
      const parts = partsOf(node.name);
      if (parts.length === 1 && cteNames.has(parts[0]!)) return undefined;
      return resolveTable(parts, context).catalog;
    }
    case 'ShowColumns':
      return tableCatalog(node.table, session);
    case 'ShowCreate':
      return node.objectType === 'SCHEMA' ? schemaCatalog(node.name, session) : tableCatalog(node.name, session);
    case 'ShowSchemas':
      return node.catalog ? fold(node.catalog.value) : session;
    case 'ShowTables':
      return node.schema ? schemaCatalog(node.schema, session) : session;
    case 'Use':
      return node.catalog ? fold(node.catalog.value) : session;
    default:
      return undefined;
  }
}

const tableCatalog = (name: QualifiedName, session: string | undefined) => {
  const parts = partsOf(name);
  return parts.length >= 3 ? parts[0] : session;
};
const schemaCatalog = (name: QualifiedName, session: string | undefined) => {
  const parts = partsOf(name);
  return parts.length >= 2 ? parts[0] : session;
};

/** A write needs `all` on its catalog; the message names what was written, as Trino's denials do. */
function checkWrite(statement: Statement, context: CatalogAccessContext): void {
  const target = writeTarget(statement);
  if (!target) return;
  const parts = partsOf(target.name);
  const session = context.catalog === undefined ? undefined : fold(context.catalog);
  const schema = context.schema === undefined ? undefined : fold(context.schema);
  const catalog = parts.length === (target.schemaLevel ? 2 : 3) ? parts[0]! : session;
  // Without a catalog the statement fails as MISSING_CATALOG_NAME when it is planned.
  if (catalog === undefined) return;
  const allowed = context.accessOf(catalog) === 'all';
  if (statement.type === 'RenameTable') {
    const to = partsOf(statement.target);
    const toCatalog = to.length === 3 ? to[0]! : catalog;
    if (allowed && context.accessOf(toCatalog) === 'all') return;
    throw accessDenied(`Cannot rename table from ${qualified(parts, catalog, schema)} to ${qualified(to, toCatalog, to.length >= 2 ? to[to.length - 2] : parts.length >= 2 ? parts[parts.length - 2] : schema)}`);
  }
  if (allowed) return;
  const name = target.schemaLevel ? `${catalog}.${parts[parts.length - 1]}` : qualified(parts, catalog, schema);
  throw accessDenied(writeDenial(statement, name));
}

/** `catalog.schema.table` of a table name in the session. */
function qualified(parts: readonly string[], catalog: string, schema: string | undefined): string {
  const table = parts[parts.length - 1]!;
  const inSchema = parts.length >= 2 ? parts[parts.length - 2] : schema;
  return `${catalog}.${inSchema ?? '?'}.${table}`;
}

/** Trino's denial of a write to `name` (a table's or schema's qualified name) by `statement`. */
export function writeDenial(statement: Statement, name: string): string {
  switch (statement.type) {
    case 'CreateTable':
    case 'CreateTableAsSelect':
      return `Cannot create table ${name}`;
    case 'Insert':
      return `Cannot insert into table ${name}`;
    case 'Call':
      return `Cannot execute procedure ${name.slice(0, name.indexOf('.'))}.system.sync_partition_metadata`;
    case 'Delete':
      return `Cannot delete from table ${name}`;
    case 'Update':
      return `Cannot update columns [${statement.assignments.map((a) => fold(a.name.value)).join(', ')}] in table ${name}`;
    case 'TruncateTable':
      return `Cannot truncate table ${name}`;
    case 'DropTable':
      return `Cannot drop table ${name}`;
    case 'AddColumn':
      return `Cannot add a column to table ${name}`;
    case 'DropColumn':
      return `Cannot drop a column from table ${name}`;
    case 'RenameColumn':
      return `Cannot rename a column in table ${name}`;
    case 'CreateView':
      return `Cannot create view ${name}`;
    case 'DropView':
      return `Cannot drop view ${name}`;
    case 'CreateSchema':
      return `Cannot create schema ${name}`;
    case 'DropSchema':
      return `Cannot drop schema ${name}`;
    case 'Comment':
      return `Cannot comment ${statement.objectType.toLowerCase()} to ${name}`;
    default:
      return `Cannot write to ${name}`;
  }
}
