// dbgen's 64-bit stream, used only for keys at scale factors >= 30000 where
// 32-bit ranges overflow. BigInt keeps Java's wrap-around semantics; speed is
// irrelevant at that size compared with correctness.

const MULTIPLIER = 6364136223846793005n;
const MULTIPLIER_32 = 16807n;
const MODULUS_32 = 2147483647n;

export class RowRandomLong {
  private seed: bigint;
  private usage = 0;
  private readonly usagePerRow: number;

  constructor(seed: number, usagePerRow: number) {
    this.seed = BigInt(seed);
    this.usagePerRow = usagePerRow;
  }

  nextLong(low: number, high: number): number {
    this.seed = BigInt.asIntN(64, this.seed * MULTIPLIER + 1n);
    this.usage++;
    const abs = BigInt.asIntN(64, this.seed < 0n ? -this.seed : this.seed);
    return low + Number(abs % BigInt(high - low + 1));
  }

  rowFinished(): void {
    this.advance32(this.usagePerRow - this.usage);
    this.usage = 0;
  }

  advanceRows(rowCount: number): void {
    if (this.usage !== 0) this.rowFinished();
    this.advance32(this.usagePerRow * rowCount);
  }

  // dbgen skips its 64-bit stream with the 32-bit multiplier; kept as is for equal output.
  private advance32(count: number): void {
    let multiplier = MULTIPLIER_32;
    let n = BigInt(count);
    while (n > 0n) {
      if (n % 2n !== 0n) this.seed = BigInt.asIntN(64, multiplier * this.seed) % MODULUS_32;
      n /= 2n;
      multiplier = (multiplier * multiplier) % MODULUS_32;
    }
  }
}
