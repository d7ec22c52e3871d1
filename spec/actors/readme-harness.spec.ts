// The README's "actors as a library" example, run as written (imports from lib/index.ts, the package entry).
import { expect } from 'chai';
import { createActor, SimulatedClock } from 'xstate';
import { queryMachine, toQueryView, type Engine } from '../../lib/index.js';
import { settle } from '../support/actors.js';

describe('README harness example', () => {
  it('drives a query actor with a canned engine to FINISHED', async () => {
    const engine: Engine = {
      async plan() {
        let done = false;
        return {
          columns: [{ name: 'x', type: { base: 'bigint' } }],
          execute: () => ({
            next: async () => (done ? null : ((done = true), { json: '[42]', rows: 1, bytes: 4 })),
            cancel() {},
            progress: () => ({ processedRows: 1, processedBytes: 4, cpuTimeMillis: 0 }),
          }),
          release() {},
        };
      },
      async close() {},
    };

    const clock = new SimulatedClock();
    const query = createActor(queryMachine, {
      clock,
      input: {
        queryId: 'q1', sql: 'SELECT 42', engine, now: () => clock.now(),
        session: { prefix: 'X-Service-', user: 'me', clientTags: [], properties: {}, preparedStatements: {}, remoteUserAddress: '127.0.0.1', startTime: 0 },
        limits: { maxRunTimeMs: 60_000, targetResultBytes: 1 << 20, prefetchPages: 2 },
      },
    }).start();
    await settle();
    query.send({ type: 'results.take' });
    expect(toQueryView(query.getSnapshot()).state).to.equal('FINISHED');
    expect(query.getSnapshot().context.page?.json).to.equal('[42]');
  });
});
