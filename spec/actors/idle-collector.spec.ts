import { expect } from 'chai';
import sinon from 'sinon';
import { startIdleCollector } from '../../lib/actors/idle-collector.js';

describe('idle collector', () => {
  let clock: sinon.SinonFakeTimers;
  const globals = globalThis as { gc?: () => void };
  const saved = globals.gc;
  beforeEach(() => {
    clock = sinon.useFakeTimers();
  });
  afterEach(() => {
    clock.restore();
    globals.gc = saved;
  });

  it('collects twice once idle for two intervals after enough finished queries, and not again until more finish', () => {
    const gc = sinon.spy();
    globals.gc = gc;
    let live = 3;
    let finished = 0;
    const stop = startIdleCollector({ intervalMs: 500, minFinishedQueries: 100, liveQueries: () => live, finishedQueries: () => finished });
    finished = 150;
    clock.tick(2000);
    expect(gc.callCount).to.equal(0); // queries still live
    live = 0;
    clock.tick(500);
    expect(gc.callCount).to.equal(0); // idle for one interval only
    clock.tick(500);
    expect(gc.callCount).to.equal(2);
    clock.tick(5000);
    expect(gc.callCount).to.equal(2); // nothing new finished
    finished = 260;
    clock.tick(500);
    expect(gc.callCount).to.equal(4);
    stop();
  });

  it('does nothing without --expose-gc', () => {
    globals.gc = undefined;
    const stop = startIdleCollector({ intervalMs: 500, minFinishedQueries: 1, liveQueries: () => 0, finishedQueries: () => 1000 });
    clock.tick(5000);
    stop();
    expect(clock.countTimers()).to.equal(0);
  });
});
