// The experiment behind hll-bias-correction.ts: the mean raw HyperLogLog estimate, and its bias, at 200
// cardinalities from 1 to about 5.1 times the buckets, over many sets of random hashes (as airlift made its
// empirical table, HLL++'s method). Seeded, so the table reads back the same; regenerate with
//   npx tsx lib/engine/sketches/hll-bias-experiment.ts > lib/engine/sketches/hll-bias-correction.ts

/** Cardinalities per table (airlift's tables have 200 points). */
const POINTS = 200;
/** The last cardinality, in buckets: airlift's p=12 table ends at a raw estimate of ~21,008 (5.13 m). */
const SPAN = 5.125;

export interface BiasTable {
  /** Mean raw estimates, ascending. */
  estimates: number[];
  /** Mean raw estimate minus the cardinality, per estimate. */
  biases: number[];
}

/** xorshift128: a small seeded 32-bit generator (Math.random cannot be seeded). */
function generator(seed: number): () => number {
  let [a, b, c, d] = [seed >>> 0 || 1, 0x9e3779b9, 0x243f6a88, 0xb7e15162];
  return () => {
    const t = a ^ (a << 11);
    [a, b, c] = [b, c, d];
    d = (d ^ (d >>> 19) ^ (t ^ (t >>> 8))) >>> 0;
    return d;
  };
}

const alpha = (m: number): number => 0.7213 / (1 + 1.079 / m);

/** The cardinalities a table samples: 1, then evenly to SPAN × buckets. */
export const cardinalities = (indexBitLength: number): number[] =>
  Array.from({ length: POINTS }, (_, k) => Math.round(1 + (k * (SPAN * (1 << indexBitLength) - 1)) / (POINTS - 1)));

/** Mean raw estimates and biases over `trials` sets of random 64-bit hashes (register values as DenseHll keeps them). */
export function biasExperiment(indexBitLength: number, trials: number, seed = 1): BiasTable {
  const m = 1 << indexBitLength;
  const points = cardinalities(indexBitLength);
  const sums = new Float64Array(POINTS);
  const next = generator(seed + indexBitLength);
  const registers = new Uint8Array(m);
  for (let trial = 0; trial < trials; trial++) {
    registers.fill(0);
    let sum = m; // the sum of 2^-register over the buckets
    let added = 0;
    for (let k = 0; k < POINTS; k++) {
      for (; added < points[k]!; added++) {
        const hi = next();
        const lo = next();
        const bucket = hi >>> (32 - indexBitLength);
        const top = ((hi << indexBitLength) | (lo >>> (32 - indexBitLength))) >>> 0;
        const value = 1 + (top !== 0 ? Math.clz32(top) : 32 + Math.clz32(((lo << indexBitLength) | (1 << (indexBitLength - 1))) >>> 0));
        if (value > registers[bucket]!) {
          sum += 2 ** -value - 2 ** -registers[bucket]!;
          registers[bucket] = value;
        }
      }
      sums[k]! += (alpha(m) * m * m) / sum;
    }
  }
  const estimates = Array.from(sums, (s) => s / trials);
  return { estimates, biases: estimates.map((e, k) => e - points[k]!) };
}

/** The data module's text: the tables for the index bit lengths Trino's sketches use (11: SetDigest, 12: approx_set). */
function tableModule(trials: number): string {
  const tables = [11, 12].map((p) => [p, biasExperiment(p, trials)] as const);
  const numbers = (xs: number[]) => xs.map((x) => Number(x.toPrecision(10))).join(', ');
  return [
    '// Empirical bias of the raw HyperLogLog estimate by index bit length, made by hll-bias-experiment.ts',
    `// (${trials} trials, seeded): airlift corrects a dense estimate by interpolating such a table. Generated: do not edit.`,
    "import type { BiasTable } from './hll-bias-experiment.js';",
    '',
    'export const BIAS_TABLES: Readonly<Record<number, BiasTable>> = {',
    ...tables.map(([p, t]) => `  ${p}: {\n    estimates: [${numbers(t.estimates)}],\n    biases: [${numbers(t.biases)}],\n  },`),
    '};',
    '',
  ].join('\n');
}

if (process.argv[1]?.endsWith('hll-bias-experiment.ts')) process.stdout.write(tableModule(Number(process.env.TRIALS ?? 20_000)));
