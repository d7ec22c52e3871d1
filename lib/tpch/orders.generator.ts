import type { ByteWriter } from './byte-writer.js';
import { CUSTOMER_SCALE_BASE } from './customer.generator.js';
import type { Distribution } from './distribution.js';
import type { TpchDistributions } from './distributions.js';
import { centsToDouble } from './money.js';
import {
  ORDERS_SCALE_BASE, discountRandom, lineCountRandom, makeOrderKey, orderDateRandom, partKeyRandom,
  quantityRandom, shipDateRandom, taxRandom,
} from './order-streams.js';
import { partPrice } from './part.generator.js';
import { checkPart, partRowCount, partStartIndex } from './partitioning.js';
import { RandomBoundedInt } from './random-bounded-int.js';
import { RandomBoundedLong } from './random-bounded-long.js';
import { RandomString } from './random-string.js';
import { RandomText } from './random-text.js';
import { DELIMITER, NEWLINE, type TpchRowGenerator } from './row-generator.js';
import { DATE_BYTES, dateBytesOffset, formatDate, isInPast } from './tpch-dates.js';
import type { TextPool } from './text-pool.js';

// A third of customers place no orders: keys divisible by 3 are nudged off.
const CUSTOMER_MORTALITY = 3;
const CLERK_SCALE_BASE = 1000;
const COMMENT_AVERAGE_LENGTH = 49;
const CLERK_PREFIX = Buffer.from('Clerk#', 'latin1');
const STATUS_CODES = { F: 0x46, O: 0x4f, P: 0x50 } as const;

export class OrdersGenerator implements TpchRowGenerator {
  private readonly orderDate = orderDateRandom();
  private readonly lineCount = lineCountRandom();
  private readonly customerKeyRandom: RandomBoundedLong;
  private readonly priority: RandomString;
  private readonly clerk: RandomBoundedInt;
  private readonly comment: RandomText;
  private readonly lineQuantity = quantityRandom();
  private readonly lineDiscount = discountRandom();
  private readonly lineTax = taxRandom();
  private readonly linePartKey: RandomBoundedLong;
  private readonly lineShipDate = shipDateRandom();
  private readonly randoms: ReadonlyArray<{ rowFinished(): void; advanceRows(n: number): void }>;
  private readonly priorities: Distribution;
  private readonly maxCustomerKey: number;
  private readonly startIndex: number;
  private readonly rowCount: number;
  private index = -1;

  private key = 0;
  private customerKey = 0;
  private status: keyof typeof STATUS_CODES = 'O';
  private totalPrice = 0;
  private date = 0;
  private priorityIndex = 0;
  private clerkNumber = 0;

  constructor(scaleFactor: number, part: number, partCount: number, dists: TpchDistributions, pool: TextPool) {
    checkPart(scaleFactor, part, partCount);
    this.priorities = dists.orderPriorities;
    this.clerk = new RandomBoundedInt(1171034773, 1,
      Math.max(Math.trunc(scaleFactor * CLERK_SCALE_BASE), CLERK_SCALE_BASE));
    this.maxCustomerKey = Math.trunc(CUSTOMER_SCALE_BASE * scaleFactor);
    this.customerKeyRandom = new RandomBoundedLong(851767375, scaleFactor >= 30000, 1, this.maxCustomerKey);
    this.priority = new RandomString(591449447, dists.orderPriorities);
    this.comment = new RandomText(276090261, pool, COMMENT_AVERAGE_LENGTH);
    this.linePartKey = partKeyRandom(scaleFactor);
    this.randoms = [this.orderDate, this.lineCount, this.customerKeyRandom, this.priority, this.clerk,
      this.comment, this.lineQuantity, this.lineDiscount, this.lineShipDate, this.lineTax, this.linePartKey];
    this.startIndex = partStartIndex(ORDERS_SCALE_BASE, scaleFactor, part, partCount);
    this.rowCount = partRowCount(ORDERS_SCALE_BASE, scaleFactor, part, partCount);
    for (const r of this.randoms) r.advanceRows(this.startIndex);
  }

  next(): boolean {
    if (this.index >= 0) for (const r of this.randoms) r.rowFinished();
    if (++this.index >= this.rowCount) return false;
    this.key = makeOrderKey(this.startIndex + this.index + 1);
    this.date = this.orderDate.nextValue();

    let customerKey = this.customerKeyRandom.nextValue();
    let delta = 1;
    while (customerKey % CUSTOMER_MORTALITY === 0) {
      customerKey = Math.min(customerKey + delta, this.maxCustomerKey);
      delta = -delta;
    }
    this.customerKey = customerKey;

    // Replays the order's lines to get its total and status without generating lineitem.
    let total = 0;
    let shipped = 0;
    const lines = this.lineCount.nextValue();
    for (let line = 0; line < lines; line++) {
      const quantity = this.lineQuantity.nextValue();
      const discount = this.lineDiscount.nextValue();
      const tax = this.lineTax.nextValue();
      const extended = partPrice(this.linePartKey.nextValue()) * quantity;
      // Integer cents arithmetic, truncating like dbgen's longs (all values positive).
      total += Math.floor((Math.floor((extended * (100 - discount)) / 100) * (100 + tax)) / 100);
      if (isInPast(this.date + this.lineShipDate.nextValue())) shipped++;
    }
    this.totalPrice = total;
    this.status = shipped === lines ? 'F' : shipped > 0 ? 'P' : 'O';
    this.priorityIndex = this.priority.nextIndex();
    this.clerkNumber = this.clerk.nextValue();
    this.comment.next();
    return true;
  }

  values(): unknown[] {
    return [
      this.key,
      this.customerKey,
      this.status,
      centsToDouble(this.totalPrice),
      formatDate(this.date),
      this.priorities.values[this.priorityIndex],
      `Clerk#${String(this.clerkNumber).padStart(9, '0')}`,
      0,
      this.comment.value(),
    ];
  }

  write(out: ByteWriter): void {
    out.int(this.key);
    out.byte(DELIMITER);
    out.int(this.customerKey);
    out.byte(DELIMITER);
    out.byte(STATUS_CODES[this.status]);
    out.byte(DELIMITER);
    out.money(this.totalPrice);
    out.byte(DELIMITER);
    const d = dateBytesOffset(this.date);
    out.bytes(DATE_BYTES, d, d + 10);
    out.byte(DELIMITER);
    out.bytes(this.priorities.bytes[this.priorityIndex]);
    out.byte(DELIMITER);
    out.bytes(CLERK_PREFIX);
    out.padded(this.clerkNumber, 9);
    out.byte(DELIMITER);
    out.byte(0x30); // shippriority is always 0
    out.byte(DELIMITER);
    out.bytes(this.comment.pool.bytes, this.comment.begin, this.comment.end);
    out.byte(NEWLINE);
  }
}
