// The tasks a worker holds, with bounded memory. Active tasks are capped in number (past the cap a new task
// is refused with a 503, which the coordinator treats as this worker's trouble). A finished task (its end
// rendered, failed or cancelled) keeps only its last page, for a retried GET, and is dropped after a short
// linger or sooner when finished tasks hold too much. A task no one has asked about for the abandonment
// timeout (its coordinator died) is cancelled and dropped by the sweep.
import type { Engine } from '../engine/engine.types.js';
import { VivaceError } from '../protocol/vivace-error.js';
import type { TaskInfo, TaskPlanRequest } from '../cluster/task-protocol.js';
import { WorkerTask } from './worker-task.js';
import type { StageTasks } from './stage-tasks.js';

export interface TaskRegistryOptions {
  /** Tasks planning or running at once (default 256). */
  maxActiveTasks?: number;
  /** Finished tasks kept for retried GETs (default 256)... */
  maxFinishedTasks?: number;
  /** ...holding at most this many page bytes in all (default 64 MB). */
  maxFinishedBytes?: number;
  /** A finished task is dropped this long after its last request (default 10 s). */
  finishedLingerMs?: number;
  /** An active task with no request for this long is cancelled (default 2 m, Trino's task.client.timeout). */
  abandonedAfterMs?: number;
  now?: () => number;
  /** Stage tasks' files (a leaf's output, a root's inputs); absent: a request with `stage` is refused. */
  stages?: StageTasks;
}

export class TaskRegistry {
  private readonly active = new Map<string, WorkerTask>();
  private readonly finished = new Map<string, WorkerTask>();
  private finishedBytes = 0;
  private readonly idleWaiters: (() => void)[] = [];
  private readonly limits: Required<Omit<TaskRegistryOptions, 'now' | 'stages'>>;
  readonly now: () => number;
  readonly stages: StageTasks | undefined;

  constructor(
    private readonly engine: Engine,
    options: TaskRegistryOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.stages = options.stages;
    this.limits = {
      maxActiveTasks: options.maxActiveTasks ?? 256,
      maxFinishedTasks: options.maxFinishedTasks ?? 256,
      maxFinishedBytes: options.maxFinishedBytes ?? 64 << 20,
      finishedLingerMs: options.finishedLingerMs ?? 10_000,
      abandonedAfterMs: options.abandonedAfterMs ?? 120_000,
    };
  }

  /** The task `taskId`, created and planning when it is new; the existing one for a retried POST. */
  create(taskId: string, request: TaskPlanRequest): WorkerTask {
    const existing = this.get(taskId);
    if (existing) {
      if (existing.queryId !== request.queryId) throw new VivaceError('GENERIC_USER_ERROR', `Task ${taskId} exists for another query`, { httpStatus: 409 });
      return existing;
    }
    if (this.active.size >= this.limits.maxActiveTasks) {
      throw new VivaceError('GENERIC_INSUFFICIENT_RESOURCES', `Worker holds ${this.active.size} tasks, the most it takes`, { httpStatus: 503 });
    }
    if (request.stage && !this.stages) throw new VivaceError('NOT_SUPPORTED', 'This worker runs no stage tasks', { httpStatus: 400 });
    const engine = request.stage ? this.stages!.engineFor(taskId, request) : this.engine;
    const task = new WorkerTask(taskId, engine, request, this.now(), { settled: (t) => this.settle(t), read: () => this.wakeIfIdle() });
    // A plan settles after an await at the earliest, so the task is active here.
    this.active.set(taskId, task);
    return task;
  }

  /** The task, touched (a request about it keeps it from being abandoned or dropped), or undefined. */
  get(taskId: string): WorkerTask | undefined {
    const task = this.active.get(taskId) ?? this.finished.get(taskId);
    if (task) task.lastTouched = this.now();
    return task;
  }

  /** Cancels and forgets a task; false when there was none. */
  remove(taskId: string): boolean {
    const task = this.active.get(taskId) ?? this.finished.get(taskId);
    if (!task) return false;
    task.cancel();
    this.forget(task);
    return true;
  }

  list(): TaskInfo[] {
    return [...this.active.values(), ...this.finished.values()].map((t) => t.info());
  }

  get activeCount(): number {
    return this.active.size;
  }

  get finishedCount(): number {
    return this.finished.size;
  }

  /** Settles when no task is planning or running and no page rendered ahead waits for its GET (at once when none). */
  whenIdle(): Promise<void> {
    if (this.idle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Drops finished tasks past their linger and cancels abandoned ones. Run it every few seconds. */
  sweep(): void {
    const now = this.now();
    for (const task of [...this.finished.values()]) {
      // A finished producer's files are its query's exchange: they stay until its coordinator drops the
      // task as the query ends (or, that coordinator gone, the abandonment timeout), however long a
      // sibling stage runs, so a consumer started or run again later still reads them. So does a task whose
      // end was rendered ahead and not asked for yet: its coordinator asks when its client is ready (a slow
      // client of a scattered scan waits on the other tasks' pages), kept alive by its status polls.
      const linger = this.stages?.isLeaf(task.taskId) || task.unread ? this.limits.abandonedAfterMs : this.limits.finishedLingerMs;
      if (task.inFlight === 0 && now - task.lastTouched >= linger) this.forget(task);
    }
    for (const task of [...this.active.values()]) {
      if (task.inFlight === 0 && now - task.lastTouched >= this.limits.abandonedAfterMs) this.remove(task.taskId);
    }
  }

  /** Cancels every task (the worker is stopping). */
  cancelAll(): void {
    for (const task of [...this.active.values(), ...this.finished.values()]) this.remove(task.taskId);
  }

  private settle(task: WorkerTask): void {
    if (this.active.get(task.taskId) !== task) return;
    // A leaf's output is readable once its execution ended (COPY wrote the whole file).
    if (task.info().state === 'FINISHED') this.stages?.completed(task.taskId);
    this.active.delete(task.taskId);
    this.finished.set(task.taskId, task);
    this.finishedBytes += task.keptBytes;
    // Oldest first, never the one just settled: its page is being answered now.
    for (const old of this.finished.values()) {
      if (old === task) break;
      if (this.finished.size <= this.limits.maxFinishedTasks && this.finishedBytes <= this.limits.maxFinishedBytes) break;
      this.forget(old);
    }
    this.wakeIfIdle();
  }

  private forget(task: WorkerTask): void {
    if (this.active.get(task.taskId) === task || this.finished.get(task.taskId) === task) this.stages?.forget(task.taskId);
    if (this.active.get(task.taskId) === task) {
      this.active.delete(task.taskId);
      this.wakeIfIdle();
    } else if (this.finished.get(task.taskId) === task) {
      this.finished.delete(task.taskId);
      this.finishedBytes -= task.keptBytes;
      this.wakeIfIdle();
    }
  }

  private idle(): boolean {
    if (this.active.size > 0) return false;
    for (const task of this.finished.values()) if (task.unread) return false;
    return true;
  }

  private wakeIfIdle(): void {
    if (this.idleWaiters.length === 0 || !this.idle()) return;
    for (const wake of this.idleWaiters.splice(0)) wake();
  }
}
