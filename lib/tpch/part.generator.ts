import type { ByteWriter } from './byte-writer.js';
import type { Distribution } from './distribution.js';
import type { TpchDistributions } from './distributions.js';
import { centsToDouble } from './money.js';
import { checkPart, partRowCount, partStartIndex } from './partitioning.js';
import { RandomBoundedInt } from './random-bounded-int.js';
import { RandomString } from './random-string.js';
import { RandomStringSequence } from './random-string-sequence.js';
import { RandomText } from './random-text.js';
import { DELIMITER, NEWLINE, type TpchRowGenerator } from './row-generator.js';
import type { TextPool } from './text-pool.js';

export const PART_SCALE_BASE = 200_000;
const NAME_WORDS = 5;
const COMMENT_AVERAGE_LENGTH = 14;
const MFGR_PREFIX = Buffer.from('Manufacturer#', 'latin1');
const BRAND_PREFIX = Buffer.from('Brand#', 'latin1');

/** Retail price in cents, a function of the key (lineitem prices derive from it too). */
export function partPrice(partKey: number): number {
  return 90000 + (Math.floor(partKey / 10) % 20001) + (partKey % 1000) * 100;
}

export class PartGenerator implements TpchRowGenerator {
  private readonly name: RandomStringSequence;
  private readonly manufacturerRandom = new RandomBoundedInt(1, 1, 5);
  private readonly brandRandom = new RandomBoundedInt(46831694, 1, 5);
  private readonly type: RandomString;
  private readonly sizeRandom = new RandomBoundedInt(1193163244, 1, 50);
  private readonly container: RandomString;
  private readonly comment: RandomText;
  private readonly colors: Distribution;
  private readonly types: Distribution;
  private readonly containers: Distribution;
  private readonly startIndex: number;
  private readonly rowCount: number;
  private index = -1;

  private key = 0;
  private manufacturer = 0;
  private brand = 0;
  private typeIndex = 0;
  private size = 0;
  private containerIndex = 0;

  constructor(scaleFactor: number, part: number, partCount: number, dists: TpchDistributions, pool: TextPool) {
    checkPart(scaleFactor, part, partCount);
    this.colors = dists.partColors;
    this.types = dists.partTypes;
    this.containers = dists.partContainers;
    this.name = new RandomStringSequence(709314158, NAME_WORDS, dists.partColors);
    this.type = new RandomString(1841581359, dists.partTypes);
    this.container = new RandomString(727633698, dists.partContainers);
    this.comment = new RandomText(804159733, pool, COMMENT_AVERAGE_LENGTH);
    this.startIndex = partStartIndex(PART_SCALE_BASE, scaleFactor, part, partCount);
    this.rowCount = partRowCount(PART_SCALE_BASE, scaleFactor, part, partCount);
    for (const r of [this.name, this.manufacturerRandom, this.brandRandom, this.type, this.sizeRandom,
      this.container, this.comment]) r.advanceRows(this.startIndex);
  }

  next(): boolean {
    if (this.index >= 0) {
      this.name.rowFinished();
      this.manufacturerRandom.rowFinished();
      this.brandRandom.rowFinished();
      this.type.rowFinished();
      this.sizeRandom.rowFinished();
      this.container.rowFinished();
      this.comment.rowFinished();
    }
    if (++this.index >= this.rowCount) return false;
    this.key = this.startIndex + this.index + 1;
    this.name.next();
    this.manufacturer = this.manufacturerRandom.nextValue();
    this.brand = this.manufacturer * 10 + this.brandRandom.nextValue();
    this.typeIndex = this.type.nextIndex();
    this.size = this.sizeRandom.nextValue();
    this.containerIndex = this.container.nextIndex();
    this.comment.next();
    return true;
  }

  values(): unknown[] {
    return [
      this.key,
      this.name.value(),
      `Manufacturer#${this.manufacturer}`,
      `Brand#${this.brand}`,
      this.types.values[this.typeIndex],
      this.size,
      this.containers.values[this.containerIndex],
      centsToDouble(partPrice(this.key)),
      this.comment.value(),
    ];
  }

  write(out: ByteWriter): void {
    out.int(this.key);
    out.byte(DELIMITER);
    for (let i = 0; i < NAME_WORDS; i++) {
      if (i > 0) out.byte(0x20);
      out.bytes(this.colors.bytes[this.name.indices[i]]);
    }
    out.byte(DELIMITER);
    out.bytes(MFGR_PREFIX);
    out.int(this.manufacturer);
    out.byte(DELIMITER);
    out.bytes(BRAND_PREFIX);
    out.int(this.brand);
    out.byte(DELIMITER);
    out.bytes(this.types.bytes[this.typeIndex]);
    out.byte(DELIMITER);
    out.int(this.size);
    out.byte(DELIMITER);
    out.bytes(this.containers.bytes[this.containerIndex]);
    out.byte(DELIMITER);
    out.money(partPrice(this.key));
    out.byte(DELIMITER);
    out.bytes(this.comment.pool.bytes, this.comment.begin, this.comment.end);
    out.byte(NEWLINE);
  }
}
