// Zone names and offsets as Trino writes them, read off literals and AT TIME ZONE, and the DuckDB SQL built over them.
import { expect } from 'chai';
import fc from 'fast-check';
import { instantOf, literalZone, localTime, parseZone } from '../../lib/sql/time-zones.js';
import { expectLinear, hostileText } from '../support/linear-time.js';

describe('time zones', () => {
  it('reads regions, UTC and offsets, naming offsets as Trino renders them', () => {
    expect(parseZone('America/New_York')).to.deep.equal({ name: 'America/New_York' });
    expect(parseZone(' UTC ')).to.deep.equal({ name: 'UTC' });
    expect(parseZone('Z')).to.deep.equal({ name: 'UTC' });
    expect(parseZone('+02:00')).to.deep.equal({ name: '+02:00', offsetMinutes: 120 });
    expect(parseZone('-0530')).to.deep.equal({ name: '-05:30', offsetMinutes: -330 });
    expect(parseZone('+2')).to.deep.equal({ name: '+02:00', offsetMinutes: 120 });
    expect(parseZone('+00:00')).to.deep.equal({ name: 'UTC' });
    for (const bad of ['', '+15:00', '+14:30', '+02:60', "x'; DROP", 'a b', '+1:2:3', 'Europe/Paris\u0000']) expect(parseZone(bad), bad).to.equal(undefined);
  });

  it('finds the zone after the time of day of a TIMESTAMP literal', () => {
    expect(literalZone('2020-01-02 03:04:05 America/New_York')).to.deep.equal({ name: 'America/New_York' });
    expect(literalZone('2020-01-02 03:04:05.123+02:00')).to.deep.equal({ name: '+02:00', offsetMinutes: 120 });
    expect(literalZone('2020-01-02 03:04:05')).to.equal(undefined);
    expect(literalZone('2020-01-02')).to.equal(undefined);
  });

  it('builds local times and instants with the zone as a quoted string, offsets as intervals', () => {
    expect(localTime({ name: "Bad'Zone" }, 'x')).to.equal("timezone('Bad''Zone', x)");
    expect(localTime({ name: '+02:00', offsetMinutes: 120 }, 'x')).to.equal("(timezone('UTC', x) + INTERVAL '120 minutes')");
    expect(instantOf({ name: '-05:30', offsetMinutes: -330 }, 'x')).to.equal("timezone('UTC', x - INTERVAL '-330 minutes')");
  });

  it('reads hostile text in linear time', () => {
    expectLinear('parseZone', (t) => parseZone(t), (size) => ['+'.repeat(size), `2020-01-01 ${'1'.repeat(size)}`, 'a/'.repeat(size / 2)]);
    expectLinear('literalZone', (t) => literalZone(t), (size) => [`2020-01-01 ${':'.repeat(size)}x`, ` ${' '.repeat(size)}`]);
    fc.assert(fc.property(hostileText(10_000), (t) => {
      parseZone(t);
      literalZone(t);
    }), { numRuns: 30 });
  });
});
