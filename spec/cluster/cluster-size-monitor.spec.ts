import { expect } from 'chai';
import { SimulatedClock } from 'xstate';
import { ClusterSizeMonitor } from '../../lib/cluster/cluster-size-monitor.js';
import { defaultConfig, parseConfigProperties } from '../../lib/config.js';
import { PlanAbortController } from '../../lib/engine/plan-abort.js';
import { VivaceError } from '../../lib/protocol/vivace-error.js';

/** Settled promises deliver their callbacks. */
const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

function harness(requiredWorkers = 1, maxWaitMs = 300_000) {
  const clock = new SimulatedClock();
  const cluster = { active: 0 };
  const monitor = new ClusterSizeMonitor({ activeWorkers: () => cluster.active, requiredWorkers, maxWaitMs, clock });
  return { clock, cluster, monitor };
}

/** The promise's outcome so far: pending, resolved or the rejection. */
function watch<T>(promise: Promise<T>) {
  const outcome: { state: 'pending' | 'resolved' | 'rejected'; value?: T; error?: unknown } = { state: 'pending' };
  promise.then(
    (value) => Object.assign(outcome, { state: 'resolved', value }),
    (error: unknown) => Object.assign(outcome, { state: 'rejected', error }),
  );
  return outcome;
}

describe('cluster: ClusterSizeMonitor (query-manager.required-workers)', () => {
  it('a statement waits for the required workers and goes on as soon as they are active', async () => {
    const { clock, cluster, monitor } = harness(2);
    const wait = watch(monitor.waitForMinimumWorkers());
    cluster.active = 1;
    clock.increment(10_000);
    await flush();
    expect(wait.state).to.equal('pending');
    cluster.active = 2;
    clock.increment(100);
    await flush();
    expect(wait.state).to.equal('resolved');
    // Enough already: at once, without waiting for a poll.
    expect(await monitor.waitForMinimumWorkers()).to.equal(undefined);
    monitor.stop();
  });

  it('past the max wait fails with Trino\'s GENERIC_INSUFFICIENT_RESOURCES and its message', async () => {
    const { clock, cluster, monitor } = harness(3, 30_000);
    cluster.active = 1;
    const wait = watch(monitor.waitForMinimumWorkers());
    clock.increment(29_900);
    await flush();
    expect(wait.state).to.equal('pending');
    clock.increment(100);
    await flush();
    expect(wait.state).to.equal('rejected');
    const error = wait.error as VivaceError;
    expect(error.errorName).to.equal('GENERIC_INSUFFICIENT_RESOURCES');
    expect(error.message).to.equal('Insufficient active worker nodes. Waited 30.00s for at least 3 workers, but only 1 workers are active');
    monitor.stop();
  });

  it('a query that ends while it waits ends with its own reason, and leaves no waiter behind', async () => {
    const { clock, monitor } = harness();
    const abort = new PlanAbortController();
    const wait = watch(monitor.waitForMinimumWorkers(abort));
    abort.abort(new VivaceError('USER_CANCELED', 'Query was canceled'));
    await flush();
    expect((wait.error as VivaceError).errorName).to.equal('USER_CANCELED');
    clock.increment(600_000); // the max wait's timer was cleared: nothing fires
    await flush();
    expect(wait.state).to.equal('rejected');
    const already = new PlanAbortController();
    already.abort(new VivaceError('USER_CANCELED', 'Query was canceled'));
    const late = watch(monitor.waitForMinimumWorkers(already));
    await flush();
    expect(late.state).to.equal('rejected');
    monitor.stop();
  });

  it('is starting until the required workers were active once; then never again (one-way, as Trino\'s `starting`)', async () => {
    const { clock, cluster, monitor } = harness();
    let readyAt: number | undefined;
    monitor.start(() => (readyAt = clock.now()));
    const started = watch(monitor.whenStarted(20_000));
    expect(monitor.starting).to.equal(true);
    clock.increment(1_000);
    cluster.active = 1;
    clock.increment(100);
    await flush();
    expect(readyAt).to.equal(1_100);
    expect(started).to.deep.equal({ state: 'resolved', value: true });
    expect(monitor.starting).to.equal(false);
    cluster.active = 0; // every worker lost later: the coordinator has started all the same
    expect(monitor.starting).to.equal(false);
    expect(await monitor.whenStarted(1)).to.equal(true);
    monitor.stop();
  });

  it('the start can wait for more than the count (serve: its memory worker), and a statement for a condition (waitUntil)', async () => {
    const clock = new SimulatedClock();
    const cluster = { active: 0, memory: false };
    const monitor = new ClusterSizeMonitor({ activeWorkers: () => cluster.active, requiredWorkers: 1, maxWaitMs: 60_000, clock, startedWhen: () => cluster.memory });
    const memory = watch(monitor.waitUntil(() => cluster.memory));
    cluster.active = 1;
    clock.increment(100);
    await flush();
    expect(monitor.starting).to.equal(true); // one worker, but not the memory one yet
    expect(memory.state).to.equal('pending');
    cluster.memory = true;
    clock.increment(100);
    await flush();
    expect(monitor.starting).to.equal(false);
    expect(memory).to.deep.equal({ state: 'resolved', value: true });
    // Never holding: false after the max wait, and the caller decides what that means.
    const never = watch(monitor.waitUntil(() => false));
    clock.increment(60_000);
    await flush();
    expect(never).to.deep.equal({ state: 'resolved', value: false });
    monitor.stop();
  });

  it('whenStarted gives up after its timeout (the POST\'s bounded wait)', async () => {
    const { clock, monitor } = harness();
    const started = watch(monitor.whenStarted(20_000));
    clock.increment(20_000);
    await flush();
    expect(started).to.deep.equal({ state: 'resolved', value: false });
    expect(monitor.starting).to.equal(true);
    monitor.stop();
  });

  describe('its properties', () => {
    it('defaults as Trino: 1 worker, 5m; and vivace.startup-statement-wait 20s', () => {
      expect(defaultConfig()).to.include({ requiredWorkers: 1, requiredWorkersMaxWaitMs: 300_000, startupStatementWaitMs: 20_000 });
      expect(parseConfigProperties('query-manager.required-workers=3\nquery-manager.required-workers-max-wait=30s\nvivace.startup-statement-wait=2.5s\n'))
        .to.deep.equal({ requiredWorkers: 3, requiredWorkersMaxWaitMs: 30_000, startupStatementWaitMs: 2_500 });
    });

    it('refuses what is not a count of workers, saying what it wants', () => {
      for (const bad of ['0', '-1', '1.5', 'two', '', '10001', '1e3x', 'Infinity']) {
        expect(() => parseConfigProperties(`query-manager.required-workers=${bad}\n`), bad)
          .to.throw(VivaceError, `query-manager.required-workers must be an integer from 1 to 10000: ${bad}`);
      }
    });

    it('refuses what is not a duration a timer can hold', () => {
      expect(() => parseConfigProperties('query-manager.required-workers-max-wait=5\n')).to.throw(VivaceError, /^query-manager\.required-workers-max-wait: Invalid duration: '5' \(a duration such as 30s or 5m\)$/);
      expect(() => parseConfigProperties('query-manager.required-workers-max-wait=-1m\n')).to.throw(VivaceError, /required-workers-max-wait: Invalid duration/);
      expect(() => parseConfigProperties('query-manager.required-workers-max-wait=5 fortnights\n')).to.throw(VivaceError, /Unknown time unit/);
      expect(() => parseConfigProperties('query-manager.required-workers-max-wait=30d\n')).to.throw(VivaceError, 'query-manager.required-workers-max-wait must be a duration from 0s to 24d: 30d');
      expect(() => parseConfigProperties('vivace.startup-statement-wait=99999999999999999999999d\n')).to.throw(VivaceError, /vivace\.startup-statement-wait must be a duration from 0s to 24d/);
    });
  });
});
