import type { ByteWriter } from './byte-writer.js';
import { centsToDouble } from './money.js';
import { PART_SCALE_BASE } from './part.generator.js';
import { checkPart, partRowCount, partStartIndex } from './partitioning.js';
import { RandomBoundedInt } from './random-bounded-int.js';
import { RandomText } from './random-text.js';
import { DELIMITER, NEWLINE, type TpchRowGenerator } from './row-generator.js';
import { SUPPLIER_SCALE_BASE } from './supplier.generator.js';
import type { TextPool } from './text-pool.js';

export const SUPPLIERS_PER_PART = 4;
const COMMENT_AVERAGE_LENGTH = 124;

/** The supplier key of the n-th (0..3) supplier of a part; lineitem picks from these too. */
export function selectPartSupplier(partKey: number, supplierNumber: number, scaleFactor: number): number {
  const supplierCount = Math.trunc(SUPPLIER_SCALE_BASE * scaleFactor);
  const stride = Math.floor(supplierCount / SUPPLIERS_PER_PART) + Math.floor((partKey - 1) / supplierCount);
  return ((partKey + supplierNumber * stride) % supplierCount) + 1;
}

/** partsupp: 4 rows per part; streams advance per part, so parts split on part keys. */
export class PartSuppGenerator implements TpchRowGenerator {
  private readonly availableQuantity = new RandomBoundedInt(1671059989, 1, 9999, SUPPLIERS_PER_PART);
  private readonly supplyCost = new RandomBoundedInt(1051288424, 100, 100000, SUPPLIERS_PER_PART);
  private readonly comment: RandomText;
  private readonly scaleFactor: number;
  private readonly startIndex: number;
  private readonly rowCount: number;
  private index = 0;
  private supplierNumber = -1;

  private partKey = 0;
  private suppKey = 0;
  private quantity = 0;
  private cost = 0;

  constructor(scaleFactor: number, part: number, partCount: number, pool: TextPool) {
    checkPart(scaleFactor, part, partCount);
    this.scaleFactor = scaleFactor;
    this.comment = new RandomText(1961692154, pool, COMMENT_AVERAGE_LENGTH, SUPPLIERS_PER_PART);
    this.startIndex = partStartIndex(PART_SCALE_BASE, scaleFactor, part, partCount);
    this.rowCount = partRowCount(PART_SCALE_BASE, scaleFactor, part, partCount);
    this.availableQuantity.advanceRows(this.startIndex);
    this.supplyCost.advanceRows(this.startIndex);
    this.comment.advanceRows(this.startIndex);
  }

  next(): boolean {
    if (++this.supplierNumber >= SUPPLIERS_PER_PART) {
      this.availableQuantity.rowFinished();
      this.supplyCost.rowFinished();
      this.comment.rowFinished();
      this.index++;
      this.supplierNumber = 0;
    }
    if (this.index >= this.rowCount) return false;
    this.partKey = this.startIndex + this.index + 1;
    this.suppKey = selectPartSupplier(this.partKey, this.supplierNumber, this.scaleFactor);
    this.quantity = this.availableQuantity.nextValue();
    this.cost = this.supplyCost.nextValue();
    this.comment.next();
    return true;
  }

  values(): unknown[] {
    return [this.partKey, this.suppKey, this.quantity, centsToDouble(this.cost), this.comment.value()];
  }

  write(out: ByteWriter): void {
    out.int(this.partKey);
    out.byte(DELIMITER);
    out.int(this.suppKey);
    out.byte(DELIMITER);
    out.int(this.quantity);
    out.byte(DELIMITER);
    out.money(this.cost);
    out.byte(DELIMITER);
    out.bytes(this.comment.pool.bytes, this.comment.begin, this.comment.end);
    out.byte(NEWLINE);
  }
}
