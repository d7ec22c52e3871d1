import { expect } from 'chai';
import fc from 'fast-check';
import { stdTimeFunctions } from 'pino';
import sinon from 'sinon';
import { isoTimeField, isoTimeFieldAt } from '../../lib/log/log-time.js';

describe('log line time field', () => {
  it("is pino's isoTime text for any instant, in any order (the cached second never leaks)", () => {
    const instant = fc.oneof(
      fc.integer({ min: -8_640_000_000_000_000, max: 8_640_000_000_000_000 }),
      fc.integer({ min: 1_700_000_000_000, max: 1_700_000_003_000 }), // neighbours within a few seconds
    );
    fc.assert(
      fc.property(fc.array(instant, { minLength: 1, maxLength: 20 }), (instants) => {
        for (const now of instants) expect(isoTimeFieldAt(now), String(now)).to.equal(`,"time":"${new Date(now).toISOString()}"`);
      }),
      { numRuns: 500 },
    );
  });

  it("reads the clock as pino's does", () => {
    const clock = sinon.useFakeTimers({ now: Date.UTC(2026, 10, 24, 4, 20, 59, 999) });
    try {
      expect(isoTimeField()).to.equal(stdTimeFunctions.isoTime());
      clock.tick(1);
      expect(isoTimeField()).to.equal(',"time":"2026-11-24T04:21:00.000Z"');
      expect(isoTimeField()).to.equal(stdTimeFunctions.isoTime());
    } finally {
      clock.restore();
    }
  });
});
