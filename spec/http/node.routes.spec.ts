// /v1/node and /v1/node/failed over a real worker-like HTTP server, pinged for real; time is simulated.
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SimulatedClock } from 'xstate';
import { BIGINT_COLUMN, FakeEngine } from '../support/fake-engine.js';
import { request, startTestServer, type TestServer } from '../support/http.js';
import { validateResponse } from '../support/schema-validator.js';

async function startWorker(): Promise<{ server: Server; url: string }> {
  const server = createServer((_req, res) => res.writeHead(200).end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('node routes with a monitored worker', () => {
  let coordinator: TestServer;
  let clock: SimulatedClock;

  before(async () => {
    clock = new SimulatedClock();
    clock.set(Date.now());
    coordinator = await startTestServer({
      engine: new FakeEngine({ 'SELECT 1': { columns: [BIGINT_COLUMN('_col0')], rows: [[1]] } }),
      clock,
      now: () => clock.now(),
    });
  });
  after(() => coordinator.stop());

  /** Advance simulated time ping by ping, letting each real ping's answer (or refusal) arrive. */
  async function heartbeats(count: number): Promise<void> {
    for (let i = 0; i < count; i++) {
      const before = coordinator.coordinator.nodes()[0]?.stats.lastResponseTime;
      clock.increment(500);
      for (let spin = 0; spin < 2000; spin++) {
        const node = coordinator.coordinator.nodes()[0]?.stats;
        if (node && (node.lastResponseTime !== before || (node.recentFailures as number) > 0 && spin > 50)) break;
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
  }

  it('lists a healthy node, then reports it under /v1/node/failed once it stops answering', async () => {
    const worker = await startWorker();
    coordinator.coordinator.announceNode('worker-1', worker.url);
    await heartbeats(14); // past the 5 s warm-up after the first success

    const nodes = await request('GET', `${coordinator.url}/v1/node`);
    expect(nodes.headers.get('content-type')).to.equal('text/javascript');
    validateResponse('node-list', nodes.body);
    expect(nodes.body).to.have.length(1);
    expect(nodes.body[0].uri).to.equal(`${worker.url}/v1/status`);
    expect(nodes.body[0].recentFailures).to.equal(0);
    expect(nodes.body[0].recentRequests).to.be.greaterThan(10);
    expect((await request('GET', `${coordinator.url}/v1/node/failed`)).body).to.deep.equal([]);

    await new Promise<void>((resolve) => worker.server.close(() => resolve()));
    worker.server.closeAllConnections();
    await heartbeats(20);
    const failed = await request('GET', `${coordinator.url}/v1/node/failed`);
    validateResponse('node-list', failed.body);
    expect(failed.body).to.have.length(1);
    expect(failed.body[0].recentFailureRatio).to.be.greaterThan(0.1);
    expect(Object.keys(failed.body[0].recentFailuresByType)).to.include('ECONNREFUSED');
    expect(failed.body[0].lastFailureInfo.type).to.equal('ECONNREFUSED');
  });
});
