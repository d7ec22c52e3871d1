// CREATE CATALOG and DROP CATALOG run on the coordinator, which owns the catalog set (catalog-manager.ts),
// never on a worker; so do they when EXECUTE or EXECUTE IMMEDIATE runs them. Every other statement goes to
// the engine behind (RemoteEngine), which carries the catalog set to the workers with each task.
import type { Engine, Plan, PlanAbort } from '../engine/engine.types.js';
import { staticRowsPlan } from '../engine/dialect/values-plan.js';
import type { Expression, OtherStatement, Statement } from '../sql/ast.js';
import { parsedStatement } from '../sql/statement-cache.js';
import { fold, partsOf } from '../sql/names.js';
import type { Session } from '../protocol/types.js';
import { VivaceError } from '../protocol/vivace-error.js';
import type { CatalogManager } from '../connectors/catalog-manager.js';
import type { CatalogAccess } from '../security/access-rules.js';

export interface CatalogStatementsOptions {
  /** The access control's catalogs rule (absent: everything allowed). */
  catalogAccess?: (user: string, catalog: string) => CatalogAccess;
  /** Called after the set changed (a created or dropped catalog). */
  onChange?: () => void;
}

/** The catalogs rule of the node's access control, when it has a rules file (the default allows everything). */
export function catalogRulesOf(access: { readonly kind: 'default' | 'file'; catalogAccess(user: string, catalog: string): CatalogAccess }): CatalogStatementsOptions {
  return access.kind === 'file' ? { catalogAccess: (user, catalog) => access.catalogAccess(user, catalog) } : {};
}

export class CatalogStatementsEngine implements Engine {
  constructor(private readonly inner: Engine, private readonly manager: CatalogManager, private readonly options: CatalogStatementsOptions = {}) {}

  plan(sql: string, session: Session, abort?: PlanAbort, queryId?: string): Promise<Plan> {
    let found: { statement: OtherStatement; parameters: readonly Expression[] } | undefined;
    try {
      found = catalogStatementOf(sql, session);
      if (!found) return this.inner.plan(sql, session, abort, queryId);
      const updateType = this.run(found.statement, found.parameters, session);
      return Promise.resolve(staticRowsPlan([], [], { updateType }));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  private run(statement: OtherStatement, parameters: readonly Expression[], session: Session): string {
    const parts = statement.catalog!;
    const name = partsOf(statement.name!)[0]!;
    if (statement.type === 'CreateCatalog') {
      // CreateCatalogTask's order: AUTHORIZATION, the access check, the properties, then the manager.
      if (parts.principal) throw new VivaceError('NOT_SUPPORTED', 'CREATE CATALOG with AUTHORIZATION is not yet supported');
      this.checkAccess(session.user, name, 'create');
      const properties: Record<string, string> = {};
      for (const property of parts.properties) {
        const key = property.name.value;
        if (Object.hasOwn(properties, key)) throw new VivaceError('DUPLICATE_PROPERTY', `Catalog property '${key}' is specified more than once`);
        if (property.value === undefined) throw new VivaceError('INVALID_ARGUMENTS', 'Catalog properties do not support DEFAULT value');
        properties[key] = propertyValue(key, property.value, parameters);
      }
      if (this.manager.create({ name, connector: parts.connector!.value, properties, notExists: parts.ifClause })) this.options.onChange?.();
      return 'CREATE CATALOG';
    }
    // DropCatalogTask's order: CASCADE, the access check, then the manager.
    if (parts.cascade && this.manager.dynamic) throw new VivaceError('NOT_SUPPORTED', 'CASCADE is not yet supported for DROP SCHEMA');
    this.checkAccess(session.user, name, 'drop');
    if (this.manager.drop(name, parts.ifClause, false)) this.options.onChange?.();
    return 'DROP CATALOG';
  }

  /** FileBasedSystemAccessControl.checkCanCreateCatalog / checkCanDropCatalog: the catalogs rule must allow all. */
  private checkAccess(user: string, catalog: string, verb: 'create' | 'drop'): void {
    const access = this.options.catalogAccess;
    if (access && access(user, catalog) !== 'all') throw new VivaceError('PERMISSION_DENIED', `Access Denied: Cannot ${verb} catalog ${catalog}`);
  }
}

/** A property's value: a varchar literal, or a parameter EXECUTE binds to one (Trino evaluates it as VARCHAR). */
function propertyValue(key: string, value: Expression, parameters: readonly Expression[]): string {
  const bound = value.type === 'Parameter' ? parameters[value.index] : value;
  if (bound === undefined) throw new VivaceError('INVALID_PARAMETER_USAGE', 'Incorrect number of parameters: expected more than given');
  if (bound.type !== 'StringLiteral') throw new VivaceError('INVALID_ARGUMENTS', `Invalid value for catalog property '${key}': must be a varchar literal`);
  return bound.value;
}

/**
 * The CREATE or DROP CATALOG `sql` runs, directly or through EXECUTE (the session's prepared statement) or
 * EXECUTE IMMEDIATE, with the parameters it is given; undefined for any other statement or text that does
 * not parse (the worker answers its syntax error).
 */
export function catalogStatementOf(sql: string, session: Pick<Session, 'preparedStatements'>): { statement: OtherStatement; parameters: readonly Expression[] } | undefined {
  const statement = parsedStatement(sql);
  if (!statement) return undefined;
  if (isCatalogStatement(statement)) return { statement, parameters: [] };
  let text: string | undefined;
  if (statement.type === 'ExecuteImmediate') text = statement.statement.value;
  else if (statement.type === 'Execute') {
    const prepared = session.preparedStatements ?? {};
    const key = Object.keys(prepared).find((n) => n === statement.name.value || fold(n) === fold(statement.name.value));
    text = key === undefined ? undefined : prepared[key];
  }
  if (text === undefined || (statement.type !== 'Execute' && statement.type !== 'ExecuteImmediate')) return undefined;
  const executed = parsedStatement(text);
  return executed && isCatalogStatement(executed) ? { statement: executed, parameters: statement.parameters } : undefined;
}

function isCatalogStatement(statement: Statement): statement is OtherStatement {
  return (statement.type === 'CreateCatalog' || statement.type === 'DropCatalog') && (statement as OtherStatement).catalog !== undefined;
}

