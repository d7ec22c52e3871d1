// query.max-memory-per-node in the configuration file (Trino's NodeMemoryConfig name and data size syntax):
// parsed as bytes, the worker's DuckDB memory_limit when set, refused above engine.memory-limit as Trino's
// LocalMemoryManager refuses one above the heap, and handed to the engine by engineSizingOf.
import { expect } from 'chai';
import { defaultConfig, memoryLimitOf, parseConfigProperties } from '../lib/config.js';
import { engineSizingOf } from '../lib/cli/engine-options.js';

describe('config: query.max-memory-per-node', () => {
  it('parses a data size in Trino\'s units into bytes, and refuses none or a bad one', () => {
    expect(parseConfigProperties('query.max-memory-per-node=16MB\n').maxMemoryPerNodeBytes).to.equal(16 << 20);
    expect(parseConfigProperties('query.max-memory-per-node=1.5GB\n').maxMemoryPerNodeBytes).to.equal(1.5 * 2 ** 30);
    expect(() => parseConfigProperties('query.max-memory-per-node=0B\n')).to.throw(/query.max-memory-per-node must be more than 0B/);
    expect(() => parseConfigProperties('query.max-memory-per-node=lots\n')).to.throw(/Invalid data size/);
    expect(defaultConfig().maxMemoryPerNodeBytes).to.equal(undefined);
  });

  it('is the engine\'s memory limit when set, engine.memory-limit otherwise, and cannot exceed engine.memory-limit', () => {
    expect(memoryLimitOf({ engineMemoryLimit: '4GB' })).to.equal('4GB');
    expect(memoryLimitOf({ engineMemoryLimit: '4GB', maxMemoryPerNodeBytes: 16 << 20 })).to.equal('16777216B');
    expect(memoryLimitOf({ engineMemoryLimit: '4GB', maxMemoryPerNodeBytes: 4 * 2 ** 30 })).to.equal('4294967296B');
    expect(() => memoryLimitOf({ engineMemoryLimit: '4GB', maxMemoryPerNodeBytes: 8 * 2 ** 30 })).to.throw(/^Invalid memory configuration. query.max-memory-per-node \(8589934592B\) cannot be larger than engine.memory-limit \(4GB\)$/);
    const config = { ...defaultConfig(), ...parseConfigProperties('engine.memory-limit=1GB\nquery.max-memory-per-node=64MB\n') };
    expect(engineSizingOf(config).memoryLimit).to.equal(`${64 << 20}B`);
  });
});
