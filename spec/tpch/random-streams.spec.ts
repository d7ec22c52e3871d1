import { expect } from 'chai';
import { MODULUS, advanceSeed, mulMod, nextSeed } from '../../lib/tpch/park-miller.js';
import { RandomAlphaNumeric } from '../../lib/tpch/random-alpha-numeric.js';
import { RandomBoundedInt } from '../../lib/tpch/random-bounded-int.js';
import { RandomBoundedLong } from '../../lib/tpch/random-bounded-long.js';

describe('tpch random streams', () => {
  it('mulMod is exact for 31-bit operands', () => {
    const samples = [1, 2, 16807, 65535, 65536, 123456789, MODULUS - 1, 2 ** 31 - 2];
    for (const a of samples) {
      for (const b of samples) {
        expect(mulMod(a, b)).to.equal(Number((BigInt(a) * BigInt(b)) % BigInt(MODULUS)));
      }
    }
  });

  it('one step is seed * 16807 mod 2^31-1', () => {
    for (const seed of [1, 933588178, MODULUS - 1, 127773, 127774]) {
      expect(nextSeed(seed)).to.equal(Number((BigInt(seed) * 16807n) % BigInt(MODULUS)));
    }
  });

  it('advancing n seeds equals drawing n times, for small and large n', () => {
    for (const n of [0, 1, 7, 1023, 1024, 5000]) {
      let seed = 1066728069;
      for (let i = 0; i < n; i++) seed = nextSeed(seed);
      expect(advanceSeed(1066728069, n), `n=${n}`).to.equal(seed);
    }
  });

  it('advanceRows skips whole rows, including an unfinished one', () => {
    const stepped = new RandomBoundedInt(209208115, 1, 50, 7);
    for (let row = 0; row < 10; row++) {
      for (let k = 0; k < row % 7; k++) stepped.nextValue();
      stepped.rowFinished();
    }
    const skipped = new RandomBoundedInt(209208115, 1, 50, 7);
    skipped.nextValue();
    skipped.advanceRows(9);
    expect(skipped.nextValue()).to.equal(stepped.nextValue());
  });

  it('bounded values stay in range', () => {
    const r = new RandomBoundedInt(1, -99999, 999999);
    for (let i = 0; i < 1000; i++) {
      const v = r.nextValue();
      r.rowFinished();
      expect(v).to.be.within(-99999, 999999);
    }
  });

  it('64-bit key stream (scale factor >= 30000) is deterministic and bounded', () => {
    const a = new RandomBoundedLong(851767375, true, 1, 4_500_000_000, 1);
    const b = new RandomBoundedLong(851767375, true, 1, 4_500_000_000, 1);
    a.advanceRows(3);
    b.advanceRows(3);
    const v = a.nextValue();
    expect(v).to.equal(b.nextValue());
    expect(v).to.be.within(1, 4_500_000_000);
    // dbgen skips this stream with the 32-bit multiplier: seed * 16807^3 mod 2^31-1, then one 64-bit step.
    const skipped = (851767375n * 16807n ** 3n) % 2147483647n;
    const drawn = BigInt.asIntN(64, skipped * 6364136223846793005n + 1n);
    expect(v).to.equal(1 + Number((drawn < 0n ? -drawn : drawn) % 4_500_000_000n));
  });

  it('alphanumeric text uses dbgen alphabet and 10..40 characters for average 25', () => {
    const r = new RandomAlphaNumeric(881155353, 25);
    r.next();
    expect(r.value()).to.equal('IVhzIApeRb ot,c,E'); // customer 1's address
    for (let i = 0; i < 200; i++) {
      r.rowFinished();
      r.next();
      expect(r.length).to.be.within(10, 40);
      expect(r.value()).to.match(/^[0-9a-z ,]+$/i);
    }
  });
});
