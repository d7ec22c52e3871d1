// airlift's DecayCounter (stats/DecayCounter.java with ExponentialDecay.oneMinute()): a forward-decaying count
// where each event weighs e^(-alpha * age in whole seconds). The failure detector keeps one per node counter.

/** Rescale the landmark once it is this old, so that e^(alpha * (now - landmark)) never overflows. */
const RESCALE_THRESHOLD_SECONDS = 50;

export class DecayCounter {
  private landmarkSeconds: number;
  private weightedCount = 0;

  /**
   * @param alphaPerSecond decay rate; 1/60 (one minute) makes 1000 events fall to ~367.9 after 60 s idle
   * @param now epoch-millisecond clock; airlift reads time in whole seconds, and so does this counter
   */
  constructor(
    private readonly alphaPerSecond: number = 1 / 60,
    private readonly now: () => number = Date.now,
  ) {
    this.landmarkSeconds = this.tickSeconds();
  }

  add(value: number): void {
    const nowSeconds = this.tickSeconds();
    if (nowSeconds - this.landmarkSeconds >= RESCALE_THRESHOLD_SECONDS) this.rescaleTo(nowSeconds);
    this.weightedCount += value * this.weight(nowSeconds);
  }

  /** The decayed count at the clock's current second. */
  count(): number {
    return this.weightedCount / this.weight(this.tickSeconds());
  }

  /**
   * An independent copy with the same state and clock (airlift's duplicate()); machines copy a counter
   * before adding so that every snapshot keeps its own, unchanged counters.
   */
  duplicate(): DecayCounter {
    const copy = new DecayCounter(this.alphaPerSecond, this.now);
    copy.landmarkSeconds = this.landmarkSeconds;
    copy.weightedCount = this.weightedCount;
    return copy;
  }

  /** A copy with `value` added: the immutable form of add() that machine actions use. */
  plus(value: number): DecayCounter {
    const copy = this.duplicate();
    copy.add(value);
    return copy;
  }

  private rescaleTo(nowSeconds: number): void {
    this.weightedCount /= this.weight(nowSeconds);
    this.landmarkSeconds = nowSeconds;
  }

  private weight(atSeconds: number): number {
    return Math.exp(this.alphaPerSecond * (atSeconds - this.landmarkSeconds));
  }

  private tickSeconds(): number {
    // Java's NANOSECONDS.toSeconds truncates toward zero.
    return Math.trunc(this.now() / 1000);
  }
}
