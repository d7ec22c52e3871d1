import { expect } from 'chai';
import fc from 'fast-check';
import { createHmac } from 'node:crypto';
import { HmacSha1, SHA1_BLOCK_BYTES } from '../../lib/protocol/hmac-sha1.js';

describe('HmacSha1', () => {
  it('gives RFC 2202 test case 2', () => {
    expect(new HmacSha1(Buffer.from('Jefe')).hex('what do ya want for nothing?')).to.equal('effcdf6ae5eb2fa2d27416d5f184df9c259a7c79');
  });

  it('gives createHmac\'s digest for any key and message, over every padding boundary', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 2 * SHA1_BLOCK_BYTES + 1 }),
        fc.array(fc.string({ unit: 'binary', maxLength: 300 }), { minLength: 1, maxLength: 4 }),
        (key, messages) => {
          const hmac = new HmacSha1(key);
          // One instance signs several messages in turn: its reused buffers carry nothing over.
          for (const message of messages) expect(hmac.hex(message)).to.equal(createHmac('sha1', key).update(message).digest('hex'));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('handles lengths around each block edge, lone surrogates and a message far longer than its buffer', () => {
    const key = Buffer.alloc(SHA1_BLOCK_BYTES, 7);
    const hmac = new HmacSha1(key);
    const messages = ['', '\ud800', 'a\udfffb', 'é'.repeat(82), 'é'.repeat(83), 'x'.repeat(1_000_000)];
    for (let n = 50; n < 140; n++) messages.push('t'.repeat(n));
    for (const message of messages) expect(hmac.hex(message), `${message.length}`).to.equal(createHmac('sha1', key).update(message).digest('hex'));
  });
});
