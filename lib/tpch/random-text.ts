import { RowRandomInt } from './row-random-int.js';
import type { TextPool } from './text-pool.js';

/** A comment: a slice of the text pool at a random offset, length in [0.4, 1.6] x average. */
export class RandomText extends RowRandomInt {
  readonly pool: TextPool;
  private readonly minLength: number;
  private readonly maxLength: number;
  begin = 0;
  end = 0;

  constructor(seed: number, pool: TextPool, averageLength: number, expectedRowCount = 1) {
    super(seed, 2 * expectedRowCount);
    this.pool = pool;
    this.minLength = Math.trunc(averageLength * 0.4);
    this.maxLength = Math.trunc(averageLength * 1.6);
  }

  next(): void {
    this.begin = this.nextInt(0, this.pool.size - this.maxLength);
    this.end = this.begin + this.nextInt(this.minLength, this.maxLength);
  }

  value(): string {
    return this.pool.getText(this.begin, this.end);
  }
}
