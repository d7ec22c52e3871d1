// The Engine (lib/engine/engine.types.ts) as the coordinator sees it once workers exist: each statement is a
// task on one worker (lib/cluster/task-protocol.ts). The coordinator picks the worker from the statement's
// tree (statement-route.ts), forwards the worker's rendered pages unparsed, and turns every way a worker
// can fail (refused, reset, silent, garbage, failed by the detector) into a clear query error.
import type { Engine, Execution, ExecutionProgress, Plan, PlanAbort, RowBatch, SpooledSegment } from '../engine/engine.types.js';
import { spooledQueryPath } from '../spooling/spooled-paths.js';
import { SegmentHolders, workerInstanceKey } from '../spooling/segment-holders.js';
import { ERROR_CODES, type ErrorName } from '../protocol/error-codes.js';
import type { Session } from '../protocol/types.js';
import { VivaceError } from '../protocol/vivace-error.js';
import { internalHeaders } from './cluster-auth.js';
import { TaskKeepAlive, type KeptTask } from './task-keep-alive.js';
import { routeOf } from './statement-route.js';
import type { Connectors } from '../connectors/connectors.js';
import type { CatalogSync } from '../connectors/dynamic-catalogs.js';
import { planStaged, stagedQuery, type StagedQuery, type StageHost } from './staged-query.js';
import { planScattered, scatteredQuery } from './scattered-query.js';
import {
  TASK_HEADERS, taskExecutePath, taskPath, taskResultsPath, taskStatusPath,
  type SystemSnapshot, type TaskPlanRequest, type TaskPlanResponse,
} from './task-protocol.js';
import { WorkerClient, WorkerResponse, WorkerTransportError } from './worker-client.js';
import { busyWorker, lostWorker } from './worker-trouble.js';

export interface WorkerNode {
  nodeId: string;
  /** http(s)://host:port */
  uri: string;
  /** holds the memory catalog */
  memory: boolean;
  /** not failed by the failure detector */
  alive: boolean;
  /** The announcing process (DiscoveredNode.instance): a worker restarted on its address is another worker. */
  instance?: string;
}

export interface RemoteEngineOptions {
  /** Every worker discovery knows, oldest first, with its health now. */
  workers(): WorkerNode[];
  /** This coordinator's node id (the internal bearer's subject), known once its server listens. */
  nodeId(): string;
  sharedSecret?: string;
  /**
   * system.runtime rows as `viewer` may see them, for statements that read them; `completedQueries`: the
   * statement (or what it EXECUTEs) reads system.runtime.completed_queries, whose rows go only then.
   */
  systemSnapshot?(viewer: string, completedQueries: boolean): SystemSnapshot | Promise<SystemSnapshot>;
  /** Size of the first batch a worker renders with the plan (protocol.v1.target-result-size). */
  firstBatchBytes?: number;
  /** Deadline of a plan and of a results page (a statement's own limits end it sooner). */
  workTimeoutMs?: number;
  /** Deadline of execute and cancel calls. */
  controlTimeoutMs?: number;
  /** How often in-flight work is checked against the failure detector (and idle tasks kept alive). */
  watchIntervalMs?: number;
  /** A live statement's task with no request for this long gets a status request (task-keep-alive.ts; default 30 s). */
  taskKeepAliveMs?: number;
  now?: () => number;
  /**
   * Waits until the cluster has its required workers (ClusterSizeMonitor.waitForMinimumWorkers: Trino's
   * query-manager.required-workers), rejecting with GENERIC_INSUFFICIENT_RESOURCES past its max wait. Every
   * statement that needs a worker goes through it first, so one sent while the local workers start waits
   * for them instead of failing with NO_NODES_AVAILABLE. Absent: never waits.
   */
  waitForWorkers?(abort?: PlanAbort): Promise<void>;
  /**
   * Waits (bounded) for the memory catalog's worker before a statement that needs it: serve's local worker-0
   * may announce itself after another worker already made the required count. Absent: never waits.
   */
  waitForMemoryWorker?(abort?: PlanAbort): Promise<unknown>;
  /** A worker that held spooled segments of `queryId` is gone, and those segments with it (told once per query and worker). */
  onSpooledSegmentsLost?(queryId: string, nodeId: string): void;
  /**
   * The connectors of the node's catalog set: the catalogs every worker reads alike (a read-only query over
   * them runs on any worker) and, with `stages`, how a scan of a catalog's table splits.
   */
  connectors: Connectors;
  /**
   * vivace.distributed-tpch: a query over one table whose connector splits its scan runs in two stages
   * across the workers (staged-query.ts). Absent: off. `guarded`: the user reads the table through a column
   * mask or row filter of the access control; such a query runs as one task, where the mask applies (a leaf
   * reads the table's files as they are).
   */
  stages?: { guarded?: (user: string, table: { catalog: string; schema: string; table: string }) => boolean };
  /** catalog.management=dynamic: the catalog set every task carries to its worker (catalog-manager.ts). */
  catalogSync?: () => CatalogSync | undefined;
}

const DEFAULTS = { firstBatchBytes: 1 << 20, workTimeoutMs: 600_000, controlTimeoutMs: 10_000, watchIntervalMs: 1_000 } as const;

/** The catalogs every worker reads alike, with a dynamic cluster's hive catalogs (every task brings them along). */
const sharedWith = (shared: ReadonlySet<string>, sync: CatalogSync): ReadonlySet<string> =>
  sync.catalogs.length === 0 ? shared : new Set([...shared, ...sync.catalogs.map((c) => c.name)]);

/** Transactions remembered at most (each maps an id to the worker holding it). */
const MAX_TRANSACTIONS = 10_000;

const sizesPages = (session: Session) => Object.hasOwn(session.properties, 'target_result_size') || Object.hasOwn(session.properties, 'query_max_memory');

const noNodes = (message: string) => new VivaceError('NO_NODES_AVAILABLE', message);

export class RemoteEngine implements Engine {
  private readonly clients = new Map<string, WorkerClient>();
  private readonly transactions = new Map<string, string>();
  private readonly watch: NodeJS.Timeout;
  /** Statements placed so far: WorkerClient.pickedAt's clock. */
  private picks = 0;
  private taskSeq = 0;
  private readonly taskPrefix = `r${Date.now().toString(36)}`;
  readonly settings: Required<Pick<RemoteEngineOptions, 'firstBatchBytes' | 'workTimeoutMs' | 'controlTimeoutMs'>>;
  /** Spooling protocol: the workers each query's handed-out segments are on (keyed as `clients`). */
  readonly segmentHolders = new SegmentHolders();
  /** The live statements' tasks, asked for their status while their clients are slow to pull pages. */
  readonly keptTasks: TaskKeepAlive;
  /** A dynamic cluster's shared catalogs, one set per catalog set (not a new Set for every statement). */
  private readonly sharedSets = new WeakMap<CatalogSync, ReadonlySet<string>>();
  /** Each client's key in `clients`: its worker process (segment holders are keyed alike). */
  readonly clientKeys = new WeakMap<WorkerClient, string>();

  constructor(private readonly options: RemoteEngineOptions) {
    this.settings = {
      firstBatchBytes: options.firstBatchBytes ?? DEFAULTS.firstBatchBytes,
      workTimeoutMs: options.workTimeoutMs ?? DEFAULTS.workTimeoutMs,
      controlTimeoutMs: options.controlTimeoutMs ?? DEFAULTS.controlTimeoutMs,
    };
    // A worker that stops answering without closing its sockets (frozen, partitioned) is found by the
    // failure detector within seconds; its tasks then fail instead of waiting for their deadline.
    this.keptTasks = new TaskKeepAlive({
      status: async (client, taskId) => client.call('GET', taskStatusPath(taskId), undefined, { timeoutMs: this.settings.controlTimeoutMs, headers: await this.headers() }),
      ...(options.taskKeepAliveMs === undefined ? {} : { idleMs: options.taskKeepAliveMs }),
      ...(options.now === undefined ? {} : { now: options.now }),
    });
    this.watch = setInterval(() => {
      this.failWorkWithoutNode();
      void this.keptTasks.sweep();
    }, options.watchIntervalMs ?? DEFAULTS.watchIntervalMs);
    this.watch.unref();
  }

  async plan(sql: string, session: Session, abort?: PlanAbort, queryId?: string): Promise<Plan> {
    const { stages } = this.options;
    const catalogs = this.options.catalogSync?.();
    const route = routeOf(sql, session, catalogs ? this.sharedWith(catalogs) : this.options.connectors.shared);
    // A client of the spooling protocol reading a split table row by row: every worker spools its share (scattered-query.ts).
    const scattered = stages && !route.tableFree && scatteredQuery(sql, session, this.options.connectors);
    if (scattered && !scattered.plan.tables.some((t) => stages.guarded?.(session.user, t))) return this.planScattered(sql, session, scattered, abort, queryId);
    // A query that reads no table has no scan to split: it is never staged (and not planned as if it might be).
    const staged = stages && !route.tableFree && stagedQuery(sql, session, this.options.connectors);
    if (staged && !staged.plan.tables.some((t) => stages.guarded?.(session.user, t))) return this.planTwoStages(sql, session, staged, abort, queryId);
    const pinned = this.pinnedWorker(session);
    const worker = pinned ?? (await this.pickOnceReady(route.target, abort));
    // Taken when the task is sent (the stored history read without blocking, for completed_queries).
    const system = route.readsSystemRuntime && this.options.systemSnapshot ? await this.options.systemSnapshot(session.user, route.readsCompletedQueries) : undefined;
    const request: TaskPlanRequest = {
      // Tasks are named after the query, as Trino's are ({queryId}.{stage}.{partition}.{attempt}).
      queryId: queryId ?? `${this.taskPrefix}_${(this.taskSeq++).toString(36)}`,
      sql,
      session,
      // A query starts with its plan, its first page rendered at the default size (a session that sizes
      // its pages, target_result_size or query_max_memory, has each page sized by next()). A query that
      // reads no table has that page come back with the plan: one round trip for `SELECT 1`. Others do
      // not wait for their first rows in planning, so the client sees them RUNNING meanwhile.
      ...(sizesPages(session) ? {} : { execute: true, targetBytes: this.settings.firstBatchBytes, ...(route.tableFree ? { inlineFirstPage: true } : {}) }),
      ...(system ? { system } : {}),
    };
    if (catalogs) request.catalogs = catalogs;
    // A statement that may run anywhere runs again on another alive worker when its worker is lost before
    // any of its rows reached the coordinator (RemoteExecution): nothing of it was seen, so nothing repeats.
    const rerun: Rerun | undefined = pinned || route.target !== 'any' ? undefined : (lost, attempt) => {
      const other = this.tryPick(lost.nodeId);
      return other ? this.planOn(other, request, attempt, undefined, undefined, rerun) : undefined;
    };
    try {
      return await this.planOn(worker, request, 0, abort, undefined, rerun);
    } catch (err) {
      // Never reached (refused, reset before an answer) or draining: once more on another worker, when
      // the statement may run anywhere.
      const other = !pinned && route.target === 'any' && unreachable(err) ? this.tryPick(worker.nodeId) : undefined;
      if (!other) throw remoteError(err, worker, 'plan');
      try {
        return await this.planOn(other, request, 1, abort, undefined, rerun);
      } catch (retryErr) {
        throw remoteError(retryErr, other, 'plan');
      }
    }
  }

  /** The producer fragments, then the root task (staged-query.ts); its pages are forwarded as any task's. */
  private async planTwoStages(sql: string, session: Session, staged: StagedQuery, abort: PlanAbort | undefined, queryId: string | undefined): Promise<Plan> {
    const host = this.stageHost();
    const id = queryId ?? `${this.taskPrefix}_${(this.taskSeq++).toString(36)}`;
    // A statement sent while the local workers start waits for one, as a single task does (for the
    // memory catalog's worker when a fragment or the root is pinned to it).
    await this.pickOnceReady(staged.plan.choices.held?.length ? 'memory' : 'any', abort);
    // The leaves start now; the statement's columns and its own errors come from their plans.
    const targetBytes = sizesPages(session) ? {} : { targetBytes: this.settings.firstBatchBytes };
    return planStaged(host, { queryId: id, sql, session, ...targetBytes }, staged, taskError, abort);
  }

  /** A scattered scan's tasks, one per alive worker (scattered-query.ts). */
  private async planScattered(sql: string, session: Session, scattered: StagedQuery, abort: PlanAbort | undefined, queryId: string | undefined): Promise<Plan> {
    const id = queryId ?? `${this.taskPrefix}_${(this.taskSeq++).toString(36)}`;
    await this.pickOnceReady('any', abort);
    const targetBytes = sizesPages(session) ? {} : { targetBytes: this.settings.firstBatchBytes };
    return planScattered(this.stageHost(), { queryId: id, sql, session, ...targetBytes }, scattered, abort);
  }

  /** What the staged and scattered paths need of this engine. */
  private stageHost(): StageHost {
    return {
      aliveWorkers: () => this.options.workers().filter((w) => w.alive),
      clientOf: (node) => this.clientFor({ ...node, memory: false, alive: true }),
      headers: () => this.headers(),
      deleteTask: (client, taskId) => this.deleteTask(client, taskId),
      workTimeoutMs: this.settings.workTimeoutMs,
      planRoot: (request, attempt, rootAbort) => this.planAnywhere(request, rootAbort, (retry) => `${request.queryId}.0.0.${attempt + retry}`, 'root plan'),
      // The memory catalog, the one catalog a worker holds alone (planner-metadata.ts held).
      holderOf: () => this.options.workers().find((w) => w.memory && w.alive),
      planRootOn: (node, request, taskId, rootAbort) => {
        const client = this.clientFor({ ...node, memory: false, alive: true });
        return this.planOn(client, request, 0, rootAbort, taskId).catch((err: unknown) => Promise.reject(remoteError(err, client, 'root plan')));
      },
    };
  }

  /** A task on any alive worker, once more on another when the first was never reached (or draining). */
  private async planAnywhere(request: TaskPlanRequest, abort: PlanAbort | undefined, taskId: (retry: number) => string, step: string): Promise<Plan> {
    const worker = this.pick('any');
    try {
      return await this.planOn(worker, request, 0, abort, taskId(0));
    } catch (err) {
      const other = unreachable(err) ? this.tryPick(worker.nodeId) : undefined;
      if (!other) throw remoteError(err, worker, step);
      return this.planOn(other, request, 1, abort, taskId(1)).catch((retryErr: unknown) => Promise.reject(remoteError(retryErr, other, step)));
    }
  }

  async close(): Promise<void> {
    clearInterval(this.watch);
    for (const client of this.clients.values()) client.close();
    this.clients.clear();
  }

  private sharedWith(sync: CatalogSync): ReadonlySet<string> {
    let shared = this.sharedSets.get(sync);
    if (!shared) {
      shared = sharedWith(this.options.connectors.shared, sync);
      this.sharedSets.set(sync, shared);
    }
    return shared;
  }

  /** The worker a session's open transaction lives on; REMOTE_HOST_GONE when it is not alive. */
  private pinnedWorker(session: Session): WorkerClient | undefined {
    const id = session.transactionId;
    if (id === undefined || id === 'NONE') return undefined;
    const nodeId = this.transactions.get(id);
    if (nodeId === undefined) return undefined;
    const node = this.options.workers().find((w) => w.nodeId === nodeId && w.alive);
    if (!node) throw new VivaceError('REMOTE_HOST_GONE', `Transaction ${id} was open on worker ${nodeId}, which is no longer available`);
    return this.clientFor(node);
  }

  /** pick(), once the cluster has its required workers (a statement sent while they start waits for them). */
  private async pickOnceReady(target: 'any' | 'memory', abort?: PlanAbort): Promise<WorkerClient> {
    await this.options.waitForWorkers?.(abort);
    if (target === 'memory') await this.options.waitForMemoryWorker?.(abort);
    return this.pick(target);
  }

  /**
   * An alive worker for the route: the memory catalog's holder, or the least loaded one. Load is the calls
   * in flight to the worker (Trino's node selector likewise takes the node with the fewest splits); among
   * equally loaded workers the one chosen last, so that statements one after another stay on one warm
   * worker: a worker idle between every other statement answered `SELECT 1` 0.5-0.9 ms slower, its
   * threads asleep (bench/run.ts, figure a). Under concurrent load the calls in flight spread them, and
   * each worker woke less often: b ran 16-22% faster than round-robin (README, Performance).
   */
  private pick(target: 'any' | 'memory', exclude?: string): WorkerClient {
    const workers = this.options.workers();
    if (target === 'memory') {
      const holder = workers.find((w) => w.memory);
      // No worker announces the memory catalog: any worker answers (CATALOG_NOT_FOUND for memory's tables).
      if (holder?.alive) return this.clientFor(holder);
      if (holder) throw noNodes(`The worker holding the memory catalog (${holder.nodeId}) is not available; try again once it is back`);
    }
    const alive = workers.filter((w) => w.alive && w.nodeId !== exclude);
    if (alive.length === 0) {
      throw noNodes(workers.length === 0 ? 'No worker nodes available: none has announced itself' : 'No worker nodes available: every worker is failed');
    }
    let best: WorkerClient | undefined;
    for (const node of alive) {
      const client = this.clientFor(node);
      if (!best || client.callsInFlight < best.callsInFlight || (client.callsInFlight === best.callsInFlight && client.pickedAt > best.pickedAt)) best = client;
    }
    best!.pickedAt = ++this.picks;
    return best!;
  }

  /** Another alive worker than `exclude`, if there is one. */
  private tryPick(exclude: string): WorkerClient | undefined {
    try {
      return this.pick('any', exclude);
    } catch {
      return undefined;
    }
  }

  private clientFor(node: WorkerNode): WorkerClient {
    // A node handed on without its instance (a stage's) is the one discovery lists at its address now.
    const instance = node.instance ?? this.options.workers().find((w) => w.nodeId === node.nodeId && w.uri === node.uri)?.instance;
    const key = workerInstanceKey({ nodeId: node.nodeId, uri: node.uri, ...(instance === undefined ? {} : { instance }) });
    let client = this.clients.get(key);
    if (!client) {
      client = new WorkerClient(node.nodeId, node.uri);
      this.clients.set(key, client);
      this.clientKeys.set(client, key);
    }
    return client;
  }

  private failWorkWithoutNode(): void {
    if (this.clients.size === 0) return;
    const alive = new Set(this.options.workers().filter((w) => w.alive).map(workerInstanceKey));
    for (const [key, client] of this.clients) {
      if (alive.has(key)) continue;
      client.abortAll(`worker ${client.nodeId} was marked failed by the failure detector`);
      for (const queryId of this.segmentHolders.lose(key)) this.options.onSpooledSegmentsLost?.(queryId, client.nodeId);
      // Gone workers' agents are closed once nothing runs on them.
      if (!client.busy) {
        client.close();
        this.clients.delete(key);
      }
    }
  }

  async headers(): Promise<Record<string, string>> {
    return internalHeaders(this.options.sharedSecret, this.options.nodeId());
  }

  private async planOn(client: WorkerClient, base: TaskPlanRequest, attempt: number, abort?: PlanAbort, named?: string, rerun?: Rerun): Promise<RemotePlan> {
    if (abort?.aborted) throw abort.reason;
    const taskId = named ?? `${base.queryId}.0.0.${attempt}`;
    const controller = new AbortController();
    const removeAbort = abort?.onAbort(() => controller.abort());
    try {
      const response = await client.call('POST', taskPath(taskId), JSON.stringify(base), {
        timeoutMs: this.settings.workTimeoutMs,
        signal: controller.signal,
        headers: await this.headers(),
      });
      if (response.status !== 200) throw taskError(response, client, 'plan');
      const { planned, firstPage } = splitPlanResponse(response, client);
      this.noteTransaction(base.session, planned, client);
      const plan = new RemotePlan(this, client, taskId, planned, firstPage, attempt, rerun);
      if (base.session.queryDataEncoding !== undefined) plan.spooledQuery = base.queryId;
      return plan;
    } catch (err) {
      if (abort?.aborted) {
        this.deleteTask(client, taskId);
        throw abort.reason;
      }
      throw err;
    } finally {
      removeAbort?.();
    }
  }

  private noteTransaction(session: Session, planned: TaskPlanResponse, client: WorkerClient): void {
    const updates = planned.sessionUpdates;
    if (updates?.startedTransactionId !== undefined) {
      if (this.transactions.size >= MAX_TRANSACTIONS) this.transactions.delete(this.transactions.keys().next().value as string);
      this.transactions.set(updates.startedTransactionId, client.nodeId);
    }
    if (updates?.clearTransactionId && session.transactionId !== undefined) this.transactions.delete(session.transactionId);
  }

  /** A cancelled query's spooled segments on a worker go (spooling protocol); nobody waits for the answer. */
  dropSpooledSegments(client: WorkerClient, queryId: string): void {
    this.segmentHolders.forget(queryId);
    void this.headers()
      .then((headers) => client.call('DELETE', spooledQueryPath(queryId), undefined, { timeoutMs: this.settings.controlTimeoutMs, headers }))
      .catch(() => undefined);
  }

  /** Cancel and release a task; nobody waits for the answer. */
  deleteTask(client: WorkerClient, taskId: string): void {
    void this.headers()
      .then((headers) => client.call('DELETE', taskPath(taskId), undefined, { timeoutMs: this.settings.controlTimeoutMs, headers }))
      .catch(() => undefined); // a dead worker has nothing left to cancel
  }
}

/**
 * The same statement planned (and started) again on another alive worker than `lost`, as attempt
 * `attempt`; undefined when there is none.
 */
type Rerun = (lost: WorkerClient, attempt: number) => Promise<RemotePlan> | undefined;

/** Reruns of one statement at most (each on another worker than the one just lost). */
const MAX_RERUNS = 2;

class RemotePlan implements Plan {
  readonly columns;
  readonly updateType;
  readonly sessionUpdates;
  private used = false;
  /** The query whose client asked for the spooling protocol: its segments go when it is cancelled. */
  spooledQuery?: string;

  constructor(
    private readonly engine: RemoteEngine,
    readonly client: WorkerClient,
    readonly taskId: string,
    readonly planned: TaskPlanResponse,
    readonly firstPage: WorkerResponse | undefined,
    readonly attempt: number,
    /** Only for a query (no update type) that may run anywhere. */
    private readonly rerun: Rerun | undefined,
  ) {
    this.columns = planned.columns;
    this.updateType = planned.updateType;
    this.sessionUpdates = planned.sessionUpdates;
  }

  execute(): Execution {
    if (this.used) throw new VivaceError('GENERIC_INTERNAL_ERROR', 'Plan executed twice');
    this.used = true;
    return new RemoteExecution(this.engine, this, this.updateType === undefined ? this.rerun : undefined);
  }

  release(): void {
    if (this.used) return;
    this.used = true;
    this.engine.deleteTask(this.client, this.taskId);
  }
}

class RemoteExecution implements Execution {
  updateCount?: number;
  exhausted?: boolean;
  private token = 0;
  private canceled = false;
  private started: Promise<void> | undefined;
  private readonly controller = new AbortController();
  private stats: ExecutionProgress = { processedRows: 0, processedBytes: 0, cpuTimeMillis: 0 };
  private client!: WorkerClient;
  private taskId!: string;
  /** Page 0, when it came with the plan. */
  private inline: WorkerResponse | undefined;
  private spooledQuery: string | undefined;
  private attempt = 0;
  /** The task kept from looking abandoned while the client is slow to ask for pages. */
  private kept: KeptTask | undefined;

  constructor(
    private readonly engine: RemoteEngine,
    plan: RemotePlan,
    private readonly rerun: Rerun | undefined,
  ) {
    this.runOn(plan);
  }

  private runOn(plan: RemotePlan): void {
    this.kept?.release();
    this.kept = this.engine.keptTasks.keep(plan.client, plan.taskId);
    this.spooledQuery = plan.spooledQuery;
    this.client = plan.client;
    this.taskId = plan.taskId;
    this.inline = plan.firstPage;
    this.attempt = plan.attempt;
    this.started = plan.planned.executing === true ? Promise.resolve() : undefined;
  }

  async next(targetBytes: number): Promise<RowBatch | null> {
    if (this.canceled) throw canceled();
    if (this.exhausted) return null;
    const inline = this.inline;
    if (inline) {
      this.inline = undefined;
      const page = this.readPage(inline);
      if (this.exhausted) this.kept?.release();
      return page;
    }
    try {
      this.started ??= this.startExecution();
      await this.started;
      const response = await this.fetchPage(targetBytes);
      this.kept?.touch();
      if (this.canceled) throw canceled();
      if (response.status === 204) {
        // The end carries the task's final figures: a streamed statement's scans are known only then.
        this.recordProgress(response);
        this.exhausted = true;
        return null;
      }
      if (response.status !== 200) throw taskError(response, this.client, 'results');
      return this.readPage(response);
    } catch (err) {
      if (this.canceled) throw canceled();
      const again = this.token === 0 && lostWorker(err) ? await this.runElsewhere() : false;
      if (!again) {
        this.kept?.release();
        throw remoteError(err, this.client, 'results');
      }
      return this.next(targetBytes);
    } finally {
      if (this.exhausted) this.kept?.release();
    }
  }

  /**
   * The worker was lost (or failed the task itself) before any of the rows reached the coordinator: the
   * statement starts over on another alive worker, when it may and there is one. False otherwise, and
   * when that plan fails too (the first failure is then the one reported).
   */
  private async runElsewhere(): Promise<boolean> {
    if (!this.rerun || this.attempt >= MAX_RERUNS) return false;
    const lost = { client: this.client, taskId: this.taskId };
    let plan: RemotePlan | undefined;
    try {
      plan = await this.rerun(lost.client, this.attempt + 1);
    } catch {
      return false;
    }
    if (!plan) return false;
    this.engine.deleteTask(lost.client, lost.taskId); // a worker that failed the task itself still holds it
    if (this.canceled) {
      this.engine.deleteTask(plan.client, plan.taskId);
      return false;
    }
    this.runOn(plan);
    return true;
  }

  cancel(): void {
    if (this.canceled) return;
    this.canceled = true;
    this.kept?.release();
    this.controller.abort();
    this.engine.deleteTask(this.client, this.taskId);
    if (this.spooledQuery !== undefined) this.engine.dropSpooledSegments(this.client, this.spooledQuery);
  }

  progress(): ExecutionProgress {
    return this.stats;
  }

  private async startExecution(): Promise<void> {
    const response = await this.client.call('POST', taskExecutePath(this.taskId), undefined, {
      timeoutMs: this.engine.settings.controlTimeoutMs,
      signal: this.controller.signal,
      headers: await this.engine.headers(),
    });
    if (response.status !== 204 && response.status !== 200) throw taskError(response, this.client, 'execute');
  }

  private async fetchPage(targetBytes: number): Promise<WorkerResponse> {
    const path = taskResultsPath(this.taskId, this.token, targetBytes);
    const call = async () =>
      this.client.call('GET', path, undefined, { timeoutMs: this.engine.settings.workTimeoutMs, signal: this.controller.signal, headers: await this.engine.headers() });
    try {
      return await call();
    } catch (err) {
      // A kept-alive socket the worker closed as we reused it: the same token again is the same page.
      if (err instanceof WorkerTransportError && err.reusedSocket && err.code === 'ECONNRESET') return call();
      throw err;
    }
  }

  private recordProgress(response: WorkerResponse): void {
    this.stats = {
      processedRows: headerNumber(response, TASK_HEADERS.processedRows) ?? this.stats.processedRows,
      processedBytes: headerNumber(response, TASK_HEADERS.processedBytes) ?? this.stats.processedBytes,
      cpuTimeMillis: headerNumber(response, TASK_HEADERS.cpuTimeMillis) ?? this.stats.cpuTimeMillis,
    };
  }

  private readPage(response: WorkerResponse): RowBatch {
    const rows = headerNumber(response, TASK_HEADERS.rows);
    if (rows === undefined) throw garbage(this.client, 'results', `a page without ${TASK_HEADERS.rows}`);
    this.token++;
    this.recordProgress(response);
    if (response.headers[TASK_HEADERS.exhausted] === 'true') this.exhausted = true;
    const updateCount = headerNumber(response, TASK_HEADERS.updateCount);
    if (updateCount !== undefined) this.updateCount = updateCount;
    const spooled = response.headers[TASK_HEADERS.spooledSegment];
    if (typeof spooled === 'string') {
      // The rows are in the worker's spool: only where they are travels on (spooling protocol).
      const segment = parseSpooledSegment(spooled, this.client);
      if (this.spooledQuery !== undefined) this.engine.segmentHolders.note(this.spooledQuery, this.engine.clientKeys.get(this.client) ?? workerInstanceKey(this.client));
      return { json: '', rows, bytes: segment.uncompressedSize ?? segment.segmentSize, spooled: segment };
    }
    // Forwarded as the worker's bytes, in the socket's pieces: never joined or decoded here (the client's
    // response is written from the same pieces).
    return { json: response.chunks, rows, bytes: response.size };
  }
}

function headerNumber(response: WorkerResponse, name: string): number | undefined {
  const value = response.headers[name];
  if (typeof value !== 'string' || value === '') return undefined;
  const n = Number(value);
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

const canceled = () => new VivaceError('USER_CANCELED', 'Query was canceled');

/** The plan of a POST's answer, and page 0 when the worker sent it along (TASK_HEADERS.planBytes). */
function splitPlanResponse(response: WorkerResponse, client: WorkerClient): { planned: TaskPlanResponse; firstPage?: WorkerResponse } {
  if (response.headers[TASK_HEADERS.planBytes] === undefined) return { planned: parsePlanResponse(response.body, client) };
  const planBytes = headerNumber(response, TASK_HEADERS.planBytes);
  if (planBytes === undefined || planBytes > response.size) throw garbage(client, 'plan', `a plan length that does not fit its body`);
  const { head, rest } = response.split(planBytes);
  return { planned: parsePlanResponse(head, client), firstPage: new WorkerResponse(200, response.headers, rest) };
}

function parsePlanResponse(body: Buffer, client: WorkerClient): TaskPlanResponse {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    throw garbage(client, 'plan', 'a plan that is not JSON');
  }
  const plan = parsed as Partial<TaskPlanResponse> | null;
  if (typeof plan !== 'object' || plan === null || !Array.isArray(plan.columns)) throw garbage(client, 'plan', 'a plan without columns');
  return plan as TaskPlanResponse;
}

/** A spooled page's segment as its worker described it (TASK_HEADERS.spooledSegment), at that worker's address. */
function parseSpooledSegment(text: string, client: WorkerClient): SpooledSegment {
  let raw: Partial<Record<keyof SpooledSegment, unknown>> | null;
  try {
    raw = JSON.parse(text) as typeof raw;
  } catch {
    raw = null;
  }
  const count = (v: unknown) => Number.isSafeInteger(v) && (v as number) > 0;
  if (!raw || typeof raw.id !== 'string' || typeof raw.expiresAt !== 'string' || !count(raw.rowsCount) || !count(raw.segmentSize) || (raw.uncompressedSize !== undefined && !count(raw.uncompressedSize))) {
    throw garbage(client, 'results', 'a spooled segment that is not one');
  }
  return {
    id: raw.id,
    workerUri: client.uri,
    rowsCount: raw.rowsCount as number,
    segmentSize: raw.segmentSize as number,
    ...(raw.uncompressedSize === undefined ? {} : { uncompressedSize: raw.uncompressedSize as number }),
    expiresAt: raw.expiresAt,
  };
}

const garbage = (client: WorkerClient, step: string, what: string) =>
  new VivaceError('REMOTE_TASK_ERROR', `Worker ${client.nodeId} (${client.uri}) answered the ${step} request with ${what}`);

/** The statement's own error (TaskError body) as the worker named it, or REMOTE_TASK_ERROR for the worker's trouble. */
function taskError(response: WorkerResponse, client: WorkerClient, step: string): VivaceError {
  let body: { errorName?: unknown; message?: unknown; errorLocation?: { lineNumber?: unknown; columnNumber?: unknown } } | undefined;
  try {
    body = JSON.parse(response.body.toString('utf8')) as typeof body;
  } catch {
    body = undefined;
  }
  const name = body?.errorName;
  const message = typeof body?.message === 'string' ? body.message : '';
  // 400: the statement's own error; 503: the worker is draining or full. Anything else (an unknown task,
  // a wrong state, a 5xx) is the worker's trouble, not the user's, whatever name it gives.
  if (typeof name === 'string' && Object.hasOwn(ERROR_CODES, name) && (response.status === 400 || response.status === 503)) {
    const at = body?.errorLocation;
    const location = at && Number.isSafeInteger(at.lineNumber) && Number.isSafeInteger(at.columnNumber)
      ? { lineNumber: at.lineNumber as number, columnNumber: at.columnNumber as number }
      : undefined;
    return new VivaceError(name as ErrorName, message, location ? { location } : {});
  }
  const detail = response.status === 401 ? 'refused the internal bearer (is internal-communication.shared-secret the same on both?)' : `answered HTTP ${response.status}${message ? `: ${message.slice(0, 500)}` : ''}`;
  return new VivaceError('REMOTE_TASK_ERROR', `Worker ${client.nodeId} (${client.uri}) ${detail} to the ${step} request`);
}

/** The plan never reached a worker able to take it: safe to send elsewhere. */
function unreachable(err: unknown): boolean {
  if (err instanceof WorkerTransportError) return err.code === 'ECONNREFUSED' || (err.code === 'ECONNRESET' && err.reusedSocket) || err.code === 'NodeFailed';
  return busyWorker(err);
}

/** Any failure of a call as the query's error: transport trouble is REMOTE_TASK_ERROR naming the worker. */
function remoteError(err: unknown, client: WorkerClient, step: string): VivaceError {
  if (err instanceof VivaceError) return err;
  if (err instanceof WorkerTransportError) {
    return new VivaceError('REMOTE_TASK_ERROR', `Lost worker ${client.nodeId} (${client.uri}) during the ${step} request: ${err.message} (${err.code})`, { cause: err });
  }
  return VivaceError.from(err);
}

/**
 * Workers as discovery lists them, with the failure detector's verdict. The list is rebuilt only when
 * `version` (the coordinator's nodesVersion: an announcement, a node forgotten, a verdict changed) moved
 * since, rather than for every statement. It was reused for 100 ms before (session 17): a statement sent
 * just after /v1/node showed a restarted worker alive could still see it failed, and the memory catalog's
 * statements failed NO_NODES_AVAILABLE, stages placed every task on the other worker.
 */
export function clusterWorkers(
  discovered: () => readonly { nodeId: string; uri: string; memory: boolean; instance?: string }[],
  health: () => readonly { nodeId: string; failed: boolean }[],
  version: () => number,
): () => WorkerNode[] {
  let cached: WorkerNode[] = [];
  let at: number | undefined;
  return () => {
    const v = version();
    if (v === at) return cached;
    const failed = new Map(health().map((h) => [h.nodeId, h.failed]));
    cached = discovered().map((d) => ({ nodeId: d.nodeId, uri: d.uri, memory: d.memory, alive: failed.get(d.nodeId) === false, ...(d.instance === undefined ? {} : { instance: d.instance }) }));
    at = v;
    return cached;
  };
}
