// isoTime writes what luxon's DateTime.fromMillis(millis).toISO() writes (the query resource's and the
// history's times), in every zone: whole-hour, half- and quarter-hour offsets, summer time, local mean time.
import { expect } from 'chai';
import fc from 'fast-check';
import { DateTime } from 'luxon';
import { isoTime } from '../../lib/protocol/iso-time.js';

describe('isoTime', () => {
  const zones = ['UTC', 'Europe/Berlin', 'America/St_Johns', 'Asia/Kathmandu', 'Australia/Lord_Howe', 'Pacific/Chatham', 'America/Los_Angeles', 'Africa/Monrovia'];
  let saved: string | undefined;
  beforeEach(() => {
    saved = process.env.TZ;
  });
  afterEach(() => {
    if (saved === undefined) delete process.env.TZ;
    else process.env.TZ = saved;
  });

  it("equals luxon's toISO for any millisecond from 1800 to 2200 in the process's zone, whatever it is", () => {
    for (const zone of zones) {
      process.env.TZ = zone;
      fc.assert(fc.property(fc.integer({ min: -5_364_662_400_000, max: 7_258_118_400_000 }), (millis) => isoTime(millis) === DateTime.fromMillis(millis).toISO()), { numRuns: 2000 });
    }
    process.env.TZ = 'Europe/Berlin';
    expect(isoTime(1_764_407_228_123)).to.equal('2025-11-29T10:07:08.123+01:00');
    expect(isoTime(1_751_274_000_005)).to.equal('2025-06-30T11:00:00.005+02:00');
  });

  it("leaves what it does not write itself to luxon: years past 9999 or before 1000", () => {
    process.env.TZ = 'UTC';
    for (const millis of [253_402_300_800_000, -30_610_224_000_001, 0]) expect(isoTime(millis)).to.equal(DateTime.fromMillis(millis).toISO());
  });
});
