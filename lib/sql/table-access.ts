// The schemas and tables rules of the access control, held against a statement's tree: the privileges a
// statement needs on each table it reads or writes, schema ownership for CREATE / DROP SCHEMA, and the
// columns a rule denies. Denials use Trino's AccessDeniedException messages, with the object's full name.
import { syncPartitionMode } from './procedure-calls.js';
import type { Expression, Node, QualifiedName, Relation, Statement, Table } from './ast.js';
import { accessDenied, writeDenial, type CatalogAccessLevel } from './catalog-access.js';
import { fold, partsOf, qualifyTable, type QualifiedTable } from './names.js';
import { writeTarget } from './statement-gate.js';
import { walk } from './tree-walk.js';
import { VivaceError } from '../protocol/vivace-error.js';

export type TablePrivilege = 'SELECT' | 'INSERT' | 'DELETE' | 'UPDATE' | 'OWNERSHIP' | 'GRANT_SELECT';
export const TABLE_PRIVILEGES: readonly TablePrivilege[] = ['SELECT', 'INSERT', 'DELETE', 'UPDATE', 'OWNERSHIP', 'GRANT_SELECT'];

/** What the first matching `tables` rule gives a user on a table (catalog access already held against it). */
export interface TableGrant {
  privileges: ReadonlySet<TablePrivilege>;
  /** The rule's `allow: false` columns, in the rule's order. */
  restrictedColumns: readonly string[];
}

/** A mask or row filter: a Trino expression over the table's columns, run as `user` (its environment) when given. */
export interface GuardExpression {
  expression: Expression;
  /** The expression as the rules file wrote it (error locations). */
  text: string;
  user?: string;
}

/**
 * The masks, row filter and denied columns of the rule that decides a user's access to a table: a read of
 * the table goes through a subquery that applies the first two and leaves the third out.
 */
export interface TableGuard {
  masks: ReadonlyMap<string, GuardExpression>;
  filter?: GuardExpression;
  /** `allow: false` columns: the tree check refuses a statement that names them; the read leaves them out, whatever else would reach them. */
  restrictedColumns: readonly string[];
}

/** A user's rights, as lib/security decides them. */
export interface TableAccessContext {
  /** The session's catalog and schema, if any. */
  catalog?: string;
  schema?: string;
  user: string;
  grantOf(table: QualifiedTable): TableGrant;
  /** Trino's isSchemaOwner: a schemas rule with owner true, and catalog access `all`. */
  isSchemaOwner(catalog: string, schema: string): boolean;
  /** Whether a column mask applies to the user's reads of `table` (UPDATE refuses such a table, as Trino). */
  hasMasks(table: QualifiedTable): boolean;
  /** Trino's checkAnySchemaAccess: some schemas rule owns, or some tables rule grants, something in the schema. */
  schemaVisible(catalog: string, schema: string): boolean;
}

const canSelect = (grant: TableGrant) => grant.privileges.has('SELECT') || grant.privileges.has('GRANT_SELECT');
const nameOf = (t: QualifiedTable) => `${t.catalog}.${t.schema}.${t.table}`;

/** Throws PERMISSION_DENIED when the statement's user lacks a privilege it needs (checkCatalogAccess ran first). */
export function checkTableAccess(statement: Statement, context: TableAccessContext): void {
  // EXPLAIN (ANALYZE) is held to the rights of what it explains, as in Trino.
  const subject = statement.type === 'Explain' ? statement.statement : statement;
  checkWrite(subject, context);
  checkMetadata(subject, context);
  checkReads(subject, context);
}

/**
 * The reads of a mask or row filter, held to the rights of the user it runs as (its environment's, else the
 * query's), its names resolved in its table's schema: Trino analyses a ViewExpression as that identity.
 */
export function checkExpressionReads(expression: Expression, context: TableAccessContext): void {
  checkReads(expression, context);
}

/** `[catalog.][schema.]table` in the session; undefined where a part is missing (the statement fails later, as Trino's analysis would). */
function tableOf(name: QualifiedName, context: TableAccessContext): QualifiedTable | undefined {
  const parts = partsOf(name);
  return parts.length > 3 ? undefined : qualifyTable(parts, context.catalog, context.schema);
}

function schemaOf(name: QualifiedName, context: TableAccessContext): { catalog: string; schema: string } | undefined {
  const parts = partsOf(name);
  if (parts.length === 2) return { catalog: parts[0]!, schema: parts[1]! };
  if (parts.length === 1 && context.catalog !== undefined) return { catalog: fold(context.catalog), schema: parts[0]! };
  return undefined;
}

/** The privilege a write needs on its table, by statement (FileBasedSystemAccessControl's checkCan* methods). */
function neededPrivilege(statement: Statement): TablePrivilege | undefined {
  switch (statement.type) {
    case 'Insert':
      return 'INSERT';
    case 'Delete':
    case 'TruncateTable':
      return 'DELETE';
    case 'Update':
      return 'UPDATE';
    case 'CreateTable':
    case 'CreateTableAsSelect':
    case 'DropTable':
    case 'RenameTable':
    case 'AddColumn':
    case 'DropColumn':
    case 'RenameColumn':
    case 'Comment':
    case 'CreateView':
    case 'DropView':
      return 'OWNERSHIP';
    default:
      return undefined;
  }
}

function checkWrite(statement: Statement, context: TableAccessContext): void {
  const target = writeTarget(statement);
  if (!target) return;
  if (target.schemaLevel) {
    const schema = schemaOf(target.name, context);
    if (schema && !context.isSchemaOwner(schema.catalog, schema.schema)) throw accessDenied(writeDenial(statement, `${schema.catalog}.${schema.schema}`));
    return;
  }
  const table = tableOf(target.name, context);
  if (table && statement.type === 'Call') {
    // sync_partition_metadata adds partitions as an INSERT, drops them as a DELETE (its connector's checks).
    const mode = syncPartitionMode(statement);
    const grant = context.grantOf(table);
    if (mode !== 'DROP' && !grant.privileges.has('INSERT')) throw accessDenied(`Cannot insert into table ${nameOf(table)}`);
    if (mode !== 'ADD' && !grant.privileges.has('DELETE')) throw accessDenied(`Cannot delete from table ${nameOf(table)}`);
    return;
  }
  const privilege = neededPrivilege(statement);
  if (!table || !privilege) return;
  const allowed = (t: QualifiedTable) => context.grantOf(t).privileges.has(privilege);
  if (statement.type === 'RenameTable') {
    const to = partsOf(statement.target);
    const renamed = to.length === 1 ? { ...table, table: to[0]! } : to.length === 2 ? { ...table, schema: to[0]!, table: to[1]! } : tableOf(statement.target, context);
    if (renamed && (!allowed(table) || !allowed(renamed))) throw accessDenied(`Cannot rename table from ${nameOf(table)} to ${nameOf(renamed)}`);
    return;
  }
  if (!allowed(table)) throw accessDenied(writeDenial(statement, nameOf(table)));
  // Trino's analysis refuses an UPDATE of a table the user reads through a column mask; a DELETE is refused
  // too, as its WHERE would compare the raw values the mask hides (its update count would tell them).
  if (statement.type === 'Update' && context.hasMasks(table)) throw new VivaceError('NOT_SUPPORTED', 'Updating a table with column masks is not supported');
  if (statement.type === 'Delete' && context.hasMasks(table)) throw new VivaceError('NOT_SUPPORTED', 'Delete from table with column mask');
}

/** SHOW TABLES needs some right in the schema; SHOW COLUMNS / DESCRIBE some privilege on the table; SHOW CREATE ownership. */
function checkMetadata(statement: Statement, context: TableAccessContext): void {
  if (statement.type === 'ShowTables') {
    const schema = statement.schema ? schemaOf(statement.schema, context) : context.catalog !== undefined && context.schema !== undefined ? { catalog: fold(context.catalog), schema: fold(context.schema) } : undefined;
    if (schema && !context.schemaVisible(schema.catalog, schema.schema)) throw accessDenied(`Cannot show tables of schema ${schema.catalog}.${schema.schema}`);
  } else if (statement.type === 'ShowColumns') {
    const table = tableOf(statement.table, context);
    if (table && context.grantOf(table).privileges.size === 0) throw accessDenied(`Cannot show columns of table ${nameOf(table)}`);
  } else if (statement.type === 'ShowCreate' && statement.objectType === 'SCHEMA') {
    const schema = schemaOf(statement.name, context);
    if (schema && !context.isSchemaOwner(schema.catalog, schema.schema)) throw accessDenied(`Cannot show create schema for ${schema.catalog}.${schema.schema}`);
  } else if (statement.type === 'ShowCreate') {
    const table = tableOf(statement.name, context);
    if (table && !context.grantOf(table).privileges.has('OWNERSHIP')) throw accessDenied(`Cannot show create table for ${nameOf(table)}`);
  }
}

/**
 * Every table the statement reads (not a CTE, not the table it writes) needs SELECT or GRANT_SELECT, and
 * none of its `allow: false` columns may be referenced. A view's query needs GRANT_SELECT: whoever reads
 * the view later reads it with its creator's rights (Trino asks that of a view's owner when another user
 * reads it; here the view is checked once, when it is created).
 */
function checkReads(statement: Node, context: TableAccessContext): void {
  const ctes = new Set<string>();
  const targets = new Set<Node>();
  const names = new Set<string>();
  const starred = new Set<Table>();
  walk(statement, (node, parent) => {
    switch (node.type) {
      case 'Prepare':
        // A prepared statement is checked when it is executed (Trino's PREPARE does not analyse it).
        return false;
      case 'WithQuery':
        ctes.add(fold(node.name.value));
        break;
      case 'Insert':
        targets.add(node.target);
        break;
      case 'Delete':
      case 'Update':
        targets.add(node.table);
        break;
      case 'Identifier':
        if (!isAliasPosition(node, parent)) names.add(fold(node.value));
        break;
      case 'QuerySpecification':
        for (const item of node.select.selectItems) {
          if (item.type === 'AllColumns') for (const table of starTables(node.from, item.target)) starred.add(table);
        }
        break;
      case 'Query':
        // TABLE t reads all of t's columns.
        if (node.body.type === 'Table') starred.add(node.body);
        break;
      case 'ShowStats':
        if (node.relation.type === 'Table') starred.add(node.relation);
        break;
      default:
        break;
    }
    return true;
  });
  walk(statement, (node) => {
    if (node.type === 'Prepare') return false;
    if (node.type !== 'Table' || targets.has(node)) return true;
    const parts = partsOf(node.name);
    if (parts.length === 1 && ctes.has(parts[0]!)) return true;
    const table = tableOf(node.name, context);
    if (!table) return true;
    const grant = context.grantOf(table);
    if (!canSelect(grant)) throw accessDenied(`Cannot select from table ${nameOf(table)}`);
    const denied = grant.restrictedColumns.filter((c) => starred.has(node) || names.has(c));
    if (denied.length > 0) throw accessDenied(`Cannot select from columns [${denied.join(', ')}] in table or view ${nameOf(table)}`);
    if (statement.type === 'CreateView' && !grant.privileges.has('GRANT_SELECT')) {
      throw accessDenied(`View owner '${context.user}' cannot create view that selects from ${nameOf(table)}`);
    }
    return true;
  });
}

/** Identifiers that name no column: aliases of columns, relations and CTEs. */
function isAliasPosition(id: Node, parent: Node | undefined): boolean {
  switch (parent?.type) {
    case 'SingleColumn':
      return parent.alias === id;
    case 'AliasedRelation':
      return parent.alias === id || (parent.columnNames?.includes(id as never) ?? false);
    case 'WithQuery':
      return parent.name === id || (parent.columnNames?.includes(id as never) ?? false);
    case 'AllColumns':
      return parent.aliases.includes(id as never);
    case 'QualifiedName':
      // Table and function names; a column is never a QualifiedName's part in this tree.
      return true;
    default:
      return false;
  }
}

/**
 * The tables of a FROM clause (not its subqueries) that `*` or `target.*` covers: all of them for `*`;
 * for `x.*`, those whose correlation name (alias, else the table's own name) is x's last part.
 */
function starTables(from: Relation | undefined, target: Expression | undefined): Table[] {
  const out: { table: Table; name: string }[] = [];
  const visit = (relation: Relation | undefined, alias?: string): void => {
    switch (relation?.type) {
      case 'Table': {
        const parts = partsOf(relation.name);
        out.push({ table: relation, name: alias ?? parts[parts.length - 1]! });
        return;
      }
      case 'AliasedRelation':
        return visit(relation.relation, fold(relation.alias.value));
      case 'SampledRelation':
        return visit(relation.relation, alias);
      case 'Join':
        visit(relation.left);
        visit(relation.right);
        return;
      default:
        return;
    }
  };
  visit(from);
  if (!target) return out.map((t) => t.table);
  const last = target.type === 'Identifier' ? target.value : target.type === 'DereferenceExpression' ? target.field.value : undefined;
  if (last === undefined) return [];
  return out.filter((t) => t.name === fold(last)).map((t) => t.table);
}

/**
 * Everything the engine asks of the access control about a statement's objects, per user: the catalogs
 * rule, the tables and schemas rules, and what listings show (lib/security/access-control.ts answers).
 */
export interface StatementAccess {
  catalogAccess(user: string, catalog: string): CatalogAccessLevel;
  tableGrant(user: string, table: QualifiedTable): TableGrant;
  isSchemaOwner(user: string, catalog: string, schema: string): boolean;
  /** The masks, row filter and denied columns of the user's reads of a table; undefined when there are none. */
  tableGuard(user: string, table: QualifiedTable): TableGuard | undefined;
  /** Listings (SHOW SCHEMAS, information_schema, system.jdbc): a schema some rule gives the user something in. */
  schemaVisible(user: string, catalog: string, schema: string): boolean;
  /** Listings (SHOW TABLES, information_schema, system.jdbc): a table the user has any privilege on, or owns the schema of. */
  tableVisible(user: string, table: QualifiedTable): boolean;
  /** Listings of columns: an `allow: false` column vanishes for a user with only SELECT or GRANT_SELECT, as in Trino. */
  columnVisible(user: string, table: QualifiedTable, column: string): boolean;
  /** Changes whenever the rules in force do: what was planned under other rules is planned again. */
  rulesGeneration(): number;
}

/** The context checkTableAccess needs, for one user of `access`. */
export function tableAccessContext(access: StatementAccess, user: string, session: { catalog?: string; schema?: string }): TableAccessContext {
  return {
    ...(session.catalog === undefined ? {} : { catalog: session.catalog }),
    ...(session.schema === undefined ? {} : { schema: session.schema }),
    user,
    grantOf: (table) => access.tableGrant(user, table),
    isSchemaOwner: (catalog, schema) => access.isSchemaOwner(user, catalog, schema),
    hasMasks: (table) => (access.tableGuard(user, table)?.masks.size ?? 0) > 0,
    schemaVisible: (catalog, schema) => access.schemaVisible(user, catalog, schema),
  };
}
