import { expect } from 'chai';
import { formatDataSize, parseDataSize } from '../../lib/protocol/data-size.js';
import { VivaceError } from '../../lib/protocol/vivace-error.js';

describe('data-size', () => {
  describe('formatDataSize', () => {
    it('always writes whole bytes with a B suffix', () => {
      expect(formatDataSize(0)).to.equal('0B');
      expect(formatDataSize(1536)).to.equal('1536B');
      expect(formatDataSize(123_456_789_012)).to.equal('123456789012B');
      expect(formatDataSize(10.6)).to.equal('11B');
    });

    it('never uses exponent notation for large counts', () => {
      expect(formatDataSize(2 ** 60)).to.equal('1152921504606846976B');
    });

    it('renders negative or non-finite counts as 0B', () => {
      expect(formatDataSize(-1)).to.equal('0B');
      expect(formatDataSize(Number.POSITIVE_INFINITY)).to.equal('0B');
    });
  });

  describe('parseDataSize', () => {
    it('reads binary units', () => {
      expect(parseDataSize('123B')).to.equal(123);
      expect(parseDataSize('2kB')).to.equal(2048);
      expect(parseDataSize('1MB')).to.equal(1_048_576);
      expect(parseDataSize('1.5GB')).to.equal(1_610_612_736);
      expect(parseDataSize('1TB')).to.equal(1024 ** 4);
      expect(parseDataSize('1PB')).to.equal(1024 ** 5);
      expect(parseDataSize(' 4 MB ')).to.equal(4 * 1_048_576);
    });

    it('truncates fractional bytes like airlift toBytes()', () => {
      expect(parseDataSize('0.3kB')).to.equal(307);
    });

    it('rejects wrong-case units and malformed strings', () => {
      for (const bad of ['1KB', '1mb', '1b', '1.5', 'GB', '-1GB', '1 GiB']) {
        expect(() => parseDataSize(bad), bad)
          .to.throw(VivaceError)
          .with.property('errorName', 'INVALID_ARGUMENTS');
      }
    });
  });
});
