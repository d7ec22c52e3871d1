import { expect } from 'chai';
import fc from 'fast-check';
import { isLoopback } from '../../lib/http/loopback.js';

describe('isLoopback', () => {
  it('knows this machine\'s addresses, in IPv4, IPv6 and mapped forms', () => {
    for (const a of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1', '::FFFF:127.0.0.9']) expect(isLoopback(a), a).to.equal(true);
  });

  it('refuses everything else, including look-alikes', () => {
    for (const a of [undefined, '', '10.0.0.1', '128.0.0.1', '127.0.0', '127.0.0.1.5', '127.0.0.256', '::2', '::ffff:10.0.0.1', '127.0.0.1 ', 'localhost', '1127.0.0.1', '::ffff:127.0.0.1:80']) {
      expect(isLoopback(a), String(a)).to.equal(false);
    }
  });

  it('says false for any text that is not a loopback address', () => {
    fc.assert(fc.property(fc.string({ maxLength: 60 }), (text) => {
      expect(isLoopback(`x${text}`)).to.equal(false);
    }));
    fc.assert(fc.property(fc.ipV4(), (ip) => {
      expect(isLoopback(ip)).to.equal(ip.startsWith('127.'));
    }));
  });
});
