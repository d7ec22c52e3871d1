// StatementStats and StageStats of the statement response, rolled up from the stage views.
import type { QueryView, StageView } from './query-view.types.js';
import { ZERO_COUNTERS, type StageCounters } from './states.js';

export function allStages(stage: StageView): StageView[] {
  return [stage, ...stage.subStages.flatMap(allStages)];
}

/** Counters of every stage of the query added up. */
export function totalCounters(view: QueryView): StageCounters {
  const total: StageCounters = { ...ZERO_COUNTERS };
  addCounters(total, view.rootStage);
  return total;
}

/** Adds `stage` and its sub-stages into `total` (runs for every response: no intermediate arrays). */
function addCounters(total: StageCounters, stage: StageView): void {
  total.totalSplits += stage.totalSplits;
  total.queuedSplits += stage.queuedSplits;
  total.runningSplits += stage.runningSplits;
  total.completedSplits += stage.completedSplits;
  total.cpuTimeMillis += stage.cpuTimeMillis;
  total.wallTimeMillis += stage.wallTimeMillis;
  total.processedRows += stage.processedRows;
  total.processedBytes += stage.processedBytes;
  total.physicalInputRows += stage.physicalInputRows;
  total.physicalInputBytes += stage.physicalInputBytes;
  // A node running several stages of the query counts once; the coordinator always takes part.
  total.nodes = Math.max(total.nodes, stage.nodes);
  for (const sub of stage.subStages) addCounters(total, sub);
}

/**
 * The rows and bytes the query's stages exchanged: what every stage below the root handed its consumer
 * (its outputRows, and the bytes of the files its tasks wrote). Trino's QueryStats counts these as its
 * internalNetworkInputPositions/DataSize (the exchanges' input, summed over the stages); a query in one
 * task exchanges nothing.
 */
export function exchangedTotals(view: QueryView): { rows: number; bytes: number } {
  const total = { rows: 0, bytes: 0 };
  for (const sub of view.rootStage.subStages) addExchanged(total, sub);
  return total;
}

function addExchanged(total: { rows: number; bytes: number }, stage: StageView): void {
  total.rows += stage.outputRows;
  if (stage.tasks) for (const task of stage.tasks) total.bytes += task.outputBytes;
  for (const sub of stage.subStages) addExchanged(total, sub);
}

/** A statement response's StageStats (Trino's client protocol has no output figures per stage). */
export interface StageStatsJson extends Omit<StageCounters, 'outputRows' | 'physicalInputRows'> {
  stageId: string;
  state: string;
  done: boolean;
  subStages: StageStatsJson[];
}

export function stageStats(stage: StageView): StageStatsJson {
  return {
    stageId: stage.stageId,
    state: stage.state,
    done: stage.done,
    nodes: stage.nodes,
    totalSplits: stage.totalSplits,
    queuedSplits: stage.queuedSplits,
    runningSplits: stage.runningSplits,
    completedSplits: stage.completedSplits,
    cpuTimeMillis: stage.cpuTimeMillis,
    wallTimeMillis: stage.wallTimeMillis,
    // Trino's: the stage's processed input rows; its bytes the physical and exchanged input's.
    processedRows: stage.processedRows,
    processedBytes: stage.processedBytes,
    physicalInputBytes: stage.physicalInputBytes,
    subStages: stage.subStages.map(stageStats),
  };
}

/** Milliseconds the query waited for admission. */
export function queuedMillis(view: QueryView): number {
  return (view.planningStartTime ?? view.endTime ?? view.viewTime) - view.createTime;
}

/** Milliseconds spent planning (Presto's analysis time). */
export function planningMillis(view: QueryView): number {
  if (view.planningStartTime === undefined) return 0;
  return (view.executionStartTime ?? view.endTime ?? view.viewTime) - view.planningStartTime;
}

export function elapsedMillis(view: QueryView): number {
  return (view.endTime ?? view.viewTime) - view.createTime;
}

/** The union of prestodb's and Trino's StatementStats fields (both clients ignore unknown ones). */
export function statementStats(view: QueryView): Record<string, unknown> {
  const total = totalCounters(view);
  const stats: Record<string, unknown> = {
    state: view.state,
    queued: view.queued,
    scheduled: view.scheduled,
    nodes: total.nodes,
    totalSplits: total.totalSplits,
    queuedSplits: total.queuedSplits,
    runningSplits: total.runningSplits,
    completedSplits: total.completedSplits,
    cpuTimeMillis: total.cpuTimeMillis,
    wallTimeMillis: total.wallTimeMillis,
    queuedTimeMillis: queuedMillis(view),
    elapsedTimeMillis: elapsedMillis(view),
    planningTimeMillis: planningMillis(view),
    analysisTimeMillis: planningMillis(view),
    finishingTimeMillis: 0,
    // Trino's: the rows the table scans read (processedInputPositions of the stages that scan tables),
    // the bytes read from tables and exchanged between stages.
    processedRows: total.physicalInputRows,
    processedBytes: total.processedBytes,
    physicalInputBytes: total.physicalInputBytes,
    internalNetworkInputBytes: exchangedTotals(view).bytes,
    peakMemoryBytes: 0,
    spilledBytes: 0,
    rootStage: stageStats(view.rootStage),
  };
  if (view.scheduled && total.totalSplits > 0) {
    stats.progressPercentage = Math.min(100, (total.completedSplits * 100) / total.totalSplits);
  }
  return stats;
}
