// The coordinator's failure detector watching 1,000 nodes through a fake transport on a simulated clock:
// the failed set after an outage of some of them is exactly those, and they come back through the warm-up.
// No timing assertions on the machine's speed (make test must not depend on load); bench figure g measures it.
import { expect } from 'chai';
import { SimulatedClock } from 'xstate';
import { createCoordinator, type Coordinator } from '../../lib/actors/coordinator.js';
import type { PingTransport } from '../../lib/cluster/heartbeat-ping.js';
import { FakeEngine } from '../support/fake-engine.js';
import { validateResponse } from '../support/schema-validator.js';

const EPOCH = Date.UTC(2024, 4, 1, 12, 0, 0);
const NODES = 1_000;
/** Every 20th node goes down (50 nodes), spread over the whole announcement order. */
const isVictim = (i: number) => i % 20 === 7;

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('failure detector with 1,000 simulated nodes', function () {
  this.timeout(120_000);

  let clock: SimulatedClock;
  let coordinator: Coordinator;
  const down = new Set<string>();
  const pinged = new Map<string, number>();

  /** Node i answers unless its status URI is down. */
  const transport: PingTransport = (uri) => {
    pinged.set(uri, (pinged.get(uri) ?? 0) + 1);
    return down.has(uri) ? Promise.reject(Object.assign(new Error(`connect ECONNREFUSED ${uri}`), { code: 'ECONNREFUSED' })) : Promise.resolve(200);
  };
  const uriOf = (i: number) => `http://10.0.${i >> 8}.${i & 255}:8080`;
  const failedIds = () => new Set(coordinator.nodes().filter((n) => n.failed).map((n) => n.nodeId));

  /** Advance simulated time in 100 ms steps (pings are due on 500 ms marks), letting answers arrive. */
  async function run(ms: number, each?: () => boolean | void): Promise<void> {
    for (let t = 0; t < ms; t += 100) {
      clock.increment(100);
      await flush();
      if (each?.() === true) return;
    }
  }

  before(() => {
    clock = new SimulatedClock();
    coordinator = createCoordinator({ engine: new FakeEngine({}), clock, now: () => EPOCH + clock.now(), pingTransport: transport });
    for (let i = 0; i < NODES; i++) coordinator.announceNode(`node-${i}`, uriOf(i));
  });
  after(() => coordinator.stop());

  it('every node is ALIVE after the 5 s warm-up, pinged twice a second', async () => {
    expect(failedIds().size).to.equal(NODES); // never succeeded yet
    await run(10_000);
    expect(failedIds().size).to.equal(0);
    expect(pinged.size).to.equal(NODES);
    expect([...pinged.values()].every((n) => n === 20)).to.equal(true);
    const list = coordinator.nodes().map((n) => n.stats);
    validateResponse('node-list', list);
    expect(list).to.have.length(NODES);
  });

  it('an outage of 50 nodes fails exactly those, and they recover through the warm-up', async () => {
    const victims = new Set<string>();
    for (let i = 0; i < NODES; i++) {
      if (!isVictim(i)) continue;
      victims.add(`node-${i}`);
      down.add(`${uriOf(i)}/v1/status`);
    }
    const others = (ids: Set<string>) => [...ids].filter((id) => !victims.has(id));
    await run(10_000, () => {
      expect(others(failedIds()), 'healthy nodes stay ALIVE').to.deep.equal([]);
      return failedIds().size === victims.size;
    });
    expect(failedIds()).to.deep.equal(victims);
    for (const n of coordinator.nodes().filter((h) => h.failed)) {
      expect(n.stats.recentFailureRatio).to.be.greaterThan(0.1);
      expect(Object.keys(n.stats.recentFailuresByType as object)).to.deep.equal(['ECONNREFUSED']);
    }
    validateResponse('node-list', coordinator.nodes().filter((n) => n.failed).map((n) => n.stats));

    // Back up: each stays failed for 5 s after its ratio falls to 0.1 or less, then is ALIVE again.
    down.clear();
    const warmingSince = new Map<string, number>();
    const aliveAt = new Map<string, number>();
    await run(120_000, () => {
      const health = coordinator.nodes();
      for (const n of health) {
        if (!victims.has(n.nodeId)) {
          expect(n.failed, `${n.nodeId} stays ALIVE`).to.equal(false);
        } else if (n.failed && (n.stats.recentFailureRatio as number) <= 0.1) {
          if (!warmingSince.has(n.nodeId)) warmingSince.set(n.nodeId, clock.now());
        } else if (!n.failed && !aliveAt.has(n.nodeId)) {
          aliveAt.set(n.nodeId, clock.now());
        }
      }
      return aliveAt.size === victims.size;
    });
    expect(failedIds().size).to.equal(0);
    expect(aliveAt.size).to.equal(victims.size);
    for (const id of victims) {
      expect(warmingSince.has(id), `${id} warmed up`).to.equal(true);
      expect(aliveAt.get(id)! - warmingSince.get(id)!, id).to.equal(5_000);
    }
  });

  it('nodes gone from discovery stop being pinged and are listed as failed', async () => {
    for (let i = 0; i < 100; i++) coordinator.forgetNode(`node-${i}`);
    const before = new Map(pinged);
    await run(5_000);
    for (let i = 0; i < NODES; i++) {
      const uri = `${uriOf(i)}/v1/status`;
      if (i < 100) expect(pinged.get(uri), uri).to.equal(before.get(uri));
      else expect(pinged.get(uri)! - before.get(uri)!, uri).to.equal(10);
    }
    expect(failedIds().size).to.equal(100);
  });

  it('a node announced on a new address is pinged there only, afresh (failed until it answers there, alive at once then)', async () => {
    const old = `${uriOf(500)}/v1/status`;
    coordinator.announceNode('node-500', 'http://10.9.9.9:8080');
    const before = pinged.get(old);
    expect(coordinator.nodes().find((n) => n.nodeId === 'node-500')).to.include({ failed: true });
    await run(1_000);
    expect(pinged.get(old)).to.equal(before);
    expect(pinged.get('http://10.9.9.9:8080/v1/status')).to.equal(2);
    expect(coordinator.nodes().find((n) => n.nodeId === 'node-500')).to.include({ failed: false });
  });
});
