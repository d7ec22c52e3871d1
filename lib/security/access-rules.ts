// Reads a rules file of Trino's file-based system access control (security.config-file): JSON, checked
// against schemas/access-control-rules.schema.json, every pattern compiled once (RE2). A missing section
// stays undefined: what that means (allow or deny) is Trino's default for the section, applied in
// access-control.ts. Any problem is a CONFIGURATION_INVALID error that says where it is.
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import { readFileSync, statSync } from 'node:fs';
import schema from '../../schemas/access-control-rules.schema.json' with { type: 'json' };
import { jsonSyntaxProblem } from '../log/json-syntax.js';
import type { CatalogAccessLevel } from '../sql/catalog-access.js';
import { NewUserPattern } from './new-user-pattern.js';
import { RulePattern, invalidRules, shown } from './rule-pattern.js';
import { compileSchemaRule, compileTableRule, upperCasePrivileges, type SchemaRule, type TableRule } from './table-rules.js';

export type { SchemaRule, TableRule } from './table-rules.js';

/** What a catalog rule grants: the SQL front end's level (lib/sql/catalog-access.ts holds the rule). */
export type CatalogAccess = CatalogAccessLevel;
export type QueryAccessMode = 'execute' | 'view' | 'kill';
export type SystemInformationAccess = 'read' | 'write';

/**
 * What every rule shares. Vivace has no roles and no groups: a rule that names a `role` or a `group`
 * matches nobody, as in Trino for a user with no enabled role and no group (its patterns are still checked).
 */
interface RuleBase {
  user?: RulePattern;
  namesRoleOrGroup: boolean;
}

export interface CatalogRule extends RuleBase {
  catalog?: RulePattern;
  allow: CatalogAccess;
}

export interface QueryRule extends RuleBase {
  queryOwner?: RulePattern;
  allow: ReadonlySet<QueryAccessMode>;
}

export interface ImpersonationRule {
  originalUser?: RulePattern;
  namesRole: boolean;
  newUser: NewUserPattern;
  allow: boolean;
}

export interface SystemInformationRule extends RuleBase {
  allow: ReadonlySet<SystemInformationAccess>;
}

export interface AccessRules {
  catalogs?: readonly CatalogRule[];
  schemas?: readonly SchemaRule[];
  tables?: readonly TableRule[];
  queries?: readonly QueryRule[];
  impersonation?: readonly ImpersonationRule[];
  systemInformation?: readonly SystemInformationRule[];
}

/** Past this a rules file is refused rather than read (Trino's largest real files are far below). */
export const MAX_RULES_FILE_BYTES = 16 << 20;

/** Sections of Trino's system rules file that Vivace does not apply: refused, so no rule is silently ignored. */
const UNSUPPORTED_SECTIONS = [
  'functions', 'procedures', 'authorization', 'principals', 'system_session_properties', 'catalog_session_properties',
];

// strictRequired is off: impersonation rules require new_user or newUser through anyOf branches.
const ajv = new Ajv2020({ strict: true, strictRequired: false, allErrors: true });
const validate = ajv.compile(schema);

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Trino reads mode names case-insensitively (Jackson's ACCEPT_CASE_INSENSITIVE_ENUMS): lower-case them first. */
function lowerCaseModes(doc: Json): void {
  const lower = (v: unknown) => (typeof v === 'string' ? v.toLowerCase() : v);
  for (const section of ['catalogs', 'queries', 'system_information']) {
    const rules = doc[section];
    if (!Array.isArray(rules)) continue;
    for (const rule of rules) {
      if (!isObject(rule)) continue;
      rule.allow = Array.isArray(rule.allow) ? rule.allow.map(lower) : lower(rule.allow);
    }
  }
}

/** One line per offending place: the first error there, anyOf's summary and the alias's twin left out. */
function describe(errors: readonly ErrorObject[]): string {
  const byPath = new Map<string, string>();
  for (const e of errors) {
    if (e.keyword === 'anyOf' || (e.keyword === 'required' && e.params.missingProperty === 'newUser')) continue;
    const path = e.instancePath || '(root)';
    if (byPath.has(path)) continue;
    if (e.keyword === 'additionalProperties') byPath.set(path, `unknown property ${shown(String(e.params.additionalProperty))}`);
    else if (e.keyword === 'enum') byPath.set(path, `must be one of ${(e.params.allowedValues as unknown[]).join(', ')}`);
    else byPath.set(path, e.message ?? e.keyword);
  }
  return [...byPath].slice(0, 5).map(([path, message]) => `${path}: ${message}`).join('; ');
}

function optionalPattern(rule: Json, key: string, where: string): RulePattern | undefined {
  const source = rule[key];
  return typeof source === 'string' ? RulePattern.compile(source, `${where}.${key}`) : undefined;
}

function base(rule: Json, where: string): RuleBase {
  const role = optionalPattern(rule, 'role', where);
  const group = optionalPattern(rule, 'group', where);
  return { user: optionalPattern(rule, 'user', where), namesRoleOrGroup: role !== undefined || group !== undefined };
}

function compileCatalogRule(rule: Json, where: string): CatalogRule {
  const allow = rule.allow === true ? 'all' : rule.allow === false ? 'none' : (rule.allow as CatalogAccess);
  return { ...base(rule, where), catalog: optionalPattern(rule, 'catalog', where), allow };
}

function compileQueryRule(rule: Json, where: string): QueryRule {
  const allow = new Set(rule.allow as QueryAccessMode[]);
  const queryOwner = optionalPattern(rule, 'queryOwner', where);
  // As Trino: a query has no owner before it runs, so an owner condition cannot decide who may execute.
  if (queryOwner !== undefined && allow.has('execute')) throw invalidRules(`${where}: a rule with queryOwner cannot allow execute`);
  return { ...base(rule, where), queryOwner, allow };
}

function compileImpersonationRule(rule: Json, where: string): ImpersonationRule {
  const originalUser = optionalPattern(rule, rule.original_user !== undefined ? 'original_user' : 'originalUser', where);
  const namesRole = optionalPattern(rule, 'original_role', where) !== undefined;
  const newUserKey = rule.new_user !== undefined ? 'new_user' : 'newUser';
  const newUser = NewUserPattern.compile(rule[newUserKey] as string, originalUser, `${where}.${newUserKey}`);
  return { originalUser, namesRole, newUser, allow: rule.allow !== false };
}

function compileSystemInformationRule(rule: Json, where: string): SystemInformationRule {
  return { ...base(rule, where), allow: new Set(rule.allow as SystemInformationAccess[]) };
}

function section<T>(doc: Json, key: string, compile: (rule: Json, where: string) => T): T[] | undefined {
  const rules = doc[key] as Json[] | undefined;
  return rules?.map((rule, i) => compile(rule, `${key}[${i}]`));
}

/** Parses and compiles the text of a rules file; `source` names it in errors. */
export function parseAccessRules(text: string, source: string): AccessRules {
  let doc: unknown;
  try {
    doc = JSON.parse(text.startsWith('\uFEFF') ? text.slice(1) : text);
  } catch (err) {
    // Not V8's message as it is: it quotes the file's text, which goes no further than the file.
    throw invalidRules(`Invalid JSON in access control rules file ${source}: ${jsonSyntaxProblem(err)}`);
  }
  if (isObject(doc)) {
    const unsupported = UNSUPPORTED_SECTIONS.filter((key) => key in doc);
    if (unsupported.length > 0) {
      throw invalidRules(`Access control rules file ${source}: section ${unsupported.join(', ')} of Trino's file-based access control is not supported by Vivace (supported: catalogs, schemas, tables, queries, impersonation, system_information)`);
    }
    lowerCaseModes(doc);
    upperCasePrivileges(doc);
  }
  if (!validate(doc)) throw invalidRules(`Invalid access control rules file ${source}: ${describe(validate.errors ?? [])}`);
  const rules = doc as Json;
  try {
    return {
      catalogs: section(rules, 'catalogs', compileCatalogRule),
      schemas: section(rules, 'schemas', compileSchemaRule),
      tables: section(rules, 'tables', compileTableRule),
      queries: section(rules, 'queries', compileQueryRule),
      impersonation: section(rules, 'impersonation', compileImpersonationRule),
      systemInformation: section(rules, 'system_information', compileSystemInformationRule),
    };
  } catch (err) {
    throw invalidRules(`Invalid access control rules file ${source}: ${(err as Error).message}`);
  }
}

/** Reads and compiles the rules file at `path`. */
export function loadAccessRulesFile(path: string): AccessRules {
  let text: string;
  try {
    const stat = statSync(path);
    if (!stat.isFile()) throw new Error('not a regular file');
    if (stat.size > MAX_RULES_FILE_BYTES) throw new Error(`${stat.size} bytes, more than the ${MAX_RULES_FILE_BYTES} allowed`);
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw invalidRules(`Cannot read access control rules file ${path}: ${(err as Error).message}`);
  }
  return parseAccessRules(text, path);
}
