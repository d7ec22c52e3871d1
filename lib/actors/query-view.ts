// A query's snapshot reduced to plain data: what responses render and what history keeps.
// Every flag (done, queued, scheduled) is derived here from states, never stored in a machine.
import type { SnapshotFrom } from 'xstate';
import type { QueryView, StageView } from '../protocol/query-view.types.js';
import { allStages } from '../protocol/statement-stats.js';
import { isQueryDone, isStageDone, isStageScheduled, type QueryState, type StageState } from '../protocol/states.js';
import type { QuerySnapshot } from './query.machine.js';
import type { stageMachine } from './stage.machine.js';

export type { QueryView, StageView };

type StageSnapshot = SnapshotFrom<typeof stageMachine>;

export function queryStateOf(snapshot: QuerySnapshot): QueryState {
  return snapshot.value as QueryState;
}

// Built field by field: this runs for every response, and rest/spread copies were a visible cost.
function stageView(snapshot: StageSnapshot, all: StageSnapshot[]): StageView {
  const c = snapshot.context;
  const state = snapshot.value as StageState;
  const subStages: StageView[] = [];
  if (all.length > 1) for (const s of all) if (s.context.parentStageId === c.stageId) subStages.push(stageView(s, all));
  return {
    stageId: c.stageId,
    state,
    done: isStageDone(state),
    nodes: c.nodes,
    totalSplits: c.totalSplits,
    queuedSplits: c.queuedSplits,
    runningSplits: c.runningSplits,
    completedSplits: c.completedSplits,
    cpuTimeMillis: c.cpuTimeMillis,
    wallTimeMillis: c.wallTimeMillis,
    processedRows: c.processedRows,
    processedBytes: c.processedBytes,
    physicalInputRows: c.physicalInputRows,
    physicalInputBytes: c.physicalInputBytes,
    outputRows: c.outputRows,
    subStages,
    ...(c.tasks === undefined ? {} : { tasks: c.tasks }),
  };
}

/** The snapshots of a query's stages, as they are now. */
export function stageSnapshotsOf(snapshot: QuerySnapshot): StageSnapshot[] {
  return snapshot.context.stages.map((s) => s.getSnapshot());
}

/** The view of a query snapshot; `stages` pins the stage snapshots of an earlier moment. */
export function toQueryView(snapshot: QuerySnapshot, stages: StageSnapshot[] = stageSnapshotsOf(snapshot)): QueryView {
  const c = snapshot.context;
  const state = queryStateOf(snapshot);
  const root = stages.find((s) => s.context.parentStageId === undefined) ?? stages[0];
  const rootStage = stageView(root, stages);
  return {
    queryId: c.queryId,
    state,
    done: isQueryDone(state),
    queued: state === 'QUEUED',
    scheduled: allStages(rootStage).every((s) => isStageScheduled(s.state)),
    session: c.session,
    sql: c.sql,
    resourceGroupId: c.group?.resourceGroupId,
    columns: c.output.columns,
    updateType: c.output.updateType,
    updateCount: c.output.updateCount,
    sessionUpdates: c.output.sessionUpdates,
    error: c.error?.toQueryError(),
    createTime: c.times.createTime,
    lastHeartbeat: c.times.lastHeartbeat,
    planningStartTime: c.times.planningStartTime,
    executionStartTime: c.times.executionStartTime,
    endTime: c.times.endTime,
    viewTime: c.times.endTime ?? c.now(),
    outputRows: c.results.outputRows,
    outputBytes: c.results.outputBytes,
    rootStage,
    page: c.page,
  };
}

/** Planning is over (or never began because the query waits in the queue): the POST can answer. */
export function isPastPlanning(snapshot: QuerySnapshot): boolean {
  const state = queryStateOf(snapshot);
  return state !== 'PLANNING' && state !== 'STARTING';
}

/**
 * A response is worth sending: a full page is buffered, or the end is known (so the rows that are
 * there go out with the FINISHED state; their response links to the last one, which has no rows).
 */
export function hasResultsReady(snapshot: QuerySnapshot): boolean {
  const { results, limits } = snapshot.context;
  if (snapshot.status !== 'active' || results.exhausted || results.buffer.length >= limits.prefetchPages) return true;
  let bytes = 0;
  for (const batch of results.buffer) bytes += batch.bytes;
  return bytes >= limits.targetResultBytes;
}
