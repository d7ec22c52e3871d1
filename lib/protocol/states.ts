// The protocol's state names for queries and stages, and the flags derived from them.

export const QUERY_STATES = ['QUEUED', 'PLANNING', 'STARTING', 'RUNNING', 'FINISHING', 'FINISHED', 'FAILED'] as const;
export type QueryState = (typeof QUERY_STATES)[number];

export const STAGE_STATES = ['PLANNED', 'SCHEDULING', 'SCHEDULED', 'RUNNING', 'FINISHED', 'CANCELED', 'ABORTED', 'FAILED'] as const;
export type StageState = (typeof STAGE_STATES)[number];

const DONE_STAGE_STATES: ReadonlySet<StageState> = new Set(['FINISHED', 'CANCELED', 'ABORTED', 'FAILED']);

export function isQueryDone(state: QueryState): boolean {
  return state === 'FINISHED' || state === 'FAILED';
}

export function isStageDone(state: StageState): boolean {
  return DONE_STAGE_STATES.has(state);
}

/** prestodb's rule: a stage counts as scheduled once it runs or is done. */
export function isStageScheduled(state: StageState): boolean {
  return state === 'RUNNING' || isStageDone(state);
}

export interface StageCounters {
  nodes: number;
  totalSplits: number;
  queuedSplits: number;
  runningSplits: number;
  completedSplits: number;
  cpuTimeMillis: number;
  wallTimeMillis: number;
  /**
   * Rows and bytes the stage took in (Trino's stage processed input): what its table scans read, or for
   * a stage over other stages' output (the root of a query in two stages) the rows exchanged to it.
   */
  processedRows: number;
  processedBytes: number;
  /** Of those, what table scans read (Trino's physical input): the rows and bytes a query reads from its tables. */
  physicalInputRows: number;
  physicalInputBytes: number;
  /** Rows the stage handed on: to its parent stage (the rows exchanged), or the root's to the client. */
  outputRows: number;
}

export const ZERO_COUNTERS: Readonly<StageCounters> = Object.freeze({
  nodes: 0,
  totalSplits: 0,
  queuedSplits: 0,
  runningSplits: 0,
  completedSplits: 0,
  cpuTimeMillis: 0,
  wallTimeMillis: 0,
  processedRows: 0,
  processedBytes: 0,
  physicalInputRows: 0,
  physicalInputBytes: 0,
  outputRows: 0,
});
