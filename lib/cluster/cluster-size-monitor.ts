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
}

interface Waiter {
  /** Called with true once enough workers are active, false when its own timer or abort ends it. */
  settle(enough: boolean): void;
}

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
    if (!this.startedFlag && this.enough()) this.startedFlag = true;
    return !this.startedFlag;
  }

  /** Begins watching the count, so that the start ends (and `onStarted` runs) with no statement waiting. */
  start(onStarted?: () => void): void {
    if (!this.starting) {
      onStarted?.();
      return;
    }
    this.waiters.add({ settle: () => onStarted?.() });
    this.schedulePoll();
  }

  /**
   * Resolves once the required workers are active (at once when they are); rejects with Trino's
   * GENERIC_INSUFFICIENT_RESOURCES after the max wait, or with the abort's reason when the query ends first.
   */
  waitForMinimumWorkers(abort?: PlanAbort): Promise<void> {
    if (this.enough()) return Promise.resolve();
    if (abort?.aborted) return Promise.reject(abort.reason);
    return new Promise<void>((resolve, reject) => {
      const timer = this.clock.setTimeout(() => {
        finish();
        reject(this.insufficient());
      }, Math.min(this.options.maxWaitMs, 2 ** 31 - 1));
      const removeAbort = abort?.onAbort(() => {
        finish();
        reject(abort.reason);
      });
      const waiter: Waiter = {
        settle: (enough) => {
          if (!enough) return;
          finish();
          resolve();
        },
      };
      const finish = () => {
        this.clock.clearTimeout(timer);
        removeAbort?.();
        this.waiters.delete(waiter);
      };
      this.waiters.add(waiter);
      this.schedulePoll();
    });
  }

  /** Resolves true once the start is over, false if `timeoutMs` passes first. */
  whenStarted(timeoutMs: number): Promise<boolean> {
    if (!this.starting) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const waiter: Waiter = {
        settle: (enough) => {
          this.clock.clearTimeout(timer);
          this.waiters.delete(waiter);
          resolve(enough);
        },
      };
      const timer = this.clock.setTimeout(() => waiter.settle(false), Math.min(timeoutMs, 2 ** 31 - 1));
      this.waiters.add(waiter);
      this.schedulePoll();
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

  private insufficient(): VivaceError {
    const { requiredWorkers, maxWaitMs } = this.options;
    return new VivaceError(
      'GENERIC_INSUFFICIENT_RESOURCES',
      `Insufficient active worker nodes. Waited ${formatDuration(maxWaitMs)} for at least ${requiredWorkers} workers, but only ${this.options.activeWorkers()} workers are active`,
    );
  }

  private schedulePoll(): void {
    if (this.poll !== undefined || this.stopped) return;
    this.poll = this.clock.setTimeout(() => {
      this.poll = undefined;
      if (this.enough()) {
        this.startedFlag = true;
        for (const waiter of [...this.waiters]) waiter.settle(true);
        this.waiters.clear();
      }
      if (this.waiters.size > 0) this.schedulePoll();
    }, this.pollMs);
  }
}
