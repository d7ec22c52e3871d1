import { expect } from 'chai';
import { fixed2HalfUp, formatDuration, parseDuration } from '../../lib/protocol/duration.js';
import { VivaceError } from '../../lib/protocol/vivace-error.js';

describe('duration', () => {
  describe('formatDuration', () => {
    it('picks the largest unit whose value exceeds 0.9999', () => {
      expect(formatDuration(1.234567)).to.equal('1.23ms');
      expect(formatDuration(0.00456)).to.equal('4.56us');
      expect(formatDuration(0.000001)).to.equal('1.00ns');
      expect(formatDuration(845.123)).to.equal('845.12ms');
      expect(formatDuration(1500)).to.equal('1.50s');
      expect(formatDuration(120_000)).to.equal('2.00m');
      expect(formatDuration(318_600)).to.equal('5.31m');
      expect(formatDuration(5_400_000)).to.equal('1.50h');
      expect(formatDuration(8_640_000_000)).to.equal('100.00d');
    });

    it('moves up a unit just below the boundary, as airlift does', () => {
      expect(formatDuration(59_999.99)).to.equal('1.00m');
      expect(formatDuration(999.95)).to.equal('1.00s');
      expect(formatDuration(999.8)).to.equal('999.80ms');
    });

    it('renders zero, and nonsense input, as 0.00s', () => {
      expect(formatDuration(0)).to.equal('0.00s');
      expect(formatDuration(-5)).to.equal('0.00s');
      expect(formatDuration(Number.NaN)).to.equal('0.00s');
    });

    it('rounds half up on the decimal form', () => {
      expect(formatDuration(1.005)).to.equal('1.01ms');
      expect(formatDuration(2.675)).to.equal('2.68ms');
      expect(formatDuration(1.994999)).to.equal('1.99ms');
      expect(formatDuration(9.995)).to.equal('10.00ms');
    });
  });

  describe('fixed2HalfUp', () => {
    it('matches Java %.2f', () => {
      expect(fixed2HalfUp(0)).to.equal('0.00');
      expect(fixed2HalfUp(7)).to.equal('7.00');
      expect(fixed2HalfUp(0.5)).to.equal('0.50');
      expect(fixed2HalfUp(0.125)).to.equal('0.13');
      expect(fixed2HalfUp(0.004)).to.equal('0.00');
      expect(fixed2HalfUp(99.999)).to.equal('100.00');
      expect(fixed2HalfUp(-1.005)).to.equal('-1.01');
      expect(fixed2HalfUp(1e-7)).to.equal('0.00');
      expect(fixed2HalfUp(1e21)).to.equal('1000000000000000000000.00');
    });
  });

  describe('parseDuration', () => {
    it('reads every airlift unit into milliseconds', () => {
      expect(parseDuration('15m')).to.equal(900_000);
      expect(parseDuration('100d')).to.equal(8_640_000_000);
      expect(parseDuration('1.5h')).to.equal(5_400_000);
      expect(parseDuration(' 2 s ')).to.equal(2000);
      expect(parseDuration('250ms')).to.equal(250);
      expect(parseDuration('500us')).to.equal(0.5);
      expect(parseDuration('2000000ns')).to.equal(2);
    });

    it('round-trips what formatDuration prints', () => {
      expect(parseDuration(formatDuration(120_000))).to.equal(120_000);
    });

    it('rejects unknown units (case-sensitive) and malformed strings', () => {
      for (const bad of ['15M', '10 minutes', '1.s', '-1s', '', 's', '1e3ms']) {
        expect(() => parseDuration(bad), bad)
          .to.throw(VivaceError)
          .with.property('errorName', 'INVALID_ARGUMENTS');
      }
    });
  });
});
