import type { Distribution } from './distribution.js';
import { RowRandomInt } from './row-random-int.js';

/** Weighted picks from one distribution; `nextIndex` avoids strings for writers. */
export class RandomString extends RowRandomInt {
  readonly distribution: Distribution;

  constructor(seed: number, distribution: Distribution, expectedRowCount = 1) {
    super(seed, expectedRowCount);
    this.distribution = distribution;
  }

  nextIndex(): number {
    return this.distribution.randomIndex(this);
  }
}
