import type { ByteWriter } from './byte-writer.js';
import type { TpchDistributions } from './distributions.js';
import { centsToDouble } from './money.js';
import { checkPart, partRowCount, partStartIndex } from './partitioning.js';
import { RandomAlphaNumeric } from './random-alpha-numeric.js';
import { RandomBoundedInt } from './random-bounded-int.js';
import { RandomPhoneNumber } from './random-phone-number.js';
import { RandomText } from './random-text.js';
import { RowRandomInt } from './row-random-int.js';
import { DELIMITER, NEWLINE, type TpchRowGenerator } from './row-generator.js';
import type { TextPool } from './text-pool.js';

export const SUPPLIER_SCALE_BASE = 10_000;
const ACCOUNT_BALANCE_MIN = -99999;
const ACCOUNT_BALANCE_MAX = 999999;
const ADDRESS_AVERAGE_LENGTH = 25;
const COMMENT_AVERAGE_LENGTH = 63;
// Better Business Bureau remarks that TPC-H Q16 looks for in some supplier comments.
const BBB_BASE = 'Customer ';
const BBB_COMPLAINT = 'Complaints';
const BBB_RECOMMEND = 'Recommends';
const BBB_COMMENT_LENGTH = BBB_BASE.length + BBB_COMPLAINT.length;
const BBB_COMMENTS_PER_SCALE_BASE = 10;
const BBB_COMPLAINT_PERCENT = 50;
const NAME_PREFIX = Buffer.from('Supplier#', 'latin1');

export class SupplierGenerator implements TpchRowGenerator {
  private readonly address = new RandomAlphaNumeric(706178559, ADDRESS_AVERAGE_LENGTH);
  private readonly nationKeyRandom: RandomBoundedInt;
  private readonly phone = new RandomPhoneNumber(884434366);
  private readonly accountBalance = new RandomBoundedInt(962338209, ACCOUNT_BALANCE_MIN, ACCOUNT_BALANCE_MAX);
  private readonly comment: RandomText;
  private readonly bbbComment = new RandomBoundedInt(202794285, 1, SUPPLIER_SCALE_BASE);
  private readonly bbbJunk = new RowRandomInt(263032577, 1);
  private readonly bbbOffset = new RowRandomInt(715851524, 1);
  private readonly bbbType = new RandomBoundedInt(753643799, 0, 100);
  private readonly randoms: ReadonlyArray<{ rowFinished(): void; advanceRows(n: number): void }>;
  private readonly startIndex: number;
  private readonly rowCount: number;
  private index = -1;

  private key = 0;
  private nationKey = 0;
  private balance = 0;
  /** Set when the row's comment carries a BBB remark (rare); otherwise the pool slice is used. */
  private commentText: string | null = null;

  constructor(scaleFactor: number, part: number, partCount: number, dists: TpchDistributions, pool: TextPool) {
    checkPart(scaleFactor, part, partCount);
    this.nationKeyRandom = new RandomBoundedInt(110356601, 0, dists.nations.size - 1);
    this.comment = new RandomText(1341315363, pool, COMMENT_AVERAGE_LENGTH);
    this.randoms = [this.address, this.nationKeyRandom, this.phone, this.accountBalance, this.comment,
      this.bbbComment, this.bbbJunk, this.bbbOffset, this.bbbType];
    this.startIndex = partStartIndex(SUPPLIER_SCALE_BASE, scaleFactor, part, partCount);
    this.rowCount = partRowCount(SUPPLIER_SCALE_BASE, scaleFactor, part, partCount);
    for (const r of this.randoms) r.advanceRows(this.startIndex);
  }

  next(): boolean {
    if (this.index >= 0) for (const r of this.randoms) r.rowFinished();
    if (++this.index >= this.rowCount) return false;
    this.key = this.startIndex + this.index + 1;
    this.comment.next();
    this.commentText = null;
    if (this.bbbComment.nextValue() <= BBB_COMMENTS_PER_SCALE_BASE) {
      const text = this.comment.value();
      const noise = this.bbbJunk.nextInt(0, text.length - BBB_COMMENT_LENGTH);
      const offset = this.bbbOffset.nextInt(0, text.length - (BBB_COMMENT_LENGTH + noise));
      const type = this.bbbType.nextValue() < BBB_COMPLAINT_PERCENT ? BBB_COMPLAINT : BBB_RECOMMEND;
      const typeAt = offset + BBB_BASE.length + noise;
      this.commentText = text.slice(0, offset) + BBB_BASE + text.slice(offset + BBB_BASE.length, typeAt)
        + type + text.slice(typeAt + type.length);
    }
    this.nationKey = this.nationKeyRandom.nextValue();
    this.address.next();
    this.phone.next(this.nationKey);
    this.balance = this.accountBalance.nextValue();
    return true;
  }

  values(): unknown[] {
    return [
      this.key,
      `Supplier#${String(this.key).padStart(9, '0')}`,
      this.address.value(),
      this.nationKey,
      this.phone.value(),
      centsToDouble(this.balance),
      this.commentText ?? this.comment.value(),
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
    if (this.commentText !== null) out.ascii(this.commentText);
    else out.bytes(this.comment.pool.bytes, this.comment.begin, this.comment.end);
    out.byte(NEWLINE);
  }
}

export function writePhone(out: ByteWriter, phone: RandomPhoneNumber): void {
  out.int(phone.countryCode);
  out.byte(0x2d);
  out.int(phone.local1);
  out.byte(0x2d);
  out.int(phone.local2);
  out.byte(0x2d);
  out.int(phone.local3);
}
