import { RowRandomInt } from './row-random-int.js';

const ALPHABET = Buffer.from('0123456789abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ,', 'latin1');
const USAGE_PER_ROW = 9;

/**
 * dbgen's random address text: a length in [0.4, 1.6] x average, then 6 bits
 * per character from one draw per 5 characters. The value is left in `bytes`
 * (first `length`) so writers copy it without building a string.
 */
export class RandomAlphaNumeric extends RowRandomInt {
  private readonly minLength: number;
  private readonly maxLength: number;
  readonly bytes: Uint8Array;
  length = 0;

  constructor(seed: number, averageLength: number, expectedRowCount = 1) {
    super(seed, USAGE_PER_ROW * expectedRowCount);
    this.minLength = Math.trunc(averageLength * 0.4);
    this.maxLength = Math.trunc(averageLength * 1.6);
    this.bytes = new Uint8Array(this.maxLength);
  }

  next(): void {
    this.length = this.nextInt(this.minLength, this.maxLength);
    let charIndex = 0;
    for (let i = 0; i < this.length; i++) {
      // nextInt(0, 2^31-1) overflows its range like dbgen and may be negative; >> keeps the sign.
      if (i % 5 === 0) charIndex = this.nextInt(0, 2147483647);
      this.bytes[i] = ALPHABET[charIndex & 0x3f];
      charIndex >>= 6;
    }
  }

  value(): string {
    return Buffer.from(this.bytes.buffer, this.bytes.byteOffset, this.length).toString('latin1');
  }
}
