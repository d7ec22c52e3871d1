// How a worker removes a task's exchange files (stage-tasks.ts discard): the path is free at once, for the
// slot's next task to write there, and what was there is gone once the background removal ends.
import { expect } from 'chai';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { discard } from '../../lib/worker/stage-tasks.js';

describe('stage tasks: discarding a task\'s files', () => {
  let directory: string;
  beforeEach(() => { directory = mkdtempSync(join(tmpdir(), 'vivace-stage-tasks-')); });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  it('frees the path at once and removes a HASH output\'s directory of buckets in the background', async () => {
    const out = join(directory, 'slot0-out');
    mkdirSync(join(out, 'vivace_bucket=1'), { recursive: true });
    writeFileSync(join(out, 'bucket-0.parquet'), 'x');
    writeFileSync(join(out, 'vivace_bucket=1', 'data_0.parquet'), 'y');
    const removed = discard(out);
    expect(existsSync(out), 'the slot\'s path is free before the removal ends').to.equal(false);
    // The next task of the slot writes there while the old files are still being removed.
    writeFileSync(out, 'next task');
    await removed;
    expect(readdirSync(directory)).to.deep.equal(['slot0-out']);
  });

  it('takes a file, and a path that is not there', async () => {
    const file = join(directory, 'slot1-out.parquet');
    writeFileSync(file, 'x');
    await discard(file);
    await discard(join(directory, 'never-written.parquet'));
    expect(readdirSync(directory)).to.deep.equal([]);
  });
});
