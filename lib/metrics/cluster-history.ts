// The last minutes of the cluster's activity, per second, for the web UI's chart: queries started and
// ended and the rows they processed. A fixed ring fed by the tracker's query events (query-events.ts),
// so it costs O(1) per event, needs no timer and never grows.
import type { QueryView } from '../actors/query-view.js';
import { totalCounters } from '../protocol/statement-stats.js';
import type { HistorySample } from '../ui/history-sample.js';
import type { QueryEventListener } from './query-events.js';

export type { HistorySample };

/** Five minutes of one-second samples. */
export const DEFAULT_HISTORY_SECONDS = 300;

export class ClusterHistory implements QueryEventListener {
  private readonly stamps: Float64Array;
  private readonly counts: Float64Array[];

  /** `now`: the coordinator's clock (injected, so specs drive it). */
  constructor(
    private readonly now: () => number,
    readonly seconds = DEFAULT_HISTORY_SECONDS,
  ) {
    this.stamps = new Float64Array(seconds).fill(-1);
    this.counts = Array.from({ length: 5 }, () => new Float64Array(seconds));
  }

  started(): void {
    this.counts[0]![this.slot()]++;
  }

  /**
   * A query's rows are counted in the second it ended: the tracker reports a query once, at its end, so a
   * long query's rows land together (the chart shows completed work, as its totals do).
   */
  ended(view: QueryView): void {
    const slot = this.slot();
    this.counts[view.state === 'FAILED' ? 2 : 1]![slot]++;
    this.counts[3]![slot] += totalCounters(view).physicalInputRows;
    this.counts[4]![slot] += view.outputRows;
  }

  /** Every second of the window, oldest first, ending with the current one; seconds without events are zero. */
  samples(): HistorySample[] {
    const current = Math.floor(this.now() / 1000);
    const out: HistorySample[] = [];
    for (let second = current - this.seconds + 1; second <= current; second++) {
      const slot = this.index(second);
      const live = this.stamps[slot] === second;
      const value = (series: number) => (live ? this.counts[series]![slot]! : 0);
      out.push({ time: second * 1000, started: value(0), finished: value(1), failed: value(2), processedRows: value(3), outputRows: value(4) });
    }
    return out;
  }

  /** The current second's slot, cleared first when it still holds an older second. */
  private slot(): number {
    const second = Math.floor(this.now() / 1000);
    const slot = this.index(second);
    if (this.stamps[slot] !== second) {
      this.stamps[slot] = second;
      for (const series of this.counts) series[slot] = 0;
    }
    return slot;
  }

  private index(second: number): number {
    // Seconds before 1970 only under a fake clock: keep the index non-negative anyway.
    return ((second % this.seconds) + this.seconds) % this.seconds;
  }
}
