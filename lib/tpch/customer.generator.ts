import type { ByteWriter } from './byte-writer.js';
import type { Distribution } from './distribution.js';
import type { TpchDistributions } from './distributions.js';
import { centsToDouble } from './money.js';
import { checkPart, partRowCount, partStartIndex } from './partitioning.js';
import { RandomAlphaNumeric } from './random-alpha-numeric.js';
import { RandomBoundedInt } from './random-bounded-int.js';
import { RandomPhoneNumber } from './random-phone-number.js';
import { RandomString } from './random-string.js';
import { RandomText } from './random-text.js';
import { DELIMITER, NEWLINE, type TpchRowGenerator } from './row-generator.js';
import { writePhone } from './supplier.generator.js';
import type { TextPool } from './text-pool.js';

export const CUSTOMER_SCALE_BASE = 150_000;
const ACCOUNT_BALANCE_MIN = -99999;
const ACCOUNT_BALANCE_MAX = 999999;
const ADDRESS_AVERAGE_LENGTH = 25;
const COMMENT_AVERAGE_LENGTH = 73;
const NAME_PREFIX = Buffer.from('Customer#', 'latin1');

export class CustomerGenerator implements TpchRowGenerator {
  private readonly address = new RandomAlphaNumeric(881155353, ADDRESS_AVERAGE_LENGTH);
  private readonly nationKeyRandom: RandomBoundedInt;
  private readonly phone = new RandomPhoneNumber(1521138112);
  private readonly accountBalance = new RandomBoundedInt(298370230, ACCOUNT_BALANCE_MIN, ACCOUNT_BALANCE_MAX);
  private readonly segment: RandomString;
  private readonly comment: RandomText;
  private readonly segments: Distribution;
  private readonly startIndex: number;
  private readonly rowCount: number;
  private index = -1;

  private key = 0;
  private nationKey = 0;
  private balance = 0;
  private segmentIndex = 0;

  constructor(scaleFactor: number, part: number, partCount: number, dists: TpchDistributions, pool: TextPool) {
    checkPart(scaleFactor, part, partCount);
    this.nationKeyRandom = new RandomBoundedInt(1489529863, 0, dists.nations.size - 1);
    this.segments = dists.marketSegments;
    this.segment = new RandomString(1140279430, dists.marketSegments);
    this.comment = new RandomText(1335826707, pool, COMMENT_AVERAGE_LENGTH);
    this.startIndex = partStartIndex(CUSTOMER_SCALE_BASE, scaleFactor, part, partCount);
    this.rowCount = partRowCount(CUSTOMER_SCALE_BASE, scaleFactor, part, partCount);
    for (const r of this.randoms()) r.advanceRows(this.startIndex);
  }

  private randoms(): Array<{ rowFinished(): void; advanceRows(n: number): void }> {
    return [this.address, this.nationKeyRandom, this.phone, this.accountBalance, this.segment, this.comment];
  }

  next(): boolean {
    if (this.index >= 0) {
      this.address.rowFinished();
      this.nationKeyRandom.rowFinished();
      this.phone.rowFinished();
      this.accountBalance.rowFinished();
      this.segment.rowFinished();
      this.comment.rowFinished();
    }
    if (++this.index >= this.rowCount) return false;
    this.key = this.startIndex + this.index + 1;
    this.nationKey = this.nationKeyRandom.nextValue();
    this.address.next();
    this.phone.next(this.nationKey);
    this.balance = this.accountBalance.nextValue();
    this.segmentIndex = this.segment.nextIndex();
    this.comment.next();
    return true;
  }

  values(): unknown[] {
    return [
      this.key,
      `Customer#${String(this.key).padStart(9, '0')}`,
      this.address.value(),
      this.nationKey,
      this.phone.value(),
      centsToDouble(this.balance),
      this.segments.values[this.segmentIndex],
      this.comment.value(),
    ];
  }

  write(out: ByteWriter): void {
    out.int(this.key);
    out.byte(DELIMITER);
    out.bytes(NAME_PREFIX);
    out.padded(this.key, 9);
    out.byte(DELIMITER);
    out.bytes(this.address.bytes, 0, this.address.length);
    out.byte(DELIMITER);
    out.int(this.nationKey);
    out.byte(DELIMITER);
    writePhone(out, this.phone);
    out.byte(DELIMITER);
    out.money(this.balance);
    out.byte(DELIMITER);
    out.bytes(this.segments.bytes[this.segmentIndex]);
    out.byte(DELIMITER);
    out.bytes(this.comment.pool.bytes, this.comment.begin, this.comment.end);
    out.byte(NEWLINE);
  }
}
