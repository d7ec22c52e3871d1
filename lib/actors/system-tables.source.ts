// The coordinator's end of the `system` catalog: nodes, queries and tasks read from the actors'
// snapshots (live queries and history) at the moment a statement scans them, as plain rows.
import type { SystemNodeRow, SystemQueryRow, SystemTaskRow, SystemTablesSource } from '../connectors/system/system-tables.js';
import type { QueryView, StageView } from '../protocol/query-view.types.js';
import type { StageState } from '../protocol/states.js';
import { allStages, planningMillis, queuedMillis } from '../protocol/statement-stats.js';
import type { Coordinator } from './coordinator.js';

/** The coordinator as a node: known only once its HTTP server listens. */
export interface CoordinatorNode {
  nodeId: string;
  /** e.g. http://127.0.0.1:8080 */
  uri: string;
}

/** Trino's TaskState for a stage's (single, notional) task on the coordinator. */
const TASK_STATE: Record<StageState, string> = {
  PLANNED: 'PLANNED',
  SCHEDULING: 'PLANNED',
  SCHEDULED: 'RUNNING',
  RUNNING: 'RUNNING',
  FINISHED: 'FINISHED',
  CANCELED: 'CANCELED',
  ABORTED: 'ABORTED',
  FAILED: 'FAILED',
};

export function queryRow(view: QueryView): SystemQueryRow {
  return {
    queryId: view.queryId,
    state: view.state,
    user: view.session.user,
    source: view.session.source ?? null,
    query: view.sql,
    resourceGroupId: view.resourceGroupId ?? null,
    queuedTimeMs: queuedMillis(view),
    analysisTimeMs: planningMillis(view),
    planningTimeMs: planningMillis(view),
    created: view.createTime,
    started: view.executionStartTime ?? null,
    lastHeartbeat: view.lastHeartbeat,
    end: view.endTime ?? null,
    errorType: view.error?.errorType ?? null,
    errorCode: view.error?.errorName ?? null,
  };
}

export function taskRows(view: QueryView, nodeId: string): SystemTaskRow[] {
  return allStages(view.rootStage).map((stage: StageView) => {
    const root = stage === view.rootStage;
    return {
      nodeId,
      taskId: `${view.queryId}.${stage.stageId}.0.0`,
      stageId: `${view.queryId}.${stage.stageId}`,
      queryId: view.queryId,
      state: TASK_STATE[stage.state],
      splits: stage.totalSplits,
      queuedSplits: stage.queuedSplits,
      runningSplits: stage.runningSplits,
      completedSplits: stage.completedSplits,
      splitScheduledTimeMs: stage.wallTimeMillis,
      splitCpuTimeMs: stage.cpuTimeMillis,
      splitBlockedTimeMs: 0,
      rawInputBytes: stage.processedBytes,
      rawInputRows: stage.processedRows,
      processedInputBytes: stage.processedBytes,
      processedInputRows: stage.processedRows,
      // Only the root stage's output (what the client received) is counted.
      outputBytes: root ? view.outputBytes : null,
      outputRows: root ? view.outputRows : null,
      physicalInputBytes: stage.physicalInputBytes,
      physicalWrittenBytes: null,
      created: view.createTime,
      start: view.executionStartTime ?? null,
      lastHeartbeat: stage.done ? (view.endTime ?? view.viewTime) : view.viewTime,
      end: stage.done ? (view.endTime ?? null) : null,
    };
  });
}

/** `{node http}/v1/status` (the failure detector's ping URI) -> the node's http URI. */
const httpUriOf = (statusUri: unknown): string => String(statusUri ?? '').replace(/\/v1\/status\/?$/, '');

/** Rows of system.runtime.completed_queries a statement gets: the newest (a worker keeps as many). */
export const COMPLETED_QUERIES_LIMIT = 10_000;

/** Who may see whose queries (the access control's view rule); absent: everyone sees every query. */
export interface QueryVisibility {
  canViewQueryOwnedBy(viewer: string, owner: string): boolean;
}

export function createSystemTablesSource(coordinator: Coordinator, self: CoordinatorNode, visibility?: QueryVisibility): SystemTablesSource {
  const views = () => coordinator.list().map((tracked) => coordinator.view(tracked));
  return {
    nodes(): SystemNodeRow[] {
      const workers = coordinator.nodes().map((n) => ({
        nodeId: n.nodeId,
        httpUri: httpUriOf(n.stats.uri),
        nodeVersion: null, // workers do not announce a version
        coordinator: false,
        // Trino lists nodes the failure detector gave up on as inactive.
        state: n.failed ? 'inactive' : 'active',
      }));
      return [{ nodeId: self.nodeId, httpUri: self.uri, nodeVersion: coordinator.config.nodeVersion, coordinator: true, state: 'active' }, ...workers];
    },
    queries: (viewer) =>
      (viewer === undefined || !visibility ? views() : views().filter((view) => visibility.canViewQueryOwnedBy(viewer, view.session.user))).map(queryRow),
    tasks: () => views().flatMap((view) => taskRows(view, self.nodeId)),
    // The durable history's newest rows the viewer may see (lib/history/history-store.ts), bounded by
    // COMPLETED_QUERIES_LIMIT rows, query.history.max-scan-size bytes of files and half of
    // http-server.max-request-size of rows, read from its files without
    // blocking before the statement runs (the engine serves them from then on: never read at the scan).
    completedQueries: () => [],
    loadCompletedQueries: async (viewer) => {
      // At most half the request body a worker takes (http-server.max-request-size), in which the rows
      // travel: the rest of the plan request (statement, session, the other system rows) has the other half.
      const visible = viewer === undefined || !visibility ? undefined : (owner: string) => visibility.canViewQueryOwnedBy(viewer, owner);
      const scan = await coordinator.history?.recentRows(COMPLETED_QUERIES_LIMIT, visible, undefined, Math.floor(coordinator.config.maxBodyBytes / 2));
      return scan?.rows ?? [];
    },
  };
}
