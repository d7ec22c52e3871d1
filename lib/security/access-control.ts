// Who may do what, as Trino's system access control decides it: the default (no rules file) and the
// file-based one (security.config-file). The HTTP routes and the engine ask; a denial throws
// PERMISSION_DENIED with Trino's exact "Access Denied: ..." message (403 over HTTP).
import type { CoordinatorConfig } from '../config.js';
import { accessDenied, catalogOpen, checkCatalogOpen } from '../sql/catalog-access.js';
import { AccessRulesFile, type AccessRulesFileOptions } from './access-rules-file.js';
import type { AccessRules, CatalogAccess, CatalogRule, QueryAccessMode, SystemInformationAccess } from './access-rules.js';
import { RulePattern } from './rule-pattern.js';
import type { QualifiedTable } from '../sql/names.js';
import { TABLE_PRIVILEGES, type StatementAccess, type TableGrant, type TableGuard, type TablePrivilege } from '../sql/table-access.js';
import { ruleMatches, type TableRule } from './table-rules.js';

export type { CatalogAccess } from './access-rules.js';

export interface AccessControl extends StatementAccess {
  /** `default`: no rules file (all allowed but impersonation); `file`: Trino's file-based rules */
  readonly kind: 'default' | 'file';
  checkCanExecuteQuery(user: string): void;
  /** Users always see their own queries; others' only where a rule allows. */
  canViewQueryOwnedBy(user: string, owner: string): boolean;
  checkCanViewQueryOwnedBy(user: string, owner: string): void;
  /**
   * Whether `user` sees a query of `owner` in /v1/query, /v1/query/{id} and system.runtime.queries: their
   * own, those a `queries` view rule opens, and every query for a user who may read system information
   * (issue 9: system_information read covers `/v1/query` of all users).
   */
  canSeeQueryOwnedBy(user: string, owner: string): boolean;
  /** The queries `user` sees (canSeeQueryOwnedBy), in their order. */
  filterQueriesOwnedBy<T>(user: string, queries: readonly T[], ownerOf: (query: T) => string): T[];
  /** Users may always kill their own queries; others' only where a rule allows. */
  canKillQueryOwnedBy(user: string, owner: string): boolean;
  checkCanKillQueryOwnedBy(user: string, owner: string): void;
  /** Acting as `newUser` after authenticating as `originalUser`; being oneself is no impersonation. */
  checkCanImpersonateUser(originalUser: string, newUser: string): void;
  canReadSystemInformation(user: string): boolean;
  checkCanReadSystemInformation(user: string): void;
  checkCanWriteSystemInformation(user: string): void;
  catalogAccess(user: string, catalog: string): CatalogAccess;
  /** Reading the catalog at all (read-only or all: lib/sql/catalog-access.ts's catalogOpen). */
  checkCanAccessCatalog(user: string, catalog: string): void;
  /** The catalogs `user` may see (SHOW CATALOGS, system.metadata.catalogs), in their order. */
  filterCatalogs(user: string, names: readonly string[]): string[];
  close(): void;
}

// Trino's file-based control answers "Cannot view query" for execute, view and kill alike.
const denyViewQuery = () => accessDenied('Cannot view query');

/** The decisions; the checks, the own-query rule and the filters are shared. */
abstract class BaseAccessControl implements AccessControl {
  abstract readonly kind: 'default' | 'file';
  /** `owner` undefined: executing a new query (it has no owner yet). */
  protected abstract queryAccess(user: string, owner: string | undefined, mode: QueryAccessMode): boolean;
  protected abstract impersonation(originalUser: string, newUser: string): boolean;
  protected abstract systemInformation(user: string, mode: SystemInformationAccess): boolean;
  abstract catalogAccess(user: string, catalog: string): CatalogAccess;

  checkCanExecuteQuery(user: string): void {
    if (!this.queryAccess(user, undefined, 'execute')) throw denyViewQuery();
  }

  canViewQueryOwnedBy(user: string, owner: string): boolean {
    return user === owner || this.queryAccess(user, owner, 'view');
  }

  checkCanViewQueryOwnedBy(user: string, owner: string): void {
    if (!this.canViewQueryOwnedBy(user, owner)) throw denyViewQuery();
  }

  canSeeQueryOwnedBy(user: string, owner: string): boolean {
    return this.canViewQueryOwnedBy(user, owner) || this.canReadSystemInformation(user);
  }

  filterQueriesOwnedBy<T>(user: string, queries: readonly T[], ownerOf: (query: T) => string): T[] {
    const byOwner = new Map<string, boolean>(); // one decision per owner, however many queries they have
    return queries.filter((query) => {
      const owner = ownerOf(query);
      let visible = byOwner.get(owner);
      if (visible === undefined) byOwner.set(owner, (visible = this.canSeeQueryOwnedBy(user, owner)));
      return visible;
    });
  }

  canKillQueryOwnedBy(user: string, owner: string): boolean {
    return user === owner || this.queryAccess(user, owner, 'kill');
  }

  checkCanKillQueryOwnedBy(user: string, owner: string): void {
    if (!this.canKillQueryOwnedBy(user, owner)) throw denyViewQuery();
  }

  checkCanImpersonateUser(originalUser: string, newUser: string): void {
    if (originalUser !== newUser && !this.impersonation(originalUser, newUser)) {
      throw accessDenied(`User ${originalUser} cannot impersonate user ${newUser}`);
    }
  }

  canReadSystemInformation(user: string): boolean {
    return this.systemInformation(user, 'read');
  }

  checkCanReadSystemInformation(user: string): void {
    if (!this.canReadSystemInformation(user)) throw accessDenied('Cannot read system information');
  }

  checkCanWriteSystemInformation(user: string): void {
    if (!this.systemInformation(user, 'write')) throw accessDenied('Cannot write system information');
  }

  checkCanAccessCatalog(user: string, catalog: string): void {
    checkCatalogOpen(catalog, this.catalogAccess(user, catalog));
  }

  filterCatalogs(user: string, names: readonly string[]): string[] {
    return names.filter((name) => catalogOpen(this.catalogAccess(user, name)));
  }

  abstract tableGrant(user: string, table: QualifiedTable): TableGrant;
  abstract isSchemaOwner(user: string, catalog: string, schema: string): boolean;
  abstract tableGuard(user: string, table: QualifiedTable): TableGuard | undefined;
  abstract rulesGeneration(): number;

  schemaVisible(user: string, catalog: string, _schema: string): boolean {
    return catalogOpen(this.catalogAccess(user, catalog));
  }

  tableVisible(user: string, table: QualifiedTable): boolean {
    return this.isSchemaOwner(user, table.catalog, table.schema) || this.tableGrant(user, table).privileges.size > 0;
  }

  columnVisible(user: string, table: QualifiedTable, column: string): boolean {
    const { privileges, restrictedColumns } = this.tableGrant(user, table);
    if (privileges.size === 0) return false;
    // A user with privileges beyond SELECT sees every column (FileBasedSystemAccessControl.filterColumns).
    if ([...privileges].some((p) => p !== 'SELECT' && p !== 'GRANT_SELECT')) return true;
    return !restrictedColumns.includes(column);
  }

  close(): void {
    // Nothing runs in the background: a refresh happens at the first check after the period.
  }
}

/**
 * No rules file: Trino's `default` system access control, where everything is allowed but impersonation.
 * (Shutdown from loopback only, without rules, is the HTTP layer's rule, not a decision made here.)
 */
export class DefaultAccessControl extends BaseAccessControl {
  readonly kind = 'default';
  protected queryAccess(): boolean {
    return true;
  }
  protected impersonation(): boolean {
    return false;
  }
  protected systemInformation(): boolean {
    return true;
  }
  catalogAccess(): CatalogAccess {
    return 'all';
  }
  tableGrant(): TableGrant {
    return ALL_PRIVILEGES;
  }
  isSchemaOwner(): boolean {
    return true;
  }
  tableGuard(): undefined {
    return undefined;
  }
  rulesGeneration(): number {
    return 0;
  }
}

const ALL_PRIVILEGES: TableGrant = { privileges: new Set(TABLE_PRIVILEGES), restrictedColumns: [] };
const NO_PRIVILEGES: TableGrant = { privileges: new Set(), restrictedColumns: [] };
const READ_PRIVILEGES: ReadonlySet<TablePrivilege> = new Set(['SELECT', 'GRANT_SELECT']);
/** Trino's tables and schemas sections exempt each catalog's information_schema. */
const INFORMATION_SCHEMA = 'information_schema';

/** Appended to the catalog rules when there are any, as Trino does: every user may use the system catalog unless a rule above says otherwise. */
const SYSTEM_CATALOG_RULE: CatalogRule = {
  user: RulePattern.compile('.*', 'implicit system catalog rule'),
  catalog: RulePattern.compile('system', 'implicit system catalog rule'),
  namesRoleOrGroup: false,
  allow: 'all',
};

/**
 * Trino's file-based system access control. In each section the first rule that matches decides; when
 * none does, the answer is no. A section the file leaves out keeps Trino's default: catalogs, queries,
 * tables (every privilege) and schemas (everyone an owner) allowed to all, impersonation and system
 * information denied to all.
 */
export class FileBasedAccessControl extends BaseAccessControl {
  readonly kind = 'file';

  private seenRules: AccessRules | undefined;
  private generation = 0;

  constructor(private readonly rules: { current(): AccessRules }) {
    super();
  }

  rulesGeneration(): number {
    const rules = this.rules.current();
    if (rules !== this.seenRules) {
      this.seenRules = rules;
      this.generation++;
    }
    return this.generation;
  }

  /** The first tables rule that matches; a file without the section allows everything (TableAccessControlRule.ALLOW_ALL). */
  private tableRule(user: string, table: QualifiedTable): TableRule | 'all' | undefined {
    const rules = this.rules.current().tables;
    if (rules === undefined) return 'all';
    return rules.find((rule) => ruleMatches(rule, user, table.catalog, table.schema, table.table));
  }

  /**
   * The privileges the first matching rule gives, as far as the catalogs rule lets them count: SELECT and
   * GRANT_SELECT need the catalog read-only, every other privilege needs it `all` (checkTablePermission).
   */
  tableGrant(user: string, table: QualifiedTable): TableGrant {
    const access = this.catalogAccess(user, table.catalog);
    if (!catalogOpen(access)) return NO_PRIVILEGES;
    if (table.schema === INFORMATION_SCHEMA) return ALL_PRIVILEGES;
    const rule = this.tableRule(user, table);
    const grant = rule === 'all' ? ALL_PRIVILEGES : rule === undefined ? NO_PRIVILEGES : rule;
    if (access === 'all') return { privileges: grant.privileges, restrictedColumns: grant.restrictedColumns };
    return { privileges: new Set([...grant.privileges].filter((p) => READ_PRIVILEGES.has(p))), restrictedColumns: grant.restrictedColumns };
  }

  /**
   * checkAnySchemaAccess: the catalog open, and a schemas rule with owner true or a tables rule with some
   * privilege that matches the user, catalog and schema (a missing section is Trino's allow-all rule).
   */
  override schemaVisible(user: string, catalog: string, schema: string): boolean {
    if (!catalogOpen(this.catalogAccess(user, catalog))) return false;
    if (schema === INFORMATION_SCHEMA) return true;
    const { schemas, tables } = this.rules.current();
    if (schemas === undefined || tables === undefined) return true;
    return schemas.some((rule) => rule.owner && ruleMatches(rule, user, catalog, schema)) || tables.some((rule) => rule.privileges.size > 0 && ruleMatches(rule, user, catalog, schema));
  }

  isSchemaOwner(user: string, catalog: string, schema: string): boolean {
    if (this.catalogAccess(user, catalog) !== 'all') return false;
    const rules = this.rules.current().schemas;
    if (rules === undefined) return true;
    return rules.find((rule) => ruleMatches(rule, user, catalog, schema))?.owner ?? false;
  }

  /** The masks, filter and denied columns of the rule that decides, and only of it (Trino stops at the first match). */
  tableGuard(user: string, table: QualifiedTable): TableGuard | undefined {
    if (table.schema === INFORMATION_SCHEMA) return undefined;
    const rule = this.tableRule(user, table);
    if (rule === undefined || rule === 'all' || (rule.masks.size === 0 && rule.filter === undefined && rule.restrictedColumns.length === 0)) return undefined;
    return { masks: rule.masks, restrictedColumns: rule.restrictedColumns, ...(rule.filter ? { filter: rule.filter } : {}) };
  }

  protected queryAccess(user: string, owner: string | undefined, mode: QueryAccessMode): boolean {
    const rules = this.rules.current().queries;
    if (rules === undefined) return true;
    for (const rule of rules) {
      if (rule.namesRoleOrGroup || (rule.user !== undefined && !rule.user.matches(user))) continue;
      // Executing has no owner: only rules without queryOwner apply; viewing or killing: any rule whose queryOwner matches.
      const ownerMatches = owner === undefined ? rule.queryOwner === undefined : (rule.queryOwner?.matches(owner) ?? true);
      if (ownerMatches) return rule.allow.has(mode);
    }
    return false;
  }

  protected impersonation(originalUser: string, newUser: string): boolean {
    for (const rule of this.rules.current().impersonation ?? []) {
      if (rule.namesRole) continue;
      const groups = rule.originalUser?.wholeMatch(originalUser);
      if (rule.originalUser !== undefined && groups === undefined) continue;
      if (rule.newUser.matches(newUser, groups)) return rule.allow;
    }
    return false;
  }

  protected systemInformation(user: string, mode: SystemInformationAccess): boolean {
    for (const rule of this.rules.current().systemInformation ?? []) {
      if (rule.namesRoleOrGroup || (rule.user !== undefined && !rule.user.matches(user))) continue;
      return rule.allow.has(mode);
    }
    return false;
  }

  catalogAccess(user: string, catalog: string): CatalogAccess {
    const rules = this.rules.current().catalogs;
    if (rules === undefined) return 'all';
    for (const rule of [...rules, SYSTEM_CATALOG_RULE]) {
      if (rule.namesRoleOrGroup || (rule.user !== undefined && !rule.user.matches(user))) continue;
      if (rule.catalog === undefined || rule.catalog.matches(catalog)) return rule.allow;
    }
    return 'none';
  }
}

/**
 * The access control the configuration asks for: file-based when security.config-file is set (read now:
 * an invalid file is a startup error; re-read per security.refresh-period), Trino's default otherwise.
 */
export function createAccessControl(
  config: Pick<CoordinatorConfig, 'securityConfigFile' | 'securityRefreshPeriodMs'>,
  options: Omit<AccessRulesFileOptions, 'refreshPeriodMs'> = {},
): AccessControl {
  if (config.securityConfigFile === undefined) return new DefaultAccessControl();
  const file = new AccessRulesFile(config.securityConfigFile, { ...options, refreshPeriodMs: config.securityRefreshPeriodMs });
  return new FileBasedAccessControl(file);
}
