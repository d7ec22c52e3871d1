// How many workers the cluster needs before it runs a statement (Trino's ClusterSizeMonitor with
// query-manager.required-workers and query-manager.required-workers-max-wait): a statement that finds
// fewer active workers waits for them, and fails with GENERIC_INSUFFICIENT_RESOURCES past the wait. It
// also says when the coordinator has started (/v1/info `starting`, the serve command's ready line): the
// first time enough workers are active. The count is polled (the worker list is cheap and cached), only
// while someone waits or the start is not over, on an injected clock.
import { formatDuration } from '../protocol/duration.js';
import { VivaceError } from '../protocol/vivace-error.js';
import type { PlanAbort } from '../engine/plan-abort.js';
import type { SchedulerClock } from './heartbeat-scheduler.js';

export interface ClusterSizeMonitorOptions {
  /** Workers alive now (discovered and not failed by the detector). */
  activeWorkers(): number;
  /** query-manager.required-workers (Trino's default 1). */
  requiredWorkers: number;
  /** query-manager.required-workers-max-wait (Trino's default 5m). */
  maxWaitMs: number;
  /** Timers (SimulatedClock in specs). */
  clock?: SchedulerClock;
  /** How often the count is read while someone waits (default 100 ms). */
  pollMs?: number;
  /** What else the start waits for (serve: its local memory worker active), besides the required workers. */
  startedWhen?(): boolean;
}

interface Waiter {
  /** Whether what it waits for holds now (read at every poll). */
  ready(): boolean;
  /** Called once when it does. */
  settle(): void;
}

/** Longest delay a timer can hold. */
const MAX_TIMER_MS = 2 ** 31 - 1;

const REAL_CLOCK: SchedulerClock = { setTimeout: (fn, ms) => setTimeout(fn, ms), clearTimeout: (id) => clearTimeout(id as NodeJS.Timeout) };

export class ClusterSizeMonitor {
  private readonly clock: SchedulerClock;
  private readonly pollMs: number;
  private readonly waiters = new Set<Waiter>();
  private poll: unknown;
  private startedFlag = false;
  private stopped = false;

  constructor(private readonly options: ClusterSizeMonitorOptions) {
    this.clock = options.clock ?? REAL_CLOCK;
    this.pollMs = options.pollMs ?? 100;
  }

  get requiredWorkers(): number {
    return this.options.requiredWorkers;
  }

  /** True until the required workers were active once (one-way, as Trino's `starting`). */
  get starting(): boolean {
    return !this.started();
  }

  /** Begins watching the count, so that the start ends (and `onStarted` runs) with no statement waiting. */
  start(onStarted?: () => void): void {
    if (this.started()) {
      onStarted?.();
      return;
    }
    this.add({ ready: () => this.started(), settle: () => onStarted?.() });
  }

  /**
   * Resolves once the required workers are active (at once when they are); rejects with Trino's
   * GENERIC_INSUFFICIENT_RESOURCES after the max wait, or with the abort's reason when the query ends first.
   */
  async waitForMinimumWorkers(abort?: PlanAbort): Promise<void> {
    if (!(await this.waitUntil(() => this.enough(), abort))) throw this.insufficient();
  }

  /**
   * Resolves true once `condition` holds (polled), false after the max wait; rejects with the abort's reason
   * when the query ends first. For what a statement needs besides the count (the memory catalog's worker).
   */
  waitUntil(condition: () => boolean, abort?: PlanAbort): Promise<boolean> {
    if (condition()) return Promise.resolve(true);
    if (abort?.aborted) return Promise.reject(abort.reason);
    return new Promise<boolean>((resolve, reject) => {
      const timer = this.clock.setTimeout(() => {
        finish();
        resolve(false);
      }, Math.min(this.options.maxWaitMs, MAX_TIMER_MS));
      const removeAbort = abort?.onAbort(() => {
        finish();
        reject(abort.reason);
      });
      const waiter: Waiter = {
        ready: condition,
        settle: () => {
          finish();
          resolve(true);
        },
      };
      const finish = () => {
        this.clock.clearTimeout(timer);
        removeAbort?.();
        this.waiters.delete(waiter);
      };
      this.add(waiter);
    });
  }

  /** Resolves true once the start is over, false if `timeoutMs` passes first. */
  whenStarted(timeoutMs: number): Promise<boolean> {
    if (this.started()) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const timer = this.clock.setTimeout(() => {
        this.waiters.delete(waiter);
        resolve(false);
      }, Math.min(timeoutMs, MAX_TIMER_MS));
      const waiter: Waiter = {
        ready: () => this.started(),
        settle: () => {
          this.clock.clearTimeout(timer);
          resolve(true);
        },
      };
      this.add(waiter);
    });
  }

  stop(): void {
    this.stopped = true;
    if (this.poll !== undefined) this.clock.clearTimeout(this.poll);
    this.poll = undefined;
  }

  private enough(): boolean {
    return this.options.activeWorkers() >= this.options.requiredWorkers;
  }

  /** The start is over once the required workers (and whatever `startedWhen` adds) were there, for good. */
  private started(): boolean {
    if (!this.startedFlag && this.enough() && (this.options.startedWhen?.() ?? true)) this.startedFlag = true;
    return this.startedFlag;
  }

  private insufficient(): VivaceError {
    const { requiredWorkers, maxWaitMs } = this.options;
    return new VivaceError(
      'GENERIC_INSUFFICIENT_RESOURCES',
      `Insufficient active worker nodes. Waited ${formatDuration(maxWaitMs)} for at least ${requiredWorkers} workers, but only ${this.options.activeWorkers()} workers are active`,
    );
  }

  private add(waiter: Waiter): void {
    this.waiters.add(waiter);
    this.schedulePoll();
  }

  private schedulePoll(): void {
    if (this.poll !== undefined || this.stopped) return;
    this.poll = this.clock.setTimeout(() => {
      this.poll = undefined;
      for (const waiter of [...this.waiters]) {
        if (!waiter.ready()) continue;
        this.waiters.delete(waiter);
        waiter.settle();
      }
      if (this.waiters.size > 0) this.schedulePoll();
    }, this.pollMs);
  }
}
