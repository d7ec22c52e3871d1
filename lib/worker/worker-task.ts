// One task on a worker: one statement planned on the worker's engine, then executed, its rendered pages
// pulled one token at a time. The last page asked for is kept, so the same token again (a retried GET after
// a lost answer) gets the same page or the same error; an older token is gone (410). One page more is
// rendered ahead while the current one travels.
import type { Engine, Execution, ExecutionProgress, Plan, RowBatch } from '../engine/engine.types.js';
import { PlanAbortController } from '../engine/plan-abort.js';
import { VivaceError } from '../protocol/vivace-error.js';
import type { TaskInfo, TaskPlanRequest, TaskPlanResponse } from '../cluster/task-protocol.js';
import type { QueryDataEncoding } from '../protocol/spooling/query-data-encoding.js';

/** One results page: RowBatch.json as it is, or the end (`batch` null: the GET answers 204). */
export interface TaskPage {
  batch: RowBatch | null;
  /** True on the last page with rows, and on the end. */
  exhausted: boolean;
  updateCount?: number;
  progress: ExecutionProgress;
}

/** What the registry hears of a task: it settled (nothing more will come of it), its page ahead was asked for. */
export interface TaskHooks {
  settled(task: WorkerTask): void;
  read(task: WorkerTask): void;
}

const NO_PROGRESS: ExecutionProgress = { processedRows: 0, processedBytes: 0, cpuTimeMillis: 0 };

export class WorkerTask {
  readonly queryId: string;
  /** The spooling protocol's encoding the query's client asked for (spool/task-spooling.ts); absent: rows as they are. */
  readonly queryDataEncoding?: QueryDataEncoding;
  /** Millisecond time of the last request about this task (the registry drops abandoned tasks). */
  lastTouched: number;
  /** Requests about this task being answered now: a task waited on is never abandoned. */
  inFlight = 0;
  private state: TaskInfo['state'] = 'PLANNED';
  private readonly abort = new PlanAbortController();
  private readonly planned: Promise<TaskPlanResponse>;
  private plan: Plan | undefined;
  private execution: Execution | undefined;
  private current: { token: number; page: Promise<TaskPage> } | undefined;
  /** The page after the current one, rendered while the current one travels (one page of read-ahead). */
  private ahead: { token: number; page: Promise<TaskPage> } | undefined;
  /** False while the current page was rendered ahead (execute: true) and no GET has asked for it. */
  private currentRead = true;
  /** Bytes of the last page rendered: with the one before it, what the task may hold. */
  private lastBytes = 0;
  /** Set once nothing more can come of the task: its end was rendered, it failed or was cancelled. */
  private done = false;
  /** JSON bytes of the pages kept (current and read-ahead; the registry bounds what finished tasks hold). */
  keptBytes = 0;

  constructor(
    readonly taskId: string,
    engine: Engine,
    request: TaskPlanRequest,
    now: number,
    private readonly hooks: TaskHooks = { settled: () => {}, read: () => {} },
  ) {
    this.queryId = request.queryId;
    if (request.session.queryDataEncoding !== undefined) this.queryDataEncoding = request.session.queryDataEncoding;
    this.lastTouched = now;
    this.planned = this.planAndMaybeExecute(engine, request);
    // A plan nobody waits for (the POST's client left) must not be an unhandled rejection.
    this.planned.catch(() => {});
  }

  private async planAndMaybeExecute(engine: Engine, request: TaskPlanRequest): Promise<TaskPlanResponse> {
    let plan: Plan;
    try {
      plan = await engine.plan(request.sql, request.session, this.abort);
    } catch (err) {
      this.finish('FAILED');
      throw VivaceError.from(err);
    }
    if (this.abort.aborted) {
      // Cancelled while the engine was finishing the plan: give its connection back at once.
      plan.release();
      throw new VivaceError('USER_CANCELED', 'Task was canceled');
    }
    this.plan = plan;
    const response: TaskPlanResponse = {
      columns: plan.columns,
      ...(plan.updateType ? { updateType: plan.updateType } : {}),
      ...(plan.sessionUpdates ? { sessionUpdates: plan.sessionUpdates } : {}),
    };
    if (request.execute === true && plan.updateType === undefined) {
      this.execute();
      // The first batch is rendered now, so results token 0 answers without waiting for DuckDB again.
      const targetBytes = request.targetBytes ?? DEFAULT_TARGET_BYTES;
      this.current = { token: 0, page: quiet(this.pageOf(targetBytes)) };
      this.currentRead = false;
      this.readAhead(this.current, targetBytes);
      response.executing = true;
    }
    return response;
  }

  /** The plan's answer (the same promise for a retried POST). */
  planResponse(): Promise<TaskPlanResponse> {
    return this.planned;
  }

  /** Starts the statement; again while it runs is a no-op (a retried POST .../execute). */
  execute(): void {
    if (this.execution) return;
    if (this.state !== 'PLANNED') throw new VivaceError('GENERIC_USER_ERROR', `Task ${this.taskId} is ${this.state}`, { httpStatus: 409 });
    if (!this.plan) throw new VivaceError('GENERIC_USER_ERROR', `Task ${this.taskId} is still planning`, { httpStatus: 409 });
    try {
      this.execution = this.plan.execute();
    } catch (err) {
      this.finish('FAILED');
      throw VivaceError.from(err);
    }
    this.state = 'RUNNING';
  }

  /** Page `token` (0, 1, ...): the current one again, or the next one fetched now. */
  results(token: number, targetBytes: number): Promise<TaskPage> {
    const current = this.current;
    if (current && token === current.token) {
      this.markRead();
      return current.page;
    }
    if (current && token < current.token) {
      return Promise.reject(new VivaceError('GENERIC_USER_ERROR', `Results token ${token} of task ${this.taskId} is gone (current is ${current.token})`, { httpStatus: 410 }));
    }
    const expected = current ? current.token + 1 : 0;
    if (token !== expected) {
      return Promise.reject(new VivaceError('INVALID_ARGUMENTS', `Results token ${token} of task ${this.taskId} is ahead of ${expected}`, { httpStatus: 400 }));
    }
    if (!this.execution) {
      return Promise.reject(new VivaceError('GENERIC_USER_ERROR', `Task ${this.taskId} has not been executed`, { httpStatus: 409 }));
    }
    const ahead = this.ahead?.token === token ? this.ahead.page : undefined;
    this.ahead = undefined;
    const next = ahead ?? quiet(current ? this.after(current.page, targetBytes) : this.pageOf(targetBytes));
    this.current = { token, page: next };
    this.markRead();
    this.readAhead(this.current, targetBytes);
    return next;
  }

  /** A page rendered ahead that no GET has asked for yet (a draining worker waits for it); never after a cancel. */
  get unread(): boolean {
    return this.state !== 'CANCELED' && (this.ahead !== undefined || !this.currentRead);
  }

  private markRead(): void {
    this.currentRead = true;
    this.hooks.read(this);
  }

  /**
   * Once `page` is rendered and still current, the next one starts rendering (same size), so DuckDB works
   * while the page travels. Only one page ahead: what a task holds stays bounded.
   */
  private readAhead(page: { token: number; page: Promise<TaskPage> }, targetBytes: number): void {
    page.page.then(
      (rendered) => {
        if (rendered.exhausted || this.done || this.ahead || this.current !== page) return;
        this.ahead = { token: page.token + 1, page: quiet(this.pageOf(targetBytes)) };
      },
      () => {},
    );
  }

  /** Interrupts planning or execution and gives the connection back. Idempotent. */
  cancel(): void {
    if (!this.done) this.finish('CANCELED');
    this.abort.abort(new VivaceError('USER_CANCELED', 'Task was canceled'));
    this.execution?.cancel();
    this.plan?.release();
  }

  /** Whether nothing more can come of this task (its end was rendered, it failed or was cancelled). */
  get finished(): boolean {
    return this.done;
  }

  info(): TaskInfo {
    const progress = this.execution?.progress() ?? NO_PROGRESS;
    return { taskId: this.taskId, queryId: this.queryId, state: this.state, ...progress };
  }

  /** The page after a page: the end again once the end was reached, else the next batch. */
  private async after(previous: Promise<TaskPage>, targetBytes: number): Promise<TaskPage> {
    const last = await previous.catch(() => undefined);
    if (!last) throw new VivaceError('GENERIC_USER_ERROR', `Task ${this.taskId} failed`, { httpStatus: 409 });
    if (last.exhausted) return { batch: null, exhausted: true, progress: last.progress, ...(last.updateCount === undefined ? {} : { updateCount: last.updateCount }) };
    return this.pageOf(targetBytes);
  }

  private async pageOf(targetBytes: number): Promise<TaskPage> {
    const execution = this.execution!;
    try {
      const batch = await execution.next(targetBytes);
      const exhausted = batch === null || execution.exhausted === true;
      const bytes = batch?.bytes ?? 0;
      this.keptBytes = this.lastBytes + bytes;
      this.lastBytes = bytes;
      if (exhausted) this.finish('FINISHED');
      return {
        batch,
        exhausted,
        progress: execution.progress(),
        ...(execution.updateCount === undefined ? {} : { updateCount: execution.updateCount }),
      };
    } catch (err) {
      if (!this.done) this.finish('FAILED');
      throw VivaceError.from(err);
    }
  }

  private finish(state: TaskInfo['state']): void {
    if (this.done) return;
    this.state = state;
    this.done = true;
    this.hooks.settled(this);
  }
}

/** A kept page is awaited by whoever asks for it, maybe no one: its failure is no unhandled rejection. */
function quiet<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}

/** JSON bytes of a page when the coordinator names no size (protocol.v1.target-result-size's default). */
export const DEFAULT_TARGET_BYTES = 1 << 20;
