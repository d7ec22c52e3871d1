// Resource groups in the coordinator's actors (dispatcher.machine.ts over resource-group-tree.ts), driven with a
// simulated clock and a canned engine: a query waits QUEUED in its group, fails QUERY_QUEUE_FULL or
// QUERY_REJECTED with Trino's messages, and `weighted` sub groups with weights 3 and 1 split the starts about
// 3 to 1 while both have work queued (the spec counts starts; it does not time them).
import { expect } from 'chai';
import { SimulatedClock } from 'xstate';
import { createCoordinator, type Coordinator } from '../../lib/actors/coordinator.js';
import type { Engine } from '../../lib/engine/engine.types.js';
import type { Session } from '../../lib/protocol/types.js';
import { parseResourceGroupsConfig } from '../../lib/resource-groups/resource-groups-config.js';
import { settle, testSession } from '../support/actors.js';
import { seeded } from './seeded-random.js';

/** An engine whose plans wait until released, recording who started in which order. */
function gatedEngine() {
  const started: string[] = [];
  const gates = new Map<string, () => void>();
  const engine: Engine = {
    async plan(sql: string, session: Session) {
      started.push(`${session.user}:${sql}`);
      await new Promise<void>((resolve) => gates.set(`${session.user}:${sql}`, resolve));
      throw new Error('done'); // the query ends (FAILED); its slot frees either way
    },
    async close() {},
  };
  return { engine, started, release: (key: string) => gates.get(key)?.() };
}

const GROUPS = parseResourceGroupsConfig(
  JSON.stringify({
    rootGroups: [{
      name: 'root', softMemoryLimit: '100%', hardConcurrencyLimit: 1, maxQueued: 100, schedulingPolicy: 'weighted',
      subGroups: [
        { name: 'dashboards', softMemoryLimit: '100%', hardConcurrencyLimit: 10, maxQueued: 50, schedulingWeight: 3 },
        { name: 'adhoc', softMemoryLimit: '100%', hardConcurrencyLimit: 10, maxQueued: 50, schedulingWeight: 1 },
      ],
    }],
    selectors: [{ source: 'dash.*', group: 'root.dashboards' }, { user: 'alice|bob', group: 'root.adhoc' }],
  }),
  'rg.json',
);

describe('resource groups in the coordinator', () => {
  let coordinator: Coordinator | undefined;
  afterEach(async () => {
    await coordinator?.stop();
    coordinator = undefined;
  });

  let clock: SimulatedClock;
  function start(engine: Engine, resourceGroups = GROUPS): Coordinator {
    clock = new SimulatedClock();
    coordinator = createCoordinator({ engine, clock, now: () => clock.now(), config: { trackerIntervalMs: 1000 }, resourceGroups: { resourceGroups, random: seeded(7) } });
    return coordinator;
  }

  it('queues a query while its group is full, and fails past maxQueued and without a selector with Trino\'s errors', async () => {
    const gated = gatedEngine();
    const c = start(gated.engine);
    const first = c.start('SELECT 1', testSession({ user: 'alice' })).tracked;
    const second = c.start('SELECT 2', testSession({ user: 'bob' })).tracked;
    await settle();
    expect(c.view(first).state).to.equal('PLANNING');
    expect(c.view(second).state).to.equal('QUEUED');
    const stranger = c.start('SELECT 3', testSession({ user: 'mallory' })).tracked;
    await settle();
    expect(c.view(stranger).state).to.equal('FAILED');
    expect(c.view(stranger).error).to.include({ errorName: 'QUERY_REJECTED', message: 'Query did not match any selection rule' });
    gated.release('alice:SELECT 1');
    await settle();
    expect(gated.started).to.deep.equal(['alice:SELECT 1', 'bob:SELECT 2']);
  });

  it('fails QUERY_QUEUE_FULL past the group\'s maxQueued', async () => {
    const c = start(gatedEngine().engine);
    const queries = Array.from({ length: 52 }, (_, i) => c.start(`SELECT ${i}`, testSession({ user: 'alice' })).tracked);
    await settle();
    // one running, 50 queued in root.adhoc, the 52nd refused
    expect(queries.slice(1, 51).every((q) => c.view(q).state === 'QUEUED')).to.equal(true);
    expect(c.view(queries[51]!).error).to.include({ errorName: 'QUERY_QUEUE_FULL', message: 'Too many queued queries for "root.adhoc"' });
  });

  it('weighted 3 to 1: the starts split about 3 to 1 while both groups have work queued', async () => {
    const gated = gatedEngine();
    const c = start(gated.engine);
    for (let i = 0; i < 40; i++) {
      c.start(`SELECT ${i}`, testSession({ user: 'carol', source: 'dashboard' }));
      c.start(`SELECT ${i}`, testSession({ user: 'alice' }));
    }
    await settle();
    for (let n = 0; n < 40; n++) {
      expect(gated.started).to.have.length(n + 1);
      gated.release(gated.started[n]!);
      await settle();
    }
    const firstForty = gated.started.slice(0, 40);
    const dashboards = firstForty.filter((s) => s.startsWith('carol:')).length;
    expect(dashboards).to.be.within(26, 34);
    expect(40 - dashboards).to.be.within(6, 14);
  });

  it('softMemoryLimit binds on the memory its running queries reported at the last sweep', async () => {
    // One batch, then the execution waits: its workers reported a 2MB peak.
    let finish = () => {};
    const ended = new Promise<void>((resolve) => (finish = resolve));
    const engine: Engine = {
      async plan(sql: string) {
        return {
          columns: [{ name: 'x', type: { base: 'bigint' } }],
          execute: () => {
            let sent = false;
            return {
              next: async () => {
                if (sql === 'SELECT big' && !sent) return ((sent = true), { json: '[1]', rows: 1, bytes: 3 });
                await ended;
                return null;
              },
              cancel() {},
              progress: () => ({ processedRows: 1, processedBytes: 3, cpuTimeMillis: 5, peakMemoryBytes: sql === 'SELECT big' ? 2 << 20 : 0 }),
            };
          },
          release() {},
        };
      },
      async close() {},
    };
    const small = parseResourceGroupsConfig(JSON.stringify({ rootGroups: [{ name: 'g', softMemoryLimit: '1MB', hardConcurrencyLimit: 10, maxQueued: 10 }], selectors: [{ group: 'g' }] }), 'rg.json');
    const c = start(engine, small);
    const big = c.start('SELECT big', testSession()).tracked;
    await settle();
    expect(c.view(big).state).to.equal('RUNNING');
    const before = c.start('SELECT before', testSession()).tracked;
    await settle();
    expect(c.view(before).state).to.not.equal('QUEUED'); // nothing reported yet
    clock.increment(1000); // the tracker's sweep reports the 2MB
    await settle();
    const after = c.start('SELECT after', testSession()).tracked;
    await settle();
    expect(c.view(after).state).to.equal('QUEUED');
    const groups = c.tracker.getSnapshot().context.dispatcher.getSnapshot().context.groups;
    expect(groups.info(['g'])).to.include({ state: 'CAN_QUEUE', memoryUsageBytes: 2 << 20 });
    c.lookup(big.queryId)!.ref!.send({ type: 'query.cancel' });
    await settle();
    expect(c.view(after).state).to.not.equal('QUEUED');
    finish();
  });

  it('a new configuration (a re-read file) reaches the dispatcher: queued queries start under the new limits', async () => {
    const gated = gatedEngine();
    const c = start(gated.engine);
    const first = c.start('SELECT 1', testSession({ user: 'alice' })).tracked;
    const second = c.start('SELECT 2', testSession({ user: 'alice' })).tracked;
    await settle();
    expect(c.view(second).state).to.equal('QUEUED');
    const wider = parseResourceGroupsConfig(JSON.stringify({
      rootGroups: [{ name: 'root', softMemoryLimit: '100%', hardConcurrencyLimit: 2, maxQueued: 100, subGroups: [{ name: 'adhoc', softMemoryLimit: '100%', hardConcurrencyLimit: 10, maxQueued: 50 }] }],
      selectors: [{ group: 'root.adhoc' }],
    }), 'rg.json');
    c.tracker.getSnapshot().context.dispatcher.send({ type: 'dispatcher.configure', resourceGroups: wider });
    await settle();
    expect(c.view(first).state).to.equal('PLANNING');
    expect(c.view(second).state).to.equal('PLANNING');
    // the new selectors take new queries: mallory now has a group
    const third = c.start('SELECT 3', testSession({ user: 'mallory' })).tracked;
    await settle();
    expect(c.view(third).state).to.equal('QUEUED');
    expect(c.view(third).resourceGroupId).to.deep.equal(['root', 'adhoc']);
  });
});
