// A worker's CPU priority: `--nice` and vivace.local-workers.nice take 0 to 19 and nothing else, and
// lowerOwnPriority lowers every thread of the process (V8's, and those started later inherit it) but
// never raises one. Run in child processes: priorities belong to threads, and this one must keep its own.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import fc from 'fast-check';
import { MAX_NICE, parseNice } from '../../lib/cluster/process-priority.js';
import { getPriority } from 'node:os';
import { defaultConfig, parseConfigProperties } from '../../lib/config.js';

/** This process's own priority: a child starts there and cannot go above it. */
const OWN = getPriority();
const MODULE = fileURLToPath(new URL('../../lib/cluster/process-priority.ts', import.meta.url));

/** The nice value of every thread of a child that calls lowerOwnPriority(`nice`) after starting at `startNice`, then starts a thread. */
async function threadPriorities(nice: number, startNice: number): Promise<number[]> {
  // The thread started after the call (a worker thread) must inherit the lowered priority.
  const script = `
    import { readdirSync } from 'node:fs';
    import { getPriority, setPriority } from 'node:os';
    import { Worker } from 'node:worker_threads';
    import { lowerOwnPriority } from ${JSON.stringify(MODULE)};
    for (const t of readdirSync('/proc/self/task')) setPriority(Number(t), ${startNice});
    lowerOwnPriority(${nice});
    const worker = new Worker('setInterval(() => {}, 1000)', { eval: true });
    worker.once('online', () => {
      process.stdout.write(JSON.stringify(readdirSync('/proc/self/task').map((t) => getPriority(Number(t)))));
      process.exit(0);
    });`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  expect(code).to.equal(0);
  return JSON.parse(out) as number[];
}

describe('cluster: process priority', function () {
  this.timeout(30_000);

  it('takes an integer from 0 to 19, else says what it wants', () => {
    expect([0, 10, 19].map((n) => parseNice(String(n), '--nice'))).to.deep.equal([0, 10, 19]);
    expect(parseNice(' 7 ', '--nice')).to.equal(7);
    for (const bad of ['-1', '20', '-20', '1.5', '', ' ', 'ten', '0x5', '1e1', 'NaN', 'Infinity', '10; rm -rf /']) {
      expect(() => parseNice(bad, '--nice'), bad).to.throw(/--nice must be an integer from 0 to 19/);
    }
  });

  it('never accepts a value outside 0 to 19, whatever the text (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (text) => {
        let value: number | undefined;
        try {
          value = parseNice(text, 'x');
        } catch (err) {
          expect((err as Error).message).to.contain('x must be an integer from 0 to 19');
          return;
        }
        expect(Number.isInteger(value) && value >= 0 && value <= MAX_NICE).to.equal(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('is a config property with a default of 10, refused out of range', () => {
    expect(defaultConfig().localWorkersNice).to.equal(10);
    expect(parseConfigProperties('vivace.local-workers.nice=0\n').localWorkersNice).to.equal(0);
    expect(() => parseConfigProperties('vivace.local-workers.nice=-5\n')).to.throw(/vivace.local-workers.nice must be an integer from 0 to 19/);
  });

  it('lowers every thread, and the threads started afterwards inherit it', async () => {
    const priorities = await threadPriorities(10, OWN);
    expect(priorities.length).to.be.greaterThan(4); // main, V8's platform threads, the worker thread
    expect(new Set(priorities)).to.deep.equal(new Set([Math.max(10, OWN)]));
  });

  it('never raises a thread already lower', async () => {
    const start = Math.max(12, OWN);
    expect(new Set(await threadPriorities(5, start))).to.deep.equal(new Set([start]));
  });
});
