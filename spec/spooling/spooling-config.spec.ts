// The spooling properties as config.properties gives them (lib/spooling/spooling-config.ts), and what a worker's
// spool is built from (workerSpoolingOf): here vivace.spooling.memory-size, the bytes of unacknowledged segments
// a worker serves from memory before it writes the oldest to its spool directory.
import { expect } from 'chai';
import { parseConfigProperties } from '../../lib/config.js';
import { DEFAULT_SPOOL_MEMORY_BYTES, defaultSpoolingConfig, workerSpoolingOf } from '../../lib/spooling/spooling-config.js';

const KEY = Buffer.alloc(32, 7);

describe('spooling configuration: vivace.spooling.memory-size', () => {
  it('defaults to 64MB and reaches the worker spool', () => {
    expect(DEFAULT_SPOOL_MEMORY_BYTES).to.equal(64 * 1024 * 1024);
    expect(workerSpoolingOf(defaultSpoolingConfig(), KEY, '/tmp/spool').memoryBytes).to.equal(DEFAULT_SPOOL_MEMORY_BYTES);
  });

  it('takes Trino data sizes, 0 (every segment written at once) included', () => {
    expect(parseConfigProperties('vivace.spooling.memory-size=16MB\n')).to.include({ spoolingMemoryBytes: 16 * 1024 * 1024 });
    expect(parseConfigProperties('vivace.spooling.memory-size = 0B\n')).to.include({ spoolingMemoryBytes: 0 });
    const config = { ...defaultSpoolingConfig(), ...parseConfigProperties('vivace.spooling.memory-size=1kB\n') };
    expect(workerSpoolingOf(config, KEY, '/tmp/spool').memoryBytes).to.equal(1024);
  });

  it('refuses what is not a size, or more than 1GB, naming the property', () => {
    for (const value of ['-1MB', '2GB', '64', 'lots', '', '1e400B', 'NaNB', '__proto__', '8MB;rm']) {
      expect(() => parseConfigProperties(`vivace.spooling.memory-size=${value}\n`), value).to.throw(/vivace\.spooling\.memory-size/);
    }
  });
});
