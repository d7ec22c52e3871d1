import { RowRandomInt } from './row-random-int.js';

/** A stream of ints uniform in a fixed [low, high]. */
export class RandomBoundedInt extends RowRandomInt {
  private readonly low: number;
  private readonly high: number;

  constructor(seed: number, low: number, high: number, expectedRowCount = 1) {
    super(seed, expectedRowCount);
    this.low = low;
    this.high = high;
  }

  nextValue(): number {
    return this.nextInt(this.low, this.high);
  }
}
