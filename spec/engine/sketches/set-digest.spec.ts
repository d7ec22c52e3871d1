// Trino's SetDigest: the bytes of make_set_digest(1) (the Python client's test_digest), the examples of Trino's
// setdigest.md, and the MinHash's streaming eviction equal to keeping the smallest hashes (fast-check).
import { expect } from 'chai';
import fc from 'fast-check';
import { murmur3Hash64, murmur3Hash64OfLong } from '../../../lib/engine/sketches/murmur3-hash.js';
import { SetDigest } from '../../../lib/engine/sketches/set-digest.js';

const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
function digestOf(values: readonly (bigint | string)[], maxHashes?: number): SetDigest {
  const digest = SetDigest.create(maxHashes);
  for (const v of values) digest.addHash(typeof v === 'string' ? murmur3Hash64(new TextEncoder().encode(v)) : murmur3Hash64OfLong(v));
  return digest;
}

describe('SetDigest', () => {
  it("serializes make_set_digest(1) as Trino (the Python client's test_digest)", () => {
    expect(base64(digestOf([1n]).serialize())).to.equal('AQgAAAACCwEAgANEAAAgAAABAAAASsQF+7cDRAABAA==');
  });

  it("answers setdigest.md's examples", () => {
    expect(digestOf([1n, 2n, 2n, 3n, 3n, 3n, 4n, 4n, 4n, 4n, 5n]).cardinality()).to.equal(5);
    expect(SetDigest.intersectionCardinality(digestOf([1n, 2n, 3n]), digestOf([1n, 2n, 3n, 4n]))).to.equal(3);
    expect(SetDigest.jaccardIndex(digestOf([1n, 2n]), digestOf([1n, 2n, 3n, 4n]))).to.equal(0.5);
    expect(digestOf([1n, 1n, 1n, 2n, 2n]).hashCounts()).to.deep.equal([[-2447670524089286488n, 2], [19144387141682250n, 3]]);
    const shingles = (text: string) => {
      const words = text.split(' ');
      return words.slice(0, words.length - 3).map((_, i) => words.slice(i, i + 4).join(' '));
    };
    const [one, two, three] = ['The quick brown fox jumps over the lazy dog', 'The quick and the lazy', 'The quick brown fox jumps over the dog'].map((t) => shingles(t));
    expect(SetDigest.intersectionCardinality(digestOf(one!), digestOf(three!))).to.equal(4);
    expect(SetDigest.jaccardIndex(digestOf(one!), digestOf(three!))).to.equal(0.6);
    expect(SetDigest.jaccardIndex(digestOf(one!), digestOf(two!))).to.equal(0);
  });

  it('keeps the counts of the smallest hashes, whatever the order, as eviction one by one would', () => {
    fc.assert(fc.property(fc.array(fc.integer({ min: 0, max: 60 }), { maxLength: 200 }), (values) => {
      const maxHashes = 16;
      // Java's algorithm, entry by entry: count, then evict the largest key while over maxHashes.
      const streamed = new Map<bigint, number>();
      for (const v of values) {
        const key = BigInt.asIntN(64, murmur3Hash64OfLong(BigInt(v)));
        streamed.set(key, (streamed.get(key) ?? 0) + 1);
        while (streamed.size > maxHashes) streamed.delete([...streamed.keys()].reduce((a, b) => (a > b ? a : b)));
      }
      const expected = [...streamed].sort((a, b) => (a[0] < b[0] ? -1 : 1));
      expect(digestOf(values.map(BigInt), maxHashes).hashCounts()).to.deep.equal(expected);
      expect(base64(digestOf([...values].reverse().map(BigInt), maxHashes).serialize())).to.equal(base64(digestOf(values.map(BigInt), maxHashes).serialize()));
    }), { numRuns: 100 });
  });

  it('reads its bytes back, merges, and estimates past its exact range by its HyperLogLog', () => {
    const big = digestOf(Array.from({ length: 20000 }, (_, i) => BigInt(i)));
    expect(big.isExact()).to.equal(false);
    expect(Math.abs(big.cardinality() - 20000) / 20000).to.be.below(0.1);
    expect(base64(SetDigest.deserialize(big.serialize()).serialize())).to.equal(base64(big.serialize()));
    const merged = digestOf([1n, 2n]);
    merged.mergeWith(digestOf([2n, 3n]));
    expect(merged.hashCounts().map(([, n]) => n).sort()).to.deep.equal([1, 1, 2]);
    expect(SetDigest.matches(Uint8Array.from([2, 12, 0, 0]))).to.equal(false);
  });
});
