// The `schemas` and `tables` sections of the rules file, compiled: patterns on RE2 (rule-pattern.ts), and
// each column mask and row filter parsed once as a Trino expression, so a broken one fails the file at load
// (CONFIGURATION_INVALID naming the rule), never a user's query.
import type { Expression } from '../sql/ast.js';
import { parseExpression } from '../sql/parser.js';
import type { GuardExpression, TablePrivilege } from '../sql/table-access.js';
import { invalidRules, RulePattern, shown } from './rule-pattern.js';

type Json = Record<string, unknown>;

/** What every rule of these sections matches on. Roles and groups: Vivace has none, so a rule naming one matches nobody. */
interface ObjectRuleBase {
  user?: RulePattern;
  namesRoleOrGroup: boolean;
  catalog?: RulePattern;
  schema?: RulePattern;
}

export interface SchemaRule extends ObjectRuleBase {
  owner: boolean;
}

export interface TableRule extends ObjectRuleBase {
  table?: RulePattern;
  privileges: ReadonlySet<TablePrivilege>;
  /** `allow: false` columns, in the rule's order. */
  restrictedColumns: readonly string[];
  masks: ReadonlyMap<string, GuardExpression>;
  filter?: GuardExpression;
}

function pattern(rule: Json, key: string, where: string): RulePattern | undefined {
  const source = rule[key];
  return typeof source === 'string' ? RulePattern.compile(source, `${where}.${key}`) : undefined;
}

function objectBase(rule: Json, where: string): ObjectRuleBase {
  const namesRoleOrGroup = pattern(rule, 'role', where) !== undefined || pattern(rule, 'group', where) !== undefined;
  return { user: pattern(rule, 'user', where), namesRoleOrGroup, catalog: pattern(rule, 'catalog', where), schema: pattern(rule, 'schema', where) };
}

/** Whether a rule's user, catalog and schema patterns (and table, for a table rule) match. */
export function ruleMatches(rule: ObjectRuleBase & { table?: RulePattern }, user: string, catalog: string, schema: string, table?: string): boolean {
  if (rule.namesRoleOrGroup) return false;
  if (rule.user !== undefined && !rule.user.matches(user)) return false;
  if (rule.catalog !== undefined && !rule.catalog.matches(catalog)) return false;
  if (rule.schema !== undefined && !rule.schema.matches(schema)) return false;
  return table === undefined || rule.table === undefined || rule.table.matches(table);
}

export function compileSchemaRule(rule: Json, where: string): SchemaRule {
  return { ...objectBase(rule, where), owner: rule.owner === true };
}

function expression(text: string, user: unknown, where: string): GuardExpression {
  let parsed: Expression;
  try {
    parsed = parseExpression(text);
  } catch (err) {
    throw invalidRules(`${where}: invalid expression ${shown(text)}: ${(err as Error).message}`);
  }
  return { expression: parsed, text, ...(typeof user === 'string' ? { user } : {}) };
}

const environmentUser = (environment: unknown): unknown => (typeof environment === 'object' && environment !== null ? (environment as Json).user : undefined);

export function compileTableRule(rule: Json, where: string): TableRule {
  const restrictedColumns: string[] = [];
  const masks = new Map<string, GuardExpression>();
  const seen = new Set<string>();
  ((rule.columns as Json[] | undefined) ?? []).forEach((column, i) => {
    const name = column.name as string;
    // As Trino's Maps.uniqueIndex over the column list: a name given twice fails the file.
    if (seen.has(name)) throw invalidRules(`${where}.columns[${i}]: column ${shown(name)} is listed twice`);
    seen.add(name);
    if (column.allow === false) restrictedColumns.push(name);
    if (typeof column.mask === 'string') masks.set(name, expression(column.mask, environmentUser(column.mask_environment), `${where}.columns[${i}].mask`));
  });
  const filter = typeof rule.filter === 'string' ? expression(rule.filter, environmentUser(rule.filter_environment), `${where}.filter`) : undefined;
  return {
    ...objectBase(rule, where),
    table: pattern(rule, 'table', where),
    privileges: new Set(rule.privileges as TablePrivilege[]),
    restrictedColumns,
    masks,
    ...(filter ? { filter } : {}),
  };
}

/** Trino reads privilege names case-insensitively: upper-case them before the schema checks them. */
export function upperCasePrivileges(doc: Json): void {
  const rules = doc.tables;
  if (!Array.isArray(rules)) return;
  for (const rule of rules) {
    if (typeof rule === 'object' && rule !== null && Array.isArray((rule as Json).privileges)) {
      (rule as Json).privileges = ((rule as Json).privileges as unknown[]).map((p) => (typeof p === 'string' ? p.toUpperCase() : p));
    }
  }
}
