import { RowRandomInt } from './row-random-int.js';
import { RowRandomLong } from './row-random-long.js';

/** Key stream: 32-bit like dbgen below scale factor 30000, 64-bit above. */
export class RandomBoundedLong {
  private readonly int: RowRandomInt | null;
  private readonly long: RowRandomLong | null;
  private readonly low: number;
  private readonly high: number;

  constructor(seed: number, use64Bits: boolean, low: number, high: number, expectedRowCount = 1) {
    this.int = use64Bits ? null : new RowRandomInt(seed, expectedRowCount);
    this.long = use64Bits ? new RowRandomLong(seed, expectedRowCount) : null;
    this.low = low;
    this.high = high;
  }

  nextValue(): number {
    if (this.int !== null) return this.int.nextInt(this.low | 0, this.high | 0);
    return this.long!.nextLong(this.low, this.high);
  }

  rowFinished(): void {
    if (this.int !== null) this.int.rowFinished();
    else this.long!.rowFinished();
  }

  advanceRows(rowCount: number): void {
    if (this.int !== null) this.int.advanceRows(rowCount);
    else this.long!.advanceRows(rowCount);
  }
}
