import { RowRandomInt } from './row-random-int.js';

// Country codes are limited to two digits.
const NATIONS_MAX = 90;

/** Phone numbers `CC-LLL-LLL-LLLL`; country code 10 + nationkey. Parts kept as numbers for writers. */
export class RandomPhoneNumber extends RowRandomInt {
  countryCode = 0;
  local1 = 0;
  local2 = 0;
  local3 = 0;

  constructor(seed: number, expectedRowCount = 1) {
    super(seed, 3 * expectedRowCount);
  }

  next(nationKey: number): void {
    this.countryCode = 10 + (nationKey % NATIONS_MAX);
    this.local1 = this.nextInt(100, 999);
    this.local2 = this.nextInt(100, 999);
    this.local3 = this.nextInt(1000, 9999);
  }

  value(): string {
    return `${this.countryCode}-${this.local1}-${this.local2}-${this.local3}`;
  }
}
