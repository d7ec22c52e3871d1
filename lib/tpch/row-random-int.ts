import { MODULUS, advanceSeed, nextSeed } from './park-miller.js';

/**
 * One dbgen random stream. Each row consumes a fixed budget of draws
 * (`usagePerRow`); unused draws are skipped at row end, which is what lets part
 * k of n start at any row without generating the earlier ones.
 */
export class RowRandomInt {
  seed: number;
  usage = 0;
  readonly usagePerRow: number;

  constructor(seed: number, usagePerRow: number) {
    this.seed = seed;
    this.usagePerRow = usagePerRow;
  }

  /** Uniform in [low, high], with dbgen's double arithmetic (and its int overflow for high = 2^31-1). */
  nextInt(low: number, high: number): number {
    this.seed = nextSeed(this.seed);
    this.usage++;
    const range = (high - low + 1) | 0;
    return low + (((this.seed / MODULUS) * range) | 0);
  }

  rowFinished(): void {
    this.seed = advanceSeed(this.seed, this.usagePerRow - this.usage);
    this.usage = 0;
  }

  advanceRows(rowCount: number): void {
    if (this.usage !== 0) this.rowFinished();
    this.seed = advanceSeed(this.seed, this.usagePerRow * rowCount);
  }
}
