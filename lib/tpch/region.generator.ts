import type { ByteWriter } from './byte-writer.js';
import type { TpchDistributions } from './distributions.js';
import { RandomText } from './random-text.js';
import { DELIMITER, NEWLINE, type TpchRowGenerator } from './row-generator.js';
import type { TextPool } from './text-pool.js';

const COMMENT_AVERAGE_LENGTH = 72;

/** region: the 5 regions of dists.dss. Not scaled; only part 1 has rows. */
export class RegionGenerator implements TpchRowGenerator {
  private readonly names: TpchDistributions['regions'];
  private readonly comment: RandomText;
  private readonly count: number;
  private index = -1;

  constructor(dists: TpchDistributions, pool: TextPool, part: number) {
    this.names = dists.regions;
    this.comment = new RandomText(1500869201, pool, COMMENT_AVERAGE_LENGTH);
    this.count = part === 1 ? this.names.size : 0;
  }

  next(): boolean {
    if (this.index >= 0) this.comment.rowFinished();
    if (++this.index >= this.count) return false;
    this.comment.next();
    return true;
  }

  values(): unknown[] {
    return [this.index, this.names.values[this.index], this.comment.value()];
  }

  write(out: ByteWriter): void {
    out.int(this.index);
    out.byte(DELIMITER);
    out.bytes(this.names.bytes[this.index]);
    out.byte(DELIMITER);
    out.bytes(this.comment.pool.bytes, this.comment.begin, this.comment.end);
    out.byte(NEWLINE);
  }
}
