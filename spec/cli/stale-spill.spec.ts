// Spill directories of workers that are gone are removed when a worker starts; a live process's, any other
// name, a file of a spill name and this process's own stay.
import { expect } from 'chai';
import fc from 'fast-check';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spillOwner, sweepStaleSpill } from '../../lib/cli/stale-spill.js';

describe('stale spill directories', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'vivace-spill-spec-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('removes the directories of dead processes only', () => {
    for (const name of ['vivace-spill-101', 'vivace-spill-202', `vivace-spill-${process.pid}`, 'vivace-spill-', 'vivace-spill-12a', 'other-303', 'vivace-spill-404']) mkdirSync(join(dir, name));
    mkdirSync(join(dir, 'vivace-spill-101', 'stages'));
    writeFileSync(join(dir, 'vivace-spill-101', 'stages', 'slot0-out.parquet'), 'x');
    writeFileSync(join(dir, 'vivace-spill-505'), 'a file, not a spill directory');
    const removed = sweepStaleSpill(dir, (pid) => pid === 202);
    expect(removed.map((p) => p.slice(dir.length + 1)).sort()).to.deep.equal(['vivace-spill-101', 'vivace-spill-404']);
    for (const kept of ['vivace-spill-202', `vivace-spill-${process.pid}`, 'vivace-spill-', 'vivace-spill-12a', 'other-303', 'vivace-spill-505']) expect(existsSync(join(dir, kept)), kept).to.equal(true);
  });

  it('reads an owner only from the exact name shape, whatever the text', () => {
    expect(spillOwner('vivace-spill-42')).to.equal(42);
    for (const name of ['vivace-spill-0', 'vivace-spill--1', 'vivace-spill-1.5', 'Vivace-spill-1', 'vivace-spill-99999999999', 'vivace-spill-１']) expect(spillOwner(name), name).to.equal(undefined);
    fc.assert(fc.property(fc.string({ maxLength: 40 }), (s) => {
      const pid = spillOwner(`vivace-spill-${s}`);
      if (pid !== undefined) expect(String(pid)).to.equal(s.replace(/^0+/, ''));
    }), { numRuns: 500 });
  });

  it('answers nothing for a directory it cannot read', () => {
    expect(sweepStaleSpill(join(dir, 'missing'))).to.deep.equal([]);
  });
});
