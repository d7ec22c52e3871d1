// The system session properties (SET SESSION, SHOW SESSION, the Session header): every one of Trino and
// Presto is accepted by name and its value checked by type (system-session-property-data.ts); those
// below are the ones Vivace acts on, with typed access for the coordinator. The others are kept in the
// session, sent back and shown, and change nothing.
//
// query_max_memory bounds the result memory the coordinator holds for a query (its buffered pages; see
// query.machine.ts). DuckDB's own working memory cannot be bounded per query: memory_limit is an
// instance-wide setting ("cannot be set locally"), so the instance limit (engine.memory-limit) bounds it;
// a query exceeding either fails with EXCEEDED_LOCAL_MEMORY_LIMIT.
import { catalogPropertyName, decodeCatalogProperty, knownCatalogProperty } from './catalog-session-properties.js';
import type { Session } from './types.js';
import { VivaceError } from './vivace-error.js';
import { parseDuration } from './duration.js';
import { parseDataSize } from './data-size.js';
import {
  PRESTO_SESSION_PROPERTIES,
  TRINO_SESSION_PROPERTIES,
  type SessionPropertyDialect,
  type SystemSessionPropertyData,
} from './system-session-property-data.js';

/** What each property's value is for the code that uses it (durations in ms, sizes in bytes). */
export interface SessionPropertyValues {
  query_max_run_time: number;
  query_max_planning_time: number;
  query_max_execution_time: number;
  query_max_memory: number;
  target_result_size: number;
  join_distribution_type: 'AUTOMATIC' | 'PARTITIONED' | 'BROADCAST';
  join_max_broadcast_table_size: number;
  query_priority: number;
  task_concurrency: number;
  spill_enabled: boolean;
  enable_dynamic_filtering: boolean;
}

export type SessionPropertyName = keyof SessionPropertyValues;

export interface SessionPropertyDefinition<K extends SessionPropertyName = SessionPropertyName> {
  name: K;
  /** The SQL type SHOW SESSION reports. */
  type: 'varchar' | 'integer' | 'boolean';
  defaultValue: string;
  description: string;
  /** The typed value of a string; throws an Error whose message says what is wrong. */
  decode(value: string): SessionPropertyValues[K];
}

const MAX_TARGET_RESULT_SIZE = 128 * 1024 * 1024;

function positiveInteger(value: string): number {
  if (!/^\s*\d+\s*$/.test(value) || Number(value) < 1 || Number(value) > 2 ** 31 - 1) throw new Error('must be a positive integer');
  return Number(value);
}

function duration(value: string): number {
  return parseDuration(value);
}

function define<K extends SessionPropertyName>(d: SessionPropertyDefinition<K>): SessionPropertyDefinition<K> {
  return d;
}

function decodeBoolean(value: string): boolean {
  const lower = value.trim().toLowerCase();
  if (lower !== 'true' && lower !== 'false') throw new Error('must be true or false');
  return lower === 'true';
}

const DEFINITIONS = [
  define({
    name: 'query_max_run_time',
    type: 'varchar',
    defaultValue: '100.00d',
    description: 'Maximum run time of a query (includes the queueing time)',
    decode: duration,
  }),
  define({
    name: 'query_max_planning_time',
    type: 'varchar',
    defaultValue: '10.00m',
    description: 'Maximum planning time of a query',
    decode: duration,
  }),
  define({
    name: 'query_max_execution_time',
    type: 'varchar',
    defaultValue: '100.00d',
    description: 'Maximum execution time of a query',
    decode: duration,
  }),
  define({
    name: 'query_max_memory',
    type: 'varchar',
    defaultValue: '20GB',
    description: 'Maximum amount of memory a query can hold on the coordinator (DuckDB working memory is bounded by the instance-wide engine.memory-limit)',
    decode: parseDataSize,
  }),
  define({
    name: 'target_result_size',
    type: 'varchar',
    defaultValue: '1MB',
    description: 'Target result size for results being streamed from coordinator',
    decode(value) {
      const bytes = parseDataSize(value);
      if (bytes > MAX_TARGET_RESULT_SIZE) throw new Error('must not exceed 128MB');
      return bytes;
    },
  }),
  define({
    name: 'join_distribution_type',
    type: 'varchar',
    defaultValue: 'AUTOMATIC',
    description: 'Join distribution type',
    decode(value) {
      const upper = value.toUpperCase();
      if (upper !== 'AUTOMATIC' && upper !== 'PARTITIONED' && upper !== 'BROADCAST') throw new Error('must be one of AUTOMATIC, PARTITIONED, BROADCAST');
      return upper;
    },
  }),
  define({
    name: 'join_max_broadcast_table_size',
    type: 'varchar',
    defaultValue: '100MB',
    description: 'Maximum estimated size of a table that can be broadcast when using automatic join type selection',
    decode: parseDataSize,
  }),
  define({
    name: 'query_priority',
    type: 'integer',
    defaultValue: '1',
    description: 'The priority of queries. Larger numbers are higher priority',
    decode: positiveInteger,
  }),
  define({
    name: 'task_concurrency',
    type: 'integer',
    defaultValue: '16',
    description: 'Default number of local parallel jobs per worker (accepted; DuckDB threads are instance-wide)',
    decode(value) {
      const n = positiveInteger(value);
      if ((n & (n - 1)) !== 0) throw new Error('must be a power of 2');
      return n;
    },
  }),
  define({
    name: 'spill_enabled',
    type: 'boolean',
    defaultValue: 'false',
    description: 'Enable spilling (accepted; DuckDB spills to its temp directory on its own)',
    decode: decodeBoolean,
  }),
  define({
    name: 'enable_dynamic_filtering',
    type: 'boolean',
    defaultValue: 'true',
    description: 'Filter probe sides with values from build sides',
    decode: decodeBoolean,
  }),
] as const;

const ACTED_ON = new Map<string, SessionPropertyDefinition>(DEFINITIONS.map((d) => [d.name, d as unknown as SessionPropertyDefinition]));

/** Upstream's facts of each accepted property, per dialect that has it. */
const UPSTREAM = new Map<string, Partial<Record<SessionPropertyDialect, SystemSessionPropertyData>>>();
for (const [dialect, list] of [['trino', TRINO_SESSION_PROPERTIES], ['presto', PRESTO_SESSION_PROPERTIES]] as const) {
  for (const data of list) UPSTREAM.set(data.name, { ...UPSTREAM.get(data.name), [dialect]: data });
}

/** One row of SHOW SESSION. */
export interface SessionPropertyListing {
  name: string;
  type: string;
  defaultValue: string;
  description: string;
  /** Which dialects have the property upstream. */
  dialects: SessionPropertyDialect[];
}

/** The facts of a property as a client of `dialect` knows them (the other dialect's when only it has one). */
function upstreamData(name: string, dialect: SessionPropertyDialect): SystemSessionPropertyData | undefined {
  const both = UPSTREAM.get(name);
  return both?.[dialect] ?? both?.trino ?? both?.presto;
}

/**
 * Every property SHOW SESSION lists, sorted by name (its order), as `dialect` describes it. Properties
 * upstream marks hidden are left out, as Trino and Presto leave them out; they are accepted all the same.
 */
export function sessionPropertyDefinitions(dialect: SessionPropertyDialect = 'trino'): SessionPropertyListing[] {
  return [...UPSTREAM.keys()]
    .filter((name) => upstreamData(name, dialect)!.hidden !== true)
    .map((name) => {
      const dialects = (['trino', 'presto'] as const).filter((d) => UPSTREAM.get(name)![d] !== undefined);
      const data = upstreamData(name, dialect)!;
      const acted = ACTED_ON.get(name);
      // The SQL type is the dialect's (task_concurrency is an integer in Trino, a bigint in Presto).
      if (acted) return { name, type: data.type, defaultValue: acted.defaultValue, description: acted.description, dialects };
      return { name, type: data.type, defaultValue: data.defaultValue ?? '', description: data.description, dialects };
    })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function unknownProperty(name: string): VivaceError {
  return new VivaceError('INVALID_SESSION_PROPERTY', `Session property '${name}' does not exist`);
}

function definitionOf(name: string): SessionPropertyDefinition {
  const definition = ACTED_ON.get(name);
  if (!definition) throw unknownProperty(name);
  return definition;
}

/**
 * Checks one value; returns its normalized text (what Set-Session carries). Throws INVALID_SESSION_PROPERTY
 * for an unknown name or a bad value.
 */
export function validateSessionProperty(name: string, value: string, dialect: SessionPropertyDialect = 'trino'): string {
  // A catalog's property: its shape and a known property's value here; the engine, which knows its
  // catalogs, checks the catalog has it (catalog-session-properties.ts).
  const catalogProperty = catalogPropertyName(name);
  if (catalogProperty) {
    const known = knownCatalogProperty(catalogProperty.property);
    return known ? decodeCatalogProperty(name, known, value) : value;
  }
  const acted = ACTED_ON.get(name);
  const data = acted ? undefined : upstreamData(name, dialect);
  if (!acted && !data) throw unknownProperty(name);
  try {
    if (acted) {
      const decoded = acted.decode(value);
      return typeof decoded === 'string' ? decoded : value.trim();
    }
    return checkEitherDialect(name, data!, value);
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    const type = acted?.type ?? data!.type;
    throw new VivaceError('INVALID_SESSION_PROPERTY', `Invalid value '${value}' for session property '${name}' (${type}): ${detail}`, { cause: err });
  }
}

/** Checks every property of a session (the Session header); throws INVALID_SESSION_PROPERTY on the first bad one. */
export function validateSessionProperties(properties: Record<string, string>, dialect: SessionPropertyDialect = 'trino'): void {
  for (const [name, value] of Object.entries(properties)) validateSessionProperty(name, value, dialect);
}

/**
 * The typed value of a property for this session: the Session header's value, or the default.
 * Call validateSessionProperties first; an invalid value here throws INVALID_SESSION_PROPERTY.
 */
export function sessionPropertyValue<K extends SessionPropertyName>(session: Pick<Session, 'properties'>, name: K): SessionPropertyValues[K] {
  const definition = definitionOf(name) as unknown as SessionPropertyDefinition<K>;
  const raw = Object.hasOwn(session.properties, name) ? session.properties[name]! : definition.defaultValue;
  validateSessionProperty(name, raw);
  return definition.decode(raw);
}

/** True when the name is a system session property of Trino or Presto (SET SESSION of anything else fails). */
export function isSessionProperty(name: string): boolean {
  return UPSTREAM.has(name) || ACTED_ON.has(name);
}

/** The dialect's reading first; a value the other dialect's reading accepts (a Presto-only codec) is kept too. */
function checkEitherDialect(name: string, data: SystemSessionPropertyData, value: string): string {
  try {
    return checkValue(data, value);
  } catch (err) {
    const both = UPSTREAM.get(name)!;
    const other = both.trino === data ? both.presto : both.trino;
    if (!other) throw err;
    try {
      return checkValue(other, value);
    } catch {
      throw err;
    }
  }
}

const INT32 = 2n ** 31n;
const INT64 = 2n ** 63n;

/** A value of a property Vivace keeps without acting on it, checked as upstream reads its type. */
function checkValue(data: SystemSessionPropertyData, value: string): string {
  if (data.refused !== undefined) throw new Error(data.refused);
  const trimmed = value.trim();
  switch (data.type) {
    case 'boolean': {
      const lower = trimmed.toLowerCase();
      if (lower !== 'true' && lower !== 'false') throw new Error('must be true or false');
      return lower;
    }
    case 'integer':
    case 'bigint': {
      const limit = data.type === 'integer' ? INT32 : INT64;
      if (!isIntegerText(trimmed)) throw new Error(`must be ${data.type === 'integer' ? 'an integer' : 'a bigint'}`);
      const n = BigInt(trimmed);
      if (n < -limit || n >= limit) throw new Error(`is out of range for ${data.type}`);
      checkBounds(data, Number(n));
      if (data.powerOfTwo && (n < 1n || (n & (n - 1n)) !== 0n)) throw new Error('must be a power of 2');
      return n.toString();
    }
    case 'double': {
      const n = parseJavaDouble(trimmed);
      checkBounds(data, n);
      return trimmed;
    }
    case 'varchar':
      return checkVarchar(data.kind ?? 'text', value, trimmed);
  }
}

function checkBounds(data: SystemSessionPropertyData, n: number): void {
  if (data.min !== undefined && !(n >= data.min)) throw new Error(`must be equal or greater than ${data.min}`);
  if (data.max !== undefined && !(n <= data.max)) throw new Error(`must be equal or less than ${data.max}`);
}

function checkVarchar(kind: NonNullable<SystemSessionPropertyData['kind']>, value: string, trimmed: string): string {
  if (kind === 'duration') parseDuration(trimmed);
  else if (kind === 'size') parseDataSize(trimmed);
  else if (kind === 'zone') checkTimeZone(trimmed);
  else if (kind !== 'text') {
    const upper = trimmed.toUpperCase();
    if (!kind.includes(upper)) throw new Error(`must be one of ${kind.join(', ')}`);
    return upper;
  }
  return kind === 'text' ? value : trimmed;
}

/** Optional sign, then digits only: scanned by hand, linear in the text. */
function isIntegerText(text: string): boolean {
  const start = text.startsWith('+') || text.startsWith('-') ? 1 : 0;
  if (text.length === start || text.length > start + 20) return false;
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/** Java's Double.valueOf for decimal text: [sign] digits [. digits] [e [sign] digits], NaN, Infinity. */
export function parseJavaDouble(text: string): number {
  const body = text.startsWith('+') || text.startsWith('-') ? text.slice(1) : text;
  if (body === 'NaN' || body === 'Infinity') return Number(text);
  let i = 0;
  let digits = 0;
  const skipDigits = () => {
    const from = i;
    while (i < body.length && body.charCodeAt(i) >= 48 && body.charCodeAt(i) <= 57) i++;
    digits += i - from;
    return i - from;
  };
  skipDigits();
  if (body[i] === '.') {
    i++;
    skipDigits();
  }
  if (digits === 0) throw new Error('must be a double');
  if (body[i] === 'e' || body[i] === 'E') {
    i++;
    if (body[i] === '+' || body[i] === '-') i++;
    if (skipDigits() === 0) throw new Error('must be a double');
  }
  if (i < body.length - 1 || (i === body.length - 1 && !'dDfF'.includes(body[i]!))) throw new Error('must be a double');
  return Number(i < body.length ? text.slice(0, -1) : text);
}

/** A region name the runtime knows, or an offset such as +05:30. */
function checkTimeZone(zone: string): void {
  if (isOffset(zone)) return;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
  } catch {
    throw new Error(`Time zone not supported: ${zone}`);
  }
}

/** ±HH:MM, at most 14 hours as Java's ZoneOffset. */
function isOffset(zone: string): boolean {
  if (zone.length !== 6 || (zone[0] !== '+' && zone[0] !== '-') || zone[3] !== ':') return false;
  const hours = Number(zone.slice(1, 3));
  const minutes = Number(zone.slice(4, 6));
  return isIntegerText(zone.slice(1, 3)) && isIntegerText(zone.slice(4, 6)) && hours * 60 + minutes <= 14 * 60 && minutes < 60;
}
