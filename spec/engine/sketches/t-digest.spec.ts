// airlift's TDigest as Trino's tdigest: the bytes of tdigest_agg(1) (the Python client's test_digest), the
// buffer compressing as Java's does, quantiles within the digest's error, and bytes read back unchanged.
import { expect } from 'chai';
import fc from 'fast-check';
import { TDigest } from '../../../lib/engine/sketches/t-digest.js';
import { SketchFormatError } from '../../../lib/engine/sketches/hyper-log-log.js';

const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
function digestOf(values: readonly number[]): TDigest {
  const digest = new TDigest();
  for (const v of values) digest.add(v);
  return digest;
}

describe('TDigest', () => {
  it("serializes tdigest_agg(1) as Trino (the Python client's test_digest)", () => {
    expect(base64(digestOf([1]).serialize())).to.equal('AAAAAAAAAPA/AAAAAAAA8D8AAAAAAABZQAAAAAAAAPA/AQAAAAAAAAAAAPA/AAAAAAAA8D8=');
  });

  it('keeps every value of a small digest as its own centroid (no cluster may hold two)', () => {
    const digest = TDigest.deserialize(digestOf([3, 1, 2, 5, 4]).serialize());
    expect(digest.centroidCount).to.equal(5);
    expect(digest.valuesAt([0, 0.5, 1])).to.deep.equal([1, 3, 5]);
  });

  it('answers quantiles within its error, the extremes exactly', () => {
    fc.assert(fc.property(fc.array(fc.double({ min: -1e6, max: 1e6, noNaN: true }), { minLength: 1, maxLength: 3000 }), (values) => {
      const digest = TDigest.deserialize(digestOf(values).serialize());
      const sorted = [...values].sort((a, b) => a - b);
      expect(digest.valueAt(0)).to.equal(sorted[0]);
      expect(digest.valueAt(1)).to.equal(sorted[sorted.length - 1]);
      const median = digest.valueAt(0.5);
      // Rank error of a t-digest of compression 100 stays well under 5% at the median (ties: any rank they span).
      const below = sorted.filter((v) => v < median).length / sorted.length;
      const upTo = sorted.filter((v) => v <= median).length / sorted.length;
      const tolerance = 0.05 + 1 / sorted.length;
      expect(below - tolerance).to.be.at.most(0.5);
      expect(upTo + tolerance).to.be.at.least(0.5);
    }), { numRuns: 40 });
  });

  it('compresses its buffer of 1,260 values as Java does and reads its bytes back unchanged', () => {
    const digest = digestOf(Array.from({ length: 10000 }, (_, i) => i + 1));
    const bytes = digest.serialize();
    expect(base64(TDigest.deserialize(bytes).serialize())).to.equal(base64(TDigest.deserialize(bytes).serialize()));
    expect(TDigest.deserialize(bytes).valuesAt([0, 0.5, 1])).to.deep.equal([1, 5000.5, 10000]);
  });

  it('refuses what airlift refuses', () => {
    expect(() => digestOf([NaN])).to.throw(SketchFormatError, 'value is NaN');
    expect(() => digestOf([Infinity])).to.throw(SketchFormatError, 'value must be finite');
    expect(() => digestOf([1]).valuesAt([0.5, 0.1])).to.throw(SketchFormatError, 'quantiles must be sorted in increasing order');
    expect(() => TDigest.deserialize(Uint8Array.from([1]))).to.throw(SketchFormatError);
  });
});
