// The coordinator's side of a scattered scan (lib/spooling/scattered-scan.ts): a query whose client takes
// spooled segments and whose rows are one split table's rows one by one runs as one task per alive worker,
// each the plan's root over its share of the splits, rendering and spooling its own rows on its own worker.
// Both workers produce at once, and nothing is gathered: the coordinator pulls each task's pages (the
// addresses of its segments, or its first rows inline) as they come, one page ahead per task, and hands
// them out in that order; the statement's row offsets follow the order they are handed out in
// (statement-response.ts), contiguous across tasks. Each task is a task as any single task is
// (RemotePlan, RemoteExecution): its segments are noted per worker (a lost worker's are reported), and a
// cancel, or the query's failure, ends every task and deletes its segments on every worker. The query's one
// stage (the root, fragment 0) reports each task with its worker, splits, the rows and bytes its scan read
// and those it handed out, as a staged query's stages report theirs (ExecutionProgress.tasks).
import type { Execution, ExecutionProgress, Plan, PlanAbort, RowBatch, SubStageTask } from '../engine/engine.types.js';
import type { OutputColumn } from '../protocol/types.js';
import { VivaceError } from '../protocol/vivace-error.js';
import type { Connectors } from '../connectors/connectors.js';
import type { Split } from '../connectors/connector.types.js';
import { scatteredPlanOf } from '../spooling/scattered-scan.js';
import { splitsOf } from './stage-sql.js';
import { lostWorker } from './worker-trouble.js';
import type { StagedQuery, StagedRequest, StageHost } from './staged-query.js';
import { MAX_STAGE_ITEMS, type TaskPlanRequest } from './task-protocol.js';

type Node = { nodeId: string; uri: string };

/**
 * The scattered plan of a statement whose client asked for the spooling protocol, with its scan's splits;
 * undefined for any other statement (it runs as before), or when the table's connector does not split it
 * (a table under its least rows to split: one task).
 */
export function scatteredQuery(sql: string, session: StagedRequest['session'], connectors: Connectors): StagedQuery | undefined {
  if (session.queryDataEncoding === undefined) return undefined;
  const plan = scatteredPlanOf(sql, session, connectors.splittable);
  const scan = plan?.fragments[0]?.scan;
  if (!plan || !scan) return undefined;
  const files = connectors.of(scan.table.catalog)?.scanSplits?.(scan.table, scan.where, MAX_STAGE_ITEMS);
  if (!files) return undefined;
  return { plan, splits: new Map([[0, files]]) };
}

/** One task of the scan: its splits and the worker its current attempt runs on. */
interface Part {
  partition: number;
  splits: Split[];
  node: Node;
  /** The current attempt's number (task ids never repeat), its task id, and the workers tried. */
  attempt: number;
  taskId?: string;
  tried: Set<string>;
  plan?: Plan;
  execution?: Execution;
  /** The page being fetched (or the task planned again). */
  pending?: boolean;
  /** Pages it gave so far, and their rows and bytes (JSON, spooled or inline). */
  pages: number;
  rows: number;
  bytes: number;
  /** Date.now() when its current attempt started executing, and when its end was read. */
  startedAt?: number;
  endedAt?: number;
  /** Its end was read (or its last page). */
  done: boolean;
}

/** Attempts of one task at most (each on another alive worker when it can). */
const MAX_ATTEMPTS = 4;

/** Plans a part's current attempt on its worker. */
type PlanPart = (part: Part, abort?: PlanAbort) => Promise<Plan>;

/**
 * Plans the scattered query: its splits spread round-robin over the alive workers, one task each, all
 * planned at once (each task's first page starts rendering with its plan); the statement's columns are
 * the first task's. A task that fails to plan fails the query, with the others released.
 */
export async function planScattered(host: StageHost, request: StagedRequest, staged: StagedQuery, abort?: PlanAbort): Promise<Plan> {
  if (abort?.aborted) throw abort.reason;
  const alive = host.aliveWorkers();
  if (alive.length === 0) throw new VivaceError('NO_NODES_AVAILABLE', 'No worker nodes available: every worker is failed');
  const files = staged.splits.get(0)!;
  const splits = files.splits ? [...files.splits] : splitsOf(files.names, alive.length, files.rows);
  const parts: Part[] = alive
    .map((node, p) => ({ partition: p, node, attempt: 0, tried: new Set([node.nodeId]), splits: splits.filter((_, i) => i % alive.length === p), pages: 0, rows: 0, bytes: 0, done: false }))
    .filter((part) => part.splits.length > 0);
  const planOn = host.planRootOn;
  if (!planOn) throw new VivaceError('GENERIC_INTERNAL_ERROR', 'The scattered scan needs tasks placed on named workers');
  const planPart: PlanPart = (part, partAbort) => {
    const task: TaskPlanRequest = {
      queryId: request.queryId, sql: request.sql, session: request.session, execute: true,
      ...(request.targetBytes === undefined ? {} : { targetBytes: request.targetBytes }),
      stage: { kind: 'fragment', fragmentId: 0, splits: part.splits, inputs: [], choices: staged.plan.choices },
    };
    part.taskId = `${request.queryId}.0.${part.partition}.${part.attempt}`;
    return planOn(part.node, task, part.taskId, partAbort);
  };
  const planned = await Promise.allSettled(parts.map(async (part) => {
    part.plan = await planPart(part, abort);
  }));
  const failed = planned.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    for (const part of parts) part.plan?.release();
    if (abort?.aborted) throw abort.reason;
    throw failed.reason;
  }
  return new ScatteredPlan(parts[0]!.plan!.columns, parts, (part) => rerunPart(host, part, planPart));
}

/**
 * A task lost with its worker (or failed by it) before any of its pages came: planned again, as the next
 * attempt, on an alive worker it did not run on yet (else another than the one just lost). Nothing of it
 * reached the client, so nothing repeats (a single task reruns so too: remote-engine.ts). Undefined when
 * there is no worker left for it or it ran out of attempts.
 */
function rerunPart(host: StageHost, part: Part, planPart: PlanPart): Promise<Plan> | undefined {
  const alive = host.aliveWorkers().filter((w) => w.nodeId !== part.node.nodeId);
  const next = alive.find((w) => !part.tried.has(w.nodeId)) ?? alive[0];
  if (!next || part.attempt + 1 >= MAX_ATTEMPTS) return undefined;
  // A worker that failed the task itself still holds it (a lost one has nothing left to end).
  host.deleteTask(host.clientOf(part.node), part.taskId!);
  part.node = next;
  part.attempt++;
  part.tried.add(next.nodeId);
  return planPart(part);
}

class ScatteredPlan implements Plan {
  private used = false;

  constructor(readonly columns: OutputColumn[], private readonly parts: Part[], private readonly rerun: (part: Part) => Promise<Plan> | undefined) {}

  execute(): Execution {
    if (this.used) throw new VivaceError('GENERIC_INTERNAL_ERROR', 'Plan executed twice');
    this.used = true;
    return new ScatteredExecution(this.parts, this.rerun);
  }

  release(): void {
    if (this.used) return;
    this.used = true;
    for (const part of this.parts) part.plan?.release();
  }
}

const canceled = () => new VivaceError('USER_CANCELED', 'Query was canceled');

/** Every task's pages as they come, one page fetched ahead per task. */
class ScatteredExecution implements Execution {
  exhausted?: boolean;
  /** Pages fetched and not handed out yet, in the order they came (at most one per task). */
  private readonly ready: { batch: RowBatch; part: Part }[] = [];
  private failure: unknown;
  private canceled = false;
  private wake: (() => void) | undefined;
  private targetBytes = 0;

  constructor(private readonly parts: Part[], private readonly rerun: (part: Part) => Promise<Plan> | undefined) {
    const now = Date.now();
    for (const part of parts) {
      part.execution = part.plan!.execute();
      part.startedAt = now;
    }
  }

  async next(targetBytes: number): Promise<RowBatch | null> {
    this.targetBytes = targetBytes;
    for (;;) {
      if (this.canceled) throw canceled();
      if (this.failure !== undefined) throw this.failure;
      const first = this.ready.shift();
      if (first) {
        this.fill();
        if (this.ready.length === 0 && this.parts.every((p) => p.done)) this.exhausted = true;
        return first.batch;
      }
      if (this.parts.every((p) => p.done)) {
        this.exhausted = true;
        return null;
      }
      this.fill();
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  /** Every task with no page waiting here and none coming fetches its next one. */
  private fill(): void {
    for (const part of this.parts) {
      if (part.done || part.pending || this.ready.some((r) => r.part === part)) continue;
      part.pending = true;
      const execution = part.execution!;
      execution.next(this.targetBytes).then((batch) => {
        part.pending = false;
        if (batch === null || execution.exhausted === true) {
          part.done = true;
          part.endedAt = Date.now();
        }
        if (batch) {
          part.pages++;
          part.rows += batch.rows;
          part.bytes += batch.bytes;
          this.ready.push({ batch, part });
        }
        this.notify();
      }, (err: unknown) => {
        part.pending = false;
        const again = part.pages === 0 && lostWorker(err) && !this.over() ? this.rerun(part) : undefined;
        if (again) this.runAgain(part, again);
        else this.fail(part, err);
      });
    }
  }

  private over(): boolean {
    return this.canceled || this.failure !== undefined;
  }

  /** A part's next attempt, once planned, runs in place of the lost one. */
  private runAgain(part: Part, planned: Promise<Plan>): void {
    part.pending = true;
    planned.then((plan) => {
      part.pending = false;
      part.plan = plan;
      if (this.over()) {
        plan.release();
        return;
      }
      part.execution = plan.execute();
      part.startedAt = Date.now();
      this.fill();
    }, (err: unknown) => {
      part.pending = false;
      this.fail(part, err);
    });
  }

  /** The query failed: every other task ends too, and the segments they spooled go. */
  private fail(part: Part, err: unknown): void {
    part.done = true;
    if (!this.over()) {
      this.failure = err;
      for (const other of this.parts) other.execution!.cancel();
    }
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  cancel(): void {
    if (this.canceled) return;
    this.canceled = true;
    for (const part of this.parts) part.execution!.cancel();
    this.notify();
  }

  progress(): ExecutionProgress {
    const sum: ExecutionProgress = { processedRows: 0, processedBytes: 0, cpuTimeMillis: 0 };
    for (const part of this.parts) {
      const p = part.execution!.progress();
      sum.processedRows += p.processedRows;
      sum.processedBytes += p.processedBytes;
      sum.cpuTimeMillis += p.cpuTimeMillis;
      if (p.peakMemoryBytes !== undefined) sum.peakMemoryBytes = Math.max(sum.peakMemoryBytes ?? 0, p.peakMemoryBytes);
    }
    sum.tasks = this.parts.map((part) => taskOf(part));
    return sum;
  }
}

/** A part's current attempt as its stage lists it (Trino's TaskStatus and TaskStats, as a staged query's tasks). */
function taskOf(part: Part): SubStageTask {
  const p = part.execution!.progress();
  return {
    taskId: part.taskId!, fragmentId: 0, partition: part.partition, nodeId: part.node.nodeId, state: part.done ? 'FINISHED' : 'RUNNING',
    splits: part.splits.length, outputRows: part.rows, outputBytes: part.bytes, processedRows: p.processedRows, processedBytes: p.processedBytes,
    cpuTimeMillis: p.cpuTimeMillis, wallTimeMillis: part.startedAt === undefined ? 0 : (part.endedAt ?? Date.now()) - part.startedAt, peakMemoryBytes: p.peakMemoryBytes ?? 0,
  };
}
