// The ipaddress parser and writer (lib/sql/ip-address.ts) against independent references: Node's
// net.isIP for which text is an address, the WHATWG URL serializer for the RFC 5952 form of IPv6, and
// round trips over every 128-bit value; plus Guava's particular rules Trino inherits.
import { isIP } from 'node:net';
import { expect } from 'chai';
import fc from 'fast-check';
import { formatIpAddress, ipAddressOfBytes, parseIpAddress } from '../../lib/sql/ip-address.js';
import { expectLinear, hostileText } from '../support/linear-time.js';

const MAPPED = 0xffffn << 32n;
const value128 = fc.bigInt({ min: 0n, max: (1n << 128n) - 1n });
/** Values with runs of zero hextets, where the compression rules matter. */
const sparse128 = fc.array(fc.oneof(fc.constant(0), fc.constant(0), fc.integer({ min: 0, max: 0xffff })), { minLength: 8, maxLength: 8 })
  .map((hextets) => hextets.reduce((v, h) => (v << 16n) | BigInt(h), 0n));
const hexDigits = (from: string) => fc.string({ unit: fc.constantFrom(...from.split('')), maxLength: 5 });

describe('ipaddress text (Guava InetAddresses, as Trino)', () => {
  it('accepts exactly the text Node accepts as an IP address (without zones)', () => {
    const ipish = fc.oneof(
      fc.string({ unit: fc.constantFrom(...'0123456789abcfABF:.'.split('')), maxLength: 24 }),
      fc.array(fc.oneof(fc.constant(''), hexDigits('0123456789abcdefABCDEF'), fc.constant('1.2.3.4'), fc.constant('01.2.3.4'), fc.constant('256.1.1.1')), { maxLength: 10 })
        .map((parts) => parts.join(':')),
    );
    fc.assert(fc.property(ipish, (text) => {
      expect(parseIpAddress(text) !== undefined, text).to.equal(isIP(text) !== 0);
    }), { numRuns: 20_000 });
  });

  it('writes IPv6 as the WHATWG URL serializer does (RFC 5952) and IPv4-mapped addresses as dotted IPv4', () => {
    fc.assert(fc.property(fc.oneof(value128, sparse128), (value) => {
      const text = formatIpAddress(value);
      if (value >> 32n === 0xffffn) {
        expect(text).to.match(/^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/);
      } else {
        const hextets = Array.from({ length: 8 }, (_, i) => ((value >> BigInt(112 - 16 * i)) & 0xffffn).toString(16).padStart(4, '0'));
        expect(`[${text}]`).to.equal(new URL(`http://[${hextets.join(':')}]/`).hostname);
      }
    }), { numRuns: 5_000 });
  });

  it('reads back what it writes, and every spelling of the full form', () => {
    fc.assert(fc.property(fc.oneof(value128, sparse128), fc.boolean(), (value, upper) => {
      expect(parseIpAddress(formatIpAddress(value))).to.equal(value);
      const full = Array.from({ length: 8 }, (_, i) => ((value >> BigInt(112 - 16 * i)) & 0xffffn).toString(16).padStart(4, '0')).join(':');
      expect(parseIpAddress(upper ? full.toUpperCase() : full)).to.equal(value);
    }), { numRuns: 5_000 });
  });

  it('maps IPv4 to ::ffff:a.b.c.d, and reads 4 or 16 bytes', () => {
    fc.assert(fc.property(fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 4, maxLength: 4 }), (octets) => {
      const expected = MAPPED | BigInt(((octets[0]! << 24) >>> 0) + (octets[1]! << 16) + (octets[2]! << 8) + octets[3]!);
      expect(parseIpAddress(octets.join('.'))).to.equal(expected);
      expect(parseIpAddress(`::ffff:${octets.join('.')}`)).to.equal(expected);
      expect(ipAddressOfBytes(Uint8Array.from(octets))).to.equal(expected);
      expect(formatIpAddress(expected)).to.equal(octets.join('.'));
    }));
    expect(ipAddressOfBytes(Uint8Array.from([0x20, 0x01, 0x0d, 0xb8, ...Array(11).fill(0), 1]))).to.equal(parseIpAddress('2001:db8::1'));
    expect(ipAddressOfBytes(Uint8Array.from([1, 2, 3]))).to.equal(undefined);
  });

  it('follows Guava where Trino inherits it', () => {
    const cases: [string, string | undefined][] = [
      ['::', '::'], ['::1', '::1'], ['1::', '1::'], ['1:2:3:4:5:6:7::', '1:2:3:4:5:6:7:0'], ['::2:3:4:5:6:7:8', '0:2:3:4:5:6:7:8'],
      ['1:0:0:2:0:0:0:3', '1:0:0:2::3'], ['1:0:0:2:0:0:3:4', '1::2:0:0:3:4'], ['1:0:2:0:3:0:4:0', '1:0:2:0:3:0:4:0'],
      ['::1.2.3.4', '::102:304'], ['::ffff:0.0.0.0', '0.0.0.0'], ['0:0:0:0:0:FFFF:0102:0304', '1.2.3.4'],
      // Zones: decimal ones are read and dropped, none is zone 0; names depend on the host in Java and are refused.
      ['fe80::1%2', 'fe80::1'], ['fe80::1%', 'fe80::1'], ['fe80::1%eth0', undefined], ['::ffff:1.2.3.4%1', undefined], ['1.2.3.4%1', undefined],
      // Octets: no leading zeros, at most 255; hextets at most four digits; one `::` that stands for something.
      ['01.2.3.4', undefined], ['1.2.3.256', undefined], ['1.2.3', undefined], ['1.2.3.4.5', undefined], ['12345::', undefined],
      ['1:2:3:4::5:6:7:8', undefined], ['1::2::3', undefined], [':1::', undefined], ['1:2:3:4:5:6:7:8:', undefined],
      ['1.2.3.4::', undefined], ['', undefined], [' 1.2.3.4', undefined], ['１.2.3.4', undefined],
    ];
    for (const [text, written] of cases) {
      const value = parseIpAddress(text);
      expect(value === undefined ? undefined : formatIpAddress(value), text).to.equal(written);
    }
  });

  it('refuses hostile and huge text at once', () => {
    expect(parseIpAddress('1'.repeat(1_000_000))).to.equal(undefined);
    expect(parseIpAddress(':'.repeat(1_000_000))).to.equal(undefined);
    fc.assert(fc.property(hostileText(200), (text) => {
      expect(parseIpAddress(text)).to.equal(undefined);
    }));
    expectLinear('parseIpAddress', parseIpAddress, (size) => ['1:'.repeat(size), '1.'.repeat(size), `${'::'.repeat(size)}%`]);
  });
});
