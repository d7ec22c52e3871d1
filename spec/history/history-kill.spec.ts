import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { QueryHistoryStore } from '../../lib/history/history-store.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/killed-coordinator.ts', import.meta.url));

describe('history: a killed coordinator', function () {
  this.timeout(60_000);
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'vivace-history-kill-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('loses at most the batch it held: a coordinator started on its data directory finds the rest', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE, dir], { stdio: ['ignore', 'pipe', 'inherit'] });
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString('utf8');
        if (out.includes('\n')) resolve(out.slice(0, out.indexOf('\n')));
      });
      child.on('exit', (code) => reject(new Error(`the coordinator exited first (${code})`)));
    });
    const { ids, files } = JSON.parse(line) as { ids: string[]; files: number };
    expect(files).to.equal(1);
    const exited = new Promise((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    child.kill('SIGKILL');
    expect(await exited).to.equal('SIGKILL');

    const restarted = new QueryHistoryStore({ directory: join(dir, 'history'), maxAgeMs: 3_600_000, maxSizeBytes: 1 << 20, batchSize: 2, now: Date.now });
    expect(await Promise.all(ids.map(async (id) => (await restarted.find(id))?.state ?? null))).to.deep.equal(['FINISHED', 'FINISHED', null]);
  });
});
