// Pulls rendered row batches out of an Execution on demand and hands them to the query actor.
// Demand-driven (the query pulls as the client takes pages) so a slow client never makes the
// coordinator buffer a whole result. A plain object owned by the query's RUNNING state (started on
// entry, stopped on exit) rather than an invoked actor: one actor fewer per query was a measurable
// share of the actor layer's cost, and it has no states of its own worth observing.
import type { Execution, ExecutionProgress, Plan, RowBatch } from '../engine/engine.types.js';
import { VivaceError } from '../protocol/vivace-error.js';

export type ResultPumpEvent =
  | { type: 'results.batch'; batch: RowBatch; progress: ExecutionProgress }
  /** The end of the result; `batch` is its last rows when the engine knew they were the last. */
  | { type: 'results.end'; batch?: RowBatch; updateCount?: number; progress: ExecutionProgress }
  | { type: 'results.failed'; error: VivaceError }
  /** While a batch is awaited: the figures of an engine's sub-stages (a distributed query's leaves) so far. */
  | { type: 'results.progress'; progress: ExecutionProgress };

/** How often an awaited batch's sub-stage figures are reported (only for executions that report sub-stages). */
export const SUB_STAGE_PROGRESS_INTERVAL_MS = 500;

export class ResultPump {
  private execution?: Execution;
  private sink?: (event: ResultPumpEvent) => void;
  private fetching = false;
  private ended = false;

  /** `prefetch`: batches fetched ahead of the client before it pulls. */
  constructor(
    private readonly plan: Plan,
    private readonly targetBytes: number,
    private demand: number,
  ) {}

  /** Executes the plan and starts fetching; every outcome goes to `sink` (never synchronously). */
  start(sink: (event: ResultPumpEvent) => void): void {
    this.sink = sink;
    try {
      this.execution = this.plan.execute();
    } catch (err) {
      this.ended = true;
      const error = VivaceError.from(err);
      queueMicrotask(() => sink({ type: 'results.failed', error }));
      return;
    }
    void this.pump();
  }

  /** The client took pages: fetch `count` more batches. */
  pull(count: number): void {
    if (count <= 0) return;
    this.demand += count;
    void this.pump();
  }

  /** Leaving RUNNING early (cancel, failure, time limit) interrupts the engine. Idempotent. */
  stop(): void {
    if (this.ended) return;
    this.ended = true;
    this.execution?.cancel();
  }

  private async pump(): Promise<void> {
    const execution = this.execution;
    if (!execution || this.fetching || this.ended || this.demand <= 0) return;
    this.fetching = true;
    this.demand--;
    let event: ResultPumpEvent;
    // Only an execution with sub-stages (their work precedes its first rows) has figures worth a timer.
    const ticker = execution.progress().subStages === undefined ? undefined : setInterval(() => {
      if (!this.ended) this.sink!({ type: 'results.progress', progress: execution.progress() });
    }, SUB_STAGE_PROGRESS_INTERVAL_MS);
    try {
      const batch = await execution.next(this.targetBytes);
      if (batch === null || execution.exhausted === true) {
        // The last batch travels with the end: one event (and one client page) less for small results.
        event = { type: 'results.end', ...(batch ? { batch } : {}), updateCount: execution.updateCount, progress: execution.progress() };
      } else {
        event = { type: 'results.batch', batch, progress: execution.progress() };
      }
    } catch (err) {
      event = { type: 'results.failed', error: VivaceError.from(err) };
    } finally {
      if (ticker) clearInterval(ticker);
      this.fetching = false;
    }
    if (this.ended) return;
    if (event.type !== 'results.batch') this.ended = true;
    this.sink!(event);
    void this.pump();
  }
}
