import { expect } from 'chai';
import { Readable } from 'node:stream';
import type { Context } from 'koa';
import { readTextBody } from '../../lib/http/raw-body.js';
import { VivaceError } from '../../lib/protocol/vivace-error.js';

const contextOf = (req: Readable, contentLength = ''): Context => ({ get: () => contentLength, req }) as unknown as Context;

describe('readTextBody', () => {
  it('reads a body in several chunks as UTF-8 text', async () => {
    const req = Readable.from([Buffer.from('SELECT '), Buffer.from('é, '), Buffer.from('1')]);
    expect(await readTextBody(contextOf(req), 1024)).to.equal('SELECT é, 1');
  });

  it('rejects a body over the limit with 413, whether declared or streamed', async () => {
    const declared = await readTextBody(contextOf(Readable.from([]), '2048'), 1024).catch((e: unknown) => e);
    expect(declared).to.be.instanceOf(VivaceError).and.include({ errorName: 'QUERY_TEXT_TOO_LARGE', httpStatus: 413 });
    const streamed = await readTextBody(contextOf(Readable.from([Buffer.alloc(600), Buffer.alloc(600)])), 1024).catch((e: unknown) => e);
    expect(streamed).to.be.instanceOf(VivaceError).and.include({ errorName: 'QUERY_TEXT_TOO_LARGE', httpStatus: 413 });
  });

  it('answers empty text for a body already read to its end instead of waiting forever', async () => {
    const req = Readable.from([Buffer.from('consumed')]);
    for await (const _ of req); // read by someone else first
    expect(req.readableEnded).to.equal(true);
    expect(await readTextBody(contextOf(req), 1024)).to.equal('');
  });
});
