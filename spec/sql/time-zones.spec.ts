// Zone names and offsets as Trino writes them, read off literals and AT TIME ZONE.
import { expect } from 'chai';
import fc from 'fast-check';
import { literalParts, offsetZone, parseZone } from '../../lib/sql/time-zones.js';
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

  it('reads offsets after UTC, GMT, UT and Etc/GMT as Trino\'s TimeZoneKey does (Etc/GMT+5 is west)', () => {
    expect(parseZone('UTC-05:30')).to.deep.equal({ name: '-05:30', offsetMinutes: -330 });
    expect(parseZone('UTC+5')).to.deep.equal({ name: '+05:00', offsetMinutes: 300 });
    expect(parseZone('GMT+01:00')).to.deep.equal({ name: '+01:00', offsetMinutes: 60 });
    expect(parseZone('UT-3')).to.deep.equal({ name: '-03:00', offsetMinutes: -180 });
    expect(parseZone('Etc/GMT+5')).to.deep.equal({ name: '-05:00', offsetMinutes: -300 });
    expect(parseZone('UTC+00:00')).to.deep.equal({ name: 'UTC' });
    for (const bad of ['UTC+05:30:10', 'UTC+0530', 'UTC+15', 'GMT+01:60', 'UTC+', 'UTC5']) expect(parseZone(bad)?.offsetMinutes, bad).to.equal(undefined);
  });

  it('splits a TIMESTAMP literal at the zone after its time of day', () => {
    expect(literalParts('2020-01-02 03:04:05 America/New_York')).to.deep.equal({ local: '2020-01-02 03:04:05', zone: { name: 'America/New_York' } });
    expect(literalParts(' 2020-01-02 03:04:05.123+02:00')).to.deep.equal({ local: '2020-01-02 03:04:05.123', zone: { name: '+02:00', offsetMinutes: 120 } });
    expect(literalParts('2020-01-02 03:04 -0530')).to.deep.equal({ local: '2020-01-02 03:04', zone: { name: '-05:30', offsetMinutes: -330 } });
    expect(literalParts('2020-01-02 03:04:05')).to.equal(undefined);
    expect(literalParts('2020-01-02')).to.equal(undefined);
    expect(literalParts("2020-01-02 03:04:05 x'y")).to.equal(undefined);
  });

  it('names fixed offsets as Trino does, within 14 hours', () => {
    expect(offsetZone(0)).to.deep.equal({ name: 'UTC' });
    expect(offsetZone(-210)).to.deep.equal({ name: '-03:30', offsetMinutes: -210 });
    expect(offsetZone(840)).to.deep.equal({ name: '+14:00', offsetMinutes: 840 });
    expect(offsetZone(841)).to.equal(undefined);
    expect(offsetZone(1.5)).to.equal(undefined);
  });

  it('reads hostile text in linear time', () => {
    expectLinear('parseZone', (t) => parseZone(t), (size) => ['+'.repeat(size), `2020-01-01 ${'1'.repeat(size)}`, 'a/'.repeat(size / 2)]);
    expectLinear('literalParts', (t) => literalParts(t), (size) => [`2020-01-01 ${':'.repeat(size)}x`, ` ${' '.repeat(size)}`]);
    fc.assert(fc.property(hostileText(10_000), (t) => {
      parseZone(t);
      literalParts(t);
    }), { numRuns: 30 });
  });
});
