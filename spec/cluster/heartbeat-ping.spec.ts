import { expect } from 'chai';
import fc from 'fast-check';
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { pingFailureOf, pingStatus, statusUri } from '../../lib/cluster/heartbeat-ping.js';
import { startTestWorker } from '../worker/worker-support.js';

// Loopback only: a tiny HTTP server stands in for a worker.
describe('heartbeat ping', () => {
  let server: Server;
  let base: string;
  const seen: string[] = [];
  let connections = 0;

  before(async () => {
    server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      if (req.url === '/hang/v1/status') return; // never answers
      res.statusCode = req.url === '/v1/status' ? 200 : 404;
      res.setHeader('content-length', '0'); // framed, as the worker's HEAD /v1/status is: keep-alive works
      res.end();
    });
    server.on('connection', () => connections++);
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

  it('keeps the connection alive between pings (one socket for a node pinged twice a second)', async () => {
    const before = connections;
    for (let i = 0; i < 5; i++) expect(await pingStatus(statusUri(base), 1_000)).to.equal(200);
    expect(connections - before).to.be.at.most(1);
  });

  it('pings a real worker over one kept-alive connection (its HEAD /v1/status states its length)', async () => {
    const worker = await startTestWorker();
    try {
      let opened = 0;
      worker.worker.server.on('connection', () => opened++);
      for (let i = 0; i < 5; i++) expect(await pingStatus(statusUri(worker.url), 1_000)).to.equal(200);
      expect(opened).to.equal(1);
    } finally {
      await worker.stop();
    }
  });

  it('rejects, never throws, for any address however malformed', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 300 }).filter((s) => !/^https?:/i.test(s.trim())), async (uri) => {
        let settled: 'resolved' | 'rejected' | undefined;
        await pingStatus(uri, 50).then(() => (settled = 'resolved'), () => (settled = 'rejected'));
        expect(settled).to.equal('rejected');
      }),
      { numRuns: 200 },
    );
    for (const uri of ['http://127.0.0.1:99999/v1/status', 'ftp://127.0.0.1/v1/status', 'http://exa mple/v1/status', `http://${'a'.repeat(70_000)}/`]) {
      const error = await pingStatus(uri, 50).then(() => undefined, (e: unknown) => e);
      expect(error, uri.slice(0, 40)).to.be.instanceOf(Error);
      expect(pingFailureOf(error).type).to.be.a('string').and.not.equal('');
    }
  });

  it('a peer that answers with something other than HTTP is a failed ping, named by the parser', async () => {
    const garbage = createTcpServer((socket) => socket.end('SSH-2.0-OpenSSH_9.6\r\n'));
    await new Promise<void>((resolve) => garbage.listen(0, '127.0.0.1', resolve));
    try {
      const port = (garbage.address() as AddressInfo).port;
      const error = await pingStatus(`http://127.0.0.1:${port}/v1/status`, 1_000).then(() => undefined, (e: unknown) => e);
      expect(error).to.be.instanceOf(Error);
      expect(pingFailureOf(error).type).to.match(/^HPE_/);
    } finally {
      garbage.close();
    }
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
