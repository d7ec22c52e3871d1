// Trino's numeric time zone keys (TimeZoneKey): UTC and its aliases 0, offsets by formula, regions by the table.
import { expect } from 'chai';
import fc from 'fast-check';
import { timeZoneKey } from '../../lib/protocol/time-zone-keys.js';
import { hostileText } from '../support/linear-time.js';

describe('time zone keys', () => {
  it('gives Trino\'s keys: UTC 0, offsets around it, regions from 1681', () => {
    expect(timeZoneKey('UTC')).to.equal(0);
    expect(timeZoneKey('Etc/UTC')).to.equal(0);
    expect(timeZoneKey('+00:00')).to.equal(0);
    expect(timeZoneKey('-14:00')).to.equal(1);
    expect(timeZoneKey('-00:01')).to.equal(840);
    expect(timeZoneKey('+00:01')).to.equal(841);
    expect(timeZoneKey('+05:30')).to.equal(1170);
    expect(timeZoneKey('+14:00')).to.equal(1680);
    // The offsets the translation reads (time-zones.ts parseZone) have their keys too.
    expect(timeZoneKey('+2')).to.equal(960);
    expect(timeZoneKey('-0530')).to.equal(511);
    expect(timeZoneKey('Africa/Abidjan')).to.equal(1681);
    expect(timeZoneKey('America/New_York')).to.equal(1847);
    expect(timeZoneKey('america/new_york')).to.equal(1847);
    expect(timeZoneKey('Canada/Eastern')).to.equal(2041);
    expect(timeZoneKey('Asia/Kolkata')).to.equal(1953);
    expect(timeZoneKey('Europe/Paris')).to.equal(2082);
    expect(timeZoneKey('America/Nuuk')).to.equal(2230);
  });

  it('knows no retired or unknown zone, and reads hostile text without failing', () => {
    for (const zone of ['Canada/East-Saskatchewan', 'US/Pacific-New', 'Mars/Olympus', '+15:00', '+01:60', '']) expect(timeZoneKey(zone), zone).to.equal(undefined);
    fc.assert(fc.property(hostileText(2_000), (t) => {
      const key = timeZoneKey(t);
      expect(key === undefined || Number.isInteger(key)).to.equal(true);
    }), { numRuns: 30 });
  });
});
