// The query resource: full QueryInfo for /v1/query/{id} and BasicQueryInfo for the /v1/query list.
// Times are ISO 8601 with offset, durations airlift-style, data sizes in bytes (protocol.md section 8).
import { timeZoneKey } from './time-zone-keys.js';
import { isoTime as iso } from './iso-time.js';
import { formatDataSize } from './data-size.js';
import { formatDuration } from './duration.js';
import { ERROR_CODES, type ErrorName } from './error-codes.js';
import type { QueryView, StageView } from './query-view.types.js';
import type { SubStageTask } from '../engine/engine.types.js';
import { elapsedMillis, exchangedTotals, planningMillis, queuedMillis, stageStats, totalCounters } from './statement-stats.js';


function sessionJson(view: QueryView): Record<string, unknown> {
  const s = view.session;
  const json: Record<string, unknown> = { user: s.user };
  if (s.source !== undefined) json.source = s.source;
  if (s.catalog !== undefined) json.catalog = s.catalog;
  if (s.schema !== undefined) json.schema = s.schema;
  json.remoteUserAddress = s.remoteUserAddress;
  if (s.userAgent !== undefined) json.userAgent = s.userAgent;
  if (s.clientInfo !== undefined) json.clientInfo = s.clientInfo;
  json.clientTags = s.clientTags;
  // Trino's numeric TimeZoneKey (UTC, the server's zone, when the session names none).
  json.timeZoneKey = timeZoneKey(s.timeZone ?? 'UTC') ?? 0;
  json.systemProperties = s.properties;
  json.startTime = s.startTime;
  return json;
}

function queryStatsJson(view: QueryView): Record<string, unknown> {
  const total = totalCounters(view);
  const exchanged = exchangedTotals(view);
  const queued = queuedMillis(view);
  const elapsed = elapsedMillis(view);
  const running = view.done ? 0 : total.runningSplits;
  const stats: Record<string, unknown> = { createTime: iso(view.createTime) };
  if (view.executionStartTime !== undefined) stats.executionStartTime = iso(view.executionStartTime);
  stats.lastHeartbeat = iso(view.lastHeartbeat);
  if (view.endTime !== undefined) stats.endTime = iso(view.endTime);
  Object.assign(stats, {
    elapsedTime: formatDuration(elapsed),
    queuedTime: formatDuration(queued),
    analysisTime: formatDuration(planningMillis(view)),
    planningTime: formatDuration(planningMillis(view)),
    executionTime: formatDuration(Math.max(0, elapsed - queued)),
    totalScheduledTime: formatDuration(total.wallTimeMillis),
    totalCpuTime: formatDuration(total.cpuTimeMillis),
    totalBlockedTime: formatDuration(0),
    totalTasks: total.totalSplits,
    runningTasks: running,
    completedTasks: total.completedSplits,
    totalDrivers: total.totalSplits,
    queuedDrivers: total.queuedSplits,
    runningDrivers: running,
    completedDrivers: total.completedSplits,
    totalMemoryReservation: formatDataSize(0),
    peakUserMemoryReservation: formatDataSize(0),
    // Input as Trino counts it: raw and processed input are the stages that scan tables' (what the
    // scans read), physical input every table scan's, internal network input what stages exchanged
    // (the rows every stage below the root handed on, the bytes of its tasks' exchange files).
    rawInputDataSize: formatDataSize(total.physicalInputBytes),
    rawInputPositions: total.physicalInputRows,
    processedInputDataSize: formatDataSize(total.physicalInputBytes),
    processedInputPositions: total.physicalInputRows,
    physicalInputDataSize: formatDataSize(total.physicalInputBytes),
    physicalInputPositions: total.physicalInputRows,
    internalNetworkInputDataSize: formatDataSize(exchanged.bytes),
    internalNetworkInputPositions: exchanged.rows,
    outputDataSize: formatDataSize(view.outputBytes),
    outputPositions: view.outputRows,
    scheduled: view.scheduled,
  });
  return stats;
}

function errorFields(view: QueryView): Record<string, unknown> {
  if (!view.error) return {};
  const name = view.error.errorName as ErrorName;
  return {
    errorType: view.error.errorType,
    errorCode: { code: ERROR_CODES[name]?.code ?? view.error.errorCode, name, type: view.error.errorType },
    failureInfo: view.error.failureInfo,
    error: view.error,
  };
}

/** GET /v1/query/{queryId} */
/**
 * The stage tree as the query resource shows it: each stage's StageStats and, as in Trino's StageInfo
 * stats, its outputPositions: the rows a sub-stage handed its parent (the rows exchanged between stages),
 * and for the root the rows sent to the client.
 */
function outputStageJson(queryId: string, stage: StageView, outputRows: number): Record<string, unknown> {
  return {
    // Trino's StageInfo names every stage by its StageId, `{queryId}.{n}` (the statement stats' StageStats by n alone).
    ...stageStats(stage), stageId: `${queryId}.${stage.stageId}`, outputPositions: outputRows, subStages: stage.subStages.map((sub) => outputStageJson(queryId, sub, sub.outputRows)),
    // A distributed stage's bytes exchanged: its tasks' files (Trino's StageStats.outputDataSize).
    ...(stage.tasks === undefined ? {} : {
      outputDataSize: formatDataSize(stage.tasks.reduce((n, t) => n + t.outputBytes, 0)),
      peakUserMemoryReservation: formatDataSize(stagePeakMemory(stage.tasks)),
      tasks: stage.tasks.map(taskJson),
    }),
  };
}

/**
 * A stage's peak memory (Trino's StageStats.peakUserMemoryReservation) from its tasks' peaks: each task's
 * is its worker's DuckDB instance's peak while it ran (tasks of one worker share it), so the stage's is
 * the sum over its workers of the largest of their tasks', a bound of what the stage held at once.
 */
export function stagePeakMemory(tasks: readonly SubStageTask[]): number {
  const byNode = new Map<string, number>();
  for (const task of tasks) byNode.set(task.nodeId, Math.max(byNode.get(task.nodeId) ?? 0, task.peakMemoryBytes));
  let total = 0;
  for (const peak of byNode.values()) total += peak;
  return total;
}

/**
 * A stage's task as Trino's StageInfo lists it (TaskInfo: taskStatus and stats, the fields a worker
 * reports here): its node and state, its splits, the rows and bytes its scans read, the rows it wrote to
 * the exchange, its CPU and wall time, its peak memory.
 */
function taskJson(task: SubStageTask): Record<string, unknown> {
  return {
    taskStatus: { taskId: task.taskId, nodeId: task.nodeId, state: task.state },
    stats: {
      totalDrivers: task.splits, completedDrivers: task.state === 'FINISHED' ? task.splits : 0,
      rawInputPositions: task.processedRows, rawInputDataSize: formatDataSize(task.processedBytes),
      processedInputPositions: task.processedRows, processedInputDataSize: formatDataSize(task.processedBytes),
      outputPositions: task.outputRows, outputDataSize: formatDataSize(task.outputBytes),
      totalCpuTime: formatDuration(task.cpuTimeMillis), elapsedTime: formatDuration(task.wallTimeMillis),
      // Trino's TaskStats.peakUserMemoryReservation: under query.max-memory-per-node the task's own DuckDB
      // instance's buffer memory, sampled (worker/task-memory.ts); without it, DuckDB's buffer memory peak
      // on the task's worker while it ran (an upper bound of the task's own: tasks share the instance).
      peakUserMemoryReservation: formatDataSize(task.peakMemoryBytes),
    },
  };
}

// The durable history writes this body (less `self`) as text of its own, lib/history/history-line.ts; a field
// added here fails spec/history/history-line.spec.ts until it is added there.
export function renderQueryInfo(view: QueryView, self: string): Record<string, unknown> {
  const info: Record<string, unknown> = {
    queryId: view.queryId,
    session: sessionJson(view),
    state: view.state,
    scheduled: view.scheduled,
    self,
    fieldNames: (view.columns ?? []).map((c) => c.name),
    query: view.sql,
    ...(view.resourceGroupId ? { resourceGroupId: view.resourceGroupId } : {}),
    queryStats: queryStatsJson(view),
    outputStage: outputStageJson(view.queryId, view.rootStage, view.outputRows),
    ...errorFields(view),
    warnings: view.warnings ?? [],
    finalQueryInfo: view.done,
  };
  if (view.updateType !== undefined) info.updateType = view.updateType;
  const u = view.sessionUpdates;
  if (u?.setCatalog !== undefined) info.setCatalog = u.setCatalog;
  if (u?.setSchema !== undefined) info.setSchema = u.setSchema;
  info.setSessionProperties = u?.setSessionProperties ?? {};
  info.resetSessionProperties = u?.resetSessionProperties ?? [];
  info.addedPreparedStatements = u?.addedPreparedStatements ?? {};
  info.deallocatedPreparedStatements = u?.deallocatedPreparedStatements ?? [];
  return info;
}

/** An entry of GET /v1/query */
export function renderBasicQueryInfo(view: QueryView, self: string): Record<string, unknown> {
  const stats = queryStatsJson(view);
  return {
    queryId: view.queryId,
    session: sessionJson(view),
    state: view.state,
    scheduled: view.scheduled,
    self,
    query: view.sql,
    ...(view.resourceGroupId ? { resourceGroupId: view.resourceGroupId } : {}),
    queryStats: stats,
    ...(view.updateType !== undefined ? { updateType: view.updateType } : {}),
    ...errorFields(view),
    warnings: view.warnings ?? [],
  };
}
