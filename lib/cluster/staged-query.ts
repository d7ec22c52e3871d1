// The coordinator's side of a query in two stages (planner/aggregate-stages.ts, behind vivace.distributed-tpch):
// the leaf stage starts with the plan, one task per alive worker with its splits (the table's parts
// round-robin), and the first leaf's plan gives the statement's columns; a leaf whose worker is lost is
// run again on another alive worker (its splits are deterministic). Then the root task, on one worker
// (beside the last running leaf when it can: stage-early-root.ts), pulls the leaves' outputs and pages
// the answer (its first page with its plan), which the coordinator forwards as any task's pages. Any statement that does not split, or a table too small
// or of too many parts, is left to the single-task path (undefined).
import type { Execution, ExecutionProgress, Plan, PlanAbort, RowBatch, SubStageProgress } from '../engine/engine.types.js';
import { PlanAbortController } from '../engine/plan-abort.js';
import type { OutputColumn, Session } from '../protocol/types.js';
import { VivaceError } from '../protocol/vivace-error.js';
import { cachedStages, type StagePlan } from '../planner/aggregate-stages.js';
import type { Connectors } from '../connectors/connectors.js';
import type { ScanSplits, Split } from '../connectors/connector.types.js';
import { splitsOf } from './stage-sql.js';
import { MAX_STAGE_ITEMS, TASK_HEADERS, taskPath, taskResultsPath, type StageInput, type TaskPlanRequest } from './task-protocol.js';
import type { WorkerClient, WorkerResponse } from './worker-client.js';
import { dropInputs, earlyRoot } from './stage-early-root.js';
import { busyWorker, lostWorker } from './worker-trouble.js';

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
}

/** Figures of the leaf stage, for the query's stats (outputRows: the partial rows exchanged). */
export interface LeafStageStats extends SubStageProgress {
  /** Leaf tasks run again on another worker after theirs was lost. */
  retries: number;
  /** Date.now() when the first leaf started, and when the last one (of the last round) ended. */
  startedAt?: number;
  endedAt?: number;
}

const headerNumber = (response: WorkerResponse, name: string): number => {
  const n = Number(response.headers[name]);
  return Number.isSafeInteger(n) && n >= 0 ? n : 0;
};

/**
 * The statement's two stages and its table's splits, or undefined for the single-task path. Every
 * statement asks (SELECT 1 too): its stages come from cachedStages over the catalogs whose connector
 * splits, and the splits from the scanned catalog's connector (pruned by the query's WHERE).
 */
export function stagedQuery(sql: string, session: Session, connectors: Connectors): { stages: StagePlan; files: StageFiles } | undefined {
  if (session.transactionId !== undefined && session.transactionId !== 'NONE') return undefined;
  const stages = cachedStages(sql, session, connectors.splittable);
  if (!stages) return undefined;
  const files = connectors.of(stages.table.catalog)?.scanSplits?.(stages.table, stages.where, MAX_STAGE_ITEMS);
  return files && { stages, files };
}

/** A staged table's files (relative names) and, when known, each one's rows, or the connector's own splits. */
export type StageFiles = ScanSplits;

/** A failure that another worker may not have: the worker was lost, draining or full. */
const workerTrouble = (err: unknown): boolean => lostWorker(err) || busyWorker(err);

/** The leaf stage of one round: its tasks run from the start; `columns` is the statement's (the first leaf's plan). */
export interface LeafRound {
  columns: Promise<OutputColumn[]>;
  outputs: Promise<StageInput[]>;
  /**
   * Settles once every leaf but one has ended while that one runs, planned, on its worker: the inputs
   * of the round (that leaf's too) and where it runs; undefined when no leaf is left that way (all
   * ended, one leaf in all, or a failure: `outputs` tells which).
   */
  oneLeft: Promise<{ inputs: StageInput[]; last: { nodeId: string; uri: string } } | undefined>;
  abort(): void;
}

/**
 * Plans a query in two stages: its leaves start at once, executed with their plans, and the statement's
 * columns (and its own errors) come from the first leaf's plan, so no task plans it only for them. The
 * plan's execution waits for the leaves, then plans the root over their outputs and passes its pages on.
 */
export async function planStaged(
  host: StageHost,
  request: StagedRequest,
  files: StageFiles,
  taskError: TaskErrorOf,
  abort?: PlanAbort,
): Promise<Plan> {
  if (abort?.aborted) throw abort.reason;
  const stats = emptyLeafStats();
  const first = startLeaves(host, request, files, stats, taskError, 0);
  const removeAbort = abort?.onAbort(() => first.abort());
  try {
    const columns = await first.columns;
    return new StagedPlan(columns, first, (execAbort) => finishStages(host, request, files, stats, taskError, first, execAbort), stats);
  } catch (err) {
    first.abort();
    if (abort?.aborted) throw abort.reason;
    throw err;
  } finally {
    removeAbort?.();
  }
}

type TaskErrorOf = (response: WorkerResponse, client: WorkerClient, step: string) => VivaceError;
export type StagedRequest = { queryId: string; sql: string; session: Session; targetBytes?: number };

/** Waits for the leaves, then plans the root over their outputs (its first page comes with its plan). */
async function finishStages(host: StageHost, request: StagedRequest, files: StageFiles, stats: LeafStageStats, taskError: TaskErrorOf, first: LeafRound, abort: PlanAbort): Promise<Plan> {
  // A root that could not pull an output (its leaf's worker died after the leaf ended) or was lost
  // itself: the whole query once more, on the workers alive then, under new task ids.
  let leaves = first;
  const early = await earlyRoot(host, request, first, abort);
  if (early) return early;
  for (let round = 0; ; round++) {
    if (round > 0) leaves = startLeaves(host, request, files, stats, taskError, round);
    const removeAbort = abort.onAbort(() => leaves.abort());
    let inputs: StageInput[];
    try {
      inputs = await leaves.outputs;
    } catch (err) {
      if (abort.aborted) throw abort.reason;
      throw err;
    } finally {
      removeAbort();
    }
    try {
      return await host.planRoot({
        queryId: request.queryId, sql: request.sql, session: request.session, execute: true, inlineFirstPage: true,
        ...(request.targetBytes === undefined ? {} : { targetBytes: request.targetBytes }),
        stage: { kind: 'root', inputs },
      }, round * 2, abort);
    } catch (err) {
      if (round > 0 || abort.aborted || !(err instanceof VivaceError && err.errorName === 'REMOTE_TASK_ERROR')) throw err;
      stats.retries++;
    } finally {
      // The root pulled the outputs while it planned (or failed): the leaves are done with.
      dropInputs(host, inputs);
    }
  }
}

/** One leaf per alive worker, started now, each rerun on another alive worker when its worker is lost. */
function startLeaves(host: StageHost, request: StagedRequest, files: StageFiles, stats: LeafStageStats, taskError: TaskErrorOf, round: number): LeafRound {
  const controller = new AbortController();
  let answerColumns: ((columns: OutputColumn[]) => void) | undefined;
  const columns = new Promise<OutputColumn[]>((resolve) => (answerColumns = resolve));
  const alive = host.aliveWorkers();
  if (alive.length === 0) {
    const none = Promise.reject(new VivaceError('NO_NODES_AVAILABLE', 'No worker nodes available: every worker is failed'));
    none.catch(() => {});
    return { columns: none as Promise<never>, outputs: none as Promise<never>, oneLeft: Promise.resolve(undefined), abort: () => {} };
  }
  const splits = files.splits ? [...files.splits] : splitsOf(files.names, alive.length, files.rows);
  const partitions = alive.map((_, p) => splits.filter((__, i) => i % alive.length === p)).filter((s) => s.length > 0);
  Object.assign(stats, { ...emptyLeafStats(), retries: stats.retries, startedAt: stats.startedAt ?? Date.now(), endedAt: undefined, nodes: partitions.length, totalSplits: splits.length, runningSplits: splits.length });
  /** Attempts of a round: its task ids never meet another round's. */
  const ATTEMPTS = 8;
  // Each leaf's task while it runs planned, and its input once it ended: for the early root.
  const running: ({ nodeId: string; uri: string; taskId: string } | undefined)[] = partitions.map(() => undefined);
  const ended: (StageInput | undefined)[] = partitions.map(() => undefined);
  let answerOneLeft: (value: Awaited<LeafRound['oneLeft']>) => void = () => {};
  const oneLeft = new Promise<Awaited<LeafRound['oneLeft']>>((resolve) => (answerOneLeft = resolve));
  const checkOneLeft = () => {
    const left = partitions.map((_, p) => p).filter((p) => ended[p] === undefined);
    if (left.length === 0 || partitions.length < 2) return answerOneLeft(undefined);
    const last = left.length === 1 ? running[left[0]!] : undefined;
    if (!last) return;
    answerOneLeft({ inputs: ended.map((input) => input ?? { uri: last.uri, taskId: last.taskId }), last: { nodeId: last.nodeId, uri: last.uri } });
  };

  const runLeaf = async (partition: number, mine: Split[]): Promise<StageInput> => {
    const tried = new Set<string>();
    let node = alive[partition]!;
    for (let attempt = 0; ; attempt++) {
      tried.add(node.nodeId);
      const client = host.clientOf(node);
      const taskId = `${request.queryId}.1.${partition}.${round * ATTEMPTS + attempt}`;
      try {
        const leaf: TaskPlanRequest = { queryId: request.queryId, sql: request.sql, session: request.session, execute: true, stage: { kind: 'leaf', splits: mine } };
        answerColumns?.(await postLeafTask(host, client, taskId, leaf, controller.signal, taskError));
        running[partition] = { nodeId: node.nodeId, uri: node.uri, taskId };
        checkOneLeft();
        await awaitLeafTask(host, client, taskId, stats, mine.length, controller.signal, taskError);
        ended[partition] = { uri: node.uri, taskId };
        checkOneLeft();
        return ended[partition];
      } catch (err) {
        running[partition] = undefined;
        // Cancelled, or another leaf failed: this one ends too (the worker may have started it).
        host.deleteTask(client, taskId);
        if (controller.signal.aborted || !workerTrouble(err)) throw err;
        const next = host.aliveWorkers().find((w) => !tried.has(w.nodeId)) ?? host.aliveWorkers().find((w) => w.nodeId !== node.nodeId);
        if (!next || attempt + 1 >= ATTEMPTS) throw new VivaceError('NO_NODES_AVAILABLE', `No worker left to run leaf ${partition} of query ${request.queryId}: ${err instanceof Error ? err.message : String(err)}`);
        stats.retries++;
        node = next;
      }
    }
  };

  const outputs = Promise.all(partitions.map((mine, p) => runLeaf(p, mine))).then((inputs) => {
    stats.endedAt = Date.now();
    return inputs;
  });
  // The first failure ends the other leaves; before any leaf planned, it is the plan's failure too.
  outputs.catch(() => {
    controller.abort();
    answerOneLeft(undefined);
  });
  const failedFirst = outputs.then(() => new Promise<never>(() => {}));
  const both = Promise.race([columns, failedFirst]);
  both.catch(() => {});
  return { columns: both, outputs, oneLeft, abort: () => controller.abort() };
}

/** POSTs a leaf, executed with its plan: the statement's columns come back at once, the leaf runs on. */
async function postLeafTask(host: StageHost, client: WorkerClient, taskId: string, request: TaskPlanRequest, signal: AbortSignal, taskError: TaskErrorOf): Promise<OutputColumn[]> {
  const planned = await client.call('POST', taskPath(taskId), JSON.stringify(request), { timeoutMs: host.workTimeoutMs, signal, headers: await host.headers() });
  if (planned.status !== 200) throw taskError(planned, client, 'leaf plan');
  let body: { columns?: unknown } | undefined;
  try {
    body = JSON.parse(planned.body.toString('utf8')) as { columns?: unknown };
  } catch {
    body = undefined;
  }
  if (!Array.isArray(body?.columns)) throw new VivaceError('REMOTE_TASK_ERROR', `Worker ${client.nodeId} (${client.uri}) answered the leaf plan request with a plan without columns`);
  return body.columns as OutputColumn[];
}

/** Waits for a leaf's end: results token 0 answers 204 then, with its figures. */
async function awaitLeafTask(
  host: StageHost, client: WorkerClient, taskId: string, stats: LeafStageStats, splitCount: number, signal: AbortSignal, taskError: TaskErrorOf,
): Promise<void> {
  const done = await client.call('GET', taskResultsPath(taskId, 0, 1 << 16), undefined, { timeoutMs: host.workTimeoutMs, signal, headers: await host.headers() });
  if (done.status !== 204 && done.status !== 200) throw taskError(done, client, 'leaf results');
  stats.completedSplits += splitCount;
  stats.runningSplits = Math.max(0, stats.runningSplits - splitCount);
  stats.outputRows += headerNumber(done, TASK_HEADERS.updateCount);
  stats.processedRows += headerNumber(done, TASK_HEADERS.processedRows);
  stats.processedBytes += headerNumber(done, TASK_HEADERS.processedBytes);
  stats.cpuTimeMillis += headerNumber(done, TASK_HEADERS.cpuTimeMillis);
}

export const emptyLeafStats = (): LeafStageStats => ({
  nodes: 0, totalSplits: 0, queuedSplits: 0, runningSplits: 0, completedSplits: 0, outputRows: 0, processedRows: 0, processedBytes: 0, cpuTimeMillis: 0, retries: 0,
});

/**
 * A query in two stages once planned: its columns are the statement's, its leaves already running;
 * executing it waits for them, then runs the root, whose pages it passes on. Released unexecuted, it
 * ends the leaves.
 */
export class StagedPlan implements Plan {
  readonly updateType = undefined;
  private used = false;

  constructor(
    readonly columns: Plan['columns'],
    private readonly leaves: LeafRound,
    private readonly finish: (abort: PlanAbort) => Promise<Plan>,
    private readonly stats: LeafStageStats,
  ) {}

  execute(): Execution {
    if (this.used) throw new VivaceError('GENERIC_INTERNAL_ERROR', 'Plan executed twice');
    this.used = true;
    return new StagedExecution(this.finish, this.leaves, this.stats);
  }

  release(): void {
    if (this.used) return;
    this.used = true;
    this.leaves.abort();
  }
}

class StagedExecution implements Execution {
  private readonly abort = new PlanAbortController();
  private root: Promise<Execution> | undefined;
  private rootExecution: Execution | undefined;

  constructor(private readonly finish: (abort: PlanAbort) => Promise<Plan>, private readonly leaves: LeafRound, private readonly stats: LeafStageStats) {}

  get updateCount(): number | undefined {
    return this.rootExecution?.updateCount;
  }

  get exhausted(): boolean | undefined {
    return this.rootExecution?.exhausted;
  }

  async next(targetBytes: number): Promise<RowBatch | null> {
    this.root ??= this.finish(this.abort).then((plan) => {
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
    this.leaves.abort();
    this.rootExecution?.cancel();
  }

  progress(): ExecutionProgress {
    const root = this.rootExecution?.progress() ?? { processedRows: 0, processedBytes: 0, cpuTimeMillis: 0 };
    const { retries: _retries, startedAt, endedAt, ...leaf } = this.stats;
    if (startedAt !== undefined) leaf.wallTimeMillis = (endedAt ?? Date.now()) - startedAt;
    return { processedRows: root.processedRows, processedBytes: root.processedBytes, cpuTimeMillis: root.cpuTimeMillis, subStages: [leaf] };
  }
}
