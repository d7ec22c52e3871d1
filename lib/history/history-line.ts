// One history line written straight from a finished query's view: the text JSON.stringify gives for
// `{ ...historyRow(view), info }` with `info` renderQueryInfo's body less `self` (lib/protocol/query-info.ts),
// key for key and in the same order, without building either object first. Building the two objects and
// walking them again in JSON.stringify was most of the history's cost per query (figure q: 42 of 48 us on
// the append path, half of it the garbage of some 40 short-lived objects per query); this writes each
// figure once, from counters added up once for the row and the info.
//
// What readers get is unchanged: spec/history/history-line.spec.ts holds this text equal to the objects'
// for finished, failed, distributed and session-changing queries, so a field added to the QueryInfo
// and not here fails there. Values of no fixed shape (session properties, the error, warnings, session
// updates) go through JSON.stringify whole, as the objects' walk would take them.
import type { QueryView, StageView } from '../actors/query-view.js';
import type { SubStageTask } from '../engine/engine.types.js';
import { formatDataSize } from '../protocol/data-size.js';
import { formatDuration } from '../protocol/duration.js';
import { ERROR_CODES, type ErrorName } from '../protocol/error-codes.js';
import { isoTime } from '../protocol/iso-time.js';
import { stagePeakMemory } from '../protocol/query-info.js';
import { elapsedMillis, planningMillis, queuedMillis, totalCounters } from '../protocol/statement-stats.js';
import { timeZoneKey } from '../protocol/time-zone-keys.js';

/** A string JSON.stringify writes as it is between quotes: no control character, quote, backslash or surrogate. */
function plainText(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) return false;
  }
  return true;
}

/** A string as JSON.stringify writes it. */
function quoted(value: string): string {
  return plainText(value) ? `"${value}"` : JSON.stringify(value);
}

/** Each member name's two prefixes, `"name":` and `,"name":`, made once. */
const MEMBER_PREFIXES = new Map<string, readonly [string, string]>();

function prefixesOf(name: string): readonly [string, string] {
  let prefixes = MEMBER_PREFIXES.get(name);
  if (!prefixes) MEMBER_PREFIXES.set(name, (prefixes = [`"${name}":`, `,"${name}":`]));
  return prefixes;
}

/**
 * A JSON text written member by member as JSON.stringify writes it (an undefined member is left out, a
 * number that is not finite is null), appended to one string: each member's name and separator are one
 * piece made once (prefixesOf), and the finished line is flattened once (`text`), so a pending line is one
 * flat string and the pieces are young garbage.
 */
class JsonWriter {
  private out = '';
  /** No member or element yet in the object or array open now. */
  private first = true;

  /** A member `name` (absent: an array's element) whose value's JSON is `text`. */
  private push(name: string | undefined, text: string): this {
    if (name === undefined) this.out += this.first ? text : `,${text}`;
    else this.out += prefixesOf(name)[this.first ? 0 : 1] + text;
    this.first = false;
    return this;
  }

  /** A string (escaped as JSON.stringify escapes it); anything else as `any` takes it. */
  str(name: string, value: string | undefined): this {
    if (typeof value !== 'string') return this.any(name, value);
    return this.push(name, quoted(value));
  }

  num(name: string, value: number | undefined): this {
    if (typeof value !== 'number') return this.any(name, value);
    return this.push(name, Number.isFinite(value) ? String(value) : 'null');
  }

  bool(name: string, value: boolean | undefined): this {
    if (typeof value !== 'boolean') return this.any(name, value);
    return this.push(name, value ? 'true' : 'false');
  }

  /** A string, a number or null (a nullable column of the row). */
  nullable(name: string, value: string | number | null | undefined): this {
    if (value === null || value === undefined) return this.push(name, 'null');
    return typeof value === 'string' ? this.str(name, value) : this.num(name, value);
  }

  /** An array of strings (the session's tags, the columns' names) without JSON.stringify's walk; anything else as `any`. */
  strings(name: string, value: unknown): this {
    if (!Array.isArray(value)) return this.any(name, value);
    let json = '[';
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (typeof item !== 'string') return this.any(name, value);
      json += (i === 0 ? '' : ',') + quoted(item);
    }
    return this.push(name, `${json}]`);
  }

  /** A plain object of string values (session properties, prepared statements) without JSON.stringify's walk; anything else as `any`. */
  record(name: string, value: unknown): this {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return this.any(name, value);
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return this.any(name, value);
    const keys = Object.keys(value);
    if (keys.length === 0) return this.push(name, '{}');
    let json = '{';
    for (let i = 0; i < keys.length; i++) {
      const item = (value as Record<string, unknown>)[keys[i]!];
      if (typeof item !== 'string') return this.any(name, value);
      json += `${i === 0 ? '' : ','}${quoted(keys[i]!)}:${quoted(item)}`;
    }
    return this.push(name, `${json}}`);
  }

  /** A value of no fixed shape, or null. */
  any(name: string, value: unknown): this {
    const json = Array.isArray(value) && value.length === 0 ? '[]' : (JSON.stringify(value) as string | undefined);
    return json === undefined ? this : this.push(name, json);
  }

  /** Text that is already JSON. */
  raw(name: string, json: string): this {
    return this.push(name, json);
  }

  /** Opens an object (`name` absent: an array's element) or, with `bracket` '[', an array. */
  open(name?: string, bracket: '{' | '[' = '{'): this {
    this.push(name, bracket);
    this.first = true;
    return this;
  }

  /** Closes what open() opened: its parent now holds a member. */
  close(bracket: '}' | ']' = '}'): this {
    this.out += bracket;
    this.first = false;
    return this;
  }

  /** The line, flattened: reading a character makes V8 copy the pieces into one string once. */
  get text(): string {
    const text = this.out;
    text.charCodeAt(text.length >> 1);
    return text;
  }
}

/** The columns' names as renderQueryInfo lists them (fieldNames). */
function fieldNames(view: QueryView): string[] {
  const columns = view.columns ?? [];
  const names: string[] = [];
  for (const column of columns) names.push(column.name);
  return names;
}

function writeSession(w: JsonWriter, view: QueryView): void {
  const s = view.session;
  w.open('session')
    .str('user', s.user)
    .str('source', s.source)
    .str('catalog', s.catalog)
    .str('schema', s.schema)
    .str('remoteUserAddress', s.remoteUserAddress)
    .str('userAgent', s.userAgent)
    .str('clientInfo', s.clientInfo)
    .strings('clientTags', s.clientTags)
    .num('timeZoneKey', timeZoneKey(s.timeZone ?? 'UTC') ?? 0)
    .record('systemProperties', s.properties)
    .num('startTime', s.startTime)
    .close();
}

function writeTask(w: JsonWriter, task: SubStageTask): void {
  w.open()
    .open('taskStatus').str('taskId', task.taskId).str('nodeId', task.nodeId).str('state', task.state).close()
    .open('stats')
    .num('totalDrivers', task.splits)
    .num('completedDrivers', task.state === 'FINISHED' ? task.splits : 0)
    .num('rawInputPositions', task.processedRows)
    .str('rawInputDataSize', formatDataSize(task.processedBytes))
    .num('processedInputPositions', task.processedRows)
    .str('processedInputDataSize', formatDataSize(task.processedBytes))
    .num('outputPositions', task.outputRows)
    .str('outputDataSize', formatDataSize(task.outputBytes))
    .str('totalCpuTime', formatDuration(task.cpuTimeMillis))
    .str('elapsedTime', formatDuration(task.wallTimeMillis))
    .str('peakUserMemoryReservation', formatDataSize(task.peakMemoryBytes))
    .close()
    .close();
}

/** renderQueryInfo's outputStage: a stage's StageStats, its id, its output rows, its sub-stages and tasks. */
function writeStage(w: JsonWriter, queryId: string, stage: StageView, outputRows: number, name?: string): void {
  w.open(name)
    .str('stageId', `${queryId}.${stage.stageId}`)
    .str('state', stage.state)
    .bool('done', stage.done)
    .num('nodes', stage.nodes)
    .num('totalSplits', stage.totalSplits)
    .num('queuedSplits', stage.queuedSplits)
    .num('runningSplits', stage.runningSplits)
    .num('completedSplits', stage.completedSplits)
    .num('cpuTimeMillis', stage.cpuTimeMillis)
    .num('wallTimeMillis', stage.wallTimeMillis)
    .num('processedRows', stage.processedRows)
    .num('processedBytes', stage.processedBytes)
    .num('physicalInputBytes', stage.physicalInputBytes)
    .open('subStages', '[');
  for (const sub of stage.subStages) writeStage(w, queryId, sub, sub.outputRows);
  w.close(']').num('outputPositions', outputRows);
  const tasks = stage.tasks;
  if (tasks !== undefined) {
    let bytes = 0;
    for (const task of tasks) bytes += task.outputBytes;
    w.str('outputDataSize', formatDataSize(bytes)).str('peakUserMemoryReservation', formatDataSize(stagePeakMemory(tasks))).open('tasks', '[');
    for (const task of tasks) writeTask(w, task);
    w.close(']');
  }
  w.close();
}

/** The rows the stages below the root handed on and the bytes of their tasks' files (statement-stats' exchangedTotals). */
function exchanged(stage: StageView, total: { rows: number; bytes: number }): void {
  for (const sub of stage.subStages) {
    total.rows += sub.outputRows;
    if (sub.tasks) for (const task of sub.tasks) total.bytes += task.outputBytes;
    exchanged(sub, total);
  }
}

function peakMemory(stage: StageView): number {
  let peak = stage.tasks ? stagePeakMemory(stage.tasks) : 0;
  for (const sub of stage.subStages) peak = Math.max(peak, peakMemory(sub));
  return peak;
}

/** The stored line of a finished query (no newline): historyRow's members, then `info`. */
export function historyLine(view: QueryView): string {
  const total = totalCounters(view);
  const moved = { rows: 0, bytes: 0 };
  exchanged(view.rootStage, moved);
  const queued = queuedMillis(view);
  const planning = planningMillis(view);
  const elapsed = elapsedMillis(view);
  const error = view.error;
  const groupId = view.resourceGroupId;
  const groupJson = JSON.stringify(groupId ?? null);
  const w = new JsonWriter();

  w.open()
    .str('queryId', view.queryId)
    .str('state', view.state)
    .str('user', view.session.user)
    .nullable('source', view.session.source ?? null)
    .str('query', view.sql)
    .raw('resourceGroupId', groupJson)
    .num('queuedTimeMs', queued)
    .num('analysisTimeMs', planning)
    .num('planningTimeMs', planning)
    .num('created', view.createTime)
    .nullable('started', view.executionStartTime ?? null)
    .num('lastHeartbeat', view.lastHeartbeat)
    .nullable('end', view.endTime ?? null)
    .nullable('errorType', error?.errorType ?? null)
    .nullable('errorCode', error?.errorName ?? null)
    .nullable('errorMessage', error?.message ?? null)
    .num('outputRows', view.outputRows)
    .num('outputBytes', view.outputBytes)
    .num('physicalInputRows', total.physicalInputRows)
    .num('physicalInputBytes', total.physicalInputBytes)
    .num('cpuTimeMs', total.cpuTimeMillis)
    .num('wallTimeMs', total.wallTimeMillis)
    .num('peakMemoryBytes', peakMemory(view.rootStage));

  // info: renderQueryInfo's body less `self`
  w.open('info').str('queryId', view.queryId);
  writeSession(w, view);
  w.str('state', view.state)
    .bool('scheduled', view.scheduled)
    .strings('fieldNames', fieldNames(view))
    .str('query', view.sql);
  if (groupId) w.raw('resourceGroupId', groupJson);

  const running = view.done ? 0 : total.runningSplits;
  const input = formatDataSize(total.physicalInputBytes);
  w.open('queryStats')
    .str('createTime', isoTime(view.createTime))
    .str('executionStartTime', view.executionStartTime === undefined ? undefined : isoTime(view.executionStartTime))
    .str('lastHeartbeat', isoTime(view.lastHeartbeat))
    .str('endTime', view.endTime === undefined ? undefined : isoTime(view.endTime))
    .str('elapsedTime', formatDuration(elapsed))
    .str('queuedTime', formatDuration(queued))
    .str('analysisTime', formatDuration(planning))
    .str('planningTime', formatDuration(planning))
    .str('executionTime', formatDuration(Math.max(0, elapsed - queued)))
    .str('totalScheduledTime', formatDuration(total.wallTimeMillis))
    .str('totalCpuTime', formatDuration(total.cpuTimeMillis))
    .str('totalBlockedTime', formatDuration(0))
    .num('totalTasks', total.totalSplits)
    .num('runningTasks', running)
    .num('completedTasks', total.completedSplits)
    .num('totalDrivers', total.totalSplits)
    .num('queuedDrivers', total.queuedSplits)
    .num('runningDrivers', running)
    .num('completedDrivers', total.completedSplits)
    .str('totalMemoryReservation', formatDataSize(0))
    .str('peakUserMemoryReservation', formatDataSize(0))
    .str('rawInputDataSize', input)
    .num('rawInputPositions', total.physicalInputRows)
    .str('processedInputDataSize', input)
    .num('processedInputPositions', total.physicalInputRows)
    .str('physicalInputDataSize', input)
    .num('physicalInputPositions', total.physicalInputRows)
    .str('internalNetworkInputDataSize', formatDataSize(moved.bytes))
    .num('internalNetworkInputPositions', moved.rows)
    .str('outputDataSize', formatDataSize(view.outputBytes))
    .num('outputPositions', view.outputRows)
    .bool('scheduled', view.scheduled)
    .close();
  writeStage(w, view.queryId, view.rootStage, view.outputRows, 'outputStage');

  if (error) {
    const name = error.errorName as ErrorName;
    w.str('errorType', error.errorType)
      .open('errorCode').num('code', ERROR_CODES[name]?.code ?? error.errorCode).str('name', name).str('type', error.errorType).close()
      .any('failureInfo', error.failureInfo)
      .any('error', error);
  }
  w.any('warnings', view.warnings ?? []).bool('finalQueryInfo', view.done);
  if (view.updateType !== undefined) w.str('updateType', view.updateType);
  const u = view.sessionUpdates;
  if (u?.setCatalog !== undefined) w.str('setCatalog', u.setCatalog);
  if (u?.setSchema !== undefined) w.str('setSchema', u.setSchema);
  return w
    .record('setSessionProperties', u?.setSessionProperties ?? {})
    .strings('resetSessionProperties', u?.resetSessionProperties ?? [])
    .record('addedPreparedStatements', u?.addedPreparedStatements ?? {})
    .strings('deallocatedPreparedStatements', u?.deallocatedPreparedStatements ?? [])
    .close()
    .close().text;
}
