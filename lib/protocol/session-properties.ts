// The system session properties Vivace knows (SET SESSION, SHOW SESSION, the Session header), with
// Presto's names, types, defaults and descriptions, and typed access for the coordinator.
//
// query_max_memory bounds the result memory the coordinator holds for a query (its buffered pages; see
// query.machine.ts). DuckDB's own working memory cannot be bounded per query: memory_limit is an
// instance-wide setting ("cannot be set locally"), so the instance limit (engine.memory-limit) bounds it;
// a query exceeding either fails with EXCEEDED_LOCAL_MEMORY_LIMIT.
import type { Session } from './types.js';
import { VivaceError } from './vivace-error.js';
import { parseDuration } from './duration.js';
import { parseDataSize } from './data-size.js';

/** What each property's value is for the code that uses it (durations in ms, sizes in bytes). */
export interface SessionPropertyValues {
  query_max_run_time: number;
  query_max_planning_time: number;
  query_max_execution_time: number;
  query_max_memory: number;
  target_result_size: number;
  join_distribution_type: 'AUTOMATIC' | 'PARTITIONED' | 'BROADCAST';
  query_priority: number;
  task_concurrency: number;
  spill_enabled: boolean;
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
    description: 'Join distribution type (accepted; DuckDB chooses its joins itself)',
    decode(value) {
      const upper = value.toUpperCase();
      if (upper !== 'AUTOMATIC' && upper !== 'PARTITIONED' && upper !== 'BROADCAST') throw new Error('must be one of AUTOMATIC, PARTITIONED, BROADCAST');
      return upper;
    },
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
    decode(value) {
      const lower = value.trim().toLowerCase();
      if (lower !== 'true' && lower !== 'false') throw new Error('must be true or false');
      return lower === 'true';
    },
  }),
] as const;

const BY_NAME = new Map<string, SessionPropertyDefinition>(DEFINITIONS.map((d) => [d.name, d as unknown as SessionPropertyDefinition]));

/** Every property, sorted by name (SHOW SESSION's order). */
export function sessionPropertyDefinitions(): SessionPropertyDefinition[] {
  return [...BY_NAME.values()].sort((a, b) => a.name.localeCompare(b.name));
}

function definitionOf(name: string): SessionPropertyDefinition {
  const definition = BY_NAME.get(name);
  if (!definition) throw new VivaceError('INVALID_SESSION_PROPERTY', `Session property '${name}' does not exist`);
  return definition;
}

/**
 * Checks one value; returns its normalized text (what Set-Session carries). Throws INVALID_SESSION_PROPERTY
 * for an unknown name or a bad value.
 */
export function validateSessionProperty(name: string, value: string): string {
  const definition = definitionOf(name);
  try {
    const decoded = definition.decode(value);
    return typeof decoded === 'string' ? decoded : value.trim();
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    throw new VivaceError('INVALID_SESSION_PROPERTY', `Invalid value '${value}' for session property '${name}' (${definition.type}): ${detail}`, { cause: err });
  }
}

/** Checks every property of a session (the Session header); throws INVALID_SESSION_PROPERTY on the first bad one. */
export function validateSessionProperties(properties: Record<string, string>): void {
  for (const [name, value] of Object.entries(properties)) validateSessionProperty(name, value);
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

/** True when the name is a known property (SET SESSION of anything else fails). */
export function isSessionProperty(name: string): boolean {
  return BY_NAME.has(name);
}
