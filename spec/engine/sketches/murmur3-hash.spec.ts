// The 64-bit murmur3 of Trino's sketches against independent values: the reference murmur3 x64-128 (Python's
// mmh3, first half), and the hashes Trino itself prints (hash_counts' documented example).
import { expect } from 'chai';
import fc from 'fast-check';
import { doubleToLongBits, murmur3Hash64, murmur3Hash64OfLong } from '../../../lib/engine/sketches/murmur3-hash.js';

const signed = (x: bigint) => BigInt.asIntN(64, x);
const littleEndian = (value: bigint) => {
  const bytes = new Uint8Array(8);
  new DataView(bytes.buffer).setBigUint64(0, BigInt.asUintN(64, value), true);
  return bytes;
};

describe('murmur3 hash64', () => {
  it('hashes bytes as the reference murmur3 x64-128 (its first 64 bits)', () => {
    // mmh3.hash64(data, signed=False)[0], mmh3 5.x.
    const reference: [string, bigint][] = [
      ['', 0n],
      ['a', 0x85555565f6597889n],
      ['hello', 0xcbd8a7b341bd9b02n],
      ['0123456789abcdef', 0x4be06d94cf4ad1a7n],
      ['The quick brown fox jumps over the lazy dog', 0xe34bbc7bbc071b6cn],
      ['é€😀', 0xfa7418b9d513b4cen],
    ];
    for (const [text, hash] of reference) expect(murmur3Hash64(new TextEncoder().encode(text)), text).to.equal(hash);
  });

  it("hashes longs as Trino prints them (setdigest.md's hash_counts of 1 and 2)", () => {
    expect(signed(murmur3Hash64OfLong(1n))).to.equal(19144387141682250n);
    expect(signed(murmur3Hash64OfLong(2n))).to.equal(-2447670524089286488n);
    expect(murmur3Hash64OfLong(1n)).to.equal(0x004403b7fb05c44an);
  });

  it('hashes a long as its 8 little-endian bytes, for any long', () => {
    fc.assert(fc.property(fc.bigInt({ min: -(1n << 63n), max: (1n << 63n) - 1n }), (value) => {
      expect(murmur3Hash64OfLong(value)).to.equal(murmur3Hash64(littleEndian(value)));
    }), { numRuns: 300 });
  });

  it('reads doubles as Java does, every NaN canonical', () => {
    expect(doubleToLongBits(1)).to.equal(0x3ff0000000000000n);
    expect(doubleToLongBits(-0)).to.equal(0x8000000000000000n);
    expect(doubleToLongBits(NaN)).to.equal(0x7ff8000000000000n);
  });
});
