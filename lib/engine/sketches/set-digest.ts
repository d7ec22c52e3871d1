// Trino's SetDigest, byte for byte (io.trino.type.setdigest.SetDigest): a HyperLogLog of 2048 buckets and a
// MinHash, the counts of the smallest 8192 hashes (signed 64-bit order), counts saturating at 32767.
import { HyperLogLog, SketchFormatError, splitHash } from './hyper-log-log.js';

const UNCOMPRESSED_FORMAT = 1;
export const NUMBER_OF_BUCKETS = 2048;
export const DEFAULT_MAX_HASHES = 8192;
const SHORT_MAX = 32767;

/** A hash as Java's signed long, the key order of the MinHash. */
const signed = (hash: bigint): bigint => BigInt.asIntN(64, hash);

export class SetDigest {
  /** MinHash counts by signed hash; trimmed to the smallest maxHashes keys on demand (see trim). */
  private readonly minhash = new Map<bigint, number>();
  /** Once maxHashes keys are kept, the largest of them: a greater key can never be kept, nor need counting. */
  private limit: bigint | undefined;

  private constructor(readonly maxHashes: number, private readonly hll: HyperLogLog) {}

  static create(maxHashes = DEFAULT_MAX_HASHES, buckets = NUMBER_OF_BUCKETS): SetDigest {
    return new SetDigest(maxHashes, HyperLogLog.create(buckets));
  }

  /**
   * Adds a value's 64-bit murmur3 hash. Java evicts the largest key whenever the map outgrows maxHashes; a key
   * once evicted is larger than maxHashes others and can never return, so keeping every count and cutting the
   * largest keys off at the end (trim) gives the same digest in any order of adding.
   */
  addHash(hash: bigint): void {
    this.hll.addHash(splitHash(hash));
    const key = signed(hash);
    if (this.limit !== undefined && key > this.limit) return;
    this.minhash.set(key, Math.min((this.minhash.get(key) ?? 0) + 1, SHORT_MAX));
    if (this.minhash.size > 4 * this.maxHashes) this.trim();
  }

  mergeWith(other: SetDigest): void {
    this.hll.mergeWith(other.hll);
    for (const [key, count] of other.minhash) this.minhash.set(key, Math.min((this.minhash.get(key) ?? 0) + count, SHORT_MAX));
    this.trim();
  }

  /** The MinHash's keys in ascending signed order, only the smallest maxHashes kept. */
  private trim(): bigint[] {
    const keys = [...this.minhash.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    for (const key of keys.slice(this.maxHashes)) this.minhash.delete(key);
    const kept = keys.slice(0, this.maxHashes);
    if (kept.length === this.maxHashes && this.maxHashes > 0) this.limit = kept[kept.length - 1];
    return kept;
  }

  /** Exact when fewer hashes than maxHashes were kept (equal is ambiguous, so approximate). */
  isExact(): boolean {
    this.trim();
    return this.minhash.size < this.maxHashes;
  }

  cardinality(): number {
    return this.isExact() ? this.minhash.size : this.hll.cardinality();
  }

  /** The MinHash's counts in key order (hash_counts). */
  hashCounts(): [bigint, number][] {
    return this.trim().map((key) => [key, this.minhash.get(key)!]);
  }

  static exactIntersectionCardinality(a: SetDigest, b: SetDigest): number {
    let count = 0;
    for (const key of a.trim()) if (b.minhash.has(key)) count++;
    return count;
  }

  /** SetDigest.jaccardIndex: shared keys among the smallest of the union, over the smaller digest's size. */
  static jaccardIndex(a: SetDigest, b: SetDigest): number {
    const [keysA, keysB] = [a.trim(), b.trim()];
    const smaller = Math.min(keysA.length, keysB.length);
    const union = [...new Set([...keysA, ...keysB])].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
    let intersection = 0;
    for (const key of union.slice(0, smaller)) if (a.minhash.has(key) && b.minhash.has(key)) intersection++;
    return intersection / smaller;
  }

  /** SetDigestFunctions.intersectionCardinality. */
  static intersectionCardinality(a: SetDigest, b: SetDigest): number {
    if (a.isExact() && b.isExact()) return SetDigest.exactIntersectionCardinality(a, b);
    const [cardinalityA, cardinalityB] = [a.cardinality(), b.cardinality()];
    const jaccard = SetDigest.jaccardIndex(a, b);
    a.mergeWith(b);
    return Math.min(Math.round(jaccard * a.cardinality()), Math.min(cardinalityA, cardinalityB));
  }

  serialize(): Uint8Array {
    const keys = this.trim();
    const hll = this.hll.serialize();
    const out = new Uint8Array(1 + 4 + hll.length + 8 + keys.length * 10);
    const view = new DataView(out.buffer);
    out[0] = UNCOMPRESSED_FORMAT;
    view.setInt32(1, hll.length, true);
    out.set(hll, 5);
    let at = 5 + hll.length;
    view.setInt32(at, this.maxHashes, true);
    view.setInt32(at + 4, keys.length, true);
    at += 8;
    for (const key of keys) {
      view.setBigInt64(at, key, true);
      at += 8;
    }
    for (const key of keys) {
      view.setInt16(at, this.minhash.get(key)!, true);
      at += 2;
    }
    return out;
  }

  static deserialize(bytes: Uint8Array): SetDigest {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (bytes.length < 5 || bytes[0] !== UNCOMPRESSED_FORMAT) throw new SketchFormatError('Unexpected version');
    const hllLength = view.getInt32(1, true);
    if (hllLength < 0 || bytes.length < 5 + hllLength + 8) throw new SketchFormatError('Cannot deserialize SetDigest');
    const digest = new SetDigest(view.getInt32(5 + hllLength, true), HyperLogLog.deserialize(bytes.subarray(5, 5 + hllLength)));
    const count = view.getInt32(9 + hllLength, true);
    const keysAt = 13 + hllLength;
    if (count < 0 || bytes.length !== keysAt + 10 * count) throw new SketchFormatError('Cannot deserialize SetDigest');
    for (let i = 0; i < count; i++) digest.minhash.set(view.getBigInt64(keysAt + 8 * i, true), view.getInt16(keysAt + 8 * count + 2 * i, true));
    return digest;
  }

  /** Whether bytes read as a whole SetDigest (cardinality tells a SetDigest from a HyperLogLog so). */
  static matches(bytes: Uint8Array): boolean {
    try {
      SetDigest.deserialize(bytes);
      return true;
    } catch {
      return false;
    }
  }
}
