// Query ids in the upstream shape `YYYYMMdd_HHmmss_NNNNN_ccccc`: UTC second, a per-day counter and a
// coordinator id, so ids sort by creation time and stay unique across coordinators.
import { randomInt } from 'node:crypto';

/** Base-32 without the look-alikes l, o, 0, 1 (upstream's choice, so ids are easy to read aloud). */
const COORDINATOR_ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789';
const COORDINATOR_ID = /^[a-kmnp-z2-9]{5}$/;
const MAX_COUNTER = 99_999;

export class QueryIdGenerator {
  readonly coordinatorId: string;
  private lastSecond = -Infinity;
  private lastDay = '';
  private counter = 0;

  /** `now` is injected so specs can drive the clock; `coordinatorId` defaults to a random one. */
  constructor(
    private readonly now: () => number = Date.now,
    coordinatorId?: string,
  ) {
    if (coordinatorId !== undefined && !COORDINATOR_ID.test(coordinatorId)) {
      throw new RangeError(`Invalid coordinator id: ${coordinatorId}`);
    }
    this.coordinatorId = coordinatorId ?? randomCoordinatorId();
  }

  next(): string {
    // The printed second never goes back, so a clock step cannot re-enter a day whose counters were used.
    let second = Math.max(Math.floor(this.now() / 1000), this.lastSecond);
    if (this.counter > MAX_COUNTER) {
      // Upstream sleeps until the next second; we borrow it instead, which keeps next() synchronous
      // and ids unique: every id after the reset is in a later second than every id before it.
      second = Math.max(second, this.lastSecond + 1);
      this.counter = 0;
    }
    const stamp = formatUtcSecond(second);
    const day = stamp.slice(0, 8);
    if (day !== this.lastDay) {
      this.lastDay = day;
      this.counter = 0;
    }
    this.lastSecond = second;
    const id = `${stamp}_${String(this.counter).padStart(5, '0')}_${this.coordinatorId}`;
    this.counter += 1;
    return id;
  }
}

/** Upstream's QueryId rule: lowercase letters, digits and underscores only (ids appear in URLs unescaped). */
export function isValidQueryId(s: string): boolean {
  return /^[_a-z0-9]+$/.test(s);
}

function randomCoordinatorId(): string {
  let id = '';
  for (let i = 0; i < 5; i++) id += COORDINATOR_ALPHABET[randomInt(COORDINATOR_ALPHABET.length)];
  return id;
}

/** `YYYYMMdd_HHmmss` of an epoch second, in UTC. */
function formatUtcSecond(second: number): string {
  const d = new Date(second * 1000);
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return (
    `${p(d.getUTCFullYear(), 4)}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}_` +
    `${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}`
  );
}
