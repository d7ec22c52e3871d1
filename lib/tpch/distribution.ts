import type { RowRandomInt } from './row-random-int.js';

/**
 * A named weighted list from dists.dss. Picks draw one value in
 * [0, total weight) and map it through an expanded slot table, as dbgen does.
 * Values are also kept as ASCII bytes for the CSV writer.
 */
export class Distribution {
  readonly name: string;
  readonly values: readonly string[];
  readonly bytes: readonly Uint8Array[];
  /** Running (cumulative) weights; for `nations` these are region keys. */
  readonly cumulativeWeights: Int32Array;
  private readonly slots: Int32Array | null;
  private readonly maxWeight: number;

  constructor(name: string, entries: ReadonlyArray<readonly [string, number]>) {
    this.name = name;
    this.values = entries.map(([value]) => value);
    this.bytes = this.values.map((value) => Buffer.from(value, 'latin1'));
    this.cumulativeWeights = new Int32Array(entries.length);
    let running = 0;
    let valid = true;
    entries.forEach(([, weight], i) => {
      running += weight;
      this.cumulativeWeights[i] = running;
      if (weight <= 0) valid = false;
    });
    // `nations` carries region deltas, not weights: it is a list, not a distribution.
    if (valid && entries.length > 0) {
      this.maxWeight = running;
      this.slots = new Int32Array(running);
      let slot = 0;
      entries.forEach(([, weight], i) => {
        for (let k = 0; k < weight; k++) this.slots![slot++] = i;
      });
    } else {
      this.maxWeight = -1;
      this.slots = null;
    }
  }

  get size(): number {
    return this.values.length;
  }

  /** Index of a weighted random value; one draw from `random`. */
  randomIndex(random: RowRandomInt): number {
    if (this.slots === null) throw new Error(`${this.name} is not a weighted distribution`);
    return this.slots[random.nextInt(0, this.maxWeight - 1)];
  }

  randomValue(random: RowRandomInt): string {
    return this.values[this.randomIndex(random)];
  }
}
