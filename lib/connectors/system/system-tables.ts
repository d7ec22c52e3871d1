// The rows of Presto's `system` catalog as plain data, and the late-bound source they come from: the
// engine exists before the coordinator whose actors own the data, so it holds a binding that the
// coordinator side fills in once it exists (lib/actors/system-tables.source.ts).

/** system.runtime.nodes (Trino's NodeSystemTable). */
export interface SystemNodeRow {
  nodeId: string;
  httpUri: string;
  nodeVersion: string | null;
  coordinator: boolean;
  /** Trino's NodeState in lower case: 'active', 'inactive', 'shutting_down', ... */
  state: string;
}

/** system.runtime.queries (Trino's QuerySystemTable). Times are epoch milliseconds. */
export interface SystemQueryRow {
  queryId: string;
  state: string;
  user: string;
  source: string | null;
  query: string;
  resourceGroupId: string[] | null;
  queuedTimeMs: number;
  analysisTimeMs: number;
  planningTimeMs: number;
  created: number;
  started: number | null;
  lastHeartbeat: number | null;
  end: number | null;
  errorType: string | null;
  errorCode: string | null;
}

/**
 * system.runtime.completed_queries (ours): a query of the durable history (lib/history), with
 * system.runtime.queries' columns and what a finished query adds.
 */
export interface SystemCompletedQueryRow extends SystemQueryRow {
  errorMessage: string | null;
  outputRows: number;
  outputBytes: number;
  physicalInputRows: number;
  physicalInputBytes: number;
  cpuTimeMs: number;
  wallTimeMs: number;
  peakMemoryBytes: number;
}

/** system.runtime.tasks (Trino's TaskSystemTable). Unknown counters are null. */
export interface SystemTaskRow {
  nodeId: string;
  taskId: string;
  stageId: string;
  queryId: string;
  state: string;
  splits: number;
  queuedSplits: number;
  runningSplits: number;
  completedSplits: number;
  splitScheduledTimeMs: number;
  splitCpuTimeMs: number;
  splitBlockedTimeMs: number;
  rawInputBytes: number;
  rawInputRows: number;
  processedInputBytes: number;
  processedInputRows: number;
  outputBytes: number | null;
  outputRows: number | null;
  physicalInputBytes: number | null;
  physicalWrittenBytes: number | null;
  created: number | null;
  start: number | null;
  lastHeartbeat: number | null;
  end: number | null;
}

/** Rows read at the moment a statement scans the table (called on the main thread, keep it cheap). */
export interface SystemTablesSource {
  nodes(): SystemNodeRow[];
  /** The queries `viewer` may see (every query for the project's own SQL, which names no viewer). */
  queries(viewer?: string): SystemQueryRow[];
  tasks(): SystemTaskRow[];
  /** The stored finished queries `viewer` may see, newest first and bounded (none without a history). */
  completedQueries?(viewer?: string): SystemCompletedQueryRow[];
  /**
   * The same read from files without blocking, before a statement that scans the table runs (the
   * coordinator's history): a binding serves its rows to the scan, a remote engine sends them with the task.
   */
  loadCompletedQueries?(viewer?: string): Promise<SystemCompletedQueryRow[]>;
}

/** Viewers whose loaded completed_queries rows a binding keeps (the least recent goes past it). */
const PREPARED_VIEWERS = 64;

/** The engine's end of the late binding: empty tables until `bind` is called. */
export class SystemTablesBinding implements SystemTablesSource {
  private source: SystemTablesSource | undefined;
  /** completed_queries rows loaded for each viewer's latest statement that reads them. */
  private readonly prepared = new Map<string, SystemCompletedQueryRow[]>();

  bind(source: SystemTablesSource): void {
    this.source = source;
    this.prepared.clear();
  }

  unbind(): void {
    this.source = undefined;
    this.prepared.clear();
  }

  get bound(): boolean {
    return this.source !== undefined;
  }

  nodes(): SystemNodeRow[] {
    return this.source?.nodes() ?? [];
  }

  queries(viewer?: string): SystemQueryRow[] {
    return this.source?.queries(viewer) ?? [];
  }

  tasks(): SystemTaskRow[] {
    return this.source?.tasks() ?? [];
  }

  /** Whether the bound source reads completed_queries asynchronously (prepareCompletedQueries first). */
  get loadsCompletedQueries(): boolean {
    return this.source?.loadCompletedQueries !== undefined;
  }

  /** Loads `viewer`'s completed_queries rows for the statement about to run (the scan then serves them). */
  async prepareCompletedQueries(viewer: string): Promise<void> {
    const source = this.source;
    if (!source?.loadCompletedQueries) return;
    const rows = await source.loadCompletedQueries(viewer);
    this.prepared.delete(viewer);
    if (this.prepared.size >= PREPARED_VIEWERS) this.prepared.delete(this.prepared.keys().next().value as string);
    this.prepared.set(viewer, rows);
  }

  completedQueries(viewer?: string): SystemCompletedQueryRow[] {
    const prepared = viewer === undefined ? undefined : this.prepared.get(viewer);
    return prepared ?? this.source?.completedQueries?.(viewer) ?? [];
  }
}
