// A worker's `system` catalog: it serves the rows the coordinator sent with a task (TaskPlanRequest.system)
// and never calls back. Nodes and tasks are the latest snapshot; queries are kept per user, since the
// coordinator sends the queries the statement's user may see and another user's statement must not read
// them. Rows are read field by field with their types, so a malformed row becomes nulls, not an engine error.
import type { SystemCompletedQueryRow, SystemNodeRow, SystemQueryRow, SystemTablesSource, SystemTaskRow } from '../connectors/system/system-tables.js';
import type { SystemSnapshot } from '../cluster/task-protocol.js';

/** Users whose query lists are remembered; past this the least recent goes. */
const MAX_USERS = 64;
/** Rows kept per table; a larger list is cut (the coordinator's history is bounded well below). */
const MAX_ROWS = 10_000;

type Row = Record<string, unknown>;
const str = (r: Row, k: string): string | null => (typeof r[k] === 'string' ? (r[k] as string) : null);
/** A number DuckDB's BIGINT and millisecond timestamps hold (the coordinator's counters and epoch times); else null. */
const num = (r: Row, k: string): number | null => {
  const v = r[k];
  return typeof v === 'number' && Math.abs(v) <= Number.MAX_SAFE_INTEGER ? v : null;
};

function nodeRow(r: Row): SystemNodeRow {
  return { nodeId: str(r, 'nodeId') ?? '', httpUri: str(r, 'httpUri') ?? '', nodeVersion: str(r, 'nodeVersion'), coordinator: r.coordinator === true, state: str(r, 'state') ?? '' };
}

function queryRow(r: Row): SystemQueryRow {
  const group = Array.isArray(r.resourceGroupId) && r.resourceGroupId.every((g) => typeof g === 'string') ? (r.resourceGroupId as string[]) : null;
  return {
    queryId: str(r, 'queryId') ?? '', state: str(r, 'state') ?? '', user: str(r, 'user') ?? '', source: str(r, 'source'), query: str(r, 'query') ?? '',
    resourceGroupId: group, queuedTimeMs: num(r, 'queuedTimeMs') ?? 0, analysisTimeMs: num(r, 'analysisTimeMs') ?? 0, planningTimeMs: num(r, 'planningTimeMs') ?? 0,
    created: num(r, 'created') ?? 0, started: num(r, 'started'), lastHeartbeat: num(r, 'lastHeartbeat'), end: num(r, 'end'),
    errorType: str(r, 'errorType'), errorCode: str(r, 'errorCode'),
  };
}

const COMPLETED_NUMBERS = ['outputRows', 'outputBytes', 'physicalInputRows', 'physicalInputBytes', 'cpuTimeMs', 'wallTimeMs', 'peakMemoryBytes'] as const;

function completedQueryRow(r: Row): SystemCompletedQueryRow {
  const row = { ...queryRow(r), errorMessage: str(r, 'errorMessage') } as SystemCompletedQueryRow;
  for (const k of COMPLETED_NUMBERS) row[k] = num(r, k) ?? 0;
  return row;
}

const TASK_NUMBERS = ['splits', 'queuedSplits', 'runningSplits', 'completedSplits', 'splitScheduledTimeMs', 'splitCpuTimeMs', 'splitBlockedTimeMs', 'rawInputBytes', 'rawInputRows', 'processedInputBytes', 'processedInputRows'] as const;
const TASK_NULLABLE = ['outputBytes', 'outputRows', 'physicalInputBytes', 'physicalWrittenBytes', 'created', 'start', 'lastHeartbeat', 'end'] as const;

function taskRow(r: Row): SystemTaskRow {
  const row = { nodeId: str(r, 'nodeId') ?? '', taskId: str(r, 'taskId') ?? '', stageId: str(r, 'stageId') ?? '', queryId: str(r, 'queryId') ?? '', state: str(r, 'state') ?? '' } as SystemTaskRow;
  for (const k of TASK_NUMBERS) row[k] = num(r, k) ?? 0;
  for (const k of TASK_NULLABLE) row[k] = num(r, k);
  return row;
}

const rowsOf = <T>(rows: unknown[], read: (r: Row) => T): T[] => rows.slice(0, MAX_ROWS).map((r) => read(r as Row));

/** A user's rows, most recent user last; past MAX_USERS the least recent goes. */
function remember<T>(byUser: Map<string, T[]>, user: string, rows: T[]): void {
  byUser.delete(user);
  if (byUser.size >= MAX_USERS) byUser.delete(byUser.keys().next().value as string);
  byUser.set(user, rows);
}

export class SystemSnapshots implements SystemTablesSource {
  private latestNodes: SystemNodeRow[] = [];
  private latestTasks: SystemTaskRow[] = [];
  private readonly queriesByUser = new Map<string, SystemQueryRow[]>();
  private readonly completedByUser = new Map<string, SystemCompletedQueryRow[]>();

  /** Takes what a task brought, for the statement of `user`. */
  accept(snapshot: SystemSnapshot, user: string): void {
    if (snapshot.nodes) this.latestNodes = rowsOf(snapshot.nodes, nodeRow);
    if (snapshot.tasks) this.latestTasks = rowsOf(snapshot.tasks, taskRow);
    if (snapshot.queries) remember(this.queriesByUser, user, rowsOf(snapshot.queries, queryRow));
    // Sent only with statements that read completed_queries: another statement leaves them as they were.
    if (snapshot.completedQueries) remember(this.completedByUser, user, rowsOf(snapshot.completedQueries, completedQueryRow));
  }

  /** The stored queries the coordinator last sent for `viewer`. */
  completedQueries(viewer?: string): SystemCompletedQueryRow[] {
    return viewer === undefined ? [] : (this.completedByUser.get(viewer) ?? []);
  }

  nodes(): SystemNodeRow[] {
    return this.latestNodes;
  }

  /** The queries the coordinator last sent for `viewer`; none for the project's own SQL or an unknown user. */
  queries(viewer?: string): SystemQueryRow[] {
    return viewer === undefined ? [] : (this.queriesByUser.get(viewer) ?? []);
  }

  tasks(): SystemTaskRow[] {
    return this.latestTasks;
  }
}
