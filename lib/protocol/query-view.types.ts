// A query reduced to plain data: what the actors hand to the renderers and what history keeps.
import type { RowBatch, SubStageTask } from '../engine/engine.types.js';
import type { QueryState, StageCounters, StageState } from './states.js';
import type { OutputColumn, QueryError, Session, SessionUpdates } from './types.js';

export interface StageView extends StageCounters {
  stageId: string;
  state: StageState;
  done: boolean;
  subStages: StageView[];
  /** A distributed stage's tasks (absent: the root's one task, which the query's figures describe). */
  tasks?: readonly SubStageTask[];
}

export interface QueryView {
  queryId: string;
  state: QueryState;
  done: boolean;
  queued: boolean;
  scheduled: boolean;
  session: Session;
  sql: string;
  /** Trino's ResourceGroupId: the group's path of names */
  resourceGroupId?: string[];
  columns?: OutputColumn[];
  updateType?: string;
  updateCount?: number;
  sessionUpdates?: SessionUpdates;
  error?: QueryError;
  createTime: number;
  lastHeartbeat: number;
  planningStartTime?: number;
  executionStartTime?: number;
  endTime?: number;
  /** time the view was taken, so elapsed times of a live query run to "now" */
  viewTime: number;
  outputRows: number;
  outputBytes: number;
  rootStage: StageView;
  /** page handed out by the latest take (live queries only) */
  page?: RowBatch;
  /** Trino-style warnings about the query (engine work that outlived it, ...) */
  warnings?: QueryWarning[];
}

export interface QueryWarning {
  warningCode: { code: number; name: string };
  message: string;
}
