import type { ByteWriter } from './byte-writer.js';
import type { Distribution } from './distribution.js';
import type { TpchDistributions } from './distributions.js';
import { centsToDouble } from './money.js';
import {
  LINE_COUNT_MAX, ORDERS_SCALE_BASE, discountRandom, lineCountRandom, makeOrderKey, orderDateRandom,
  partKeyRandom, quantityRandom, shipDateRandom, taxRandom,
} from './order-streams.js';
import { partPrice } from './part.generator.js';
import { selectPartSupplier } from './partsupp.generator.js';
import { checkPart, partRowCount, partStartIndex } from './partitioning.js';
import { RandomBoundedInt } from './random-bounded-int.js';
import { RandomString } from './random-string.js';
import { RandomText } from './random-text.js';
import { DELIMITER, NEWLINE, type TpchRowGenerator } from './row-generator.js';
import { DATE_BYTES, dateBytesOffset, formatDate, isInPast } from './tpch-dates.js';
import type { TextPool } from './text-pool.js';

const COMMENT_AVERAGE_LENGTH = 27;
const NOT_RETURNED = -1; // returnflag 'N': not yet received by the current date

/**
 * lineitem: 1-7 lines per order. Streams advance per order, so parts split on
 * orders exactly like the orders table, and a part's line count is only known
 * by generating it.
 */
export class LineitemGenerator implements TpchRowGenerator {
  private readonly orderDateRandom = orderDateRandom();
  private readonly lineCountRandom = lineCountRandom();
  private readonly quantityRandom = quantityRandom();
  private readonly discountRandom = discountRandom();
  private readonly taxRandom = taxRandom();
  private readonly partKeyRandom;
  private readonly supplierNumberRandom = new RandomBoundedInt(2095021727, 0, 3, LINE_COUNT_MAX);
  private readonly shipDateRandom = shipDateRandom();
  private readonly commitDateRandom = new RandomBoundedInt(904914315, 30, 90, LINE_COUNT_MAX);
  private readonly receiptDateRandom = new RandomBoundedInt(373135028, 1, 30, LINE_COUNT_MAX);
  private readonly returnFlagRandom: RandomString;
  private readonly shipInstructRandom: RandomString;
  private readonly shipModeRandom: RandomString;
  private readonly comment: RandomText;
  private readonly randoms: ReadonlyArray<{ rowFinished(): void; advanceRows(n: number): void }>;
  private readonly returnFlags: Distribution;
  private readonly shipInstructs: Distribution;
  private readonly shipModes: Distribution;
  private readonly scaleFactor: number;
  private readonly startIndex: number;
  private readonly rowCount: number;

  private index = 0;
  private started = false;
  private orderDate: number;
  private lastLine: number;
  private lineNumber = 0;

  private orderKey = 0;
  private partKey = 0;
  private suppKey = 0;
  private quantity = 0;
  private extendedPrice = 0;
  private discount = 0;
  private tax = 0;
  private returnFlag = NOT_RETURNED;
  private shipped = false;
  private shipDate = 0;
  private commitDate = 0;
  private receiptDate = 0;
  private shipInstruct = 0;
  private shipMode = 0;

  constructor(scaleFactor: number, part: number, partCount: number, dists: TpchDistributions, pool: TextPool) {
    checkPart(scaleFactor, part, partCount);
    this.scaleFactor = scaleFactor;
    this.returnFlags = dists.returnFlags;
    this.shipInstructs = dists.shipInstructions;
    this.shipModes = dists.shipModes;
    this.partKeyRandom = partKeyRandom(scaleFactor);
    this.returnFlagRandom = new RandomString(717419739, dists.returnFlags, LINE_COUNT_MAX);
    this.shipInstructRandom = new RandomString(1371272478, dists.shipInstructions, LINE_COUNT_MAX);
    this.shipModeRandom = new RandomString(675466456, dists.shipModes, LINE_COUNT_MAX);
    this.comment = new RandomText(1095462486, pool, COMMENT_AVERAGE_LENGTH, LINE_COUNT_MAX);
    this.randoms = [this.orderDateRandom, this.lineCountRandom, this.quantityRandom, this.discountRandom,
      this.taxRandom, this.partKeyRandom, this.supplierNumberRandom, this.shipDateRandom,
      this.commitDateRandom, this.receiptDateRandom, this.returnFlagRandom, this.shipInstructRandom,
      this.shipModeRandom, this.comment];
    this.startIndex = partStartIndex(ORDERS_SCALE_BASE, scaleFactor, part, partCount);
    this.rowCount = partRowCount(ORDERS_SCALE_BASE, scaleFactor, part, partCount);
    for (const r of this.randoms) r.advanceRows(this.startIndex);
    this.orderDate = this.orderDateRandom.nextValue();
    this.lastLine = this.lineCountRandom.nextValue() - 1;
  }

  next(): boolean {
    if (this.started && ++this.lineNumber > this.lastLine) {
      for (const r of this.randoms) r.rowFinished();
      this.index++;
      this.lastLine = this.lineCountRandom.nextValue() - 1;
      this.orderDate = this.orderDateRandom.nextValue();
      this.lineNumber = 0;
    }
    this.started = true;
    if (this.index >= this.rowCount) return false;

    this.orderKey = makeOrderKey(this.startIndex + this.index + 1);
    this.quantity = this.quantityRandom.nextValue();
    this.discount = this.discountRandom.nextValue();
    this.tax = this.taxRandom.nextValue();
    this.partKey = this.partKeyRandom.nextValue();
    this.suppKey = selectPartSupplier(this.partKey, this.supplierNumberRandom.nextValue(), this.scaleFactor);
    this.extendedPrice = partPrice(this.partKey) * this.quantity;
    this.shipDate = this.orderDate + this.shipDateRandom.nextValue();
    this.commitDate = this.orderDate + this.commitDateRandom.nextValue();
    this.receiptDate = this.shipDate + this.receiptDateRandom.nextValue();
    this.returnFlag = isInPast(this.receiptDate) ? this.returnFlagRandom.nextIndex() : NOT_RETURNED;
    this.shipped = isInPast(this.shipDate);
    this.shipInstruct = this.shipInstructRandom.nextIndex();
    this.shipMode = this.shipModeRandom.nextIndex();
    this.comment.next();
    return true;
  }

  values(): unknown[] {
    return [
      this.orderKey,
      this.partKey,
      this.suppKey,
      this.lineNumber + 1,
      this.quantity,
      centsToDouble(this.extendedPrice),
      centsToDouble(this.discount),
      centsToDouble(this.tax),
      this.returnFlag === NOT_RETURNED ? 'N' : this.returnFlags.values[this.returnFlag],
      this.shipped ? 'F' : 'O',
      formatDate(this.shipDate),
      formatDate(this.commitDate),
      formatDate(this.receiptDate),
      this.shipInstructs.values[this.shipInstruct],
      this.shipModes.values[this.shipMode],
      this.comment.value(),
    ];
  }

  write(out: ByteWriter): void {
    out.int(this.orderKey);
    out.byte(DELIMITER);
    out.int(this.partKey);
    out.byte(DELIMITER);
    out.int(this.suppKey);
    out.byte(DELIMITER);
    out.int(this.lineNumber + 1);
    out.byte(DELIMITER);
    out.int(this.quantity);
    out.byte(DELIMITER);
    out.money(this.extendedPrice);
    out.byte(DELIMITER);
    out.money(this.discount);
    out.byte(DELIMITER);
    out.money(this.tax);
    out.byte(DELIMITER);
    out.byte(this.returnFlag === NOT_RETURNED ? 0x4e : this.returnFlags.bytes[this.returnFlag][0]);
    out.byte(DELIMITER);
    out.byte(this.shipped ? 0x46 : 0x4f);
    out.byte(DELIMITER);
    let d = dateBytesOffset(this.shipDate);
    out.bytes(DATE_BYTES, d, d + 10);
    out.byte(DELIMITER);
    d = dateBytesOffset(this.commitDate);
    out.bytes(DATE_BYTES, d, d + 10);
    out.byte(DELIMITER);
    d = dateBytesOffset(this.receiptDate);
    out.bytes(DATE_BYTES, d, d + 10);
    out.byte(DELIMITER);
    out.bytes(this.shipInstructs.bytes[this.shipInstruct]);
    out.byte(DELIMITER);
    out.bytes(this.shipModes.bytes[this.shipMode]);
    out.byte(DELIMITER);
    out.bytes(this.comment.pool.bytes, this.comment.begin, this.comment.end);
    out.byte(NEWLINE);
  }
}
