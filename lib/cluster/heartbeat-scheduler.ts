// One timer for every node the failure detector watches. Each node actor registers here while it is
// monitoring; the scheduler sends its ping when due (every heartbeat interval, at a fixed rate like upstream,
// whether the last one was answered or not) and hands each outcome back as one event. With 1,000 nodes that is one pending timer instead of 1,000, and no child actor, abort
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
  /** False once unwatched: it is skipped in the heap and its answers in flight are dropped. */
  active: boolean;
  /** Pings sent and not answered yet (a node that hangs has timeout / interval of them, 2 by default). */
  inFlight: Set<Pending>;
}

interface Pending {
  requestTime: number;
  /** Answered, failed or given up on: a later outcome is ignored. */
  done: boolean;
}

/**
 * Pings of one node unanswered at once, beyond which a due ping is skipped (not sent, not counted): only
 * reached when the ping timeout is several intervals long.
 */
const MAX_IN_FLIGHT = 4;

/**
 * A ping still unsettled this long after its own timeout counts as failed (TimeoutError) and frees its slot:
 * a transport that never settles must not freeze a node's health (after 4 such pings it would never be
 * asked again, ALIVE for ever). pingStatus always settles by its timeout; this guards other transports.
 */
const GIVE_UP_AFTER_TIMEOUT_MS = 1_000;

const realClock: SchedulerClock = {
  setTimeout: (fn, timeoutMs) => setTimeout(fn, timeoutMs).unref(), // the detector alone keeps no process alive
  clearTimeout: (id) => clearTimeout(id as NodeJS.Timeout),
};

export class HeartbeatScheduler {
  /** Binary min-heap by (due, seq) of every watched node (and unwatched ones not yet popped). */
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
    const entry: Entry = { node, due: this.options.now() + node.intervalMs, seq: this.seq++, active: true, inFlight: new Set() };
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
      if (!entry.active) continue;
      this.giveUpOnStuck(entry, now);
      if (entry.active && entry.inFlight.size < MAX_IN_FLIGHT) this.send(entry, now);
      // Fixed rate, like upstream's scheduleAtFixedRate: the next ping is due one interval after this one
      // was due, answered or not, so a node that hangs is still asked twice a second. After a stall longer
      // than an interval the missed pings are skipped, not sent in a burst.
      entry.due += entry.node.intervalMs;
      if (entry.due <= now) entry.due = now + entry.node.intervalMs;
      this.push(entry);
    }
    this.arm();
  }

  private send(entry: Entry, requestTime: number): void {
    const pending: Pending = { requestTime, done: false };
    entry.inFlight.add(pending);
    let answer: Promise<number>;
    try {
      answer = this.options.ping(entry.node.uri, entry.node.timeoutMs);
    } catch (err) {
      answer = Promise.reject(err);
    }
    answer.then(
      () => this.settle(entry, pending, false, undefined),
      (error: unknown) => this.settle(entry, pending, true, error),
    );
  }

  private giveUpOnStuck(entry: Entry, now: number): void {
    for (const pending of entry.inFlight) {
      if (now - pending.requestTime <= entry.node.timeoutMs + GIVE_UP_AFTER_TIMEOUT_MS) continue;
      const error = new Error(`no answer and no failure within ${entry.node.timeoutMs + GIVE_UP_AFTER_TIMEOUT_MS} ms`);
      error.name = 'TimeoutError';
      this.settle(entry, pending, true, error);
    }
  }

  private settle(entry: Entry, pending: Pending, failed: boolean, error: unknown): void {
    if (pending.done) return;
    pending.done = true;
    entry.inFlight.delete(pending);
    if (!entry.active) return;
    const { requestTime } = pending;
    const responseTime = this.options.now();
    entry.node.deliver(failed ? { requestTime, responseTime, failed, error } : { requestTime, responseTime, failed });
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
