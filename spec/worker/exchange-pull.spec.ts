// Pulling an exchange file into a local file (exchange-pull.ts) from a real HTTP server: the bytes as they
// were served, a small body written once complete and a large one (past SMALL_BYTES) streamed, and on each
// failure an error of the kind the stage task turns into REMOTE_TASK_ERROR, with no file left behind.
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorkerTransportError } from '../../lib/cluster/worker-client.js';
import { ExchangePuller, PullStatusError, SMALL_BYTES } from '../../lib/worker/exchange-pull.js';

describe('exchange pulls into a file (exchange-pull.ts)', () => {
  /** Past SMALL_BYTES: streamed to the file. */
  const body = randomBytes(SMALL_BYTES * 2 + 17);
  let directory: string;
  let server: Server;
  let puller: ExchangePuller;
  let handler: (req: IncomingMessage, res: ServerResponse) => void;
  const seen: { url?: string; authorization?: string }[] = [];

  before(async () => {
    directory = mkdtempSync(join(tmpdir(), 'vivace-exchange-pull-'));
    server = createServer((req, res) => {
      seen.push({ ...(req.url ? { url: req.url } : {}), ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}) });
      handler(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    puller = new ExchangePuller(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  });
  after(async () => {
    puller.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(directory, { recursive: true, force: true });
  });

  it('writes the body as served, in pieces, with the request\'s headers, and answers its bytes', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/vnd.apache.parquet' });
      // Several writes: the body arrives as many chunks.
      for (let at = 0; at < body.length; at += 256 * 1024) res.write(body.subarray(at, at + 256 * 1024));
      res.end();
    };
    const file = join(directory, 'in0.parquet');
    const bytes = await puller.toFile('/v1/task/q.1.0.0/output?bucket=1', file, { timeoutMs: 60_000, headers: { Authorization: 'Bearer x' } });
    expect(bytes).to.equal(body.length);
    expect(readFileSync(file).equals(body), 'the file holds the body').to.equal(true);
    expect(seen.at(-1)).to.deep.equal({ url: '/v1/task/q.1.0.0/output?bucket=1', authorization: 'Bearer x' });
  });

  it('writes a small body (most exchange files) once it is complete', async () => {
    const small = body.subarray(0, SMALL_BYTES - 5);
    handler = (_req, res) => {
      res.writeHead(200);
      for (let at = 0; at < small.length; at += 256 * 1024) res.write(small.subarray(at, at + 256 * 1024));
      res.end();
    };
    const file = join(directory, 'small.parquet');
    expect(await puller.toFile('/o', file, { timeoutMs: 60_000 })).to.equal(small.length);
    expect(readFileSync(file).equals(small)).to.equal(true);
  });

  it('replaces a file already at the path', async () => {
    handler = (_req, res) => res.end('PAR1');
    const file = join(directory, 'in0.parquet');
    expect(await puller.toFile('/o', file, { timeoutMs: 60_000 })).to.equal(4);
    expect(readFileSync(file, 'utf8')).to.equal('PAR1');
  });

  it('fails an answer other than 200 with its status, leaving no file', async () => {
    handler = (_req, res) => {
      res.writeHead(404, { 'Content-Type': 'application/json' });
      res.end('{"errorName":"NOT_FOUND"}');
    };
    const file = join(directory, 'missing.parquet');
    const err = await puller.toFile('/o', file, { timeoutMs: 60_000 }).then(() => undefined, (e: unknown) => e);
    expect(err).to.be.instanceOf(PullStatusError);
    expect((err as PullStatusError).status).to.equal(404);
    expect(existsSync(file)).to.equal(false);
  });

  it('fails a body cut off by a lost connection as a transport error, leaving no file', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'Content-Length': String(body.length) });
      res.write(body.subarray(0, 1024 * 1024), () => res.socket?.destroy());
    };
    const file = join(directory, 'cut.parquet');
    const err = await puller.toFile('/o', file, { timeoutMs: 60_000 }).then(() => undefined, (e: unknown) => e);
    expect(err).to.be.instanceOf(WorkerTransportError);
    expect(existsSync(file)).to.equal(false);
  });

  it('fails a large body cut off while it streams as a transport error, leaving no file', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'Content-Length': String(body.length) });
      res.write(body.subarray(0, SMALL_BYTES + (1 << 20)), () => res.socket?.destroy());
    };
    const file = join(directory, 'cut-large.parquet');
    const err = await puller.toFile('/o', file, { timeoutMs: 60_000 }).then(() => undefined, (e: unknown) => e);
    expect(err).to.be.instanceOf(WorkerTransportError);
    expect(existsSync(file)).to.equal(false);
  });

  it('stops when its signal aborts, as an AbortError, leaving no file', async () => {
    const controller = new AbortController();
    handler = (_req, res) => {
      res.writeHead(200);
      // Half the body, then the puller's caller gives up while the rest never comes.
      res.write(body.subarray(0, 1024 * 1024), () => controller.abort());
    };
    const file = join(directory, 'aborted.parquet');
    const err = await puller.toFile('/o', file, { timeoutMs: 60_000, signal: controller.signal }).then(() => undefined, (e: unknown) => e);
    expect(err).to.be.instanceOf(WorkerTransportError);
    expect((err as WorkerTransportError).code).to.equal('AbortError');
    expect(existsSync(file)).to.equal(false);
  });

  it('fails a worker that does not answer within the deadline as a TimeoutError', async () => {
    handler = () => { /* never answers */ };
    const err = await puller.toFile('/o', join(directory, 'late.parquet'), { timeoutMs: 20 }).then(() => undefined, (e: unknown) => e);
    expect(err).to.be.instanceOf(WorkerTransportError);
    expect((err as WorkerTransportError).code).to.equal('TimeoutError');
  });

  it('fails a refused connection as a transport error', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const gone = new ExchangePuller(`http://127.0.0.1:${port}`);
    try {
      const err = await gone.toFile('/o', join(directory, 'refused.parquet'), { timeoutMs: 60_000 }).then(() => undefined, (e: unknown) => e);
      expect(err).to.be.instanceOf(WorkerTransportError);
      expect((err as WorkerTransportError).code).to.equal('ECONNREFUSED');
    } finally {
      gone.close();
    }
  });
});
