// One timer for every node the failure detector watches. Each node actor registers here while it is
// monitoring; the scheduler sends its ping when due (every heartbeat interval) and hands the outcome back
// as one event. With 1,000 nodes that is one pending timer instead of 1,000, and no child actor, abort
// controller or timer cancel per ping (the per-actor design cost more CPU than the pings themselves).
import type { PingTransport } from './heartbeat-ping.js';

/** A ping's outcome. `failed` is false for any HTTP answer; `error` says why when it is true. */
export interface PingResult {
  /** Epoch ms when the ping was sent. */
  requestTime: number;
  /** Epoch ms when it was answered or failed. */
  responseTime: number;
  failed: boolean;
  error?: unknown;
}

export interface WatchedNode {
  /** Where the ping goes: the node's `{http}/v1/status`. */
  uri: string;
  intervalMs: number;
  timeoutMs: number;
  /** Receives every ping outcome while the node is watched. */
  deliver(result: PingResult): void;
}

/** The part of XState's clock the scheduler uses (SimulatedClock in specs, real timers otherwise). */
export interface SchedulerClock {
  setTimeout(fn: () => void, timeoutMs: number): unknown;
  clearTimeout(id: unknown): void;
}

export interface HeartbeatSchedulerOptions {
  ping: PingTransport;
  /** Epoch-millisecond time, matching `clock`. */
  now: () => number;
  clock?: SchedulerClock;
}

interface Entry {
  node: WatchedNode;
  /** Epoch ms of the next ping. */
  due: number;
  /** Tie-break for equal due times: first watched, first pinged. */
  seq: number;
  /** False once unwatched: it is skipped in the heap and its answer in flight is dropped. */
  active: boolean;
}

const realClock: SchedulerClock = {
  setTimeout: (fn, timeoutMs) => setTimeout(fn, timeoutMs).unref(), // the detector alone keeps no process alive
  clearTimeout: (id) => clearTimeout(id as NodeJS.Timeout),
};

export class HeartbeatScheduler {
  /** Binary min-heap by (due, seq) of the nodes waiting for their next ping (not those in flight). */
  private readonly heap: Entry[] = [];
  private readonly entries = new Map<object, Entry>();
  private readonly clock: SchedulerClock;
  private timer: unknown;
  private armedFor = Infinity;
  private seq = 0;
  private stopped = false;

  constructor(private readonly options: HeartbeatSchedulerOptions) {
    this.clock = options.clock ?? realClock;
  }

  /** Number of nodes watched now. */
  get size(): number {
    return this.entries.size;
  }

  /**
   * Ping `node` every `intervalMs`, first one interval from now, as long as `key` is watched. Watching a key
   * again replaces its node (an answer still in flight for the old one is dropped).
   */
  watch(key: object, node: WatchedNode): void {
    if (this.stopped) return;
    this.unwatch(key);
    const entry: Entry = { node, due: this.options.now() + node.intervalMs, seq: this.seq++, active: true };
    this.entries.set(key, entry);
    this.push(entry);
    this.arm();
  }

  unwatch(key: object): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    entry.active = false;
    this.entries.delete(key);
  }

  /** Forget every node and the timer; answers in flight are dropped. */
  stop(): void {
    this.stopped = true;
    for (const key of [...this.entries.keys()]) this.unwatch(key);
    this.heap.length = 0;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private fire(): void {
    this.timer = undefined;
    this.armedFor = Infinity;
    const now = this.options.now();
    while (this.heap.length > 0 && this.heap[0]!.due <= now) {
      const entry = this.pop();
      if (entry.active) this.send(entry, now);
    }
    this.arm();
  }

  private send(entry: Entry, requestTime: number): void {
    let answer: Promise<number>;
    try {
      answer = this.options.ping(entry.node.uri, entry.node.timeoutMs);
    } catch (err) {
      answer = Promise.reject(err);
    }
    answer.then(
      () => this.settle(entry, requestTime, false, undefined),
      (error: unknown) => this.settle(entry, requestTime, true, error),
    );
  }

  // Pings never overlap for one node: the next is due one interval after this one was sent, or at once when
  // the answer took longer than that.
  private settle(entry: Entry, requestTime: number, failed: boolean, error: unknown): void {
    if (!entry.active) return;
    const responseTime = this.options.now();
    entry.node.deliver(failed ? { requestTime, responseTime, failed, error } : { requestTime, responseTime, failed });
    if (!entry.active) return; // the delivery ended the watch
    entry.due = Math.max(requestTime + entry.node.intervalMs, responseTime);
    this.push(entry);
    this.arm();
  }

  private arm(): void {
    while (this.heap.length > 0 && !this.heap[0]!.active) this.pop();
    const next = this.heap[0];
    if (this.stopped || !next) return;
    if (this.timer !== undefined) {
      if (this.armedFor <= next.due) return;
      this.clock.clearTimeout(this.timer);
    }
    this.armedFor = next.due;
    this.timer = this.clock.setTimeout(() => this.fire(), Math.max(0, next.due - this.options.now()));
  }

  private push(entry: Entry): void {
    const heap = this.heap;
    heap.push(entry);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(entry, heap[parent]!)) break;
      heap[i] = heap[parent]!;
      i = parent;
    }
    heap[i] = entry;
  }

  private pop(): Entry {
    const heap = this.heap;
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length > 0) {
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        if (left >= heap.length) break;
        const right = left + 1;
        const child = right < heap.length && before(heap[right]!, heap[left]!) ? right : left;
        if (!before(heap[child]!, last)) break;
        heap[i] = heap[child]!;
        i = child;
      }
      heap[i] = last;
    }
    return top;
  }
}

function before(a: Entry, b: Entry): boolean {
  return a.due < b.due || (a.due === b.due && a.seq < b.seq);
}
