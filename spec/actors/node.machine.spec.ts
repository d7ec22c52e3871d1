import { expect } from 'chai';
import { createActor, SimulatedClock } from 'xstate';
import { nodeMachine, type NodeActorRef } from '../../lib/actors/node.machine.js';
import type { PingTransport } from '../../lib/cluster/heartbeat-ping.js';
import { HeartbeatScheduler } from '../../lib/cluster/heartbeat-scheduler.js';
import { isNodeFailed, nodeStateOf, nodeStatsView } from '../../lib/actors/node-view.js';
import { renderNodeStats } from '../../lib/protocol/node-stats.js';
import { validateResponse } from '../support/schema-validator.js';

const EPOCH = Date.UTC(2024, 4, 1, 12, 0, 0);

/** A node that answers or refuses on command; counts the pings it sees. */
class FakeNode {
  up = true;
  /** Down and silent: every ping fails by its timeout (TimeoutError), on the simulated clock. */
  hangs = false;
  pings: { uri: string; at: number }[] = [];
  constructor(private readonly clock: SimulatedClock) {}
  readonly ping: PingTransport = async (uri, timeoutMs) => {
    this.pings.push({ uri, at: this.clock.now() });
    if (this.hangs) {
      await new Promise((resolve) => this.clock.setTimeout(resolve, timeoutMs));
      throw Object.assign(new Error('The operation was aborted due to timeout'), { name: 'TimeoutError' });
    }
    if (this.up) return 200;
    throw Object.assign(new Error(`connect ECONNREFUSED ${new URL(uri).host}`), { code: 'ECONNREFUSED' });
  };
}

/** The coordinator's wiring: one scheduler on the simulated clock sends every ping through the fake. */
function schedulerFor(clock: SimulatedClock, fake: FakeNode): HeartbeatScheduler {
  return new HeartbeatScheduler({ ping: fake.ping, now: () => EPOCH + clock.now(), clock });
}

/** Let settled pings deliver their results (a macrotask turn drains every pending microtask). */
const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

function harness() {
  const clock = new SimulatedClock();
  const fake = new FakeNode(clock);
  const node: NodeActorRef = createActor(nodeMachine, {
    clock,
    input: { nodeId: 'worker-1', uri: 'http://127.0.0.1:8081', now: () => EPOCH + clock.now(), scheduler: schedulerFor(clock, fake) },
  });
  /** State changes with the simulated time they happened at. */
  const transitions: { at: number; state: string }[] = [];
  node.subscribe((s) => {
    const state = nodeStateOf(s);
    if (transitions.at(-1)?.state !== state) transitions.push({ at: clock.now(), state });
  });
  node.start();
  /** Advance simulated time in steps that divide the heartbeat interval, flushing ping results between. */
  const run = async (ms: number, step = 100, until?: () => boolean) => {
    for (let t = 0; t < ms; t += step) {
      clock.increment(step);
      await flush();
      if (until?.()) return;
    }
  };
  const body = () => {
    const rendered = renderNodeStats(nodeStatsView(node.getSnapshot()));
    validateResponse('node', rendered);
    return rendered as Record<string, any>;
  };
  return { clock, fake, node, transitions, run, body };
}

describe('nodeMachine', () => {
  it('renders a valid node object before the first ping, and counts as failed (never succeeded)', () => {
    const { node, body } = harness();
    const b = body();
    expect(b.uri).to.equal('http://127.0.0.1:8081/v1/status');
    expect(b).to.include({ recentRequests: 0, recentFailures: 0, recentSuccesses: 0, recentFailureRatio: 0, age: '0.00s' });
    expect(b.recentFailuresByType).to.deep.equal({});
    expect(b).not.to.have.property('lastFailureInfo');
    expect(isNodeFailed(node.getSnapshot())).to.equal(true);
    node.stop();
  });

  it('pings HEAD {uri}/v1/status every 500 ms and a new node is ALIVE at its first answer (no warm-up: it just started)', async () => {
    const { node, fake, transitions, run } = harness();
    await run(400);
    expect(isNodeFailed(node.getSnapshot())).to.equal(true); // not pinged yet
    await run(100);
    expect(fake.pings).to.deep.equal([{ uri: 'http://127.0.0.1:8081/v1/status', at: 500 }]);
    expect(isNodeFailed(node.getSnapshot())).to.equal(false);
    await run(5_000);
    expect(transitions).to.deep.equal([
      { at: 0, state: 'FAILED' },
      { at: 500, state: 'ALIVE' },
    ]);
    expect(fake.pings.map((p) => p.at)).to.deep.equal([500, 1000, 1500, 2000, 2500, 3000, 3500, 4000, 4500, 5000, 5500]);
    node.stop();
  });

  it('a new node that fails its first pings is ALIVE once its ratio falls under the threshold, still without warm-up', async () => {
    const { node, fake, clock, transitions, run } = harness();
    fake.up = false;
    await run(1_000, 500);
    expect(node.getSnapshot().matches({ monitoring: { FAILED: 'STARTING' } })).to.equal(true);
    fake.up = true;
    await run(60_000, 500, () => !isNodeFailed(node.getSnapshot()));
    // 2 failures then successes: the (decayed) ratio is at 0.1 by the 19th request (9.5 s), ALIVE at that ping.
    expect(clock.now()).to.equal(9_500);
    expect(transitions.map((t) => t.state)).to.deep.equal(['FAILED', 'ALIVE']);
    node.stop();
  });

  it('a healthy node stays ALIVE with recentRequests ~120 (2 pings/s over a one-minute decay)', async () => {
    const { node, transitions, run, body } = harness();
    await run(10 * 60_000, 500);
    expect(nodeStateOf(node.getSnapshot())).to.equal('ALIVE');
    expect(transitions.map((t) => t.state)).to.deep.equal(['FAILED', 'ALIVE']);
    const b = body();
    // Two events per whole second: between 1 + 2e^(-1/60) / (1 - e^(-1/60)) = 120.0 (read right after the
    // second's first ping) and 2 / (1 - e^(-1/60)) = 121.0 (after its second).
    expect(b.recentRequests).to.be.within(119.9, 121.1);
    expect(b.recentSuccesses).to.equal(b.recentRequests);
    expect(b).to.include({ recentFailures: 0, recentFailureRatio: 0, age: '10.00m' });
    expect(b.recentFailuresByType).to.deep.equal({});
    expect(b).not.to.have.property('lastFailureInfo');
    expect(b.lastRequestTime).to.equal(b.lastResponseTime);
    expect(Date.parse(b.lastRequestTime)).to.equal(EPOCH + 10 * 60_000);
    node.stop();
  });

  it('an outage makes it FAILED after ~6 s of failures, with failures by type and the last failure', async () => {
    const { node, fake, clock, run, body } = harness();
    await run(10 * 60_000, 500);
    expect(nodeStateOf(node.getSnapshot())).to.equal('ALIVE');
    fake.up = false;
    const outage = clock.now();
    await run(30_000, 100, () => isNodeFailed(node.getSnapshot()));
    const detectedAfter = clock.now() - outage;
    // 60 s * ln(1 / 0.9) = 6.3 s (FailureDetectorConfig: "~6secs of failures"), give or take a ping.
    expect(detectedAfter).to.be.within(5_500, 7_000);
    const b = body();
    expect(b.recentFailureRatio).to.be.greaterThan(0.1);
    expect(Object.keys(b.recentFailuresByType)).to.deep.equal(['ECONNREFUSED']);
    expect(b.recentFailuresByType.ECONNREFUSED).to.be.closeTo(b.recentFailures, 1e-9);
    expect(b.recentFailures).to.be.within(11, 15);
    expect(b.lastFailureInfo).to.include({ type: 'ECONNREFUSED', message: 'connect ECONNREFUSED 127.0.0.1:8081' });
    expect(b.lastFailureInfo.suppressed).to.deep.equal([]);
    expect(b.lastFailureInfo.stack).to.be.an('array').with.length.above(0);
    expect(Date.parse(b.lastResponseTime)).to.equal(EPOCH + clock.now());
    node.stop();
  });

  it('a node that hangs is still pinged every 500 ms (fixed rate) and FAILED within its 1 s timeout + ~6 s', async () => {
    const { node, fake, clock, run, body } = harness();
    await run(10 * 60_000, 500);
    fake.hangs = true;
    const outage = clock.now();
    await run(30_000, 100, () => isNodeFailed(node.getSnapshot()));
    expect(clock.now() - outage).to.be.within(6_500, 7_500);
    const during = fake.pings.filter((p) => p.at > outage).map((p) => p.at - outage);
    expect(during.slice(0, 4)).to.deep.equal([500, 1000, 1500, 2000]);
    expect(Object.keys(body().recentFailuresByType)).to.deep.equal(['TimeoutError']);
    node.stop();
  });

  it('recovers to ALIVE only 5 s after the ratio falls back under the threshold', async () => {
    const { node, fake, clock, transitions, run, body } = harness();
    await run(60_000, 500);
    fake.up = false;
    await run(60_000, 500);
    expect(nodeStateOf(node.getSnapshot())).to.equal('FAILED');
    fake.up = true;
    const recovery = clock.now();
    let underThreshold: number | undefined;
    await run(120_000, 100, () => {
      const s = node.getSnapshot();
      if (underThreshold === undefined && s.matches({ monitoring: { FAILED: 'WARMING_UP' } })) underThreshold = clock.now();
      return !isNodeFailed(s);
    });
    expect(underThreshold, 'ratio back under 0.1').to.be.a('number');
    expect(underThreshold! - recovery).to.be.greaterThan(5_000); // the decayed failures take a while to dilute
    expect(clock.now() - underThreshold!).to.equal(5_000);
    expect(transitions.map((t) => t.state)).to.deep.equal(['FAILED', 'ALIVE', 'FAILED', 'ALIVE']);
    const b = body();
    expect(b.recentFailureRatio).to.be.at.most(0.1);
    expect(b.lastFailureInfo.type).to.equal('ECONNREFUSED'); // kept after recovery, like upstream
    expect(b.recentFailuresByType.ECONNREFUSED).to.be.greaterThan(0);
    node.stop();
  });

  it('a flapping ratio during the warm-up sends it back to FAILED and restarts the warm-up', async () => {
    const { node, fake, run } = harness();
    await run(60_000, 500);
    fake.up = false;
    await run(20_000, 500);
    fake.up = true;
    await run(60_000, 100, () => node.getSnapshot().matches({ monitoring: { FAILED: 'WARMING_UP' } }));
    fake.up = false; // fails again inside the warm-up
    await run(10_000, 100, () => node.getSnapshot().matches({ monitoring: { FAILED: 'UNHEALTHY' } }));
    expect(node.getSnapshot().matches({ monitoring: { FAILED: 'UNHEALTHY' } })).to.equal(true);
    expect(isNodeFailed(node.getSnapshot())).to.equal(true);
    node.stop();
  });

  it('a node that never answers stays FAILED', async () => {
    const { node, fake, transitions, run, body } = harness();
    fake.up = false;
    await run(120_000, 500);
    expect(transitions.map((t) => t.state)).to.deep.equal(['FAILED']);
    expect(body().recentFailureRatio).to.be.closeTo(1, 0.02);
    node.stop();
  });

  it('node.gone stops pinging and marks it GONE; node.announced resumes where it was', async () => {
    const { node, fake, run, body } = harness();
    await run(60_000, 500);
    expect(nodeStateOf(node.getSnapshot())).to.equal('ALIVE');
    const before = body();
    node.send({ type: 'node.gone' });
    expect(nodeStateOf(node.getSnapshot())).to.equal('GONE');
    expect(isNodeFailed(node.getSnapshot())).to.equal(true);
    const pings = fake.pings.length;
    await run(60_000, 500);
    expect(fake.pings.length).to.equal(pings);
    const gone = body(); // still listed while gone, its counters decaying
    expect(gone.recentRequests).to.be.closeTo(before.recentRequests / Math.E, 1e-9);
    node.send({ type: 'node.announced' });
    expect(nodeStateOf(node.getSnapshot())).to.equal('ALIVE'); // upstream keeps the success transition
    await run(1_000, 500);
    expect(fake.pings.length).to.be.greaterThan(pings);
    node.send({ type: 'node.announced' }); // a no-op while monitored
    expect(nodeStateOf(node.getSnapshot())).to.equal('ALIVE');
    node.stop();
  });

  it('a node announced again while warming up restarts its warm-up', async () => {
    const { node, fake, clock, run } = harness();
    await run(60_000, 500);
    fake.up = false;
    await run(20_000, 500);
    fake.up = true;
    await run(180_000, 100, () => node.getSnapshot().matches({ monitoring: { FAILED: 'WARMING_UP' } }));
    expect(node.getSnapshot().value).to.deep.equal({ monitoring: { FAILED: 'WARMING_UP' } });
    node.send({ type: 'node.gone' });
    await run(10_000, 500);
    node.send({ type: 'node.announced' });
    expect(node.getSnapshot().value).to.deep.equal({ monitoring: { FAILED: 'WARMING_UP' } });
    const back = clock.now();
    await run(10_000, 100, () => !isNodeFailed(node.getSnapshot()));
    expect(clock.now() - back).to.equal(5_000);
    node.stop();
  });

  it('a GONE node expires after the 10 m grace period and the actor ends', async () => {
    const { node, run, body } = harness();
    await run(10_000, 500);
    node.send({ type: 'node.gone' });
    await run(600_000 - 500, 500);
    expect(node.getSnapshot().status).to.equal('active');
    body();
    node.send({ type: 'node.gone' }); // repeated: the grace period does not restart
    await run(500, 500);
    expect(nodeStateOf(node.getSnapshot())).to.equal('EXPIRED');
    expect(node.getSnapshot().status).to.equal('done');
  });

  it('honours configured intervals and thresholds', async () => {
    const clock = new SimulatedClock();
    const fake = new FakeNode(clock);
    const node = createActor(nodeMachine, {
      clock,
      input: { nodeId: 'w', uri: 'http://w:1/', now: () => EPOCH + clock.now(), scheduler: schedulerFor(clock, fake), heartbeatIntervalMs: 1_000, warmupMs: 0, expirationGraceMs: 2_000 },
    }).start();
    clock.increment(1_000);
    await flush();
    expect(fake.pings).to.deep.equal([{ uri: 'http://w:1/v1/status', at: 1_000 }]);
    clock.increment(0); // the zero warm-up fires at once
    expect(nodeStateOf(node.getSnapshot())).to.equal('ALIVE');
    node.send({ type: 'node.gone' });
    clock.increment(2_000);
    expect(node.getSnapshot().status).to.equal('done');
  });

  it('registers with the shared scheduler while monitoring, and leaves it when gone or stopped', async () => {
    const clock = new SimulatedClock();
    const scheduler = schedulerFor(clock, new FakeNode(clock));
    const start = (nodeId: string) =>
      createActor(nodeMachine, { clock, input: { nodeId, uri: `http://${nodeId}:1`, now: () => EPOCH + clock.now(), scheduler } }).start();
    const a = start('a');
    const b = start('b');
    expect(scheduler.size).to.equal(2);
    a.send({ type: 'node.gone' });
    expect(scheduler.size).to.equal(1);
    a.send({ type: 'node.announced' });
    expect(scheduler.size).to.equal(2);
    b.stop();
    clock.increment(500); // b's last answer finds it stopped at the latest
    await flush();
    expect(scheduler.size).to.equal(1);
    a.stop();
  });
});
