import { expect } from 'chai';
import { DecayCounter } from '../../lib/cluster/decay-counter.js';

/** A settable epoch-millisecond clock. */
function fakeClock(start = 1_700_000_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

describe('DecayCounter', () => {
  it('counts without decay within the same second', () => {
    const clock = fakeClock();
    const counter = new DecayCounter(1 / 60, clock.now);
    for (let i = 0; i < 10; i++) counter.add(1);
    expect(counter.count()).to.equal(10);
  });

  it('decays 1000 events to 1000/e (~367.9) after one idle minute', () => {
    const clock = fakeClock();
    const counter = new DecayCounter(1 / 60, clock.now);
    for (let i = 0; i < 1000; i++) counter.add(1);
    clock.advance(60_000);
    expect(counter.count()).to.be.closeTo(1000 / Math.E, 1e-9);
    expect(counter.count()).to.be.closeTo(367.88, 0.01);
  });

  it('defaults to the one-minute decay', () => {
    const clock = fakeClock();
    const counter = new DecayCounter(undefined, clock.now);
    counter.add(1000);
    clock.advance(120_000);
    expect(counter.count()).to.be.closeTo(1000 * Math.exp(-2), 1e-9);
  });

  it('reads time in whole seconds, as airlift truncates nanoTime', () => {
    const clock = fakeClock(1_700_000_000_000);
    const counter = new DecayCounter(1 / 60, clock.now);
    counter.add(100);
    clock.advance(999); // still the same second
    expect(counter.count()).to.equal(100);
    clock.advance(1); // next second
    expect(counter.count()).to.be.closeTo(100 * Math.exp(-1 / 60), 1e-9);
  });

  it('weighs each event by e^(-alpha * age)', () => {
    const clock = fakeClock();
    const counter = new DecayCounter(1 / 60, clock.now);
    counter.add(10);
    clock.advance(30_000);
    counter.add(5);
    clock.advance(30_000);
    expect(counter.count()).to.be.closeTo(10 * Math.exp(-1) + 5 * Math.exp(-0.5), 1e-9);
  });

  it('rescales its landmark after 50 s without changing the count, and never overflows', () => {
    const clock = fakeClock();
    const counter = new DecayCounter(1 / 60, clock.now);
    counter.add(1);
    clock.advance(49_000);
    counter.add(1); // 49 s: no rescale yet
    clock.advance(1_000);
    counter.add(1); // 50 s: rescale, then add at weight 1
    const expected = Math.exp(-50 / 60) + Math.exp(-1 / 60) + 1;
    expect(counter.count()).to.be.closeTo(expected, 1e-12);
    // A day of one event per second stays finite and converges to 1 / (1 - e^(-1/60)).
    for (let s = 0; s < 86_400; s++) {
      clock.advance(1_000);
      counter.add(1);
    }
    expect(Number.isFinite(counter.count())).to.equal(true);
    expect(counter.count()).to.be.closeTo(1 / (1 - Math.exp(-1 / 60)), 1e-6);
  });

  it('uses alpha = 1/n for an n-second decay', () => {
    const clock = fakeClock();
    const counter = new DecayCounter(1 / 10, clock.now);
    counter.add(1000);
    clock.advance(10_000);
    expect(counter.count()).to.be.closeTo(1000 / Math.E, 1e-9);
  });

  it('duplicate() and plus() leave the original untouched', () => {
    const clock = fakeClock();
    const counter = new DecayCounter(1 / 60, clock.now);
    counter.add(3);
    const more = counter.plus(2);
    const copy = counter.duplicate();
    copy.add(10);
    expect(counter.count()).to.equal(3);
    expect(more.count()).to.equal(5);
    expect(copy.count()).to.equal(13);
    clock.advance(60_000);
    expect(more.count()).to.be.closeTo(5 / Math.E, 1e-9);
  });
});
