// One history line written straight from a finished query's view: the text JSON.stringify gives for
// `{ ...historyRow(view), info }` with `info` renderQueryInfo's body less `self` (lib/protocol/query-info.ts),
// key for key and in the same order, without building either object first. Building the two objects and
// walking them again in JSON.stringify was most of the history's cost per query (figure q: 42 of 48 us on
// the append path, half of it the garbage of some 40 short-lived objects per query); this writes each
// figure once, from counters added up once for the row and the info.
//
// What readers get is unchanged: spec/history/history-line.spec.ts holds this text equal to the objects'
// for finished, failed, distributed and session-changing queries, so a field added to the QueryInfo
// and not here fails there. Values of no fixed shape (the error, warnings, a session property that is not
// a string) go through JSON.stringify whole, as the objects' walk would take them; arrays of strings and
// objects of string values (tags, column names, session properties and updates) are written directly.
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

/** A member's name as written: `"name":` first in its object, `,"name":` after another. */
type Member = readonly [string, string];

function member(name: string): Member {
  return [`"${name}":`, `,"${name}":`];
}

/** Every member the line writes, each made once (a property read at each call, no lookup by name). */
const K = {
  addedPreparedStatements: member('addedPreparedStatements'),
  analysisTime: member('analysisTime'),
  analysisTimeMs: member('analysisTimeMs'),
  catalog: member('catalog'),
  clientInfo: member('clientInfo'),
  clientTags: member('clientTags'),
  code: member('code'),
  completedDrivers: member('completedDrivers'),
  completedSplits: member('completedSplits'),
  completedTasks: member('completedTasks'),
  cpuTimeMillis: member('cpuTimeMillis'),
  cpuTimeMs: member('cpuTimeMs'),
  createTime: member('createTime'),
  created: member('created'),
  deallocatedPreparedStatements: member('deallocatedPreparedStatements'),
  done: member('done'),
  elapsedTime: member('elapsedTime'),
  end: member('end'),
  endTime: member('endTime'),
  error: member('error'),
  errorCode: member('errorCode'),
  errorMessage: member('errorMessage'),
  errorType: member('errorType'),
  executionStartTime: member('executionStartTime'),
  executionTime: member('executionTime'),
  failureInfo: member('failureInfo'),
  fieldNames: member('fieldNames'),
  finalQueryInfo: member('finalQueryInfo'),
  info: member('info'),
  internalNetworkInputDataSize: member('internalNetworkInputDataSize'),
  internalNetworkInputPositions: member('internalNetworkInputPositions'),
  lastHeartbeat: member('lastHeartbeat'),
  name: member('name'),
  nodeId: member('nodeId'),
  nodes: member('nodes'),
  outputBytes: member('outputBytes'),
  outputDataSize: member('outputDataSize'),
  outputPositions: member('outputPositions'),
  outputRows: member('outputRows'),
  outputStage: member('outputStage'),
  peakMemoryBytes: member('peakMemoryBytes'),
  peakUserMemoryReservation: member('peakUserMemoryReservation'),
  physicalInputBytes: member('physicalInputBytes'),
  physicalInputDataSize: member('physicalInputDataSize'),
  physicalInputPositions: member('physicalInputPositions'),
  physicalInputRows: member('physicalInputRows'),
  planningTime: member('planningTime'),
  planningTimeMs: member('planningTimeMs'),
  processedBytes: member('processedBytes'),
  processedInputDataSize: member('processedInputDataSize'),
  processedInputPositions: member('processedInputPositions'),
  processedRows: member('processedRows'),
  query: member('query'),
  queryId: member('queryId'),
  queryStats: member('queryStats'),
  queuedDrivers: member('queuedDrivers'),
  queuedSplits: member('queuedSplits'),
  queuedTime: member('queuedTime'),
  queuedTimeMs: member('queuedTimeMs'),
  rawInputDataSize: member('rawInputDataSize'),
  rawInputPositions: member('rawInputPositions'),
  remoteUserAddress: member('remoteUserAddress'),
  resetSessionProperties: member('resetSessionProperties'),
  resourceGroupId: member('resourceGroupId'),
  runningDrivers: member('runningDrivers'),
  runningSplits: member('runningSplits'),
  runningTasks: member('runningTasks'),
  scheduled: member('scheduled'),
  schema: member('schema'),
  session: member('session'),
  setCatalog: member('setCatalog'),
  setSchema: member('setSchema'),
  setSessionProperties: member('setSessionProperties'),
  source: member('source'),
  stageId: member('stageId'),
  startTime: member('startTime'),
  started: member('started'),
  state: member('state'),
  stats: member('stats'),
  subStages: member('subStages'),
  systemProperties: member('systemProperties'),
  taskId: member('taskId'),
  taskStatus: member('taskStatus'),
  tasks: member('tasks'),
  timeZoneKey: member('timeZoneKey'),
  totalBlockedTime: member('totalBlockedTime'),
  totalCpuTime: member('totalCpuTime'),
  totalDrivers: member('totalDrivers'),
  totalMemoryReservation: member('totalMemoryReservation'),
  totalScheduledTime: member('totalScheduledTime'),
  totalSplits: member('totalSplits'),
  totalTasks: member('totalTasks'),
  type: member('type'),
  updateType: member('updateType'),
  user: member('user'),
  userAgent: member('userAgent'),
  wallTimeMillis: member('wallTimeMillis'),
  wallTimeMs: member('wallTimeMs'),
  warnings: member('warnings'),
} as const;

/**
 * A JSON text written member by member as JSON.stringify writes it (an undefined member is left out, a
 * number that is not finite is null), appended to one string: each member's name and separator are one
 * piece made once (K), and the finished line is flattened once (`text`), so a pending line is one
 * flat string and the pieces are young garbage.
 */
class JsonWriter {
  private out = '';
  /** No member or element yet in the object or array open now. */
  private first = true;

  /** A member `name` (absent: an array's element) whose value's JSON is `text`. */
  private push(name: Member | undefined, text: string): this {
    if (name === undefined) this.out += this.first ? text : `,${text}`;
    else this.out += name[this.first ? 0 : 1] + text;
    this.first = false;
    return this;
  }

  /** A string (escaped as JSON.stringify escapes it); anything else as `any` takes it. */
  str(name: Member, value: string | undefined): this {
    if (typeof value !== 'string') return this.any(name, value);
    return this.push(name, quoted(value));
  }

  num(name: Member, value: number | undefined): this {
    if (typeof value !== 'number') return this.any(name, value);
    return this.push(name, Number.isFinite(value) ? String(value) : 'null');
  }

  bool(name: Member, value: boolean | undefined): this {
    if (typeof value !== 'boolean') return this.any(name, value);
    return this.push(name, value ? 'true' : 'false');
  }

  /** A string, a number or null (a nullable column of the row). */
  nullable(name: Member, value: string | number | null | undefined): this {
    if (value === null || value === undefined) return this.push(name, 'null');
    return typeof value === 'string' ? this.str(name, value) : this.num(name, value);
  }

  /** An array of strings (the session's tags, the columns' names) without JSON.stringify's walk; anything else as `any`. */
  strings(name: Member, value: unknown): this {
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
  record(name: Member, value: unknown): this {
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
  any(name: Member, value: unknown): this {
    const json = Array.isArray(value) && value.length === 0 ? '[]' : (JSON.stringify(value) as string | undefined);
    return json === undefined ? this : this.push(name, json);
  }

  /** Text that is already JSON. */
  raw(name: Member, json: string): this {
    return this.push(name, json);
  }

  /** Opens an object (`name` absent: an array's element) or, with `bracket` '[', an array. */
  open(name?: Member, bracket: '{' | '[' = '{'): this {
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
  w.open(K.session)
    .str(K.user, s.user)
    .str(K.source, s.source)
    .str(K.catalog, s.catalog)
    .str(K.schema, s.schema)
    .str(K.remoteUserAddress, s.remoteUserAddress)
    .str(K.userAgent, s.userAgent)
    .str(K.clientInfo, s.clientInfo)
    .strings(K.clientTags, s.clientTags)
    .num(K.timeZoneKey, timeZoneKey(s.timeZone ?? 'UTC') ?? 0)
    .record(K.systemProperties, s.properties)
    .num(K.startTime, s.startTime)
    .close();
}

function writeTask(w: JsonWriter, task: SubStageTask): void {
  w.open()
    .open(K.taskStatus).str(K.taskId, task.taskId).str(K.nodeId, task.nodeId).str(K.state, task.state).close()
    .open(K.stats)
    .num(K.totalDrivers, task.splits)
    .num(K.completedDrivers, task.state === 'FINISHED' ? task.splits : 0)
    .num(K.rawInputPositions, task.processedRows)
    .str(K.rawInputDataSize, formatDataSize(task.processedBytes))
    .num(K.processedInputPositions, task.processedRows)
    .str(K.processedInputDataSize, formatDataSize(task.processedBytes))
    .num(K.outputPositions, task.outputRows)
    .str(K.outputDataSize, formatDataSize(task.outputBytes))
    .str(K.totalCpuTime, formatDuration(task.cpuTimeMillis))
    .str(K.elapsedTime, formatDuration(task.wallTimeMillis))
    .str(K.peakUserMemoryReservation, formatDataSize(task.peakMemoryBytes))
    .close()
    .close();
}

/** renderQueryInfo's outputStage: a stage's StageStats, its id, its output rows, its sub-stages and tasks. */
function writeStage(w: JsonWriter, queryId: string, stage: StageView, outputRows: number, name?: Member): void {
  w.open(name)
    .str(K.stageId, `${queryId}.${stage.stageId}`)
    .str(K.state, stage.state)
    .bool(K.done, stage.done)
    .num(K.nodes, stage.nodes)
    .num(K.totalSplits, stage.totalSplits)
    .num(K.queuedSplits, stage.queuedSplits)
    .num(K.runningSplits, stage.runningSplits)
    .num(K.completedSplits, stage.completedSplits)
    .num(K.cpuTimeMillis, stage.cpuTimeMillis)
    .num(K.wallTimeMillis, stage.wallTimeMillis)
    .num(K.processedRows, stage.processedRows)
    .num(K.processedBytes, stage.processedBytes)
    .num(K.physicalInputBytes, stage.physicalInputBytes)
    .open(K.subStages, '[');
  for (const sub of stage.subStages) writeStage(w, queryId, sub, sub.outputRows);
  w.close(']').num(K.outputPositions, outputRows);
  const tasks = stage.tasks;
  if (tasks !== undefined) {
    let bytes = 0;
    for (const task of tasks) bytes += task.outputBytes;
    w.str(K.outputDataSize, formatDataSize(bytes)).str(K.peakUserMemoryReservation, formatDataSize(stagePeakMemory(tasks))).open(K.tasks, '[');
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
    .str(K.queryId, view.queryId)
    .str(K.state, view.state)
    .str(K.user, view.session.user)
    .nullable(K.source, view.session.source ?? null)
    .str(K.query, view.sql)
    .raw(K.resourceGroupId, groupJson)
    .num(K.queuedTimeMs, queued)
    .num(K.analysisTimeMs, planning)
    .num(K.planningTimeMs, planning)
    .num(K.created, view.createTime)
    .nullable(K.started, view.executionStartTime ?? null)
    .num(K.lastHeartbeat, view.lastHeartbeat)
    .nullable(K.end, view.endTime ?? null)
    .nullable(K.errorType, error?.errorType ?? null)
    .nullable(K.errorCode, error?.errorName ?? null)
    .nullable(K.errorMessage, error?.message ?? null)
    .num(K.outputRows, view.outputRows)
    .num(K.outputBytes, view.outputBytes)
    .num(K.physicalInputRows, total.physicalInputRows)
    .num(K.physicalInputBytes, total.physicalInputBytes)
    .num(K.cpuTimeMs, total.cpuTimeMillis)
    .num(K.wallTimeMs, total.wallTimeMillis)
    .num(K.peakMemoryBytes, peakMemory(view.rootStage));

  // info: renderQueryInfo's body less `self`
  w.open(K.info).str(K.queryId, view.queryId);
  writeSession(w, view);
  w.str(K.state, view.state)
    .bool(K.scheduled, view.scheduled)
    .strings(K.fieldNames, fieldNames(view))
    .str(K.query, view.sql);
  if (groupId) w.raw(K.resourceGroupId, groupJson);

  const running = view.done ? 0 : total.runningSplits;
  const input = formatDataSize(total.physicalInputBytes);
  w.open(K.queryStats)
    .str(K.createTime, isoTime(view.createTime))
    .str(K.executionStartTime, view.executionStartTime === undefined ? undefined : isoTime(view.executionStartTime))
    .str(K.lastHeartbeat, isoTime(view.lastHeartbeat))
    .str(K.endTime, view.endTime === undefined ? undefined : isoTime(view.endTime))
    .str(K.elapsedTime, formatDuration(elapsed))
    .str(K.queuedTime, formatDuration(queued))
    .str(K.analysisTime, formatDuration(planning))
    .str(K.planningTime, formatDuration(planning))
    .str(K.executionTime, formatDuration(Math.max(0, elapsed - queued)))
    .str(K.totalScheduledTime, formatDuration(total.wallTimeMillis))
    .str(K.totalCpuTime, formatDuration(total.cpuTimeMillis))
    .str(K.totalBlockedTime, formatDuration(0))
    .num(K.totalTasks, total.totalSplits)
    .num(K.runningTasks, running)
    .num(K.completedTasks, total.completedSplits)
    .num(K.totalDrivers, total.totalSplits)
    .num(K.queuedDrivers, total.queuedSplits)
    .num(K.runningDrivers, running)
    .num(K.completedDrivers, total.completedSplits)
    .str(K.totalMemoryReservation, formatDataSize(0))
    .str(K.peakUserMemoryReservation, formatDataSize(0))
    .str(K.rawInputDataSize, input)
    .num(K.rawInputPositions, total.physicalInputRows)
    .str(K.processedInputDataSize, input)
    .num(K.processedInputPositions, total.physicalInputRows)
    .str(K.physicalInputDataSize, input)
    .num(K.physicalInputPositions, total.physicalInputRows)
    .str(K.internalNetworkInputDataSize, formatDataSize(moved.bytes))
    .num(K.internalNetworkInputPositions, moved.rows)
    .str(K.outputDataSize, formatDataSize(view.outputBytes))
    .num(K.outputPositions, view.outputRows)
    .bool(K.scheduled, view.scheduled)
    .close();
  writeStage(w, view.queryId, view.rootStage, view.outputRows, K.outputStage);

  if (error) {
    const name = error.errorName as ErrorName;
    w.str(K.errorType, error.errorType)
      .open(K.errorCode).num(K.code, ERROR_CODES[name]?.code ?? error.errorCode).str(K.name, name).str(K.type, error.errorType).close()
      .any(K.failureInfo, error.failureInfo)
      .any(K.error, error);
  }
  w.any(K.warnings, view.warnings ?? []).bool(K.finalQueryInfo, view.done);
  if (view.updateType !== undefined) w.str(K.updateType, view.updateType);
  const u = view.sessionUpdates;
  if (u?.setCatalog !== undefined) w.str(K.setCatalog, u.setCatalog);
  if (u?.setSchema !== undefined) w.str(K.setSchema, u.setSchema);
  return w
    .record(K.setSessionProperties, u?.setSessionProperties ?? {})
    .strings(K.resetSessionProperties, u?.resetSessionProperties ?? [])
    .record(K.addedPreparedStatements, u?.addedPreparedStatements ?? {})
    .strings(K.deallocatedPreparedStatements, u?.deallocatedPreparedStatements ?? [])
    .close()
    .close().text;
}
