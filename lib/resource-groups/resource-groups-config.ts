// The resource-groups JSON file of Trino's file configuration manager (resource-groups.config-file): rootGroups,
// selectors, cpuQuotaPeriod. The checks and their messages are Trino's (ResourceGroupSpec, SelectorSpec,
// ManagerSpec, StaticSelector, AbstractResourceConfigurationManager, FileResourceGroupConfigurationManager's
// "Unknown property at line L:C: name"); every error also names the line and column it is about.
// Selector patterns are Java regular expressions the operator writes, run over names clients choose: they run
// on RE2 (linear time), as the access rules do, and match the whole value as Java's matches() does.
import { RulePattern } from '../security/rule-pattern.js';
import { VivaceError } from '../protocol/vivace-error.js';
import { parseLocatedJson, JsonProblem, type LocatedEntry, type LocatedValue, type Place } from './located-json.js';
import { IdTemplate, NameTemplate, TemplateError, isVariableName } from './templates.js';

export type SchedulingPolicy = 'fair' | 'weighted' | 'weighted_fair' | 'query_priority';
const POLICIES: readonly SchedulingPolicy[] = ['fair', 'weighted', 'weighted_fair', 'query_priority'];

/** Trino's QueryType values (io.trino.spi.resourcegroups.QueryType). */
export const QUERY_TYPES = ['SELECT', 'EXPLAIN', 'DESCRIBE', 'INSERT', 'UPDATE', 'MERGE', 'DELETE', 'ANALYZE', 'DATA_DEFINITION', 'ALTER_TABLE_EXECUTE'] as const;
export type QueryType = (typeof QUERY_TYPES)[number];

export type MemoryLimit = { bytes: number } | { fraction: number };

export interface GroupSpec {
  name: NameTemplate;
  at: Place;
  maxQueued: number;
  hardConcurrencyLimit: number;
  softConcurrencyLimit?: number;
  softMemoryLimit: MemoryLimit;
  schedulingPolicy?: SchedulingPolicy;
  schedulingWeight?: number;
  jmxExport?: boolean;
  softCpuLimitMs?: number;
  hardCpuLimitMs?: number;
  hardPhysicalDataScanLimitBytes?: number;
  subGroups: GroupSpec[];
}

export interface SelectorSpec {
  at: Place;
  user?: RulePattern;
  userGroup?: RulePattern;
  originalUser?: RulePattern;
  authenticatedUser?: RulePattern;
  source?: RulePattern;
  queryType?: QueryType;
  clientTags?: string[];
  group: IdTemplate;
}

export interface ResourceGroupsConfig {
  rootGroups: GroupSpec[];
  selectors: SelectorSpec[];
  cpuQuotaPeriodMs?: number;
  physicalDataScanQuotaPeriodMs?: number;
}

/** A problem in the file at a place, with Trino's reason. */
class ConfigProblem extends Error {
  constructor(
    readonly at: Place,
    readonly reason: string,
  ) {
    super(reason);
  }
}

/**
 * The configuration in `text`, or CONFIGURATION_INVALID naming `path`, the line and column, and the reason.
 * Never throws anything else, whatever the text.
 */
export function parseResourceGroupsConfig(text: string, path: string): ResourceGroupsConfig {
  try {
    return readManager(parseLocatedJson(text));
  } catch (err) {
    if (err instanceof ConfigProblem || err instanceof JsonProblem) {
      throw new VivaceError('CONFIGURATION_INVALID', `Invalid resource groups file ${path}: line ${err.at.line}, column ${err.at.column}: ${err.reason}`);
    }
    throw new VivaceError('CONFIGURATION_INVALID', `Invalid resource groups file ${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

// ---- reading typed fields -------------------------------------------------------------------------------

const KIND_NAMES: Record<LocatedValue['kind'], string> = {
  object: 'an object',
  array: 'an array',
  string: 'a string',
  number: 'a number',
  boolean: 'a boolean',
  null: 'null',
};

function wrongType(name: string, expected: string, value: LocatedValue): never {
  throw new ConfigProblem(value.at, `${name}: expected ${expected}, found ${KIND_NAMES[value.kind]}`);
}

/** An object's fields by name, refusing names outside `known` as Jackson's FAIL_ON_UNKNOWN_PROPERTIES does. */
function fieldsOf(value: LocatedValue, what: string, known: readonly string[]): Map<string, LocatedEntry> {
  if (value.kind !== 'object') wrongType(what, 'an object', value);
  const fields = new Map<string, LocatedEntry>();
  for (const entry of value.entries) {
    if (!known.includes(entry.key)) throw new ConfigProblem(entry.keyAt, `Unknown property at line ${entry.keyAt.line}:${entry.keyAt.column}: ${entry.key}`);
    fields.set(entry.key, entry); // the last of a repeated name wins, as in Jackson
  }
  return fields;
}

/** A field's value, undefined when absent or JSON null (Jackson's Optional.empty()). */
function present(fields: Map<string, LocatedEntry>, name: string): LocatedValue | undefined {
  const value = fields.get(name)?.value;
  return value === undefined || value.kind === 'null' ? undefined : value;
}

const INT_MAX = 2 ** 31 - 1;
const INT_MIN = -(2 ** 31);

function intField(fields: Map<string, LocatedEntry>, name: string): number | undefined {
  const value = present(fields, name);
  if (value === undefined) return undefined;
  if (value.kind !== 'number' || !value.integral) wrongType(name, 'an integer', value);
  if (value.value > INT_MAX || value.value < INT_MIN) throw new ConfigProblem(value.at, `${name}: ${value.value} is out of range of int`);
  return value.value;
}

function stringField(fields: Map<string, LocatedEntry>, name: string): { text: string; at: Place } | undefined {
  const value = present(fields, name);
  if (value === undefined) return undefined;
  if (value.kind !== 'string') wrongType(name, 'a string', value);
  return { text: value.value, at: value.at };
}

function booleanField(fields: Map<string, LocatedEntry>, name: string): boolean | undefined {
  const value = present(fields, name);
  if (value === undefined) return undefined;
  if (value.kind !== 'boolean') wrongType(name, 'a boolean', value);
  return value.value;
}

function arrayField(fields: Map<string, LocatedEntry>, name: string): LocatedValue[] | undefined {
  const value = present(fields, name);
  if (value === undefined) return undefined;
  if (value.kind !== 'array') wrongType(name, 'an array', value);
  return value.items;
}

/** A field Trino requires (requireNonNull in its constructor): "<name> is null". */
function required<T>(value: T | undefined, name: string, at: Place): T {
  if (value === undefined) throw new ConfigProblem(at, `${name} is null`);
  return value;
}

// airlift's units: DataSize (powers of 1024) and Duration, both case-sensitive.
const DATA_UNITS: Readonly<Record<string, number>> = { B: 1, kB: 1024, MB: 1024 ** 2, GB: 1024 ** 3, TB: 1024 ** 4, PB: 1024 ** 5 };
const TIME_UNITS: Readonly<Record<string, number>> = { ns: 1e-6, us: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** airlift's "<decimal><unit>" with optional blanks around, split without a regular expression. */
function amountAndUnit(text: string): { amount: number; unit: string } | undefined {
  const trimmed = text.trim();
  let i = 0;
  while (i < trimmed.length && ((trimmed[i]! >= '0' && trimmed[i]! <= '9') || trimmed[i] === '.')) i++;
  const number = trimmed.slice(0, i);
  const unit = trimmed.slice(i).trim();
  if (number.length === 0 || number.startsWith('.') || number.endsWith('.') || number.indexOf('.') !== number.lastIndexOf('.')) return undefined;
  if (unit.length === 0 || ![...unit].every((ch) => (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'))) return undefined;
  return { amount: Number(number), unit };
}

function dataSize(text: string, at: Place): number {
  const parsed = amountAndUnit(text);
  if (!parsed) throw new ConfigProblem(at, `size is not a valid data size string: ${text}`);
  const factor = Object.hasOwn(DATA_UNITS, parsed.unit) ? DATA_UNITS[parsed.unit]! : undefined;
  if (factor === undefined) throw new ConfigProblem(at, `Unknown unit: ${parsed.unit}`);
  return Math.floor(parsed.amount * factor);
}

function duration(text: string, at: Place): number {
  const parsed = amountAndUnit(text);
  if (!parsed) throw new ConfigProblem(at, `duration is not a valid data duration string: ${text}`);
  const factor = Object.hasOwn(TIME_UNITS, parsed.unit) ? TIME_UNITS[parsed.unit]! : undefined;
  if (factor === undefined) throw new ConfigProblem(at, `Unknown time unit: ${parsed.unit}`);
  return parsed.amount * factor;
}

function durationField(fields: Map<string, LocatedEntry>, name: string): number | undefined {
  const value = stringField(fields, name);
  return value === undefined ? undefined : duration(value.text, value.at);
}

/** `10%` (ResourceGroupSpec's PERCENT_PATTERN: one to three digits, optional decimals) or an absolute DataSize. */
function memoryLimit(text: string, at: Place): MemoryLimit {
  if (text.endsWith('%')) {
    const number = text.slice(0, -1);
    const point = number.indexOf('.');
    const whole = point < 0 ? number : number.slice(0, point);
    const decimals = point < 0 ? '' : number.slice(point + 1);
    const allDigits = (s: string) => [...s].every((ch) => ch >= '0' && ch <= '9');
    if (whole.length >= 1 && whole.length <= 3 && allDigits(whole) && (point < 0 || (decimals.length > 0 && allDigits(decimals)))) {
      return { fraction: Number(number) / 100 };
    }
  }
  return { bytes: dataSize(text, at) };
}

function template<T>(make: () => T, at: Place): T {
  try {
    return make();
  } catch (err) {
    if (err instanceof TemplateError) throw new ConfigProblem(at, err.message);
    throw err;
  }
}

// ---- the file ---------------------------------------------------------------------------------------------

const MANAGER_FIELDS = ['rootGroups', 'selectors', 'cpuQuotaPeriod', 'physicalDataScanQuotaPeriod'] as const;
const GROUP_FIELDS = [
  'name',
  'softMemoryLimit',
  'maxQueued',
  'softConcurrencyLimit',
  'hardConcurrencyLimit',
  'maxRunning',
  'schedulingPolicy',
  'schedulingWeight',
  'subGroups',
  'jmxExport',
  'softCpuLimit',
  'hardCpuLimit',
  'hardPhysicalDataScanLimit',
] as const;
const SELECTOR_FIELDS = ['user', 'userGroup', 'originalUser', 'authenticatedUser', 'source', 'queryType', 'clientTags', 'selectorResourceEstimate', 'group'] as const;

function readManager(root: LocatedValue): ResourceGroupsConfig {
  const fields = fieldsOf(root, 'the file', MANAGER_FIELDS);
  const rootGroups = required(arrayField(fields, 'rootGroups'), 'rootGroups', root.at).map(readGroup);
  const selectors = required(arrayField(fields, 'selectors'), 'selectors', root.at).map((value) => readSelector(value));
  const config: ResourceGroupsConfig = { rootGroups, selectors };
  const cpuQuotaPeriodMs = durationField(fields, 'cpuQuotaPeriod');
  if (cpuQuotaPeriodMs !== undefined) config.cpuQuotaPeriodMs = cpuQuotaPeriodMs;
  const scanPeriodMs = durationField(fields, 'physicalDataScanQuotaPeriod');
  if (scanPeriodMs !== undefined) config.physicalDataScanQuotaPeriodMs = scanPeriodMs;
  checkDuplicates(rootGroups, 'Duplicated root group');
  validateGroups(config);
  for (const selector of selectors) validateSelector(selector, rootGroups);
  return config;
}

function checkDuplicates(groups: GroupSpec[], what: string): void {
  const seen = new Set<string>();
  for (const group of groups) {
    if (seen.has(group.name.text)) throw new ConfigProblem(group.at, `${what}: ${group.name.text}`);
    seen.add(group.name.text);
  }
}

function readGroup(value: LocatedValue): GroupSpec {
  const fields = fieldsOf(value, 'a resource group', GROUP_FIELDS);
  const at = value.at;
  const nameField = required(stringField(fields, 'name'), 'name', at);
  const name = template(() => new NameTemplate(nameField.text), nameField.at);
  const maxQueued = intField(fields, 'maxQueued') ?? 0; // a Java int: absent is 0
  if (maxQueued < 0) throw new ConfigProblem(at, 'maxQueued is negative');
  const softConcurrencyLimit = intField(fields, 'softConcurrencyLimit');
  const hardConcurrencyLimit = intField(fields, 'hardConcurrencyLimit') ?? intField(fields, 'maxRunning');
  if (hardConcurrencyLimit === undefined) throw new ConfigProblem(at, 'Missing required property: hardConcurrencyLimit');
  if (hardConcurrencyLimit < 0) throw new ConfigProblem(at, 'hardConcurrencyLimit is negative');
  if (softConcurrencyLimit !== undefined && softConcurrencyLimit < 0) throw new ConfigProblem(at, 'softConcurrencyLimit is negative');
  if (softConcurrencyLimit !== undefined && hardConcurrencyLimit < softConcurrencyLimit) {
    throw new ConfigProblem(at, 'hardConcurrencyLimit must be greater than or equal to softConcurrencyLimit');
  }
  const policyField = stringField(fields, 'schedulingPolicy');
  let schedulingPolicy: SchedulingPolicy | undefined;
  if (policyField) {
    schedulingPolicy = POLICIES.find((policy) => policy === policyField.text.toLowerCase());
    if (!schedulingPolicy) throw new ConfigProblem(policyField.at, `No enum constant io.trino.spi.resourcegroups.SchedulingPolicy.${policyField.text.toUpperCase()}`);
  }
  const memoryField = required(stringField(fields, 'softMemoryLimit'), 'softMemoryLimit', at);
  const group: GroupSpec = {
    name,
    at,
    maxQueued,
    hardConcurrencyLimit,
    softMemoryLimit: memoryLimit(memoryField.text, memoryField.at),
    subGroups: (arrayField(fields, 'subGroups') ?? []).map(readGroup),
  };
  if (softConcurrencyLimit !== undefined) group.softConcurrencyLimit = softConcurrencyLimit;
  if (schedulingPolicy) group.schedulingPolicy = schedulingPolicy;
  const weight = intField(fields, 'schedulingWeight');
  if (weight !== undefined) {
    // InternalResourceGroup.setSchedulingWeight, at configuration
    if (weight <= 0) throw new ConfigProblem(present(fields, 'schedulingWeight')!.at, 'weight must be positive');
    group.schedulingWeight = weight;
  }
  const jmxExport = booleanField(fields, 'jmxExport');
  if (jmxExport !== undefined) group.jmxExport = jmxExport;
  const softCpu = durationField(fields, 'softCpuLimit');
  if (softCpu !== undefined) group.softCpuLimitMs = softCpu;
  const hardCpu = durationField(fields, 'hardCpuLimit');
  if (hardCpu !== undefined) group.hardCpuLimitMs = hardCpu;
  const scanLimit = stringField(fields, 'hardPhysicalDataScanLimit');
  if (scanLimit) group.hardPhysicalDataScanLimitBytes = dataSize(scanLimit.text, scanLimit.at);
  checkDuplicates(group.subGroups, 'Duplicated sub group');
  return group;
}

/** AbstractResourceConfigurationManager.validateRootGroups, and query_priority's rule for sub groups. */
function validateGroups(config: ResourceGroupsConfig): void {
  const pending = [...config.rootGroups];
  while (pending.length > 0) {
    const group = pending.shift()!;
    pending.push(...group.subGroups);
    if ((group.softCpuLimitMs !== undefined || group.hardCpuLimitMs !== undefined) && config.cpuQuotaPeriodMs === undefined) {
      throw new ConfigProblem(group.at, `cpuQuotaPeriod must be specified to use CPU limits on group: ${group.name.text}`);
    }
    if (group.softCpuLimitMs !== undefined) {
      if (group.hardCpuLimitMs === undefined) throw new ConfigProblem(group.at, 'Must specify hard CPU limit in addition to soft limit');
      if (group.softCpuLimitMs > group.hardCpuLimitMs) throw new ConfigProblem(group.at, 'Soft CPU limit cannot be greater than hard CPU limit');
    }
    const weighted = group.subGroups.filter((sub) => sub.schedulingWeight !== undefined);
    switch (group.schedulingPolicy) {
      case 'weighted':
      case 'weighted_fair':
        if (weighted.length > 0 && weighted.length < group.subGroups.length) {
          throw new ConfigProblem(group.at, `Must specify scheduling weight for all sub-groups of '${group.name.text}' or none of them`);
        }
        break;
      case 'fair':
      case 'query_priority':
        if (weighted.length > 0) throw new ConfigProblem(weighted[0]!.at, `Must use 'weighted' or 'weighted_fair' scheduling policy if specifying scheduling weight for '${group.name.text}'`);
        break;
      default:
        break;
    }
    if (group.schedulingPolicy === 'query_priority') {
      for (const sub of group.subGroups) {
        if (sub.schedulingPolicy !== undefined && sub.schedulingPolicy !== 'query_priority') {
          throw new ConfigProblem(sub.at, `Parent of ${sub.name.text} uses query priority scheduling, so ${sub.name.text} must also`);
        }
      }
    }
  }
}

function patternField(fields: Map<string, LocatedEntry>, name: string): RulePattern | undefined {
  const value = stringField(fields, name);
  if (!value) return undefined;
  try {
    return RulePattern.compile(value.text, name);
  } catch (err) {
    throw new ConfigProblem(value.at, err instanceof Error ? err.message : String(err));
  }
}

function readSelector(value: LocatedValue): SelectorSpec {
  const fields = fieldsOf(value, 'a selector', SELECTOR_FIELDS);
  const groupField = required(stringField(fields, 'group'), 'group', value.at);
  const selector: SelectorSpec = { at: value.at, group: template(() => new IdTemplate(groupField.text), groupField.at) };
  for (const name of ['user', 'userGroup', 'originalUser', 'authenticatedUser', 'source'] as const) {
    const pattern = patternField(fields, name);
    if (pattern) selector[name] = pattern;
  }
  const queryType = stringField(fields, 'queryType');
  if (queryType) {
    const known = QUERY_TYPES.find((type) => type === queryType.text.toUpperCase());
    if (!known) throw new ConfigProblem(queryType.at, `Selector specifies an invalid query type: ${queryType.text}`);
    selector.queryType = known;
  }
  const tags = arrayField(fields, 'clientTags');
  if (tags) selector.clientTags = tags.map((tag) => (tag.kind === 'string' ? tag.value : wrongType('clientTags', 'a string', tag)));
  if (present(fields, 'selectorResourceEstimate')) {
    throw new ConfigProblem(present(fields, 'selectorResourceEstimate')!.at, 'selectorResourceEstimate is not supported: queries carry no resource estimates');
  }
  // StaticSelector: the variables a group may use are USER, SOURCE and the named groups of the patterns.
  const variables = new Set(['USER', 'SOURCE']);
  for (const name of ['user', 'originalUser', 'authenticatedUser', 'source'] as const) {
    const pattern = selector[name];
    if (!pattern) continue;
    for (const variable of Object.keys(pattern.namedGroups)) {
      if (!isVariableName(variable)) continue;
      if (variables.has(variable)) throw new ConfigProblem(present(fields, name)!.at, `Multiple definitions found for variable \${${variable}}`);
      variables.add(variable);
    }
  }
  const unresolved = [...selector.group.variables].filter((v) => !variables.has(v));
  if (unresolved.length > 0) {
    throw new ConfigProblem(groupField.at, `unresolved variables [${unresolved.join(', ')}] in resource group ID '${selector.group.text}', available: [${[...variables].join(', ')}]"`);
  }
  return selector;
}

/** AbstractResourceConfigurationManager.validateSelectors: every segment names a configured group. */
function validateSelector(selector: SelectorSpec, rootGroups: GroupSpec[]): void {
  let groups = rootGroups;
  let path = '';
  for (const segment of selector.group.segments) {
    path += segment.text;
    const match = groups.find((group) => group.name.text === segment.text);
    if (!match) throw new ConfigProblem(selector.at, `Selector refers to nonexistent group: ${path}`);
    path += '.';
    groups = match.subGroups;
  }
}
