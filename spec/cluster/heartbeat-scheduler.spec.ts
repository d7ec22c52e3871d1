// HeartbeatScheduler on a simulated clock: when pings go out (a fixed rate per node, slow answers or not),
// that unwatching drops answers in flight, and that all nodes share one pending timer.
import { expect } from 'chai';
import fc from 'fast-check';
import { SimulatedClock } from 'xstate';
import { HeartbeatScheduler, type PingResult, type SchedulerClock } from '../../lib/cluster/heartbeat-scheduler.js';

const EPOCH = Date.UTC(2024, 4, 1, 12, 0, 0);
const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A SimulatedClock that also tells how many timers are pending. */
function countingClock(clock: SimulatedClock): SchedulerClock & { pending: number } {
  const pending = new Set<unknown>();
  return {
    get pending() {
      return pending.size;
    },
    setTimeout(fn, ms) {
      const id: unknown = clock.setTimeout(() => {
        pending.delete(id);
        fn();
      }, ms);
      pending.add(id);
      return id;
    },
    clearTimeout(id) {
      pending.delete(id);
      clock.clearTimeout(id as number);
    },
  };
}

function harness(answer: (uri: string) => Promise<number> = () => Promise.resolve(200)) {
  const clock = new SimulatedClock();
  const timers = countingClock(clock);
  const sent: { uri: string; at: number }[] = [];
  const scheduler = new HeartbeatScheduler({
    now: () => EPOCH + clock.now(),
    clock: timers,
    ping: (uri) => {
      sent.push({ uri, at: clock.now() });
      return answer(uri);
    },
  });
  const results = new Map<string, PingResult[]>();
  const watch = (key: object, uri: string, intervalMs = 500) =>
    scheduler.watch(key, { uri, intervalMs, timeoutMs: 1_000, deliver: (r) => results.set(uri, [...(results.get(uri) ?? []), r]) });
  const run = async (ms: number, step = 100) => {
    for (let t = 0; t < ms; t += step) {
      clock.increment(step);
      await flush();
    }
  };
  return { clock, timers, sent, scheduler, results, watch, run };
}

describe('HeartbeatScheduler', () => {
  it('pings each node one interval after it is watched, then every interval, with one timer for all', async () => {
    const { sent, watch, run, timers, results } = harness();
    const a = {};
    const b = {};
    watch(a, 'a');
    await run(200);
    watch(b, 'b', 1_000);
    expect(timers.pending).to.equal(1);
    await run(2_000);
    expect(sent.filter((s) => s.uri === 'a').map((s) => s.at)).to.deep.equal([500, 1000, 1500, 2000]);
    expect(sent.filter((s) => s.uri === 'b').map((s) => s.at)).to.deep.equal([1200, 2200]);
    expect(timers.pending).to.equal(1);
    expect(results.get('a')![0]).to.deep.equal({ requestTime: EPOCH + 500, responseTime: EPOCH + 500, failed: false });
  });

  it('keeps a fixed rate while answers are slow (as upstream), with at most 4 unanswered pings per node', async () => {
    const pending: (() => void)[] = [];
    const { sent, watch, run, clock, results } = harness(() => new Promise<number>((resolve) => pending.push(() => resolve(204))));
    watch({}, 'slow');
    await run(1_500);
    expect(sent.map((s) => s.at)).to.deep.equal([500, 1000, 1500]); // none answered yet
    pending.shift()!();
    await flush();
    expect(results.get('slow')).to.deep.equal([{ requestTime: EPOCH + 500, responseTime: EPOCH + clock.now(), failed: false }]);
    await run(2_000);
    // 2,000 and 2,500 go out; at 3,000 the node has 4 unanswered and that ping is skipped; at 3,500 the ping
    // of 1,000 is given up on (1 s past its timeout, a failure) and a new one goes out.
    expect(sent.map((s) => s.at)).to.deep.equal([500, 1000, 1500, 2000, 2500, 3500]);
    expect(results.get('slow')![1]).to.include({ requestTime: EPOCH + 1000, failed: true });
    for (const answer of pending.splice(0)) answer(); // the late answer of 1,000 is ignored
    await run(500);
    expect(sent.map((s) => s.at)).to.deep.equal([500, 1000, 1500, 2000, 2500, 3500, 4000]);
    expect(results.get('slow')!.map((r) => r.requestTime - EPOCH)).to.deep.equal([500, 1000, 1500, 2000, 2500, 3500]);
  });

  it('gives up on a ping its transport never settles: failed (TimeoutError) 1 s after its own timeout', async () => {
    const { sent, watch, run, results } = harness(() => new Promise<number>(() => {}));
    watch({}, 'stuck');
    await run(10_000);
    // Sent at 500, 1000, 1500, 2000 (4 unanswered); the one of 500 is given up on at 3,000 (> 500 + 1,000 + 1,000).
    expect(sent.slice(0, 6).map((s) => s.at)).to.deep.equal([500, 1000, 1500, 2000, 3000, 3500]);
    const outcomes = results.get('stuck')!;
    expect(outcomes[0]).to.include({ requestTime: EPOCH + 500, responseTime: EPOCH + 3000, failed: true });
    expect((outcomes[0]!.error as Error).name).to.equal('TimeoutError');
    expect(outcomes.length).to.be.greaterThan(10); // the node is still asked, and its health still moves
  });

  it('skips the pings a stalled clock missed instead of sending them in a burst', async () => {
    const { sent, watch, clock } = harness();
    watch({}, 'n');
    clock.increment(2_600); // one timer fire, 2.1 s late
    await flush();
    clock.increment(400);
    await flush();
    expect(sent.map((s) => s.at)).to.deep.equal([2600]);
    clock.increment(100);
    await flush();
    expect(sent.map((s) => s.at)).to.deep.equal([2600, 3100]);
  });

  it('reports a rejected or throwing transport as a failed ping with its error', async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const { watch, run, results } = harness((uri) => {
      if (uri === 'throws') throw new TypeError('bad uri');
      return Promise.reject(refused);
    });
    watch({}, 'refuses');
    watch({}, 'throws');
    await run(500);
    expect(results.get('refuses')).to.deep.equal([{ requestTime: EPOCH + 500, responseTime: EPOCH + 500, failed: true, error: refused }]);
    expect(results.get('throws')![0]!.failed).to.equal(true);
    expect((results.get('throws')![0]!.error as Error).message).to.equal('bad uri');
  });

  it('unwatch stops the pings and drops an answer in flight; watching again starts afresh', async () => {
    const pending: (() => void)[] = [];
    const { sent, watch, run, scheduler, results, timers } = harness(() => new Promise<number>((resolve) => pending.push(() => resolve(200))));
    const key = {};
    watch(key, 'n');
    await run(500);
    scheduler.unwatch(key);
    pending.shift()!();
    await run(2_000);
    expect(results.has('n')).to.equal(false);
    expect(sent).to.have.length(1);
    expect(timers.pending).to.equal(0);
    expect(scheduler.size).to.equal(0);
    watch(key, 'n');
    await run(500);
    expect(sent.map((s) => s.at)).to.deep.equal([500, 3000]);
  });

  it('stop() forgets every node and its timer', async () => {
    const { sent, watch, run, scheduler, timers } = harness();
    for (let i = 0; i < 10; i++) watch({}, `n${i}`);
    scheduler.stop();
    expect(timers.pending).to.equal(0);
    watch({}, 'late');
    await run(2_000);
    expect(sent).to.deep.equal([]);
  });

  it('any mix of intervals and watch times: every node pinged on its own schedule', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ intervalMs: fc.integer({ min: 1, max: 20 }).map((n) => n * 100), startMs: fc.integer({ min: 0, max: 20 }).map((n) => n * 100) }), { minLength: 1, maxLength: 12 }),
        async (nodes) => {
          const { sent, watch, run, timers } = harness();
          const order = nodes.map((n, i) => ({ ...n, uri: `n${i}` })).sort((x, y) => x.startMs - y.startMs);
          let now = 0;
          for (const n of order) {
            await run(n.startMs - now);
            now = n.startMs;
            watch({}, n.uri, n.intervalMs);
          }
          const end = 5_000;
          await run(end - now);
          for (const n of order) {
            const expected: number[] = [];
            for (let t = n.startMs + n.intervalMs; t <= end; t += n.intervalMs) expected.push(t);
            expect(sent.filter((s) => s.uri === n.uri).map((s) => s.at), n.uri).to.deep.equal(expected);
          }
          expect(timers.pending).to.equal(1);
        },
      ),
      { numRuns: 40 },
    );
  });
});
