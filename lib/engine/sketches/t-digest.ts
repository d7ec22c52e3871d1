// Trino's tdigest, byte for byte: airlift's io.airlift.stats.TDigest (the merging t-digest: centroids buffered
// up to a fixed capacity, compressed by a pass alternating direction, serialized merged with compression 100),
// and valueAt for value_at_quantile. Java's doubles are JavaScript's numbers, so the arithmetic is the same.
import { SketchFormatError } from './hyper-log-log.js';

const FORMAT_TAG = 0;
export const DEFAULT_COMPRESSION = 100;
const INITIAL_CAPACITY = 1;
const FUDGE_FACTOR = 10;

const internalCompressionFactor = (compression: number): number => 2 * compression;
const maxRelativeClusterSize = (quantile: number, normalizer: number): number => (quantile * (1 - quantile)) / normalizer;
const normalizerOf = (compression: number, weight: number): number => compression / (4 * Math.log(weight / compression) + 24);
const interpolate = (x: number, x0: number, y0: number, x1: number, y1: number): number => ((x - x0) / (x1 - x0)) * (y1 - y0);

export class TDigest {
  private readonly maxSize: number;
  private means: number[] = [];
  private weights: number[] = [];
  /** The length Java's arrays would have: it decides when adding compresses the buffer. */
  private capacity = INITIAL_CAPACITY;
  totalWeight = 0;
  min = Infinity;
  max = -Infinity;
  private backwards = false;
  private needsMerge = false;

  constructor(readonly compression = DEFAULT_COMPRESSION) {
    if (!(compression >= 10)) throw new SketchFormatError('compression factor too small (< 10)');
    this.maxSize = Math.trunc(6 * (internalCompressionFactor(compression) + FUDGE_FACTOR));
  }

  get centroidCount(): number {
    return this.means.length;
  }

  /** TDigest.add: a finite value of a finite positive weight (else the IllegalArgumentException's message). */
  add(value: number, weight = 1): void {
    if (Number.isNaN(value)) throw new SketchFormatError('value is NaN');
    if (Number.isNaN(weight)) throw new SketchFormatError('weight is NaN');
    if (!Number.isFinite(value)) throw new SketchFormatError('value must be finite');
    if (!Number.isFinite(weight)) throw new SketchFormatError('weight must be finite');
    if (!(weight > 0)) throw new SketchFormatError(`weight must be positive: ${weight}`);
    if (this.centroidCount === this.capacity) {
      if (this.capacity < this.maxSize) this.capacity = Math.min(Math.max(this.capacity * 2, INITIAL_CAPACITY), this.maxSize);
      else this.merge(internalCompressionFactor(this.compression));
    }
    this.means.push(value);
    this.weights.push(weight);
    this.totalWeight += weight;
    if (value < this.min) this.min = value;
    if (value > this.max) this.max = value;
    this.needsMerge = true;
  }

  mergeWith(other: TDigest): void {
    if (this.centroidCount + other.centroidCount > this.capacity) {
      this.mergeIfNeeded();
      other.mergeIfNeeded();
      this.capacity = Math.max(this.capacity, this.centroidCount + other.centroidCount);
    }
    this.means.push(...other.means);
    this.weights.push(...other.weights);
    this.totalWeight += other.totalWeight;
    this.min = Math.min(this.min, other.min);
    this.max = Math.max(this.max, other.max);
    this.needsMerge = true;
  }

  private mergeIfNeeded(): void {
    if (this.needsMerge) this.merge(internalCompressionFactor(this.compression));
  }

  /**
   * One compression pass over the centroids sorted by mean, forward or backward by turns. airlift sorts with
   * an unstable quicksort; a stable sort differs only in the order of equal means of unequal weights.
   */
  private merge(compression: number): void {
    const count = this.centroidCount;
    if (count === 0) return;
    const order = Array.from({ length: count }, (_, i) => i).sort((a, b) => this.means[a]! - this.means[b]!);
    const means = order.map((i) => this.means[i]!);
    const weights = order.map((i) => this.weights[i]!);
    const step = this.backwards ? -1 : 1;
    const start = this.backwards ? count - 1 : 0;
    const end = this.backwards ? -1 : count;
    const outMeans: number[] = [];
    const outWeights: number[] = [];
    let centroidMean = means[start]!;
    let centroidWeight = weights[start]!;
    let weightSoFar = 0;
    const normalizer = normalizerOf(compression, this.totalWeight);
    let currentQuantileMaxClusterSize = maxRelativeClusterSize(0, normalizer);
    for (let i = start + step; i !== end; i += step) {
      const entryWeight = weights[i]!;
      const entryMean = means[i]!;
      const tentativeWeight = centroidWeight + entryWeight;
      const tentativeQuantile = Math.min((weightSoFar + tentativeWeight) / this.totalWeight, 1);
      const maxClusterWeight = this.totalWeight * Math.min(currentQuantileMaxClusterSize, maxRelativeClusterSize(tentativeQuantile, normalizer));
      if (tentativeWeight <= maxClusterWeight) {
        centroidMean = centroidMean + ((entryMean - centroidMean) * entryWeight) / tentativeWeight;
        centroidWeight = tentativeWeight;
      } else {
        outMeans.push(centroidMean);
        outWeights.push(centroidWeight);
        weightSoFar += centroidWeight;
        currentQuantileMaxClusterSize = maxRelativeClusterSize(weightSoFar / this.totalWeight, normalizer);
        centroidWeight = entryWeight;
        centroidMean = entryMean;
      }
    }
    outMeans.push(centroidMean);
    outWeights.push(centroidWeight);
    if (this.backwards) {
      outMeans.reverse();
      outWeights.reverse();
    }
    this.backwards = !this.backwards;
    this.means = outMeans;
    this.weights = outWeights;
    this.needsMerge = false;
  }

  valueAt(quantile: number): number {
    return this.valuesAt([quantile])[0]!;
  }

  /** TDigest.valuesAt: quantiles ascending within [0, 1]. */
  valuesAt(quantiles: readonly number[]): number[] {
    if (quantiles.length === 0) return [];
    quantiles.forEach((q, i) => {
      if (i > 0 && q < quantiles[i - 1]!) throw new SketchFormatError('quantiles must be sorted in increasing order');
      if (q < 0 || q > 1) throw new SketchFormatError('quantiles should be in [0, 1] range');
    });
    const count = this.centroidCount;
    if (count === 0) return quantiles.map(() => NaN);
    this.mergeIfNeeded();
    const { means, weights, totalWeight, min, max } = this;
    if (this.centroidCount === 1) return quantiles.map(() => means[0]!);
    const n = this.centroidCount;
    const result = quantiles.map((q) => q * totalWeight);
    let index = 0;
    while (index < result.length && result[index]! < 1) result[index++] = min;
    while (index < result.length && result[index]! < weights[0]! / 2) {
      result[index] = min + interpolate(result[index]!, 1, min, weights[0]! / 2, means[0]!);
      index++;
    }
    const lastHalf = weights[n - 1]! / 2;
    while (index < result.length && result[index]! <= totalWeight - 1 && totalWeight - result[index]! <= lastHalf && lastHalf > 1) {
      result[index] = max + interpolate(totalWeight - result[index]!, 1, max, lastHalf, means[n - 1]!);
      index++;
    }
    if (index < result.length && result[index]! >= totalWeight - 1) return result.fill(max, index);
    let weightSoFar = weights[0]! / 2;
    let current = 0;
    while (index < result.length) {
      let delta = (weights[current]! + weights[current + 1]!) / 2;
      while (current < n - 1 && weightSoFar + delta <= result[index]!) {
        weightSoFar += delta;
        current++;
        if (current < n - 1) delta = (weights[current]! + weights[current + 1]!) / 2;
      }
      if (current === n - 1) {
        while (index < result.length && result[index]! <= totalWeight - 1 && lastHalf > 1) {
          result[index] = max + interpolate(totalWeight - result[index]!, 1, max, lastHalf, means[n - 1]!);
          index++;
        }
        return index < result.length ? result.fill(max, index) : result;
      }
      const offset = result[index]! - weightSoFar;
      if (weights[current] === 1 && offset < weights[current]! / 2) result[index] = means[current]!;
      else if (weights[current + 1] === 1 && offset >= weights[current]! / 2) result[index] = means[current + 1]!;
      else {
        let interpolationOffset = offset;
        let sectionLength = delta;
        if (weights[current] === 1) {
          interpolationOffset -= weights[current]! / 2;
          sectionLength = weights[current + 1]! / 2;
        } else if (weights[current + 1] === 1) {
          sectionLength = weights[current]! / 2;
        }
        result[index] = means[current]! + interpolate(interpolationOffset, 0, means[current]!, sectionLength, means[current + 1]!);
      }
      index++;
    }
    return result;
  }

  /** TDigest.serialize: merged with the digest's own compression first. */
  serialize(): Uint8Array {
    this.merge(this.compression);
    const count = this.centroidCount;
    const out = new Uint8Array(1 + 8 * 4 + 4 + 16 * count);
    const view = new DataView(out.buffer);
    out[0] = FORMAT_TAG;
    view.setFloat64(1, this.min, true);
    view.setFloat64(9, this.max, true);
    view.setFloat64(17, this.compression, true);
    view.setFloat64(25, this.totalWeight, true);
    view.setInt32(33, count, true);
    this.means.forEach((mean, i) => view.setFloat64(37 + 8 * i, mean, true));
    this.weights.forEach((weight, i) => view.setFloat64(37 + 8 * (count + i), weight, true));
    return out;
  }

  static deserialize(bytes: Uint8Array): TDigest {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (bytes.length < 37 || bytes[0] !== FORMAT_TAG) throw new SketchFormatError('Invalid format');
    const count = view.getInt32(33, true);
    if (count < 0 || bytes.length !== 37 + 16 * count) throw new SketchFormatError('Invalid format');
    const digest = new TDigest(view.getFloat64(17, true));
    digest.min = view.getFloat64(1, true);
    digest.max = view.getFloat64(9, true);
    digest.totalWeight = view.getFloat64(25, true);
    for (let i = 0; i < count; i++) {
      digest.means.push(view.getFloat64(37 + 8 * i, true));
      digest.weights.push(view.getFloat64(37 + 8 * (count + i), true));
    }
    digest.capacity = count;
    return digest;
  }
}
