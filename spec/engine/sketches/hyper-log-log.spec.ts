// airlift's HyperLogLog as Trino serializes it: the bytes of the Python client's test_digest, the move from
// sparse to dense, and fast-check properties (any order of adding gives the same bytes; merging halves counts
// as the whole; bytes read back to the same bytes).
import { expect } from 'chai';
import fc from 'fast-check';
import { murmur3Hash64OfLong } from '../../../lib/engine/sketches/murmur3-hash.js';
import { HyperLogLog, SketchFormatError, splitHash } from '../../../lib/engine/sketches/hyper-log-log.js';
import { BIAS_TABLES } from '../../../lib/engine/sketches/hll-bias-correction.js';
import { biasExperiment } from '../../../lib/engine/sketches/hll-bias-experiment.js';

const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

/** approx_set of bigints: 4096 buckets, each value's murmur3. */
function approxSet(values: Iterable<bigint>): HyperLogLog {
  const hll = HyperLogLog.create(4096);
  for (const v of values) hll.addHash(splitHash(murmur3Hash64OfLong(v)));
  return hll;
}
const range = (n: number, from = 0) => Array.from({ length: n }, (_, i) => BigInt(from + i));

describe('HyperLogLog', () => {
  it("serializes approx_set(1) and its cast to P4HyperLogLog as Trino (the Python client's test_digest)", () => {
    const hll = approxSet([1n]);
    expect(base64(hll.serialize())).to.equal('AgwBAIADRAA=');
    hll.makeDense();
    expect(base64(hll.serialize())).to.equal('AwwAAAAg' + 'A'.repeat(2730) + '==');
    expect(base64(HyperLogLog.create(4096).serialize())).to.equal('AgwAAA==');
  });

  it('turns dense when its sparse entries would outgrow the dense form (511 entries of 4096 buckets, 251 of 2048)', () => {
    expect(approxSet(range(511)).serialize()[0]).to.equal(2);
    expect(approxSet(range(512)).serialize()[0]).to.equal(3);
    const digestHll = (n: number) => {
      const hll = HyperLogLog.create(2048);
      for (const v of range(n)) hll.addHash(splitHash(murmur3Hash64OfLong(v)));
      return hll.serialize()[0];
    };
    expect([digestHll(251), digestHll(252)]).to.deep.equal([2, 3]);
  });

  it('gives the same bytes whatever the order of the values, sparse or dense', () => {
    fc.assert(fc.property(fc.array(fc.bigInt({ min: -(1n << 63n), max: (1n << 63n) - 1n }), { maxLength: 1200 }), fc.integer(), (values, seed) => {
      const shuffled = [...values].sort((a, b) => (((Number(a & 0xffffn) ^ seed) & 0xffff) - ((Number(b & 0xffffn) ^ seed) & 0xffff)));
      expect(base64(approxSet(shuffled).serialize())).to.equal(base64(approxSet(values).serialize()));
    }), { numRuns: 60 });
  });

  it('merges two sketches into the union: the dense forms are equal', () => {
    fc.assert(fc.property(fc.nat({ max: 3000 }), fc.nat({ max: 3000 }), fc.nat({ max: 3000 }), (a, b, overlap) => {
      const left = approxSet(range(a));
      const right = approxSet(range(b, Math.max(0, a - overlap)));
      left.mergeWith(right);
      const whole = approxSet([...range(a), ...range(b, Math.max(0, a - overlap))]);
      left.makeDense();
      whole.makeDense();
      expect(base64(left.serialize())).to.equal(base64(whole.serialize()));
    }), { numRuns: 25 });
  });

  it('reads its bytes back to the same bytes and cardinality', () => {
    for (const n of [0, 1, 300, 511, 512, 5000, 40000]) {
      const hll = approxSet(range(n));
      const back = HyperLogLog.deserialize(hll.serialize());
      expect(base64(back.serialize()), String(n)).to.equal(base64(hll.serialize()));
      expect(back.cardinality(), String(n)).to.equal(hll.cardinality());
    }
  });

  it('estimates within its error, exactly in the sparse regime', () => {
    for (const n of [0, 1, 100, 511]) expect(approxSet(range(n)).cardinality()).to.equal(n);
    for (const n of [1000, 3000, 5000, 10000, 50000]) {
      const estimate = approxSet(range(n, 7)).cardinality();
      // 1.625% standard error: four of them.
      expect(Math.abs(estimate - n) / n, String(n)).to.be.below(0.065);
    }
  });

  it('refuses bytes that are no HyperLogLog, as Trino', () => {
    for (const bytes of [[], [0], [1], [2, 12, 1, 0], [3, 12, 0], [9]]) {
      expect(() => HyperLogLog.deserialize(Uint8Array.from(bytes)), JSON.stringify(bytes)).to.throw(SketchFormatError);
    }
  });

  it('carries the bias table its seeded experiment makes (a few trials agree within their noise)', () => {
    const quick = biasExperiment(12, 200);
    const table = BIAS_TABLES[12]!;
    expect(quick.estimates).to.have.length(table.estimates.length);
    // Mean raw estimates of 200 trials lie within a few standard errors of 20,000 trials'.
    quick.estimates.forEach((e, k) => expect(Math.abs(e - table.estimates[k]!), String(k)).to.be.below(5 + 0.01 * table.estimates[k]!));
    for (const t of Object.values(BIAS_TABLES)) expect(t.estimates.every((e, k) => k === 0 || e > t.estimates[k - 1]!)).to.equal(true);
  });
});
