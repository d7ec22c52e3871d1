// Reads a POST /v1/task/{taskId} body into a TaskPlanRequest, checking every field by hand: whoever holds
// the cluster secret (or anyone, without one) can send anything, and a malformed body is a 400 with a
// clear message, never a crash inside the engine.
import { HEADER_PREFIXES } from '../protocol/header-prefix.js';
import { isQueryDataEncoding, QUERY_DATA_ENCODINGS } from '../protocol/spooling/query-data-encoding.js';
import type { HeaderPrefix, Session } from '../protocol/types.js';
import { VivaceError } from '../protocol/vivace-error.js';
import type { CatalogSync } from '../connectors/dynamic-catalogs.js';
import { MAX_BUCKETS, MAX_FRAGMENTS, MAX_STAGE_ITEMS, type FragmentInput, type FragmentStage, type StageInput, type SystemSnapshot, type TaskPlanRequest, type TaskSplit, type TaskStage } from '../cluster/task-protocol.js';
import { BRANCH_KINDS, MAX_SUB_PLAN_DEPTH, type BranchChoices, type PlanChoices } from '../planner/fragment.types.js';

/** Task ids are Trino's `{queryId}.{stage}.{partition}.{attempt}`: short and plain. */
export const MAX_TASK_ID_LENGTH = 256;
/** Largest page a GET may ask for; a larger targetBytes is clamped to it. */
export const MAX_TARGET_BYTES = 16 << 20;

const bad = (message: string) => new VivaceError('INVALID_ARGUMENTS', message, { httpStatus: 400 });

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function text(o: Json, key: string, path: string, maxLength: number): string {
  const v = o[key];
  if (typeof v !== 'string') throw bad(`${path}${key} must be a string`);
  if (v.length > maxLength) throw bad(`${path}${key} is longer than ${maxLength} characters`);
  return v;
}

function optionalText(o: Json, key: string, path: string, maxLength: number): string | undefined {
  return o[key] === undefined || o[key] === null ? undefined : text(o, key, path, maxLength);
}

function stringMap(o: Json, key: string, path: string): Record<string, string> {
  const v = o[key] ?? {};
  if (!isObject(v)) throw bad(`${path}${key} must be an object`);
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [k, value] of Object.entries(v)) {
    if (typeof value !== 'string') throw bad(`${path}${key}.${k} must be a string`);
    out[k] = value;
  }
  return { ...out };
}

/** A task id from the path: plain printable text of bounded length (it is logged and listed). */
export function taskIdOfPath(raw: string): string {
  if (raw === '' || raw.length > MAX_TASK_ID_LENGTH) throw bad(`Task id must have 1 to ${MAX_TASK_ID_LENGTH} characters`);
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c < 0x21 || c > 0x7e) throw bad('Task id must be printable ASCII');
  }
  return raw;
}

/** `targetBytes` of a results GET: a positive integer, clamped to MAX_TARGET_BYTES; absent: the default. */
export function targetBytesOf(raw: string | string[] | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (value === undefined || !/^\d{1,16}$/.test(value)) throw bad('targetBytes must be a positive integer');
  const n = Number(value);
  if (n < 1) throw bad('targetBytes must be a positive integer');
  return Math.min(n, MAX_TARGET_BYTES);
}

/** A results token from the path: a non-negative integer. */
export function tokenOf(raw: string): number {
  if (!/^\d{1,15}$/.test(raw)) throw bad('Results token must be a non-negative integer');
  return Number(raw);
}

export function parseTaskPlanRequest(body: unknown, maxSqlLength: number): TaskPlanRequest {
  if (!isObject(body)) throw bad('Task request must be a JSON object');
  const queryId = text(body, 'queryId', '', 256);
  const sql = text(body, 'sql', '', maxSqlLength);
  if (sql.trim() === '') throw bad('sql must not be empty');
  const session = sessionOf(body.session);
  const request: TaskPlanRequest = { queryId, sql, session };
  if (body.system !== undefined && body.system !== null) request.system = snapshotOf(body.system);
  if (body.catalogs !== undefined && body.catalogs !== null) request.catalogs = catalogSyncOf(body.catalogs);
  if (body.execute !== undefined) {
    if (typeof body.execute !== 'boolean') throw bad('execute must be a boolean');
    request.execute = body.execute;
  }
  if (body.inlineFirstPage !== undefined) {
    if (typeof body.inlineFirstPage !== 'boolean') throw bad('inlineFirstPage must be a boolean');
    request.inlineFirstPage = body.inlineFirstPage;
  }
  if (body.targetBytes !== undefined) {
    const n = body.targetBytes;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1) throw bad('targetBytes must be a positive integer');
    request.targetBytes = Math.min(n, MAX_TARGET_BYTES);
  }
  if (body.stage !== undefined && body.stage !== null) request.stage = stageOf(body.stage);
  return request;
}

/** A stage's splits or inputs, each field checked; the worker checks splits against its manifest too. */
function stageOf(raw: unknown): TaskStage {
  if (!isObject(raw)) throw bad('stage must be a JSON object');
  const list = (key: string): Json[] => {
    const items = raw[key];
    if (!Array.isArray(items) || items.length === 0 || items.length > MAX_STAGE_ITEMS || !items.every(isObject)) throw bad(`stage.${key} must be an array of 1 to ${MAX_STAGE_ITEMS} objects`);
    return items;
  };
  if (raw.kind === 'leaf') return { kind: 'leaf', splits: splitsOf(list('splits')) };
  if (raw.kind === 'root') return { kind: 'root', inputs: inputsOf(list('inputs'), 'stage.inputs[].') };
  if (raw.kind === 'fragment') return fragmentOf(raw);
  throw bad("stage.kind must be 'leaf', 'root' or 'fragment'");
}

function splitsOf(items: Json[]): TaskSplit[] {
  return items.map((s) => {
    const slice = s.slice;
    const slices = s.slices;
    if (!Number.isSafeInteger(slice) || !Number.isSafeInteger(slices)) throw bad('stage.splits[].slice and slices must be integers');
    const rows = s.rows;
    if (rows !== undefined && (!Number.isSafeInteger(rows) || (rows as number) < 0)) throw bad('stage.splits[].rows must be a non-negative integer');
    const { start, length } = s;
    if ((start === undefined) !== (length === undefined)) throw bad('stage.splits[].start and length go together');
    if (start !== undefined && (!Number.isSafeInteger(start) || (start as number) < 0 || !Number.isSafeInteger(length) || (length as number) < 1 || !Number.isSafeInteger((start as number) + (length as number)))) throw bad('stage.splits[].start must be a non-negative integer and length a positive one');
    return {
      file: text(s, 'file', 'stage.splits[].', 1024), slice: slice as number, slices: slices as number,
      ...(rows === undefined ? {} : { rows: rows as number }),
      ...(start === undefined ? {} : { start: start as number, length: length as number }),
    };
  });
}

function inputsOf(items: Json[], path: string): StageInput[] {
  return items.map((i) => {
    const uri = text(i, 'uri', path, 1024);
    let url: URL;
    try {
      url = new URL(uri);
    } catch {
      throw bad(`${path}uri must be a URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw bad(`${path}uri must be an http or https URL`);
    return { uri, taskId: taskIdOfPath(text(i, 'taskId', path, MAX_TASK_ID_LENGTH)) };
  });
}

const isCount = (v: unknown, min: number, max: number): v is number => Number.isSafeInteger(v) && (v as number) >= min && (v as number) <= max;

/** A fragment task's stage: each field checked here; the worker checks it against the fragment it derives. */
function fragmentOf(raw: Json): FragmentStage {
  const fragmentId = raw.fragmentId;
  if (!isCount(fragmentId, 0, MAX_FRAGMENTS - 1)) throw bad(`stage.fragmentId must be an integer from 0 to ${MAX_FRAGMENTS - 1}`);
  const stage: FragmentStage = { kind: 'fragment', fragmentId, inputs: [] };
  if (raw.splits !== undefined && raw.splits !== null) {
    const items = raw.splits;
    if (!Array.isArray(items) || items.length === 0 || items.length > MAX_STAGE_ITEMS || !items.every(isObject)) throw bad(`stage.splits must be an array of 1 to ${MAX_STAGE_ITEMS} objects`);
    stage.splits = splitsOf(items);
  }
  const inputs = raw.inputs ?? [];
  if (!Array.isArray(inputs) || inputs.length > MAX_FRAGMENTS || !inputs.every(isObject)) throw bad(`stage.inputs must be an array of at most ${MAX_FRAGMENTS} objects`);
  stage.inputs = inputs.map((input, n) => {
    const path = `stage.inputs[${n}].`;
    if (!isCount(input.fragmentId, 1, MAX_FRAGMENTS - 1)) throw bad(`${path}fragmentId must be an integer from 1 to ${MAX_FRAGMENTS - 1}`);
    const tasks = input.tasks;
    if (!Array.isArray(tasks) || tasks.length === 0 || tasks.length > MAX_STAGE_ITEMS || !tasks.every(isObject)) throw bad(`${path}tasks must be an array of 1 to ${MAX_STAGE_ITEMS} objects`);
    const read: FragmentInput = { fragmentId: input.fragmentId, tasks: inputsOf(tasks, `${path}tasks[].`) };
    if ((input.bucket === undefined || input.bucket === null) !== (input.buckets === undefined || input.buckets === null)) throw bad(`${path}bucket and buckets go together`);
    if (input.buckets !== undefined && input.buckets !== null) {
      if (!isCount(input.buckets, 1, MAX_BUCKETS)) throw bad(`${path}buckets must be an integer from 1 to ${MAX_BUCKETS}`);
      if (!isCount(input.bucket, 0, input.buckets - 1)) throw bad(`${path}bucket must be an integer from 0 to buckets - 1`);
      read.bucket = input.bucket;
      read.buckets = input.buckets;
    }
    return read;
  });
  if (raw.output !== undefined && raw.output !== null) {
    const output = raw.output;
    if (!isObject(output)) throw bad('stage.output must be an object');
    if (output.kind === 'SINGLE' || output.kind === 'BROADCAST') stage.output = { kind: output.kind };
    else if (output.kind === 'HASH') {
      if (!isCount(output.buckets, 1, MAX_BUCKETS)) throw bad(`stage.output.buckets must be an integer from 1 to ${MAX_BUCKETS}`);
      stage.output = { kind: 'HASH', buckets: output.buckets };
    } else throw bad("stage.output.kind must be 'SINGLE', 'BROADCAST' or 'HASH'");
  }
  if (raw.choices !== undefined && raw.choices !== null) stage.choices = choicesOf(raw.choices, 'stage.choices', 0, { left: MAX_FRAGMENTS }, true);
  return stage;
}

/** The longest catalog name a plan's `held` catalogs may have (they are only compared with the statement's). */
const MAX_CATALOG_NAME = 256;

/**
 * Plan choices checked for shape; the planner checks that they fit the statement (join-order.ts validChoices).
 * Bounded: MAX_FRAGMENTS choices in all (each is a plan of at least one fragment), sub-plans
 * MAX_SUB_PLAN_DEPTH deep, and a union's branches (BRANCH_KINDS) only at the top, holding none of their own.
 */
function choicesOf(raw: unknown, path: string, depth: number, budget: { left: number }, top: boolean): PlanChoices {
  if (--budget.left < 0) throw bad(`stage.choices must hold at most ${MAX_FRAGMENTS} plan choices in all`);
  const choices = isObject(raw) ? raw : {};
  const { joins, order, split, semis, correlated, derived, branches, held, inline, scattered, dynamicFilters } = choices;
  if (!Array.isArray(joins) || joins.length > MAX_FRAGMENTS || !joins.every((j) => j === 'BROADCAST' || j === 'PARTITIONED')) throw bad(`${path}.joins must be an array of at most ${MAX_FRAGMENTS} of 'BROADCAST' and 'PARTITIONED'`);
  if (!Array.isArray(order) || order.length > MAX_FRAGMENTS || !order.every((i) => isCount(i, 0, MAX_FRAGMENTS - 1))) throw bad(`${path}.order must be an array of at most ${MAX_FRAGMENTS} relation positions`);
  if (!Array.isArray(split) || split.length > MAX_FRAGMENTS || !split.every((b) => typeof b === 'boolean')) throw bad(`${path}.split must be an array of at most ${MAX_FRAGMENTS} booleans`);
  if (semis !== undefined && (!Array.isArray(semis) || semis.length > MAX_FRAGMENTS || !semis.every((b) => typeof b === 'boolean' || b === 'PARTITIONED'))) throw bad(`${path}.semis must be an array of at most ${MAX_FRAGMENTS} booleans and 'PARTITIONED'`);
  if (correlated !== undefined && (!Array.isArray(correlated) || correlated.length > MAX_FRAGMENTS || !correlated.every((b) => typeof b === 'boolean'))) throw bad(`${path}.correlated must be an array of at most ${MAX_FRAGMENTS} booleans`);
  if (derived !== undefined && (!Array.isArray(derived) || derived.length > MAX_FRAGMENTS || depth >= MAX_SUB_PLAN_DEPTH)) throw bad(`${path}.derived must be an array of at most ${MAX_FRAGMENTS} plan choices, ${MAX_SUB_PLAN_DEPTH} levels deep`);
  if (branches !== undefined && (!top || !Array.isArray(branches) || branches.length === 0 || branches.length > MAX_FRAGMENTS || !branches.every(isObject))) throw bad(`${path}.branches must be an array of 1 to ${MAX_FRAGMENTS} objects, in the top choices only`);
  if (held !== undefined && (!Array.isArray(held) || held.length > MAX_FRAGMENTS || !held.every((c) => typeof c === 'string' && c.length > 0 && c.length <= MAX_CATALOG_NAME))) throw bad(`${path}.held must be an array of at most ${MAX_FRAGMENTS} catalog names`);
  if (inline !== undefined && (!top || !Array.isArray(inline) || inline.length > MAX_FRAGMENTS || !inline.every((i) => isCount(i, 1, MAX_FRAGMENTS - 1)))) throw bad(`${path}.inline must be an array of at most ${MAX_FRAGMENTS} fragment ids, in the top choices only`);
  if (scattered !== undefined && (!top || scattered !== true)) throw bad(`${path}.scattered must be true, in the top choices only`);
  if (dynamicFilters !== undefined && (!Array.isArray(dynamicFilters) || dynamicFilters.length > MAX_FRAGMENTS || !dynamicFilters.every((p) => Array.isArray(p) && p.length === 2 && p.every((i) => isCount(i, 0, MAX_FRAGMENTS - 1))))) throw bad(`${path}.dynamicFilters must be an array of at most ${MAX_FRAGMENTS} pairs of relation positions`);
  return {
    joins: joins as ('BROADCAST' | 'PARTITIONED')[], order: order as number[], split: split as boolean[],
    ...(scattered === true ? { scattered } : {}),
    ...(inline === undefined ? {} : { inline: inline as number[] }),
    ...(held === undefined ? {} : { held: held as string[] }),
    ...(semis === undefined ? {} : { semis: semis as (boolean | 'PARTITIONED')[] }),
    ...(correlated === undefined ? {} : { correlated: correlated as boolean[] }),
    ...(dynamicFilters === undefined ? {} : { dynamicFilters: dynamicFilters as [number, number][] }),
    ...(derived === undefined ? {} : { derived: (derived as unknown[]).map((d, i) => choicesOf(d, `${path}.derived[${i}]`, depth + 1, budget, false)) }),
    ...(branches === undefined ? {} : { branches: (branches as Json[]).map((b, i) => branchOf(b, `${path}.branches[${i}]`, budget)) }),
  };
}

/** A union's branch: its kind and its choices (a plan of its own, from depth 0). */
function branchOf(raw: Json, path: string, budget: { left: number }): BranchChoices {
  const kind = BRANCH_KINDS.find((k) => k === raw.kind);
  if (kind === undefined) throw bad(`${path}.kind must be one of ${BRANCH_KINDS.map((k) => `'${k}'`).join(', ')}`);
  return { kind, choices: choicesOf(raw.choices, `${path}.choices`, 0, budget, false) };
}

function sessionOf(raw: unknown): Session {
  if (!isObject(raw)) throw bad('session must be a JSON object');
  const path = 'session.';
  const prefix = raw.prefix;
  if (typeof prefix !== 'string' || !HEADER_PREFIXES.includes(prefix as HeaderPrefix)) throw bad(`session.prefix must be one of ${HEADER_PREFIXES.join(', ')}`);
  const user = text(raw, 'user', path, 1024);
  if (user === '') throw bad('session.user must not be empty');
  const tags = raw.clientTags ?? [];
  if (!Array.isArray(tags) || !tags.every((t) => typeof t === 'string')) throw bad('session.clientTags must be an array of strings');
  const startTime = raw.startTime ?? 0;
  if (typeof startTime !== 'number' || !Number.isFinite(startTime)) throw bad('session.startTime must be a number');
  const session: Session = {
    prefix: prefix as HeaderPrefix,
    user,
    clientTags: tags as string[],
    properties: stringMap(raw, 'properties', path),
    preparedStatements: stringMap(raw, 'preparedStatements', path),
    remoteUserAddress: optionalText(raw, 'remoteUserAddress', path, 256) ?? '',
    startTime,
  };
  for (const key of ['source', 'catalog', 'schema', 'timeZone', 'language', 'clientInfo', 'traceToken', 'transactionId', 'userAgent'] as const) {
    const value = optionalText(raw, key, path, 4096);
    if (value !== undefined) session[key] = value;
  }
  if (raw.queryDataEncoding !== undefined) {
    if (!isQueryDataEncoding(raw.queryDataEncoding)) throw bad(`session.queryDataEncoding must be one of ${QUERY_DATA_ENCODINGS.join(', ')}`);
    session.queryDataEncoding = raw.queryDataEncoding;
  }
  return session;
}

/** Rows stay as sent here; system-snapshot.ts reads each field with its type when a scan asks. */
function snapshotOf(raw: unknown): SystemSnapshot {
  if (!isObject(raw)) throw bad('system must be a JSON object');
  const snapshot: SystemSnapshot = {};
  for (const key of ['nodes', 'queries', 'tasks', 'completedQueries'] as const) {
    const rows = raw[key];
    if (rows === undefined || rows === null) continue;
    if (!Array.isArray(rows) || !rows.every(isObject)) throw bad(`system.${key} must be an array of objects`);
    snapshot[key] = rows;
  }
  return snapshot;
}

/** Catalogs a dynamic cluster's task carries: names and string properties (checked again when a catalog opens). */
function catalogSyncOf(value: unknown): CatalogSync {
  if (!isObject(value) || !Array.isArray(value.catalogs)) throw bad('catalogs must be an object with a catalogs array');
  if (value.catalogs.length > MAX_SYNCED_CATALOGS) throw bad(`catalogs lists more than ${MAX_SYNCED_CATALOGS} catalogs`);
  return {
    catalogs: value.catalogs.map((c: unknown, i) => {
      if (!isObject(c)) throw bad(`catalogs.catalogs[${i}] must be an object`);
      return { name: text(c, 'name', `catalogs.catalogs[${i}].`, 128), properties: stringMap(c, 'properties', `catalogs.catalogs[${i}].`) };
    }),
  };
}

const MAX_SYNCED_CATALOGS = 1000;
