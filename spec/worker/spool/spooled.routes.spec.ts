// A worker's GET /v1/spooled/download/{id} over real HTTP: a segment held in memory is sent from there, and
// once written out (the spool's memory needed for newer segments) from its file, the same bytes both times
// with the stated length; an acknowledged one is a 404 in the error's shape.
import { expect } from 'chai';
import sinon from 'sinon';
import { randomBytes } from 'node:crypto';
import { Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestWorker, type TestWorker } from '../worker-support.js';
import { validateResponse } from '../../support/schema-validator.js';

describe('worker /v1/spooled/download', () => {
  let worker: TestWorker;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vivace-spool-routes-'));
    worker = await startTestWorker({
      spooling: {
        directory: join(dir, 'spool'), key: randomBytes(32), maxBytes: 1 << 30, ttlMs: 60_000, compressionThreshold: 8192,
        memoryBytes: 2 << 20, inliningEnabled: true, inliningMaxRows: 1000, inliningMaxBytes: 128 * 1024, segmentBytes: 8 << 20,
      },
    });
  });
  after(async () => {
    await worker.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const encoding of ['json', 'json+lz4'] as const) {
    it(`${encoding}: the same bytes from memory and then from the file, with their length; 404 once acknowledged`, async () => {
      const spool = worker.worker.spool!;
      // Two pages' worth of rows in two buffers (a page handed on as several parts).
      const parts = [0, 1].map((p) => Buffer.from(Array.from({ length: 20_000 }, (_, i) => JSON.stringify([p * 20_000 + i, `row ${i} é`])).join(',')));
      const rows = [parts[0]!, Buffer.from(','), parts[1]!];
      const segment = (await spool.write('q1', encoding, rows, 40_000))!;
      const url = `${worker.url}/v1/spooled/download/${segment.id}`;
      const fromMemory = await fetch(url);
      expect(fromMemory.status).to.equal(200);
      expect(fromMemory.headers.get('content-length')).to.equal(String(segment.segmentSize));
      const first = Buffer.from(await fromMemory.arrayBuffer());
      expect(first.length).to.equal(segment.segmentSize);
      if (encoding === 'json') expect(first.equals(Buffer.concat([Buffer.from('['), ...rows, Buffer.from(']')]))).to.equal(true);
      // Newer segments fill the spool's memory: this one is written out.
      const newer = await Promise.all([1, 2].map(() => spool.write('q2', 'json', [Buffer.alloc(1 << 20, 0x20)], 1)));
      await spool.settled();
      expect(newer.every((n) => n !== undefined)).to.equal(true);
      expect((await spool.open(segment.id))!.memory).to.equal(undefined);
      const fromFile = await fetch(url);
      expect(fromFile.status).to.equal(200);
      expect(fromFile.headers.get('content-length')).to.equal(String(segment.segmentSize));
      expect(Buffer.from(await fromFile.arrayBuffer()).equals(first)).to.equal(true);
      expect((await fetch(`${worker.url}/v1/spooled/ack/${segment.id}`)).status).to.equal(200);
      spool.dropQuery('q2');
      const gone = await fetch(url);
      expect(gone.status).to.equal(404);
      validateResponse('error', await gone.json());
    });
  }

  it('sends a segment held in memory as many buffers in one gathered write, not a write and a drain per buffer', async () => {
    const spool = worker.worker.spool!;
    // A page as the engine hands it over: the runs of rows it read, each a buffer of its own.
    const pieces = Array.from({ length: 64 }, (_, p) => Buffer.from(Array.from({ length: 1000 }, (_, i) => JSON.stringify([p * 1000 + i, 'x'.repeat(20)])).join(',') + (p < 63 ? ',' : '')));
    const segment = (await spool.write('q3', 'json', pieces, 64_000))!;
    const port = Number(new URL(worker.url).port);
    // Writes on the worker's side of the connection (the client's fetch runs in this process too).
    const writes: number[] = [];
    const onWorker = (socket: Socket) => socket.localPort === port;
    const proto = Socket.prototype as unknown as Record<'_writev' | '_write', (...args: unknown[]) => unknown>;
    const original = { writev: proto._writev, write: proto._write };
    const writev = sinon.stub(proto, '_writev').callsFake(function (this: Socket, ...args: unknown[]): unknown {
      if (onWorker(this)) writes.push((args[0] as unknown[]).length);
      return original.writev.apply(this, args);
    });
    const write = sinon.stub(proto, '_write').callsFake(function (this: Socket, ...args: unknown[]): unknown {
      if (onWorker(this)) writes.push(1);
      return original.write.apply(this, args);
    });
    let body: Buffer;
    try {
      const response = await fetch(`${worker.url}/v1/spooled/download/${segment.id}`);
      body = Buffer.from(await response.arrayBuffer());
    } finally {
      writev.restore();
      write.restore();
    }
    expect(body.equals(Buffer.concat([Buffer.from('['), ...pieces, Buffer.from(']')]))).to.equal(true);
    // The headers and every buffer in one writev (a piped stream wrote the 2 MB in dozens of turns).
    expect(writes).to.have.length(1);
    expect(writes[0]).to.be.at.least(pieces.length);
    spool.dropQuery('q3');
  });
});
