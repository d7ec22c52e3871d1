// The contract between the query actors and whatever runs SQL (DuckDB here, a fake in specs).
// Actors depend on these types only, so a harness can drive a query with any engine.
import type { OutputColumn, Session, SessionUpdates } from '../protocol/types.js';
import type { PlanAbort } from './plan-abort.js';
import type { StageCounters } from '../protocol/states.js';

export type { PlanAbort } from './plan-abort.js';

/** A slice of result rows already rendered as Presto JSON. */
export interface RowBatch {
  /**
   * Rows as JSON arrays joined by commas, without the surrounding brackets: `[1,"a"],[2,"b"]`. Either
   * the text, or its UTF-8 bytes in pieces to be read in order: an engine that renders into bytes
   * (DuckDB's renderer) or receives them (a worker's page, as the socket delivered it) hands them on as
   * they are, so a page reaches the client's socket without being decoded, encoded or joined again.
   */
  json: string | readonly Buffer[];
  /** Number of rows in `json`. */
  rows: number;
  /** Byte length of `json` in UTF-8 (for paging and stats). */
  bytes: number;
  /**
   * Spooling protocol: the rows a worker wrote to a segment of its own spool (`json` is then empty and
   * `bytes` the rows' JSON size); the client downloads them from the worker (lib/worker/spool/).
   */
  spooled?: SpooledSegment;
  /** A page joined from batches of which some were spooled: the batches, in row order (`json` empty). */
  parts?: readonly RowBatch[];
}

/** A segment a worker spooled: where it is and what the client needs to read it (protocol/spooling). */
export interface SpooledSegment {
  /** The segment's id: authenticated, opaque, URL-safe. */
  id: string;
  /** The worker that holds it (http(s)://host:port). */
  workerUri: string;
  rowsCount: number;
  segmentSize: number;
  uncompressedSize?: number;
  /** Trino's format: a local date-time without offset (UTC here), milliseconds. */
  expiresAt: string;
}

/** A statement that has been parsed and analysed: its output is known, nothing has run yet. */
export interface Plan {
  columns: OutputColumn[];
  /** Set for statements that are not queries: 'INSERT', 'CREATE TABLE', 'USE', 'SET SESSION', ... */
  updateType?: string;
  /** Session changes to report in response headers once the statement finishes. */
  sessionUpdates?: SessionUpdates;
  /** Start producing rows. Called at most once. */
  execute(): Execution;
  /** Give back resources (connection) when the plan will never execute. Idempotent. */
  release(): void;
}

export interface ExecutionProgress {
  /**
   * Rows the statement's table scans read (Trino's processed input positions): DuckDB's TABLE_SCAN
   * operators' output, so rows a filter pushed into a scan drops are not counted, and known once the
   * statement has run (engine/scan-profile.ts). A statement that reads no table (SELECT 1) reads 0.
   */
  processedRows: number;
  /** Bytes of those rows: DuckDB's in-memory size of the columns the scans read. */
  processedBytes: number;
  /** Rows produced so far (rendered for the client, or DML's count row); absent: not counted. */
  outputRows?: number;
  /** Bytes of those rows (rendered JSON). */
  outputBytes?: number;
  /** milliseconds of engine CPU time so far (estimate) */
  cpuTimeMillis: number;
  /**
   * The peak of DuckDB's buffer memory while the statement ran (scan-profile.ts ScanCounts.peakMemoryBytes:
   * an upper bound of its own), known once it has run; absent: not measured.
   */
  peakMemoryBytes?: number;
  /** The sub-stages' own figures (a query in two stages: its leaf stage), when the engine runs any. */
  subStages?: SubStageProgress[];
  /**
   * The root stage's own tasks when it runs more than one (a scattered scan: one per worker, each over its
   * share of the splits, cluster/scattered-query.ts); absent: the root is one task, which these figures describe.
   */
  tasks?: SubStageTask[];
}

/** What a sub-stage has done so far (issue 10 §3's stage stats); outputRows: rows it handed to its parent; wallTimeMillis: since its first task started, absent until then. */
export type SubStageProgress = Omit<StageCounters, 'wallTimeMillis' | 'physicalInputRows' | 'physicalInputBytes'> & {
  outputRows: number;
  wallTimeMillis?: number;
  /** The stage's id (its fragment's, Trino's stage id) and its consumer's; absent: '1' under the root '0' (two stages). */
  stageId?: string;
  parentStageId?: string;
  /** Its tasks, as far as they went. */
  tasks?: SubStageTask[];
};

/** One task of a sub-stage (Trino's TaskStatus and TaskStats, as far as a worker reports them). */
export interface SubStageTask {
  taskId: string;
  fragmentId: number;
  partition: number;
  nodeId: string;
  state: 'PLANNED' | 'RUNNING' | 'FINISHED';
  /** Splits it read (a SOURCE task), or 1 (its inputs). */
  splits: number;
  /** Rows and bytes it wrote to the exchange. */
  outputRows: number;
  outputBytes: number;
  /** Rows and bytes its scans read. */
  processedRows: number;
  processedBytes: number;
  cpuTimeMillis: number;
  wallTimeMillis: number;
  /** The peak of its worker's DuckDB buffer memory while it ran (ExecutionProgress.peakMemoryBytes); 0 until it ended. */
  peakMemoryBytes: number;
}

/** A running statement: pull batches until `null`. */
export interface Execution {
  /**
   * Next batch of about `targetBytes` of rendered rows, or `null` when the result is exhausted.
   * Rejects with a VivaceError on failure; after `cancel()` it rejects with USER_CANCELED
   * (never resolves `null`: a cancelled query must not look like a normal end).
   */
  next(targetBytes: number): Promise<RowBatch | null>;
  /** Interrupt the running statement. Idempotent; safe after the end. */
  cancel(): void;
  /** For DML: the affected row count once the result is exhausted. */
  readonly updateCount?: number;
  /**
   * True once next() has returned the last batch (the following next() would resolve `null`). An
   * engine that cannot tell leaves it undefined and the end is seen as `null`; one that can saves the
   * query a round trip (a small result's only batch is also its end).
   */
  readonly exhausted?: boolean;
  progress(): ExecutionProgress;
}

export interface Engine {
  /**
   * Parse and analyse `sql` for `session`; resolves with the planned output.
   * Rejects with a VivaceError (SYNTAX_ERROR, TABLE_NOT_FOUND, ...) for a bad statement. When `abort`
   * fires (the query was cancelled, killed or timed out while planning) the engine interrupts its work
   * and gives its resources back; the promise then rejects with the abort's reason. `queryId`: the
   * coordinator's id of the query, for engines that name work after it (a worker's tasks).
   */
  plan(sql: string, session: Session, abort?: PlanAbort, queryId?: string): Promise<Plan>;
  /** Close all connections and the database. */
  close(): Promise<void>;
}
