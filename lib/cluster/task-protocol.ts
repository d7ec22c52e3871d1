// The coordinator-to-worker protocol: the Engine contract (lib/engine/engine.types.ts) carried over HTTP.
// A task is one statement on one worker: planned (its output known), then executed, its rendered JSON
// pages pulled one at a time and forwarded to the client unparsed. Paths, bodies and headers live here so
// both ends (lib/worker, the coordinator's remote engine) say the same thing.
//
//   POST   /v1/task/{taskId}                   TaskPlanRequest  -> 200 TaskPlanResponse [+ page 0 inline] | error
//   POST   /v1/task/{taskId}/execute           (no body)        -> 204 | error
//   GET    /v1/task/{taskId}/results/{token}?targetBytes=N     -> 200 page | 204 end | error
//   DELETE /v1/task/{taskId}                   cancel the plan or execution and release it -> 204
//   GET    /v1/task                            TaskInfo[] of the tasks the worker holds
//   GET    /v1/task/{taskId}/output[?bucket=B] a finished producer task's output (Parquet), bucket B of a HASH output -> 200 | 409 | 404
//
// Stage tasks (a query over one tpch table in two stages, planner/aggregate-stages.ts): a request with `stage` runs
// a part of the statement in `sql` rather than all of it. Each worker derives the stage's SQL from that
// statement itself, after planning it as a user's (its errors are the statement's); only split and
// input names travel. A leaf (`{queryId}.1.{partition}.{attempt}`, executed with the plan) writes the
// partial rows of its splits to one Parquet file and ends without rows: its results GET answers 204 once
// the file is complete, with the partial rows written as TASK_HEADERS.updateCount and its splits' rows
// and bytes as progress. The root (`{queryId}.0.0.{attempt}`) pulls each input's output worker to
// worker (with the internal bearer), combines them, and pages its rows as any query's.
// Fragment tasks (`kind: 'fragment'`) generalise this to any DistributedPlan (lib/planner/fragment.types.ts):
// `{queryId}.{fragmentId}.{partition}.{attempt}`; every fragment but the root writes its output (one
// file, or one per consumer bucket placed by the hash of its keys) and ends as a leaf does; a consumer
// pulls each input's file (its bucket) worker to worker. Leaf and root are fragments 1 and 0 of the
// two-stage plan.
// The exchange is Parquet: DuckDB writes it (COPY) and reads it with no extension, and no row passes
// through JavaScript. Arrow IPC (apache-arrow) would need the rows in JavaScript first, as the node-api
// has no Arrow output, and was no smaller: Q1's partial rows of 3 sf1 parts (4 rows, 13 columns) are
// 1,843 B of Parquet against 2,288 B of Arrow IPC stream; Q6's (1 row) 212 B against 288 B.
//
// A results page: the body is RowBatch.json as it is (rows joined by commas, no brackets), with
// TASK_HEADERS carrying the row count, whether it was the last page, the update count and progress. The
// same token again returns the same page (a retried GET after a lost answer); an older one is 410.
// Errors: a JSON body `{ errorName, message, errorLocation? }` (TaskError) with status 400 for the
// statement's own errors, 404 for an unknown task, 409 for a wrong state, 5xx for the worker's trouble.
// Every request carries the internal bearer when a shared secret is configured (cluster-auth.ts).
import type { CatalogSync } from '../connectors/dynamic-catalogs.js';
import type { OutputColumn, Session, SessionUpdates } from '../protocol/types.js';
import type { ErrorLocation } from '../protocol/types.js';
import type { ErrorName } from '../protocol/error-codes.js';
import type { Split } from '../connectors/connector.types.js';
import type { PlanChoices } from '../planner/fragment.types.js';

export const TASK_PATH = '/v1/task';

export const taskPath = (taskId: string): string => `${TASK_PATH}/${encodeURIComponent(taskId)}`;
export const taskExecutePath = (taskId: string): string => `${taskPath(taskId)}/execute`;
/** GET: the task's info (TaskInfo); a request like any other, so the worker does not count the task abandoned (task-keep-alive.ts). */
export const taskStatusPath = (taskId: string): string => `${taskPath(taskId)}/status`;
export const taskResultsPath = (taskId: string, token: number, targetBytes: number): string =>
  `${taskPath(taskId)}/results/${token}?targetBytes=${targetBytes}`;

/** `{queryId}.{stageId}.{partition}.{attempt}`, Trino's task id shape. */
export const taskIdOf = (queryId: string, stageId: string, partition = 0, attempt = 0): string => `${queryId}.${stageId}.${partition}.${attempt}`;

export interface TaskPlanRequest {
  queryId: string;
  sql: string;
  session: Session;
  /** Rows of the coordinator's system tables the statement reads (system.runtime.*), as of now. */
  system?: SystemSnapshot;
  /**
   * Start a query (a plan without updateType) at once, saving the execute round trip: the worker runs it
   * and renders its first batch of about `targetBytes` right away, so the first results GET (token 0)
   * answers from it. A statement with an updateType still waits for POST .../execute.
   */
  execute?: boolean;
  /** Size of that first batch (JSON bytes); the worker's default when absent. */
  targetBytes?: number;
  /**
   * With `execute`: answer the POST only once the first batch is rendered, and carry it in the same
   * response (one round trip for a small query). Such a response's body is the TaskPlanResponse JSON,
   * whose UTF-8 byte length is TASK_HEADERS.planBytes, immediately followed by page 0 exactly as a results
   * GET would send it, with that page's TASK_HEADERS; the next GET is token 1 (none after an exhausted
   * page). Without TASK_HEADERS.planBytes the body is the plan alone (an update statement, or a first
   * batch that failed: token 0 then answers its error) and token 0 is read as usual.
   */
  inlineFirstPage?: boolean;
  /**
   * catalog.management=dynamic: the cluster's hive catalogs from files and CREATE CATALOG (dynamic-catalogs.ts),
   * which the worker brings its own set to before planning; absent: static, the worker's files decide.
   */
  catalogs?: CatalogSync;
  /** A stage task (see above); absent: the whole statement. A worker that predates it would run the whole statement: mixed versions need the switch (vivace.distributed-tpch) off. */
  stage?: TaskStage;
}

/** One split of a leaf, as its table's connector names it (connector.types.ts): a file, a row slice or a byte range of it. */
export type TaskSplit = Split;

/** A leaf's output the root reads: the worker holding it and the leaf's task id. */
export interface StageInput {
  /** http(s)://host:port of the worker */
  uri: string;
  taskId: string;
}

/**
 * A fragment's input: the finished tasks of one source fragment whose outputs it reads, and for a source
 * with HASH output the bucket this task reads of each (0 to buckets - 1) and the bucket count.
 */
export interface FragmentInput {
  fragmentId: number;
  tasks: StageInput[];
  bucket?: number;
  buckets?: number;
}

/** How a non-root fragment task writes its output: one file (SINGLE, BROADCAST) or one per bucket (HASH). */
export type FragmentOutput = { kind: 'SINGLE' } | { kind: 'BROADCAST' } | { kind: 'HASH'; buckets: number };

/**
 * A task of any fragment of the statement's distributed plan (distributed-plan.ts), id
 * `{queryId}.{fragmentId}.{partition}.{attempt}`: its splits (a SOURCE fragment), its inputs (one per
 * source fragment), its output (absent for the root, fragment 0, whose rows page) and the coordinator's
 * plan choices, from which the worker derives the same plan.
 */
export interface FragmentStage {
  kind: 'fragment';
  fragmentId: number;
  splits?: TaskSplit[];
  inputs: FragmentInput[];
  output?: FragmentOutput;
  choices?: PlanChoices;
}

/** `leaf` and `root`: the two-stage plan's fragment 1 and fragment 0 (the shape before fragments). */
export type TaskStage = { kind: 'leaf'; splits: TaskSplit[] } | { kind: 'root'; inputs: StageInput[] } | FragmentStage;

/** Most splits of a leaf, and inputs of a root, a request may name. */
export const MAX_STAGE_ITEMS = 4096;
/** Most buckets of a HASH exchange (one task per bucket). */
export const MAX_BUCKETS = 1024;
/** Most fragments a plan, and sources a fragment task, may have. */
export const MAX_FRAGMENTS = 256;

/** A finished task's output: its one file, or bucket `bucket` of a HASH output. */
export const taskOutputPath = (taskId: string, bucket?: number): string => `${taskPath(taskId)}/output${bucket === undefined ? '' : `?bucket=${bucket}`}`;

/** The coordinator's snapshot rows, for a worker's `system` catalog (lib/connectors/system/system-tables.ts). */
export interface SystemSnapshot {
  nodes?: unknown[];
  queries?: unknown[];
  tasks?: unknown[];
  /** system.runtime.completed_queries: the newest stored queries the statement's user may see (bounded) */
  completedQueries?: unknown[];
}

export interface TaskPlanResponse {
  columns: OutputColumn[];
  /** True when the worker started the statement already (the request's `execute` and a plan without updateType). */
  executing?: boolean;
  updateType?: string;
  sessionUpdates?: SessionUpdates;
}

export interface TaskError {
  errorName: ErrorName;
  message: string;
  errorLocation?: ErrorLocation;
}

export interface TaskInfo {
  taskId: string;
  queryId: string;
  state: 'PLANNED' | 'RUNNING' | 'FINISHED' | 'CANCELED' | 'FAILED';
  /** Rows and bytes the task's table scans read (known once its statement has run). */
  processedRows: number;
  processedBytes: number;
  /** Rows and bytes it rendered so far. */
  outputRows?: number;
  outputBytes?: number;
  cpuTimeMillis: number;
}

/** Headers of a results page (lower-case, as Node reads them). */
export const TASK_HEADERS = {
  rows: 'x-vivace-rows',
  /** `true` when this page is the last one (the next GET would answer 204) */
  exhausted: 'x-vivace-exhausted',
  updateCount: 'x-vivace-update-count',
  processedRows: 'x-vivace-processed-rows',
  processedBytes: 'x-vivace-processed-bytes',
  cpuTimeMillis: 'x-vivace-cpu-millis',
  /** Bytes the task wrote so far: a producer's exchange files, any other task's rendered rows. */
  outputBytes: 'x-vivace-output-bytes',
  /** The peak of the worker's DuckDB buffer memory while the task's statement ran (ExecutionProgress.peakMemoryBytes), once it has. */
  peakMemoryBytes: 'x-vivace-peak-memory-bytes',
  /** On a POST answered with its first page inline: the byte length of the plan JSON the body starts with. */
  planBytes: 'x-vivace-plan-bytes',
  /** Spooling protocol: the page's rows went to a segment of the worker's spool, whose JSON this is (the body is empty). */
  spooledSegment: 'x-vivace-spooled-segment',
} as const;

/** Trino's internal authentication header: an HS256 JWT signed with internal-communication.shared-secret. */
export const INTERNAL_BEARER_HEADER = 'x-trino-internal-bearer';
