import type { ByteWriter } from './byte-writer.js';
import type { TpchDistributions } from './distributions.js';
import { RandomText } from './random-text.js';
import { DELIMITER, NEWLINE, type TpchRowGenerator } from './row-generator.js';
import type { TextPool } from './text-pool.js';

const COMMENT_AVERAGE_LENGTH = 72;

/**
 * nation: the 25 nations of dists.dss; the running sum of their "weights" is the
 * region key. Not scaled; only part 1 has rows.
 */
export class NationGenerator implements TpchRowGenerator {
  private readonly nations: TpchDistributions['nations'];
  private readonly comment: RandomText;
  private readonly count: number;
  private index = -1;

  constructor(dists: TpchDistributions, pool: TextPool, part: number) {
    this.nations = dists.nations;
    this.comment = new RandomText(606179079, pool, COMMENT_AVERAGE_LENGTH);
    this.count = part === 1 ? this.nations.size : 0;
  }

  next(): boolean {
    if (this.index >= 0) this.comment.rowFinished();
    if (++this.index >= this.count) return false;
    this.comment.next();
    return true;
  }

  values(): unknown[] {
    const i = this.index;
    return [i, this.nations.values[i], this.nations.cumulativeWeights[i], this.comment.value()];
  }

  write(out: ByteWriter): void {
    const i = this.index;
    out.int(i);
    out.byte(DELIMITER);
    out.bytes(this.nations.bytes[i]);
    out.byte(DELIMITER);
    out.int(this.nations.cumulativeWeights[i]);
    out.byte(DELIMITER);
    out.bytes(this.comment.pool.bytes, this.comment.begin, this.comment.end);
    out.byte(NEWLINE);
  }
}
