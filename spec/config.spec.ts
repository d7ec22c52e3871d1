// Configuration properties read from config.properties (lib/config.ts): exchange.compression-codec, Trino's
// name and values (NONE, LZ4, ZSTD; NONE by default), anything else refused with the property named.
import { expect } from 'chai';
import { defaultConfig, parseConfigProperties } from '../lib/config.js';

describe('configuration: exchange.compression-codec', () => {
  it('takes Trino\'s codecs in any case, and defaults to none', () => {
    expect(defaultConfig().exchangeCompressionCodec).to.equal(undefined);
    expect(parseConfigProperties('exchange.compression-codec=ZSTD\n')).to.include({ exchangeCompressionCodec: 'ZSTD' });
    expect(parseConfigProperties('exchange.compression-codec = lz4\n')).to.include({ exchangeCompressionCodec: 'LZ4' });
    expect(parseConfigProperties('exchange.compression-codec=NONE\n')).to.include({ exchangeCompressionCodec: 'NONE' });
  });

  it('refuses any other value, naming the property', () => {
    for (const value of ['SNAPPY', 'gzip', '', 'constructor', '__proto__', 'NONE;x']) {
      expect(() => parseConfigProperties(`exchange.compression-codec=${value}\n`), value).to.throw(/exchange\.compression-codec must be one of NONE, LZ4, ZSTD/);
    }
  });
});
