// The coordinator's side of a query in two stages (stage-planner.ts, behind vivace.distributed-tpch):
// the leaf stage runs first, one task per alive worker with its splits (the table's parts round-robin);
// a leaf whose worker is lost is run again on another alive worker (its splits are deterministic). Then
// the root task, on one worker, pulls the leaves' outputs and pages the answer, which the coordinator
// forwards as it forwards any task's pages. Any statement that does not split, or a table whose data is
// not generated yet, is left to the single-task path (undefined).
import { join } from 'node:path';
import type { Execution, ExecutionProgress, Plan, PlanAbort, RowBatch, SubStageProgress } from '../engine/engine.types.js';
import { PlanAbortController } from '../engine/plan-abort.js';
import { readManifest } from '../engine/catalogs/tpch-generation.js';
import { tpchSchema } from '../engine/catalogs/tpch-schemas.js';
import { parseStatement } from '../sql/index.js';
import type { Session } from '../protocol/types.js';
import { VivaceError } from '../protocol/vivace-error.js';
import { planStages, type StagePlan } from './stage-planner.js';
import { splitsOf, type Split } from './stage-sql.js';
import { TASK_HEADERS, taskPath, taskResultsPath, type StageInput, type TaskPlanRequest } from './task-protocol.js';
import { WorkerTransportError, type WorkerClient, type WorkerResponse } from './worker-client.js';

/** What the staged path needs of the remote engine. */
export interface StageHost {
  aliveWorkers(): { nodeId: string; uri: string }[];
  clientOf(node: { nodeId: string; uri: string }): WorkerClient;
  headers(): Promise<Record<string, string>>;
  deleteTask(client: WorkerClient, taskId: string): void;
  /** Plans the root task (stage 0, attempts from `attempt` on) as any task: its pages are forwarded unparsed. */
  planRoot(request: TaskPlanRequest, attempt: number, abort?: PlanAbort): Promise<Plan>;
  readonly workTimeoutMs: number;
}

/** Figures of the leaf stage, for the query's stats (outputRows: the partial rows exchanged). */
export interface LeafStageStats extends SubStageProgress {
  /** Leaf tasks run again on another worker after theirs was lost. */
  retries: number;
}

const headerNumber = (response: WorkerResponse, name: string): number => {
  const n = Number(response.headers[name]);
  return Number.isSafeInteger(n) && n >= 0 ? n : 0;
};

/** The statement's two stages and the table's splits, or undefined for the single-task path. */
export function stagedQuery(sql: string, session: Session, tpchDirectory: string): { stages: StagePlan; files: string[] } | undefined {
  if (session.transactionId !== undefined && session.transactionId !== 'NONE') return undefined;
  let stages: StagePlan | undefined;
  try {
    stages = planStages(parseStatement(sql), session);
  } catch {
    return undefined;
  }
  const schema = stages && tpchSchema(stages.table.schema);
  if (!stages || !schema) return undefined;
  const files = readManifest(join(tpchDirectory, schema.directory))?.tables[stages.table.table]?.files;
  return files && files.length > 0 ? { stages, files } : undefined;
}

/** A failure that another worker may not have: the worker was lost, draining or full. */
function workerTrouble(err: unknown): boolean {
  if (err instanceof WorkerTransportError) return err.code !== 'AbortError';
  return err instanceof VivaceError && (err.errorName === 'REMOTE_TASK_ERROR' || err.errorName === 'SERVER_SHUTTING_DOWN' || err.errorName === 'GENERIC_INSUFFICIENT_RESOURCES');
}

/** Runs the leaves, then plans the root over their outputs. */
export async function planStaged(
  host: StageHost,
  request: { queryId: string; sql: string; session: Session; targetBytes?: number },
  files: readonly string[],
  stats: LeafStageStats,
  taskError: (response: WorkerResponse, client: WorkerClient, step: string) => VivaceError,
  abort?: PlanAbort,
): Promise<Plan> {
  // A root that could not pull an output (its leaf's worker died after the leaf ended) or was lost
  // itself: the whole query once more, on the workers alive then, under new task ids.
  for (let round = 0; ; round++) {
    const inputs = await runLeaves(host, request, files, stats, taskError, round, abort);
    try {
      return await host.planRoot({
        queryId: request.queryId, sql: request.sql, session: request.session, execute: true,
        ...(request.targetBytes === undefined ? {} : { targetBytes: request.targetBytes }),
        stage: { kind: 'root', inputs },
      }, round * 2, abort);
    } catch (err) {
      if (round > 0 || abort?.aborted || !(err instanceof VivaceError && err.errorName === 'REMOTE_TASK_ERROR')) throw err;
      stats.retries++;
    } finally {
      // The root pulled the outputs while it planned (or failed): the leaves are done with.
      for (const input of inputs) {
        const node = host.aliveWorkers().find((w) => w.uri === input.uri);
        if (node) host.deleteTask(host.clientOf(node), input.taskId);
      }
    }
  }
}

/** One leaf per alive worker, each rerun on another alive worker when its worker is lost. */
async function runLeaves(
  host: StageHost,
  request: { queryId: string; sql: string; session: Session },
  files: readonly string[],
  stats: LeafStageStats,
  taskError: (response: WorkerResponse, client: WorkerClient, step: string) => VivaceError,
  round: number,
  abort?: PlanAbort,
): Promise<StageInput[]> {
  const alive = host.aliveWorkers();
  if (alive.length === 0) throw new VivaceError('NO_NODES_AVAILABLE', 'No worker nodes available: every worker is failed');
  const splits = splitsOf(files, alive.length);
  const partitions = alive.map((_, p) => splits.filter((__, i) => i % alive.length === p)).filter((s) => s.length > 0);
  Object.assign(stats, { ...emptyLeafStats(), retries: stats.retries, nodes: partitions.length, totalSplits: splits.length, runningSplits: splits.length });
  const controller = new AbortController();
  const removeAbort = abort?.onAbort(() => controller.abort());
  /** Attempts of a round: its task ids never meet another round's. */
  const ATTEMPTS = 8;

  const runLeaf = async (partition: number, mine: Split[]): Promise<StageInput> => {
    const tried = new Set<string>();
    let node = alive[partition]!;
    for (let attempt = 0; ; attempt++) {
      tried.add(node.nodeId);
      const client = host.clientOf(node);
      const taskId = `${request.queryId}.1.${partition}.${round * ATTEMPTS + attempt}`;
      try {
        await runLeafTask(host, client, taskId, { queryId: request.queryId, sql: request.sql, session: request.session, execute: true, stage: { kind: 'leaf', splits: mine } }, stats, mine.length, controller.signal, taskError);
        return { uri: node.uri, taskId };
      } catch (err) {
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

  try {
    return await Promise.all(partitions.map((mine, p) => runLeaf(p, mine)));
  } catch (err) {
    controller.abort();
    if (abort?.aborted) throw abort.reason;
    throw err;
  } finally {
    removeAbort?.();
  }
}

/** POSTs a leaf (executed with its plan) and waits for its end: results token 0 answers 204 then. */
async function runLeafTask(
  host: StageHost, client: WorkerClient, taskId: string, request: TaskPlanRequest, stats: LeafStageStats, splitCount: number,
  signal: AbortSignal, taskError: (response: WorkerResponse, client: WorkerClient, step: string) => VivaceError,
): Promise<void> {
  const options = async () => ({ timeoutMs: host.workTimeoutMs, signal, headers: await host.headers() });
  const planned = await client.call('POST', taskPath(taskId), JSON.stringify(request), await options());
  if (planned.status !== 200) throw taskError(planned, client, 'leaf plan');
  const done = await client.call('GET', taskResultsPath(taskId, 0, 1 << 16), undefined, await options());
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
 * A query in two stages once planned: its columns are the statement's (planned as any task's, so its
 * errors are the statement's); executing it runs the leaves, then the root, whose pages it passes on.
 */
export class StagedPlan implements Plan {
  readonly updateType = undefined;
  private used = false;

  constructor(
    readonly columns: Plan['columns'],
    private readonly start: (stats: LeafStageStats, abort: PlanAbort) => Promise<Plan>,
  ) {}

  execute(): Execution {
    if (this.used) throw new VivaceError('GENERIC_INTERNAL_ERROR', 'Plan executed twice');
    this.used = true;
    return new StagedExecution(this.start);
  }

  release(): void {
    this.used = true;
  }
}

class StagedExecution implements Execution {
  private readonly stats = emptyLeafStats();
  private readonly abort = new PlanAbortController();
  private root: Promise<Execution> | undefined;
  private rootExecution: Execution | undefined;

  constructor(private readonly start: (stats: LeafStageStats, abort: PlanAbort) => Promise<Plan>) {}

  get updateCount(): number | undefined {
    return this.rootExecution?.updateCount;
  }

  get exhausted(): boolean | undefined {
    return this.rootExecution?.exhausted;
  }

  async next(targetBytes: number): Promise<RowBatch | null> {
    this.root ??= this.start(this.stats, this.abort).then((plan) => {
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
    this.rootExecution?.cancel();
  }

  progress(): ExecutionProgress {
    const root = this.rootExecution?.progress() ?? { processedRows: 0, processedBytes: 0, cpuTimeMillis: 0 };
    const { retries: _retries, ...leaf } = this.stats;
    return { processedRows: root.processedRows, processedBytes: root.processedBytes, cpuTimeMillis: root.cpuTimeMillis, subStages: [leaf] };
  }
}
