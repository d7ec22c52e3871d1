import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pingFailureOf, pingStatus, statusUri } from '../../lib/cluster/heartbeat-ping.js';

// Loopback only: a tiny HTTP server stands in for a worker.
describe('heartbeat ping', () => {
  let server: Server;
  let base: string;
  const seen: string[] = [];

  before(async () => {
    server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      if (req.url === '/hang/v1/status') return; // never answers
      res.statusCode = req.url === '/v1/status' ? 200 : 404;
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(() => {
    server.closeAllConnections();
    server.close();
  });

  it('statusUri appends /v1/status to the node base', () => {
    expect(statusUri('http://w:8081')).to.equal('http://w:8081/v1/status');
    expect(statusUri('http://w:8081/')).to.equal('http://w:8081/v1/status');
  });

  it('sends HEAD and resolves with the status of any response', async () => {
    expect(await pingStatus(statusUri(base), 1_000)).to.equal(200);
    expect(await pingStatus(`${base}/missing/v1/status`, 1_000)).to.equal(404);
    expect(seen).to.include.members(['HEAD /v1/status', 'HEAD /missing/v1/status']);
  });

  it('names a refused connection ECONNREFUSED', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const error = await pingStatus(`http://127.0.0.1:${port}/v1/status`, 1_000).then(() => undefined, (e: unknown) => e);
    const failure = pingFailureOf(error);
    expect(failure.type).to.equal('ECONNREFUSED');
    expect(failure.message).to.equal(`connect ECONNREFUSED 127.0.0.1:${port}`);
    expect(failure.stack.every((frame) => !frame.startsWith('at '))).to.equal(true);
  });

  it('names a ping without an answer in time TimeoutError, and an aborted one AbortError', async () => {
    const timedOut = await pingStatus(`${base}/hang/v1/status`, 50).then(() => undefined, (e: unknown) => e);
    expect(pingFailureOf(timedOut).type).to.equal('TimeoutError');
    const controller = new AbortController();
    const pending = pingStatus(`${base}/hang/v1/status`, 10_000, controller.signal);
    controller.abort();
    expect(pingFailureOf(await pending.then(() => undefined, (e: unknown) => e)).type).to.equal('AbortError');
  });

  it('unwraps code-less wrappers through cause, and copes with non-errors', () => {
    const root = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    expect(pingFailureOf(new TypeError('fetch failed', { cause: root }))).to.include({ type: 'ECONNRESET', message: 'read ECONNRESET' });
    expect(pingFailureOf(new RangeError('nope'))).to.include({ type: 'RangeError', message: 'nope' });
    expect(pingFailureOf('boom')).to.deep.equal({ type: 'Error', message: 'boom', stack: [] });
  });
});
