import type { Distribution } from './distribution.js';
import { RowRandomInt } from './row-random-int.js';

/**
 * `count` distinct words of a distribution, by a partial Fisher-Yates shuffle
 * (part names: 5 colors). The chosen value indices are left in `indices`.
 */
export class RandomStringSequence extends RowRandomInt {
  readonly distribution: Distribution;
  readonly count: number;
  readonly indices: Int32Array;

  constructor(seed: number, count: number, distribution: Distribution, expectedRowCount = 1) {
    super(seed, distribution.size * expectedRowCount);
    if (count >= distribution.size) throw new Error('count must be less than the distribution size');
    this.distribution = distribution;
    this.count = count;
    this.indices = new Int32Array(distribution.size);
  }

  next(): void {
    const indices = this.indices;
    for (let i = 0; i < indices.length; i++) indices[i] = i;
    for (let position = 0; position < this.count; position++) {
      const swap = this.nextInt(position, indices.length - 1);
      const t = indices[position];
      indices[position] = indices[swap];
      indices[swap] = t;
    }
  }

  value(): string {
    const words: string[] = [];
    for (let i = 0; i < this.count; i++) words.push(this.distribution.values[this.indices[i]]);
    return words.join(' ');
  }
}
