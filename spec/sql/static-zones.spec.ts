// Zones the tree states as constants: Trino's names for them, the interval form of AT TIME ZONE, which
// expressions carry one zone on every row, and hostile zone text refused with Trino's error.
import { expect } from 'chai';
import fc from 'fast-check';
import type { Expression } from '../../lib/sql/ast.js';
import { parseExpression } from '../../lib/sql/parser.js';
import { constantZone, knownZone, staticZone, type Fail } from '../../lib/sql/static-zones.js';
import { VivaceError } from '../../lib/protocol/vivace-error.js';
import { hostileText } from '../support/linear-time.js';

const fail: Fail = (_node, name, message) => new VivaceError(name, message);
const UTC = { name: 'UTC' };
const zoneOf = (sql: string) => staticZone(parseExpression(sql) as Expression, { name: 'Asia/Tokyo' }, fail)?.name;

describe('static zones', () => {
  it('names constant zones as Trino renders them', () => {
    expect(knownZone('america/new_york')).to.deep.equal({ name: 'America/New_York' });
    expect(knownZone('GMT')).to.deep.equal(UTC);
    expect(knownZone('+00:00')).to.deep.equal(UTC);
    expect(knownZone('-0530')).to.deep.equal({ name: '-05:30', offsetMinutes: -330 });
    for (const unknown of ['Mars/Olympus', '+15:00', '', 'x\'y']) expect(knownZone(unknown), unknown).to.equal(undefined);
  });

  it('reads AT TIME ZONE intervals as offsets, and refuses what Trino refuses', () => {
    const zone = (sql: string) => constantZone(parseExpression(sql) as Expression, fail);
    expect(zone("INTERVAL '-03:30' HOUR TO MINUTE")).to.deep.equal({ name: '-03:30', offsetMinutes: -210 });
    expect(zone("INTERVAL '2' HOUR")).to.deep.equal({ name: '+02:00', offsetMinutes: 120 });
    expect(zone('x')).to.equal(undefined);
    expect(() => zone("'Mars/Olympus'")).to.throw(VivaceError, 'Time zone not supported: Mars/Olympus');
    expect(() => zone("INTERVAL '15' HOUR")).to.throw(VivaceError, 'Invalid time zone offset interval: 15');
  });

  it('knows which expressions carry one zone on every row', () => {
    expect(zoneOf("TIMESTAMP '2020-01-01 00:00:00 Europe/Paris'")).to.equal('Europe/Paris');
    expect(zoneOf("date_trunc('day', ts AT TIME ZONE 'UTC') + INTERVAL '1' HOUR")).to.equal('UTC');
    expect(zoneOf('current_timestamp')).to.equal('Asia/Tokyo');
    expect(zoneOf("CAST(CAST(d AS timestamp) AS timestamp with time zone)")).to.equal('Asia/Tokyo');
    expect(zoneOf("from_unixtime(0, 'America/Chicago')")).to.equal('America/Chicago');
    for (const varies of ['ts', "at_timezone(ts, z)", "CASE WHEN b THEN ts AT TIME ZONE 'UTC' END", "CAST(s AS timestamp with time zone)"]) expect(zoneOf(varies), varies).to.equal(undefined);
  });

  it('takes hostile zone text without crashing, as a clear error or no zone', () => {
    fc.assert(fc.property(hostileText(2_000), (t) => {
      expect(() => knownZone(t)).not.to.throw();
      try {
        constantZone({ type: 'StringLiteral', value: t, location: { start: 0, end: 0 } } as Expression, fail);
      } catch (e) {
        expect(e).to.be.instanceOf(VivaceError);
      }
    }), { numRuns: 50 });
  });
});
