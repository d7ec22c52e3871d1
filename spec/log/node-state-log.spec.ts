// One line per node health change, from reading coordinator.nodes(): a real coordinator monitoring a
// node at an address where nothing listens, polled by hand (no timer is waited for).
import { expect } from 'chai';
import sinon from 'sinon';
import { createCoordinator, type Coordinator } from '../../lib/actors/coordinator.js';
import { startNodeStateLog } from '../../lib/log/node-state-log.js';
import { FakeEngine } from '../support/fake-engine.js';
import { captureLog } from '../support/log-capture.js';

describe('log: node state changes', () => {
  let coordinator: Coordinator;
  beforeEach(() => {
    coordinator = createCoordinator({ engine: new FakeEngine({}), config: { trackerIntervalMs: 60_000 } });
  });
  afterEach(async () => {
    sinon.restore();
    await coordinator.stop();
  });

  it('logs a node when first seen, then only when its health changes, and once when it is gone', () => {
    const log = captureLog('info');
    const nodes = startNodeStateLog(coordinator, log.logger, { intervalMs: 60_000 });
    coordinator.announceNode('worker-a', 'http://127.0.0.1:9');
    nodes.poll();
    nodes.poll();
    expect(log.lines().map(({ event, nodeId, state, previous, level }) => ({ event, nodeId, state, previous, level }))).to.deep.equal([
      { event: 'node_state', nodeId: 'worker-a', state: 'failed', previous: null, level: 'warn' },
    ]);
    // The health the detector reports: alive, then no longer listed (expired).
    const real = coordinator.nodes.bind(coordinator);
    const stub = sinon.stub(coordinator, 'nodes').callsFake(() => real().map((n) => ({ nodeId: n.nodeId, failed: false, stats: {} })));
    nodes.poll();
    stub.callsFake(() => []);
    nodes.poll();
    nodes.poll();
    expect(log.lines().slice(1).map(({ nodeId, state, previous, level }) => ({ nodeId, state, previous, level }))).to.deep.equal([
      { nodeId: 'worker-a', state: 'alive', previous: 'failed', level: 'info' },
      { nodeId: 'worker-a', state: 'gone', previous: 'alive', level: 'warn' },
    ]);
    nodes.stop();
  });

  it('its timer never keeps the process alive and stops when asked', () => {
    const clock = sinon.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const log = captureLog('info');
    const nodes = startNodeStateLog(coordinator, log.logger, { intervalMs: 1000 });
    coordinator.announceNode('worker-b', 'http://127.0.0.1:9');
    expect(log.lines()).to.deep.equal([]);
    clock.tick(1000);
    expect(log.lines().map((l) => l.nodeId)).to.deep.equal(['worker-b']);
    nodes.stop();
    expect(clock.countTimers()).to.equal(0);
  });
});
