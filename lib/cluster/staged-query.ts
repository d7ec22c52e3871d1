// The coordinator's side of a query run as a tree of fragments (distributed-plan.ts; today the two-stage
// plan of a query over one table whose connector splits its scan, behind vivace.distributed-tpch). Every
// fragment but the root is scheduled from the plan on: its tasks start once all tasks of its sources
// ended (their files complete), on the alive workers (SOURCE: the scan's splits spread round-robin, one
// task per worker; HASH: one task per bucket, the bucket count the alive workers when the query starts;
// SINGLE: one task). The first task's plan gives the statement's columns. A task lost with its worker
// runs again on another alive worker (Trino's retry-policy=TASK: its splits, or its producers' files,
// are the same); a producer whose worker is lost after it ended has lost its files, so it runs again too,
// then its consumer. The root (fragment 0) then runs on one worker (beside its source's last running
// task when it can: stage-early-root.ts), pulls its inputs and pages the answer, which the coordinator
// forwards as any task's pages. The producers' tasks (and files) go once the root read them, or when the
// query is cancelled or fails. Any statement without a plan is left to the single-task path (undefined).
import { setMaxListeners } from 'node:events';
import type { Execution, ExecutionProgress, Plan, PlanAbort, RowBatch, SubStageProgress, SubStageTask } from '../engine/engine.types.js';
import { PlanAbortController } from '../engine/plan-abort.js';
import type { OutputColumn, Session } from '../protocol/types.js';
import { VivaceError } from '../protocol/vivace-error.js';
import type { Connectors } from '../connectors/connectors.js';
import type { QueryListings, ScanSplits, Split } from '../connectors/connector.types.js';
import type { DistributedPlan, PlanFragment } from '../planner/fragment.types.js';
import { distributedPlanOf } from './distributed-plan.js';
import { scanSplitsOf } from './stage-sql.js';
import { scheduledPlan } from './inline-fragments.js';
import {
  MAX_BUCKETS, MAX_STAGE_ITEMS, TASK_HEADERS, taskOutputPath, taskPath, taskResultsPath,
  type FragmentInput, type FragmentOutput, type FragmentStage, type StageInput, type TaskPlanRequest,
} from './task-protocol.js';
import { WorkerTransportError, type WorkerClient, type WorkerResponse } from './worker-client.js';
import { earlyRoot } from './stage-early-root.js';
import { busyWorker, lostWorker } from './worker-trouble.js';
import { stageTrace } from './stage-trace.js';

/** What the staged path needs of the remote engine. */
export interface StageHost {
  aliveWorkers(): { nodeId: string; uri: string }[];
  clientOf(node: { nodeId: string; uri: string }): WorkerClient;
  headers(): Promise<Record<string, string>>;
  deleteTask(client: WorkerClient, taskId: string): void;
  /** Plans the root task (stage 0, attempts from `attempt` on) as any task: its pages are forwarded unparsed. */
  planRoot(request: TaskPlanRequest, attempt: number, abort?: PlanAbort): Promise<Plan>;
  /** Plans the root task as `taskId` on that worker (the early root, beside the last running leaf). */
  planRootOn?(node: { nodeId: string; uri: string }, request: TaskPlanRequest, taskId: string, abort?: PlanAbort): Promise<Plan>;
  readonly workTimeoutMs: number;
  /**
   * The alive worker holding a catalog one worker holds (memory), where a fragment pinned to it runs
   * (PlanFragment.holder) and the root of a plan with such a fragment; undefined when it is not alive.
   */
  holderOf?(catalog: string): Node | undefined;
}

/** Figures of a non-root stage (a fragment), for the query's stats (outputRows: the rows it exchanged). */
export interface LeafStageStats extends SubStageProgress {
  /** Bytes of the files its tasks wrote (the bytes exchanged to its consumer). */
  outputBytes?: number;
  /** Its tasks run again on another worker after theirs was lost (or their files were). */
  retries: number;
  /** Date.now() when its first task started, and when its last one ended. */
  startedAt?: number;
  endedAt?: number;
}

const headerNumber = (response: WorkerResponse, name: string): number => {
  const n = Number(response.headers[name]);
  return Number.isSafeInteger(n) && n >= 0 ? n : 0;
};

/** A statement's distributed plan and the splits of each SOURCE fragment's scan. */
export interface StagedQuery {
  plan: DistributedPlan;
  splits: ReadonlyMap<number, ScanSplits>;
}

/**
 * The statement's distributed plan and its scans' splits, or undefined for the single-task path. Every
 * statement asks (SELECT 1 too): its plan comes from distributedPlanOf, and each scan's splits from its
 * catalog's connector (pruned by the fragment's WHERE); a scan without splits is the single-task path.
 */
export function stagedQuery(sql: string, session: Session, connectors: Connectors): StagedQuery | undefined {
  if (session.transactionId !== undefined && session.transactionId !== 'NONE') return undefined;
  // One listing of each lake table serves the planner's layout and the scans' splits (QueryListings).
  const listings: QueryListings = new Map();
  // Fragments read in place run in their consumers' tasks: the scheduler has no stage for them.
  const whole = distributedPlanOf(sql, session, connectors, undefined, listings);
  const plan = whole && scheduledPlan(whole);
  if (!plan || plan.fragments.length < 2 || plan.fragments[0]?.id !== 0 || plan.fragments[0].partitioning !== 'SINGLE') return undefined;
  const splits = new Map<number, ScanSplits>();
  for (const fragment of plan.fragments) {
    if (!fragment.scan) continue;
    const files = connectors.of(fragment.scan.table.catalog)?.scanSplits?.(fragment.scan.table, fragment.scan.where, MAX_STAGE_ITEMS, listings);
    if (!files) return undefined;
    splits.set(fragment.id, files);
  }
  return { plan, splits };
}

/** A table's files (relative names) and, when known, each one's rows, or the connector's own splits. */
export type StageFiles = ScanSplits;

/** A failure that another worker may not have: the worker was lost, draining or full. */
const workerTrouble = (err: unknown): boolean => lostWorker(err) || busyWorker(err);

/** The root's single source's tasks, for the early root (stage-early-root.ts). */
export interface LeafRound {
  /** Every task of the root's sources once ended: the root's inputs. */
  outputs: Promise<FragmentInput[]>;
  /**
   * Settles once every task of the root's one source but one has ended while that one runs, planned, on
   * its worker: the root's inputs (that task's too) and where it runs; undefined when no task is left that
   * way (all ended, one task in all, more than one source, or a failure: `outputs` tells which).
   */
  oneLeft: Promise<{ inputs: FragmentInput[]; last: { nodeId: string; uri: string } } | undefined>;
  abort(): void;
}

/**
 * Plans a query as its fragments: every producer fragment is scheduled at once (each as its sources
 * end), and the statement's columns (and its own errors) come from the first task's plan, so no task
 * plans it only for them. The plan's execution waits for the root's sources, then plans the root over
 * their outputs and passes its pages on.
 */
export async function planStaged(host: StageHost, request: StagedRequest, staged: StagedQuery, taskError: TaskErrorOf, abort?: PlanAbort): Promise<Plan> {
  if (abort?.aborted) throw abort.reason;
  const scheduler = new FragmentScheduler(host, request, staged, taskError);
  const removeAbort = abort?.onAbort(() => scheduler.abort());
  try {
    const columns = await scheduler.columns;
    return new StagedPlan(columns, scheduler);
  } catch (err) {
    scheduler.abort();
    if (abort?.aborted) throw abort.reason;
    throw err;
  } finally {
    removeAbort?.();
  }
}

export type TaskErrorOf = (response: WorkerResponse, client: WorkerClient, step: string) => VivaceError;
export type StagedRequest = { queryId: string; sql: string; session: Session; targetBytes?: number };

type Node = { nodeId: string; uri: string };

/** One task of a fragment: its partition's splits or bucket, and where its current attempt runs. */
interface TaskSlot {
  fragment: PlanFragment;
  partition: number;
  splits?: Split[];
  bucket?: number;
  node: Node;
  /** The next attempt's number (task ids never repeat). */
  attempt: number;
  tried: Set<string>;
  /** The attempt running, planned, on its worker. */
  running?: Node & { taskId: string };
  /** The attempt that ended: its output is the fragment's for this partition. */
  output?: Node & { taskId: string };
  /** A run again of an ended task whose output was lost. */
  rerun?: Promise<void>;
  /** Figures of the attempt that ended (its stage's counters, and the task's own). */
  task: SubStageTask;
}

/** Turns of the queries' placement (FragmentScheduler.byLoad): each query starts its ties on the next worker. */
let nextTurn = 0;
/** Attempts of one task at most (each on an alive worker, or after its producers ran again). */
const MAX_ATTEMPTS = 8;
/** The root's task attempts: 0-3 and 5 on; 4 is the early root's (stage-early-root.ts). */
const rootAttempt = (k: number): number => (k < 2 ? k * 2 : k * 2 + 1);
/** How long a probe of a producer's output may take before its worker counts as lost. */
const PROBE_TIMEOUT_MS = 5_000;

/** Schedules a plan's producer fragments, reruns lost tasks, and runs the root; one per query. */
export class FragmentScheduler {
  readonly columns: Promise<OutputColumn[]>;
  private answerColumns: ((columns: OutputColumn[]) => void) | undefined;
  private failColumns: ((err: unknown) => void) | undefined;
  private readonly controller = new AbortController();
  private readonly fragments = new Map<number, PlanFragment>();
  /** The bucket count of each HASH-partitioned fragment (its producers write as many files). */
  private readonly buckets = new Map<number, number>();
  private readonly runs = new Map<number, Promise<TaskSlot[]>>();
  private readonly slots = new Map<number, TaskSlot[]>();
  readonly stats = new Map<number, LeafStageStats>();
  /** Workers this query found lost before the failure detector did (refused, reset). */
  private readonly suspects = new Set<string>();
  readonly round: LeafRound;
  private rootRetries = 0;

  constructor(private readonly host: StageHost, private readonly request: StagedRequest, private readonly staged: StagedQuery, private readonly taskError: TaskErrorOf) {
    // Every call of every task in flight listens on the query's signal (and stops when it ends): a plan of
    // many fragments over many workers has more than Node's default of 10 at once, none of them leaked.
    setMaxListeners(0, this.controller.signal);
    this.columns = new Promise<OutputColumn[]>((resolve, reject) => {
      this.answerColumns = resolve;
      this.failColumns = reject;
    });
    this.columns.catch(() => {});
    const { plan } = staged;
    for (const f of plan.fragments) this.fragments.set(f.id, f);
    const alive = this.alive();
    for (const f of plan.fragments) {
      if (f.partitioning === 'HASH') this.buckets.set(f.id, Math.min(MAX_BUCKETS, Math.max(1, alive.length)));
      if (f.id !== 0) this.stats.set(f.id, emptyLeafStats());
    }
    const root = this.fragments.get(0)!;
    if (alive.length === 0) {
      const none = new VivaceError('NO_NODES_AVAILABLE', 'No worker nodes available: every worker is failed');
      this.failColumns?.(none);
      const rejected = Promise.reject(none);
      rejected.catch(() => {});
      this.round = { outputs: rejected, oneLeft: Promise.resolve(undefined), abort: () => this.abort() };
      return;
    }
    // Every producer fragment starts now (each waits for its own sources); the root's inputs follow.
    for (const f of plan.fragments) if (f.id !== 0) void this.fragmentTasks(f.id).catch(() => {});
    const outputs = Promise.all(root.sources.map(async (s) => this.inputOf(root, s.fragmentId, await this.fragmentTasks(s.fragmentId), undefined)));
    outputs.catch((err: unknown) => {
      this.failColumns?.(err);
      this.abort();
    });
    this.round = { outputs, oneLeft: this.oneLeftOf(root, outputs), abort: () => this.abort() };
  }

  private alive(): Node[] {
    return this.host.aliveWorkers().filter((w) => !this.suspects.has(w.nodeId));
  }

  /** Ends every task of the query on its worker (cancelled, failed, or the root read their outputs). */
  abort(): void {
    this.controller.abort();
    this.dropAll();
  }

  /** Deletes every producer task (and so its files) the query has on a worker. */
  dropAll(): void {
    for (const list of this.slots.values()) {
      for (const slot of list) {
        for (const task of [slot.running, slot.output]) {
          if (!task) continue;
          const node = this.host.aliveWorkers().find((w) => w.nodeId === task.nodeId);
          if (node) this.host.deleteTask(this.host.clientOf(node), task.taskId);
        }
      }
    }
  }

  /** The tasks of a fragment once every one has ended (its sources' first). */
  private fragmentTasks(id: number): Promise<TaskSlot[]> {
    let run = this.runs.get(id);
    if (!run) {
      run = this.runFragment(this.fragments.get(id)!);
      run.catch(() => {});
      this.runs.set(id, run);
    }
    return run;
  }

  private async runFragment(fragment: PlanFragment): Promise<TaskSlot[]> {
    // Its tasks are placed once its sources' are (a SINGLE consumer goes where most of them run); each
    // starts once its sources' tasks on other workers ended (readyFor), not once all of them did.
    await Promise.all(fragment.sources.map((s) => this.placed(s.fragmentId)));
    if (this.controller.signal.aborted) throw this.controller.signal.reason ?? new VivaceError('USER_CANCELED', 'Query was canceled');
    const alive = this.alive();
    if (alive.length === 0) throw new VivaceError('NO_NODES_AVAILABLE', `No worker left to run fragment ${fragment.id} of query ${this.request.queryId}`);
    const slot = (partition: number, node: Node, extra: Partial<TaskSlot>): TaskSlot => ({
      fragment, partition, node, attempt: 0, tried: new Set(), task: emptyTask(fragment.id, partition), ...extra,
    });
    let slots: TaskSlot[];
    let splitCount: number;
    if (fragment.partitioning === 'SOURCE' && fragment.scan) {
      const files = this.staged.splits.get(fragment.id)!;
      const splits = files.splits ? [...files.splits] : scanSplitsOf(fragment.scan, files.names, alive.length, files.rows);
      const partitions = alive.map((_, p) => splits.filter((__, i) => i % alive.length === p)).filter((s) => s.length > 0);
      // A scan of fewer splits than workers starts on the least loaded ones (not always the first).
      const order = partitions.length < alive.length ? this.byLoad(alive) : alive;
      slots = partitions.map((mine, p) => slot(p, order[p]!, { splits: mine }));
      splitCount = splits.length;
    } else if (fragment.partitioning === 'HASH') {
      const n = this.buckets.get(fragment.id)!;
      slots = Array.from({ length: n }, (_, b) => slot(b, alive[b % alive.length]!, { bucket: b }));
      splitCount = n;
    } else {
      slots = [slot(0, fragment.holder === undefined ? this.singleNode(fragment, alive) : this.holderNode(fragment.holder, fragment.id), {})];
      splitCount = 1;
    }
    for (const s of slots) this.load.set(s.node.nodeId, (this.load.get(s.node.nodeId) ?? 0) + 1);
    this.slots.set(fragment.id, slots);
    this.notify();
    stageTrace('c.fragment', `${this.request.queryId}.${fragment.id}`, { tasks: slots.length });
    const stats = this.stats.get(fragment.id)!;
    Object.assign(stats, { nodes: new Set(slots.map((s) => s.node.nodeId)).size, totalSplits: splitCount, runningSplits: splitCount, startedAt: stats.startedAt ?? Date.now(), endedAt: undefined });
    await Promise.all(slots.map(async (s) => {
      await this.readyFor(s);
      await this.runSlot(s);
    }));
    stats.endedAt = Date.now();
    return slots;
  }

  /** Tasks this query placed on each worker so far (a fragment without a preferred worker takes the least loaded). */
  private readonly load = new Map<string, number>();

  /** `alive` least loaded first (ties: in order from a place that turns with each query, so queries spread too). */
  private byLoad(alive: readonly Node[]): Node[] {
    const start = this.turn % alive.length;
    const turned = [...alive.slice(start), ...alive.slice(0, start)];
    return turned.sort((a, b) => (this.load.get(a.nodeId) ?? 0) - (this.load.get(b.nodeId) ?? 0));
  }

  private readonly turn = nextTurn++;

  /**
   * The worker of a one-task fragment: where most of its producers' tasks run (their files are linked
   * there, not pulled), else the least loaded (a query's gathered scans spread over the workers).
   */
  private singleNode(fragment: PlanFragment, alive: readonly Node[]): Node {
    const producers = new Map<string, number>();
    for (const s of fragment.sources) for (const p of this.slots.get(s.fragmentId) ?? []) producers.set(p.node.nodeId, (producers.get(p.node.nodeId) ?? 0) + 1);
    const ordered = this.byLoad(alive);
    let best: Node | undefined;
    for (const node of ordered) if ((producers.get(node.nodeId) ?? 0) > (best ? producers.get(best.nodeId) ?? 0 : 0)) best = node;
    return best ?? ordered[0]!;
  }

  /**
   * The worker holding `catalog` (a pinned fragment's, or the root's of a plan reading a held table):
   * it alone reads that catalog's tables, so a task there lost with it has nowhere else to run.
   */
  private holderNode(catalog: string, fragmentId: number): Node {
    const node = this.host.holderOf?.(catalog);
    if (!node || this.suspects.has(node.nodeId)) throw new VivaceError('NO_NODES_AVAILABLE', `The worker holding catalog ${catalog} is not available to run fragment ${fragmentId} of query ${this.request.queryId}`);
    return node;
  }

  /** Resolves once a fragment's tasks are placed (their workers known). */
  private placed(id: number): Promise<void> {
    return this.until(() => this.slots.has(id), this.fragmentTasks(id));
  }

  /**
   * Resolves once `slot` can start: every task of its sources has ended, except those running, planned,
   * on the slot's own worker, which the task waits for there (stage-tasks.ts links their files once
   * they end). So a consumer's plan, pulls and DuckDB set-up overlap its local producers' run, as
   * Trino's all-at-once scheduler starts a stage before its sources finish. Rejects as a source fails.
   */
  private readyFor(slot: TaskSlot): Promise<void> {
    const { sources } = slot.fragment;
    if (sources.length === 0) return Promise.resolve();
    const ready = () => sources.every((s) => (this.slots.get(s.fragmentId) ?? []).every((p) => p.output !== undefined || (p.running !== undefined && p.running.nodeId === slot.node.nodeId && !p.rerun)));
    return this.until(ready, Promise.all(sources.map((s) => this.fragmentTasks(s.fragmentId))));
  }

  /**
   * Resolves once `ready()` holds (checked now and at each change) or `settled` resolves, whichever is
   * first; rejects as `settled` rejects before that.
   */
  private until(ready: () => boolean, settled: Promise<unknown>): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!ready()) return false;
        this.changes.delete(check);
        resolve();
        return true;
      };
      if (check()) return;
      this.changes.add(check);
      settled.then(() => {
        this.changes.delete(check);
        resolve();
      }, (err: unknown) => {
        this.changes.delete(check);
        reject(err);
      });
    });
  }

  /** Whoever waits for a task to be placed, start or end (readyFor, placed, the early root). */
  private readonly changes = new Set<() => unknown>();

  private notify(): void {
    for (const listener of [...this.changes]) listener();
  }

  /** A consumer's input from a source fragment's ended tasks (its bucket of a HASH output). */
  private inputOf(consumer: PlanFragment, sourceId: number, producers: readonly TaskSlot[], bucket: number | undefined): FragmentInput {
    const source = this.fragments.get(sourceId)!;
    const tasks: StageInput[] = producers.map((p) => {
      const at = p.output ?? p.running;
      if (!at) throw new VivaceError('GENERIC_INTERNAL_ERROR', `Task ${p.partition} of fragment ${sourceId} has no output for fragment ${consumer.id}`);
      return { uri: at.uri, taskId: at.taskId };
    });
    if (source.output.kind !== 'HASH') return { fragmentId: sourceId, tasks };
    return { fragmentId: sourceId, tasks, bucket: bucket ?? 0, buckets: this.buckets.get(consumer.id) ?? 1 };
  }

  /** How a fragment's tasks write their output: as its consumer reads it (HASH: the consumer's bucket count). */
  private outputOf(fragment: PlanFragment): FragmentOutput {
    if (fragment.output.kind !== 'HASH') return { kind: fragment.output.kind };
    const consumer = this.staged.plan.fragments.find((f) => f.sources.some((s) => s.fragmentId === fragment.id));
    return { kind: 'HASH', buckets: (consumer && this.buckets.get(consumer.id)) ?? 1 };
  }

  /** The stage a task of `slot` runs, over its sources' current outputs. */
  private stageOf(slot: TaskSlot): FragmentStage {
    const { fragment } = slot;
    const inputs = fragment.sources.map((s) => this.inputOf(fragment, s.fragmentId, this.slots.get(s.fragmentId) ?? [], slot.bucket));
    return {
      kind: 'fragment', fragmentId: fragment.id, inputs, output: this.outputOf(fragment), choices: this.staged.plan.choices,
      ...(slot.splits ? { splits: slot.splits } : {}),
    };
  }

  /** Runs a task to its end, again on another alive worker (or after its lost producers ran again) when it fails so. */
  private async runSlot(slot: TaskSlot): Promise<void> {
    const { signal } = this.controller;
    const stats = this.stats.get(slot.fragment.id)!;
    for (;;) {
      const node = slot.node;
      slot.tried.add(node.nodeId);
      const client = this.host.clientOf(node);
      // A producer run again (its output lost) ends first: its new output is this task's input. A producer
      // may itself read another's output (a dynamic filter's build, read by the probe and the filtered
      // build): both lost with one worker, the consumer reruns them together.
      await Promise.all(slot.fragment.sources.flatMap((s) => this.slots.get(s.fragmentId) ?? []).map((p) => p.rerun));
      const taskId = `${this.request.queryId}.${slot.fragment.id}.${slot.partition}.${slot.attempt++}`;
      try {
        const task: TaskPlanRequest = { queryId: this.request.queryId, sql: this.request.sql, session: this.request.session, execute: true, stage: this.stageOf(slot) };
        const started = Date.now();
        stageTrace('c.post', taskId);
        const columns = await postProducerTask(this.host, client, taskId, task, signal, this.taskError);
        // A plan reading a held catalog: the statement's columns are the holder's (planner-metadata.ts held).
        if (this.staged.plan.choices.held === undefined || slot.fragment.holder !== undefined) this.answerColumns?.(columns);
        slot.running = { ...node, taskId };
        stageTrace('c.planned', taskId);
        this.notify();
        const done = await client.call('GET', taskResultsPath(taskId, 0, 1 << 16), undefined, { timeoutMs: this.host.workTimeoutMs, signal, headers: await this.host.headers() });
        if (done.status !== 204 && done.status !== 200) throw this.taskError(done, client, 'fragment results');
        stageTrace('c.noticed', taskId);
        const splits = slot.splits?.length ?? 1;
        const figures = {
          outputRows: headerNumber(done, TASK_HEADERS.updateCount), outputBytes: headerNumber(done, TASK_HEADERS.outputBytes), processedRows: headerNumber(done, TASK_HEADERS.processedRows),
          processedBytes: headerNumber(done, TASK_HEADERS.processedBytes), cpuTimeMillis: headerNumber(done, TASK_HEADERS.cpuTimeMillis),
          peakMemoryBytes: headerNumber(done, TASK_HEADERS.peakMemoryBytes),
        };
        stats.completedSplits += splits;
        stats.runningSplits = Math.max(0, stats.runningSplits - splits);
        stats.outputRows += figures.outputRows;
        stats.outputBytes = (stats.outputBytes ?? 0) + figures.outputBytes;
        stats.processedRows += figures.processedRows;
        stats.processedBytes += figures.processedBytes;
        stats.cpuTimeMillis += figures.cpuTimeMillis;
        slot.task = { ...slot.task, taskId, nodeId: node.nodeId, state: 'FINISHED', splits, ...figures, wallTimeMillis: Date.now() - started };
        slot.running = undefined;
        slot.output = { ...node, taskId };
        this.notify();
        return;
      } catch (err) {
        slot.running = undefined;
        // Cancelled, or another task failed: this one ends too (the worker may have started it).
        this.host.deleteTask(client, taskId);
        this.notify();
        if (signal.aborted || !workerTrouble(err)) throw err;
        if (err instanceof WorkerTransportError) this.suspects.add(node.nodeId);
        // Started before its producers ended (readyFor): it runs again once they all did, wherever they ran.
        await Promise.all(slot.fragment.sources.map((s) => this.fragmentTasks(s.fragmentId)));
        // Its producers' files may be what was lost (a pull failed): those run again first.
        const lost = await this.lostProducers(slot.fragment);
        if (signal.aborted) throw signal.reason ?? err;
        await Promise.all(lost.map((p) => this.rerun(p)));
        const alive = this.alive();
        const stillThere = alive.some((w) => w.nodeId === node.nodeId);
        const holder = slot.fragment.holder;
        const next = holder !== undefined ? (stillThere ? this.host.holderOf?.(holder) : undefined)
          : lost.length > 0 && stillThere ? node : alive.find((w) => !slot.tried.has(w.nodeId)) ?? alive.find((w) => w.nodeId !== node.nodeId);
        if (!next || slot.attempt >= MAX_ATTEMPTS) {
          throw new VivaceError('NO_NODES_AVAILABLE', `No worker left to run task ${slot.partition} of fragment ${slot.fragment.id} of query ${this.request.queryId}: ${err instanceof Error ? err.message : String(err)}`);
        }
        stats.retries++;
        slot.node = next;
      }
    }
  }

  /**
   * The ended producer tasks of a fragment's sources whose output is gone (their worker lost, or the file),
   * with those another consumer already runs again: a consumer that failed pulling from one waits for that
   * rerun too, and stays on its own worker when it is alive (instead of finding no other worker to go to).
   */
  private async lostProducers(fragment: PlanFragment): Promise<TaskSlot[]> {
    const producers = fragment.sources.flatMap((s) => this.slots.get(s.fragmentId) ?? []).filter((p) => p.output || p.rerun);
    const lost = await Promise.all(producers.map(async (p) => (p.rerun || !(await this.outputThere(p)) ? p : undefined)));
    return lost.filter((p): p is TaskSlot => p !== undefined);
  }

  /** Whether an ended producer's output can still be read (a HEAD of it answers 200). */
  private async outputThere(producer: TaskSlot): Promise<boolean> {
    const at = producer.output!;
    if (this.suspects.has(at.nodeId) || !this.host.aliveWorkers().some((w) => w.nodeId === at.nodeId)) return false;
    const bucket = producer.fragment.output.kind === 'HASH' ? 0 : undefined;
    try {
      const answer = await this.host.clientOf(at).call('HEAD', taskOutputPath(at.taskId, bucket), undefined, { timeoutMs: PROBE_TIMEOUT_MS, signal: this.controller.signal, headers: await this.host.headers() });
      return answer.status === 200;
    } catch (err) {
      if (err instanceof WorkerTransportError && err.code !== 'AbortError') this.suspects.add(at.nodeId);
      return false;
    }
  }

  /** An ended producer run again on another alive worker (its output was lost); shared by its consumers. */
  private rerun(producer: TaskSlot): Promise<void> {
    if (!producer.rerun) {
      const stats = this.stats.get(producer.fragment.id)!;
      stats.retries++;
      stats.completedSplits = Math.max(0, stats.completedSplits - (producer.splits?.length ?? 1));
      stats.runningSplits += producer.splits?.length ?? 1;
      producer.output = undefined;
      const alive = this.alive();
      const holder = producer.fragment.holder;
      // A pinned producer's output lost with its worker: the held tables went with it.
      const next = holder !== undefined ? alive.find((w) => w.nodeId === this.host.holderOf?.(holder)?.nodeId) : alive.find((w) => !producer.tried.has(w.nodeId)) ?? alive[0];
      if (!next) return Promise.reject(new VivaceError('NO_NODES_AVAILABLE', `No worker left to run fragment ${producer.fragment.id} of query ${this.request.queryId} again`));
      producer.node = next;
      producer.rerun = this.runSlot(producer).finally(() => (producer.rerun = undefined));
    }
    return producer.rerun;
  }

  /** The early root's moment: every task of the root's one source but one ended, that one running planned. */
  private oneLeftOf(root: PlanFragment, outputs: Promise<FragmentInput[]>): LeafRound['oneLeft'] {
    const [source, ...more] = root.sources;
    // A plan reading a held catalog has its root on the holder, not beside a leaf.
    if (!source || more.length > 0 || this.staged.plan.choices.held !== undefined) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      let settled = false;
      const answer = (value: Awaited<LeafRound['oneLeft']>) => {
        if (settled) return;
        settled = true;
        this.changes.delete(watch);
        resolve(value);
      };
      outputs.then(() => answer(undefined), () => answer(undefined));
      const watch = () => {
        const slots = this.slots.get(source.fragmentId);
        if (!slots) return;
        const left = slots.filter((s) => !s.output);
        if (left.length === 0 || slots.length < 2) return answer(undefined);
        const last = left.length === 1 ? left[0]!.running : undefined;
        if (!last) return;
        const input = this.inputOf(root, source.fragmentId, slots, undefined);
        answer({ inputs: [input], last: { nodeId: last.nodeId, uri: last.uri } });
      };
      this.changes.add(watch);
    });
  }

  /**
   * Plans the root over its sources' outputs (its first page comes with its plan). A root that could not
   * pull an input (its producer's worker died after it ended) or was lost itself runs again, after the
   * lost producers did.
   */
  async planRoot(abort: PlanAbort): Promise<Plan> {
    const root = this.fragments.get(0)!;
    const early = await earlyRoot(this.host, this.request, this.round, abort, this.staged.plan.choices).catch((err: unknown) => {
      this.abort();
      throw err;
    });
    if (early) {
      this.dropAll();
      return early;
    }
    for (let k = 0; ; k++) {
      const removeAbort = abort.onAbort(() => this.abort());
      let inputs: FragmentInput[];
      try {
        inputs = await Promise.all(root.sources.map(async (s) => this.inputOf(root, s.fragmentId, await this.fragmentTasks(s.fragmentId), undefined)));
      } catch (err) {
        if (abort.aborted) throw abort.reason;
        throw err;
      } finally {
        removeAbort();
      }
      try {
        stageTrace('c.post', `${this.request.queryId}.0.0.${rootAttempt(k)}`);
        const request: TaskPlanRequest = {
          queryId: this.request.queryId, sql: this.request.sql, session: this.request.session, execute: true, inlineFirstPage: true,
          ...(this.request.targetBytes === undefined ? {} : { targetBytes: this.request.targetBytes }),
          stage: { kind: 'fragment', fragmentId: 0, inputs, choices: this.staged.plan.choices },
        };
        // A plan reading a held table (memory): its root plans the user's statement where that catalog is.
        const held = this.staged.plan.choices.held?.[0];
        const plan = held !== undefined && this.host.planRootOn
          ? await this.host.planRootOn(this.holderNode(held, 0), request, `${this.request.queryId}.0.0.${rootAttempt(k)}`, abort)
          : await this.host.planRoot(request, rootAttempt(k), abort);
        stageTrace('c.planned', `${this.request.queryId}.0.0.${rootAttempt(k)}`);
        // The root pulled its inputs while it planned: the producers are done with.
        this.dropAll();
        return plan;
      } catch (err) {
        if (abort.aborted || !workerTrouble(err) || k + 1 >= MAX_ATTEMPTS / 2) {
          this.abort();
          throw err;
        }
        const lost = await this.lostProducers(root);
        if (lost.length === 0 && this.alive().length === 0) {
          this.abort();
          throw new VivaceError('NO_NODES_AVAILABLE', `No worker left to run the root of query ${this.request.queryId}`);
        }
        this.rootRetries++;
        await Promise.all(lost.map((p) => this.rerun(p)));
      }
    }
  }

  /** Each producer fragment's figures as a sub-stage of the root (or of its consumer), in plan order. */
  subStages(): SubStageProgress[] {
    const out: SubStageProgress[] = [];
    for (const fragment of this.staged.plan.fragments) {
      if (fragment.id === 0) continue;
      const stats = this.stats.get(fragment.id)!;
      const { retries: _retries, startedAt, endedAt, outputBytes: _bytes, ...figures } = stats;
      const consumer = this.staged.plan.fragments.find((f) => f.sources.some((s) => s.fragmentId === fragment.id));
      const tasks = (this.slots.get(fragment.id) ?? []).map((s): SubStageTask => {
        if (s.output) return s.task;
        const at = s.running;
        return { ...emptyTask(fragment.id, s.partition), taskId: at?.taskId ?? '', nodeId: (at ?? s.node).nodeId, state: at ? 'RUNNING' : 'PLANNED' };
      });
      out.push({
        ...figures, stageId: String(fragment.id), parentStageId: String(consumer?.id ?? 0), tasks,
        ...(startedAt === undefined ? {} : { wallTimeMillis: (endedAt ?? Date.now()) - startedAt }),
      });
    }
    return out;
  }

  /** Tasks run again in any stage (the root's too). */
  get retries(): number {
    let n = this.rootRetries;
    for (const s of this.stats.values()) n += s.retries;
    return n;
  }
}

/** A task's figures before it ended. */
const emptyTask = (fragmentId: number, partition: number): SubStageTask => ({
  taskId: '', nodeId: '', state: 'PLANNED', splits: 0, outputRows: 0, outputBytes: 0, processedRows: 0, processedBytes: 0, cpuTimeMillis: 0, wallTimeMillis: 0, peakMemoryBytes: 0, fragmentId, partition,
});

/** POSTs a producer task, executed with its plan: the statement's columns come back at once, the task runs on. */
async function postProducerTask(host: StageHost, client: WorkerClient, taskId: string, request: TaskPlanRequest, signal: AbortSignal, taskError: TaskErrorOf): Promise<OutputColumn[]> {
  const planned = await client.call('POST', taskPath(taskId), JSON.stringify(request), { timeoutMs: host.workTimeoutMs, signal, headers: await host.headers() });
  if (planned.status !== 200) throw taskError(planned, client, 'fragment plan');
  let body: { columns?: unknown } | undefined;
  try {
    body = JSON.parse(planned.body.toString('utf8')) as { columns?: unknown };
  } catch {
    body = undefined;
  }
  if (!Array.isArray(body?.columns)) throw new VivaceError('REMOTE_TASK_ERROR', `Worker ${client.nodeId} (${client.uri}) answered the fragment plan request with a plan without columns`);
  return body.columns as OutputColumn[];
}

export const emptyLeafStats = (): LeafStageStats => ({
  nodes: 0, totalSplits: 0, queuedSplits: 0, runningSplits: 0, completedSplits: 0, outputRows: 0, processedRows: 0, processedBytes: 0, cpuTimeMillis: 0, retries: 0,
});

/**
 * A query as fragments once planned: its columns are the statement's, its producers already running;
 * executing it waits for the root's sources, then runs the root, whose pages it passes on. Released
 * unexecuted, it ends the producers.
 */
export class StagedPlan implements Plan {
  readonly updateType = undefined;
  private used = false;

  constructor(readonly columns: Plan['columns'], private readonly scheduler: FragmentScheduler) {}

  execute(): Execution {
    if (this.used) throw new VivaceError('GENERIC_INTERNAL_ERROR', 'Plan executed twice');
    this.used = true;
    return new StagedExecution(this.scheduler);
  }

  release(): void {
    if (this.used) return;
    this.used = true;
    this.scheduler.abort();
  }
}

class StagedExecution implements Execution {
  private readonly abort = new PlanAbortController();
  private root: Promise<Execution> | undefined;
  private rootExecution: Execution | undefined;

  constructor(private readonly scheduler: FragmentScheduler) {}

  get updateCount(): number | undefined {
    return this.rootExecution?.updateCount;
  }

  get exhausted(): boolean | undefined {
    return this.rootExecution?.exhausted;
  }

  async next(targetBytes: number): Promise<RowBatch | null> {
    this.root ??= this.scheduler.planRoot(this.abort).then((plan) => {
      // Cancelled while the root was being planned: its task goes at once.
      if (this.abort.aborted) {
        plan.release();
        throw this.abort.reason;
      }
      this.rootExecution = plan.execute();
      return this.rootExecution;
    });
    return (await this.root).next(targetBytes);
  }

  cancel(): void {
    this.abort.abort(new VivaceError('USER_CANCELED', 'Query was canceled'));
    this.scheduler.abort();
    this.rootExecution?.cancel();
  }

  progress(): ExecutionProgress {
    const root = this.rootExecution?.progress() ?? { processedRows: 0, processedBytes: 0, cpuTimeMillis: 0 };
    return { processedRows: root.processedRows, processedBytes: root.processedBytes, cpuTimeMillis: root.cpuTimeMillis, subStages: this.scheduler.subStages() };
  }
}
