// Trino's HyperLogLog, byte for byte: airlift's io.airlift.stats.cardinality (SparseHll, DenseHll, their
// serialized forms SPARSE_V2 and DENSE_V2, the move from sparse to dense, merging, cardinality). Hashes are
// the 64-bit murmur3 of murmur3-hash.ts, split into two unsigned 32-bit halves so that bit work stays in numbers.
import { BIAS_TABLES } from './hll-bias-correction.js';

/** Format tags of the serialized forms (airlift's Format). */
const DENSE_V1 = 1;
const SPARSE_V2 = 2;
const DENSE_V2 = 3;

/** A sparse entry keeps the hash's first 26 bits and, in 6 bits, the zeros that follow them. */
const VALUE_BITS = 6;
const EXTENDED_PREFIX_BITS = 32 - VALUE_BITS;
const BITS_PER_BUCKET = 4;
const MAX_DELTA = 15;

/**
 * Java's sizes of the two forms (JOL, 64-bit JVM with compressed pointers, as Trino runs): a sparse instance
 * turns dense once it would take more memory than the dense one, so these decide when the bytes change form.
 */
const SPARSE_INSTANCE_SIZE = 24;
const DENSE_INSTANCE_SIZE = 40;
const ARRAY_HEADER = 16;
const align8 = (n: number): number => Math.ceil(n / 8) * 8;

/** A 64-bit hash as its high and low unsigned 32-bit halves. */
export interface Hash {
  hi: number;
  lo: number;
}

const HALVES = new DataView(new ArrayBuffer(8));

/** A hash (its low 64 bits, signed or not) as its halves. */
export function splitHash(hash: bigint): Hash {
  HALVES.setBigUint64(0, BigInt.asUintN(64, hash));
  return { hi: HALVES.getUint32(0), lo: HALVES.getUint32(4) };
}

/** Utils.numberOfLeadingZeros: the zeros after the first `bits` bits of the hash (a 1 stands past its end). */
function zerosAfter(hash: Hash, bits: number): number {
  const top = ((hash.hi << bits) | (hash.lo >>> (32 - bits))) >>> 0;
  if (top !== 0) return Math.clz32(top);
  return 32 + Math.clz32(((hash.lo << bits) | (1 << (bits - 1))) >>> 0);
}

const numberOfBuckets = (indexBitLength: number): number => 1 << indexBitLength;

/** Utils.linearCounting. */
const linearCounting = (zeroBuckets: number, totalBuckets: number): number => totalBuckets * Math.log(totalBuckets / zeroBuckets);

/** Utils.alpha. */
function alpha(indexBitLength: number): number {
  if (indexBitLength === 4) return 0.673;
  if (indexBitLength === 5) return 0.697;
  if (indexBitLength === 6) return 0.709;
  return 0.7213 / (1 + 1.079 / numberOfBuckets(indexBitLength));
}

/** A failure reading serialized bytes: Trino's IllegalArgumentException from airlift. */
export class SketchFormatError extends Error {}

function check(condition: boolean, message: string): asserts condition {
  if (!condition) throw new SketchFormatError(message);
}

class SparseHll {
  /** Sorted by bucket (the entry's first 26 bits), each an unsigned 32-bit number. */
  entries: number[] = [];
  /** The length Java's int[] would have: it grows by 10, and a sparse instance turns dense by its size. */
  capacity = 1;

  constructor(readonly indexBitLength: number) {}

  insertHash(hash: Hash): void {
    const bucket = hash.hi >>> VALUE_BITS;
    const value = zerosAfter(hash, EXTENDED_PREFIX_BITS);
    const position = this.search(bucket);
    if (position < 0) {
      if (this.entries.length + 1 > this.capacity) this.capacity += 10;
      this.entries.splice(-(position + 1), 0, ((bucket << VALUE_BITS) | value) >>> 0);
    } else if ((this.entries[position]! & 0x3f) < value) {
      this.entries[position] = ((bucket << VALUE_BITS) | value) >>> 0;
    }
  }

  /** The entry's index, or -(insertion point + 1). */
  private search(bucket: number): number {
    let low = 0;
    let high = this.entries.length - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const found = this.entries[middle]! >>> VALUE_BITS;
      if (bucket > found) low = middle + 1;
      else if (bucket < found) high = middle - 1;
      else return middle;
    }
    return -(low + 1);
  }

  mergeWith(other: SparseHll): void {
    const result: number[] = [];
    let left = 0;
    let right = 0;
    const a = this.entries;
    const b = other.entries;
    while (left < a.length && right < b.length) {
      const l = a[left]! >>> VALUE_BITS;
      const r = b[right]! >>> VALUE_BITS;
      if (l < r) result.push(a[left++]!);
      else if (l > r) result.push(b[right++]!);
      else {
        result.push(((l << VALUE_BITS) | Math.max(a[left]! & 0x3f, b[right]! & 0x3f)) >>> 0);
        left++;
        right++;
      }
    }
    while (left < a.length) result.push(a[left++]!);
    while (right < b.length) result.push(b[right++]!);
    this.entries = result;
    this.capacity = result.length;
  }

  estimatedInMemorySize(): number {
    return SPARSE_INSTANCE_SIZE + align8(ARRAY_HEADER + 4 * this.capacity);
  }

  toDense(): DenseHll {
    const dense = new DenseHll(this.indexBitLength);
    const p = this.indexBitLength;
    const bits = EXTENDED_PREFIX_BITS - p;
    for (const entry of this.entries) {
      let zeros = Math.clz32((entry << p) >>> 0);
      if (zeros >= bits) zeros = bits + (entry & 0x3f);
      dense.insert(entry >>> (32 - p), zeros + 1);
    }
    return dense;
  }

  cardinality(): number {
    // Linear counting over the 2^26 buckets the entries' prefixes stand for.
    const total = numberOfBuckets(EXTENDED_PREFIX_BITS);
    return Math.round(linearCounting(total - this.entries.length, total));
  }

  serialize(): Uint8Array {
    const out = new Uint8Array(4 + 4 * this.entries.length);
    const view = new DataView(out.buffer);
    out[0] = SPARSE_V2;
    out[1] = this.indexBitLength;
    view.setInt16(2, this.entries.length, true);
    this.entries.forEach((entry, i) => view.setUint32(4 + 4 * i, entry, true));
    return out;
  }

  static deserialize(bytes: Uint8Array): SparseHll {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    check(bytes.length >= 4, 'Cannot deserialize HyperLogLog');
    const hll = new SparseHll(checkedPrefix(bytes[1]!, EXTENDED_PREFIX_BITS));
    const count = view.getInt16(2, true);
    check(count >= 0 && bytes.length === 4 + 4 * count, 'input is too big');
    for (let i = 0; i < count; i++) hll.entries.push(view.getUint32(4 + 4 * i, true));
    // Sorted and unique by bucket, as every operation here relies on.
    for (let i = 1; i < count; i++) check(hll.entries[i - 1]! >>> VALUE_BITS < hll.entries[i]! >>> VALUE_BITS, 'entries are not sorted');
    hll.capacity = count;
    return hll;
  }
}

function checkedPrefix(indexBitLength: number, max: number): number {
  check(indexBitLength >= 1 && indexBitLength <= max, 'indexBitLength is out of range');
  return indexBitLength;
}

class DenseHll {
  baseline = 0;
  baselineCount: number;
  readonly deltas: Uint8Array;
  overflowBuckets: number[] = [];
  overflowValues: number[] = [];

  constructor(readonly indexBitLength: number) {
    this.baselineCount = numberOfBuckets(indexBitLength);
    this.deltas = new Uint8Array((numberOfBuckets(indexBitLength) * BITS_PER_BUCKET) / 8);
  }

  static estimatedInMemorySize(indexBitLength: number): number {
    return DENSE_INSTANCE_SIZE + align8(ARRAY_HEADER + numberOfBuckets(indexBitLength) / 2);
  }

  insertHash(hash: Hash): void {
    const p = this.indexBitLength;
    this.insert(hash.hi >>> (32 - p), zerosAfter(hash, p) + 1);
  }

  private getDelta(bucket: number): number {
    return (this.deltas[bucket >> 1]! >> ((~bucket & 1) << 2)) & 0xf;
  }

  private setDelta(bucket: number, value: number): void {
    const shift = (~bucket & 1) << 2;
    const slot = bucket >> 1;
    this.deltas[slot] = (this.deltas[slot]! & ~(0xf << shift)) | (value << shift);
  }

  private overflowEntry(bucket: number): number {
    return this.overflowBuckets.indexOf(bucket);
  }

  private getOverflow(bucket: number): number {
    const entry = this.overflowEntry(bucket);
    return entry < 0 ? 0 : this.overflowValues[entry]!;
  }

  getValue(bucket: number): number {
    const delta = this.getDelta(bucket);
    return this.baseline + (delta === MAX_DELTA ? delta + this.getOverflow(bucket) : delta);
  }

  insert(bucket: number, value: number): void {
    let delta = value - this.baseline;
    const oldDelta = this.getDelta(bucket);
    if (delta <= oldDelta || (oldDelta === MAX_DELTA && delta <= oldDelta + this.getOverflow(bucket))) return;
    if (delta > MAX_DELTA) {
      const entry = this.overflowEntry(bucket);
      if (entry >= 0) this.overflowValues[entry] = delta - MAX_DELTA;
      else {
        this.overflowBuckets.push(bucket);
        this.overflowValues.push(delta - MAX_DELTA);
      }
      delta = MAX_DELTA;
    }
    this.setDelta(bucket, delta);
    if (oldDelta === 0) {
      this.baselineCount--;
      this.adjustBaselineIfNeeded();
    }
  }

  /** While no bucket sits at the baseline, raise it by one (deltas and overflows down by one). */
  private adjustBaselineIfNeeded(): void {
    while (this.baselineCount === 0) {
      this.baseline++;
      for (let bucket = 0; bucket < numberOfBuckets(this.indexBitLength); bucket++) {
        let delta = this.getDelta(bucket);
        let hasOverflow = false;
        if (delta === MAX_DELTA) {
          const i = this.overflowEntry(bucket);
          if (i >= 0) {
            hasOverflow = true;
            this.overflowValues[i]!--;
            if (this.overflowValues[i] === 0) this.removeOverflow(i);
          }
        }
        if (!hasOverflow) {
          delta--;
          this.setDelta(bucket, delta);
        }
        if (delta === 0) this.baselineCount++;
      }
    }
  }

  /** Java moves the last entry into the removed one's place; serialize sorts them anyway. */
  private removeOverflow(i: number): void {
    const last = this.overflowBuckets.length - 1;
    this.overflowBuckets[i] = this.overflowBuckets[last]!;
    this.overflowValues[i] = this.overflowValues[last]!;
    this.overflowBuckets.pop();
    this.overflowValues.pop();
  }

  mergeWith(other: DenseHll): void {
    check(this.indexBitLength === other.indexBitLength,
      `Cannot merge HLLs with different number of buckets: ${numberOfBuckets(this.indexBitLength)} vs ${numberOfBuckets(other.indexBitLength)}`);
    const newBaseline = Math.max(this.baseline, other.baseline);
    let baselineCount = 0;
    for (let bucket = 0; bucket < numberOfBuckets(this.indexBitLength); bucket++) {
      const value = Math.max(this.getValue(bucket), other.getValue(bucket));
      let delta = value - newBaseline;
      if (delta === 0) baselineCount++;
      const entry = this.getDelta(bucket) === MAX_DELTA ? this.overflowEntry(bucket) : -1;
      if (delta > MAX_DELTA) {
        if (entry >= 0) this.overflowValues[entry] = delta - MAX_DELTA;
        else {
          this.overflowBuckets.push(bucket);
          this.overflowValues.push(delta - MAX_DELTA);
        }
        delta = MAX_DELTA;
      } else if (entry >= 0) {
        this.removeOverflow(entry);
      }
      this.setDelta(bucket, delta);
    }
    this.baseline = newBaseline;
    this.baselineCount = baselineCount;
    this.adjustBaselineIfNeeded();
  }

  cardinality(): number {
    const buckets = numberOfBuckets(this.indexBitLength);
    if (this.baseline === 0 && this.baselineCount > 0.4 * buckets) return Math.round(linearCounting(this.baselineCount, buckets));
    let sum = 0;
    for (let i = 0; i < buckets; i++) sum += 1 / 2 ** this.getValue(i);
    const estimate = (alpha(this.indexBitLength) * buckets * buckets) / sum;
    return Math.round(correctBias(estimate, this.indexBitLength));
  }

  serialize(): Uint8Array {
    const overflows = this.overflowBuckets.map((bucket, i) => [bucket, this.overflowValues[i]!] as const).sort((a, b) => a[0] - b[0]);
    const out = new Uint8Array(3 + this.deltas.length + 2 + 3 * overflows.length);
    const view = new DataView(out.buffer);
    out[0] = DENSE_V2;
    out[1] = this.indexBitLength;
    out[2] = this.baseline;
    out.set(this.deltas, 3);
    let at = 3 + this.deltas.length;
    view.setUint16(at, overflows.length, true);
    at += 2;
    for (const [bucket] of overflows) {
      view.setUint16(at, bucket, true);
      at += 2;
    }
    for (const [, value] of overflows) out[at++] = value;
    return out;
  }

  static deserialize(bytes: Uint8Array): DenseHll {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    check(bytes.length >= 3, 'Cannot deserialize HyperLogLog');
    const hll = new DenseHll(checkedPrefix(bytes[1]!, 16));
    const buckets = numberOfBuckets(hll.indexBitLength);
    hll.baseline = (bytes[2]! << 24) >> 24;
    let at = 3 + buckets / 2;
    check(bytes.length >= at, 'Cannot deserialize HyperLogLog');
    hll.deltas.set(bytes.subarray(3, at));
    if (bytes[0] === DENSE_V1) {
      check(bytes.length === at + 3, 'input is too big');
      const bucket = view.getInt16(at, true);
      const value = (bytes[at + 2]! << 24) >> 24;
      if (bucket >= 0 && value > 0) {
        check(bucket <= buckets, 'Overflow bucket index is out of range');
        hll.overflowBuckets = [bucket];
        hll.overflowValues = [value];
      }
    } else {
      check(bytes.length >= at + 2, 'Cannot deserialize HyperLogLog');
      const overflows = view.getUint16(at, true);
      at += 2;
      check(overflows <= buckets, 'Overflow entries is greater than actual number of buckets (possibly corrupt input)');
      check(bytes.length === at + 3 * overflows, 'input is too big');
      for (let i = 0; i < overflows; i++) {
        const bucket = view.getUint16(at + 2 * i, true);
        check(bucket <= buckets, 'Overflow bucket index is out of range');
        hll.overflowBuckets.push(bucket);
      }
      for (let i = 0; i < overflows; i++) {
        const value = (bytes[at + 2 * overflows + i]! << 24) >> 24;
        check(value > 0, 'Overflow bucket value must be > 0');
        hll.overflowValues.push(value);
      }
    }
    hll.baselineCount = 0;
    for (let i = 0; i < buckets; i++) if (hll.getDelta(i) === 0) hll.baselineCount++;
    return hll;
  }
}

/**
 * A raw estimate less its bias, interpolated in the empirical table of its index bit length as airlift does
 * (DenseHll.correctBias); as it is outside the table's range. The table is this project's own experiment
 * (hll-bias-experiment.ts), for the 2048 and 4096 buckets of SetDigest and approx_set: it agrees with airlift's
 * within a few units, so a dense cardinality in that range may differ from Trino's by as much.
 */
function correctBias(rawEstimate: number, indexBitLength: number): number {
  const table = Object.hasOwn(BIAS_TABLES, indexBitLength) ? BIAS_TABLES[indexBitLength] : undefined;
  if (!table) return rawEstimate;
  const { estimates, biases } = table;
  if (rawEstimate < estimates[0]! || rawEstimate > estimates[estimates.length - 1]!) return rawEstimate;
  let low = 0;
  let high = estimates.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    if (rawEstimate > estimates[middle]!) low = middle + 1;
    else if (rawEstimate < estimates[middle]!) high = middle - 1;
    else return rawEstimate - biases[middle]!;
  }
  const [x0, y0, x1, y1] = [estimates[low - 1]!, biases[low - 1]!, estimates[low]!, biases[low]!];
  return rawEstimate - (((rawEstimate - x0) * (y1 - y0)) / (x1 - x0) + y0);
}

/** airlift's HyperLogLog: sparse until it would outgrow the dense form. */
export class HyperLogLog {
  private constructor(private instance: SparseHll | DenseHll) {}

  /** HyperLogLog.newInstance(numberOfBuckets), a power of two up to 65536. */
  static create(buckets: number): HyperLogLog {
    check(buckets > 0 && (buckets & (buckets - 1)) === 0 && buckets <= 65536, `numberOfBuckets must be a power of 2 up to 65536, actual: ${buckets}`);
    return new HyperLogLog(new SparseHll(31 - Math.clz32(buckets)));
  }

  /** A serialized HyperLogLog (sparse v2, dense v1 or v2); SketchFormatError for anything else. */
  static deserialize(bytes: Uint8Array): HyperLogLog {
    check(bytes.length > 0 && bytes[0] !== 0, 'Cannot deserialize HyperLogLog');
    if (bytes[0] === SPARSE_V2) return new HyperLogLog(SparseHll.deserialize(bytes));
    if (bytes[0] === DENSE_V1 || bytes[0] === DENSE_V2) return new HyperLogLog(DenseHll.deserialize(bytes));
    throw new SketchFormatError('Cannot deserialize HyperLogLog');
  }

  get indexBitLength(): number {
    return this.instance.indexBitLength;
  }

  addHash(hash: Hash): void {
    this.instance.insertHash(hash);
    this.denseIfNecessary();
  }

  private denseIfNecessary(): void {
    const sparse = this.instance;
    if (sparse instanceof SparseHll && sparse.estimatedInMemorySize() > DenseHll.estimatedInMemorySize(sparse.indexBitLength)) this.instance = sparse.toDense();
  }

  mergeWith(other: HyperLogLog): void {
    if (this.instance instanceof SparseHll && other.instance instanceof SparseHll) {
      check(this.indexBitLength === other.indexBitLength,
        `Cannot merge HLLs with different number of buckets: ${numberOfBuckets(this.indexBitLength)} vs ${numberOfBuckets(other.indexBitLength)}`);
      this.instance.mergeWith(other.instance);
      this.denseIfNecessary();
      return;
    }
    const dense = this.instance instanceof SparseHll ? this.instance.toDense() : this.instance;
    dense.mergeWith(other.instance instanceof SparseHll ? other.instance.toDense() : other.instance);
    this.instance = dense;
  }

  makeDense(): void {
    if (this.instance instanceof SparseHll) this.instance = this.instance.toDense();
  }

  cardinality(): number {
    return this.instance.cardinality();
  }

  serialize(): Uint8Array {
    return this.instance.serialize();
  }
}
