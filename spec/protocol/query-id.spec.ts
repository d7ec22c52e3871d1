import { expect } from 'chai';
import { QueryIdGenerator, isValidQueryId } from '../../lib/protocol/query-id.js';

const at = (iso: string) => Date.parse(iso);

describe('query-id', () => {
  it('formats the UTC second, a 5-digit counter and the coordinator id', () => {
    let now = at('2016-01-28T21:47:10.123Z');
    const gen = new QueryIdGenerator(() => now, 'rk68b');
    expect(gen.next()).to.equal('20160128_214710_00000_rk68b');
    expect(gen.next()).to.equal('20160128_214710_00001_rk68b');
    now = at('2016-01-28T23:59:59.999Z');
    expect(gen.next()).to.equal('20160128_235959_00002_rk68b');
  });

  it('resets the counter when the UTC day changes', () => {
    let now = at('2016-01-28T23:59:59.000Z');
    const gen = new QueryIdGenerator(() => now, 'abcde');
    gen.next();
    gen.next();
    now = at('2016-01-29T00:00:00.000Z');
    expect(gen.next()).to.equal('20160129_000000_00000_abcde');
  });

  it('never prints an earlier second when the clock steps back', () => {
    let now = at('2016-01-29T00:00:05.000Z');
    const gen = new QueryIdGenerator(() => now, 'abcde');
    expect(gen.next()).to.equal('20160129_000005_00000_abcde');
    now = at('2016-01-28T23:59:50.000Z');
    expect(gen.next()).to.equal('20160129_000005_00001_abcde');
  });

  it('moves to the next second instead of reusing counters after 100000 ids', () => {
    const now = at('2020-05-01T10:00:00.000Z');
    const gen = new QueryIdGenerator(() => now, 'abcde');
    for (let i = 0; i < 99_999; i++) gen.next();
    expect(gen.next()).to.equal('20200501_100000_99999_abcde');
    expect(gen.next()).to.equal('20200501_100001_00000_abcde');
    expect(gen.next()).to.equal('20200501_100001_00001_abcde');
  });

  it('picks a random coordinator id from the readable alphabet, once per generator', () => {
    const gen = new QueryIdGenerator(() => at('2024-02-29T12:00:00Z'));
    expect(gen.coordinatorId).to.match(/^[a-kmnp-z2-9]{5}$/);
    const a = gen.next();
    const b = gen.next();
    expect(a.slice(-5)).to.equal(gen.coordinatorId);
    expect(b.slice(-5)).to.equal(gen.coordinatorId);
    expect(a).to.match(/^20240229_120000_00000_[a-z2-9]{5}$/);
    expect(isValidQueryId(a)).to.equal(true);
  });

  it('rejects a malformed coordinator id', () => {
    expect(() => new QueryIdGenerator(Date.now, 'abcd1')).to.throw(RangeError);
    expect(() => new QueryIdGenerator(Date.now, 'ABCDE')).to.throw(RangeError);
  });

  it('isValidQueryId accepts only lowercase letters, digits and underscores', () => {
    expect(isValidQueryId('20160128_214710_00012_rk68b')).to.equal(true);
    expect(isValidQueryId('my_query_1')).to.equal(true);
    expect(isValidQueryId('')).to.equal(false);
    expect(isValidQueryId('2016-01-28')).to.equal(false);
    expect(isValidQueryId('ABC')).to.equal(false);
    expect(isValidQueryId('../etc')).to.equal(false);
  });
});
