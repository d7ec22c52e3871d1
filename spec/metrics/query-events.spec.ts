// watchQueryEvents: every query's start and end reach every watcher of a coordinator, once, through one
// shared subscription to its tracker; a watcher that stops hears nothing more, the others go on.
import { expect } from 'chai';
import sinon from 'sinon';
import { createCoordinator, type Coordinator } from '../../lib/actors/coordinator.js';
import { watchQueryEvents, type QueryEventListener } from '../../lib/metrics/query-events.js';
import { BIGINT_COLUMN, FakeEngine } from '../support/fake-engine.js';
import { settle, testSession } from '../support/actors.js';

/** A listener that counts what it hears, and the ids of the queries that ended. */
function counter(): QueryEventListener & { starts: number; ends: string[] } {
  const heard = { starts: 0, ends: [] as string[] };
  return Object.assign(heard, {
    started: () => void heard.starts++,
    ended: (view: { queryId: string }) => void heard.ends.push(view.queryId),
  });
}

describe('metrics: query events', () => {
  let coordinator: Coordinator;
  beforeEach(() => {
    coordinator = createCoordinator({ engine: new FakeEngine({ 'SELECT 1': { columns: [BIGINT_COLUMN('x')], rows: [[1]] } }), config: { trackerIntervalMs: 60_000 } });
  });
  afterEach(() => coordinator.stop());

  /** Runs SELECT 1, taking its pages as a client would, until the tracker has it finished; its id. */
  async function finishOne(): Promise<string> {
    const { tracked } = coordinator.start('SELECT 1', testSession());
    for (let round = 0; round < 200 && tracked.ref?.getSnapshot().status === 'active'; round++) {
      tracked.ref.send({ type: 'results.take' });
      await settle(1);
    }
    await settle();
    expect(coordinator.view(tracked).state).to.equal('FINISHED');
    return tracked.queryId;
  }

  it('tells every watcher of each start and end once, through one subscription to the tracker', async () => {
    const subscribe = sinon.spy(coordinator.tracker, 'subscribe');
    const [a, b, c] = [counter(), counter(), counter()];
    const stopA = watchQueryEvents(coordinator, [a, b]);
    const stopC = watchQueryEvents(coordinator, [c, a]); // a again: still told once
    expect(subscribe.callCount).to.equal(1);
    const first = await finishOne();
    for (const l of [a, b, c]) expect(l, 'each watcher').to.deep.include({ starts: 1, ends: [first] });

    stopA();
    const second = await finishOne();
    expect(a.ends).to.deep.equal([first]);
    expect(b.ends).to.deep.equal([first]);
    expect(c.ends).to.deep.equal([first, second]);

    stopC();
    await finishOne();
    expect(c.ends).to.deep.equal([first, second]);
    // The last watcher gone, the next one subscribes anew and hears only what comes after it.
    const d = counter();
    const stopD = watchQueryEvents(coordinator, [d]);
    expect(subscribe.callCount).to.equal(2);
    const third = await finishOne();
    expect(d).to.deep.include({ starts: 1, ends: [third] });
    stopD();
  });
});
