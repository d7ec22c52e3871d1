// The logger's stderr destination: lines go out in batches, in order, and at exit; and a process whose
// stderr reader is gone (a killed coordinator's local worker) still exits: sonic-boom's exit flush
// retried a broken pipe every 100 ms forever, and a worker was found an hour later still "exiting".
import { spawn } from 'node:child_process';
import { mkdtempSync, openSync, closeSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import sinon from 'sinon';
import { BatchedStderr } from '../../lib/log/batched-stderr.js';

const LOGGER = fileURLToPath(new URL('../../lib/log/logger.ts', import.meta.url));

describe('log: batched stderr', function () {
  this.timeout(20_000);
  let dir: string;
  let clock: sinon.SinonFakeTimers | undefined;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'vivace-batched-'));
  });
  afterEach(() => {
    clock?.restore();
    clock = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes lines in order once enough gathered, the rest after the interval or at exit', async () => {
    clock = sinon.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const file = join(dir, 'out.log');
    const fd = openSync(file, 'w');
    try {
      const out = new BatchedStderr({ fd, minBytes: 20, intervalMs: 1000 });
      out.write('one\n');
      out.write('two\n');
      expect(readFileSync(file, 'utf8')).to.equal(''); // 8 bytes: gathering
      out.write('three-is-a-longer-line\n');
      await new Promise((resolve) => setTimeout(resolve, 50)); // the asynchronous write lands
      expect(readFileSync(file, 'utf8')).to.equal('one\ntwo\nthree-is-a-longer-line\n');
      out.write('four\n');
      clock.tick(1000);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(readFileSync(file, 'utf8')).to.equal('one\ntwo\nthree-is-a-longer-line\nfour\n');
      out.write('five\n');
      out.flushSync();
      expect(readFileSync(file, 'utf8')).to.equal('one\ntwo\nthree-is-a-longer-line\nfour\nfive\n');
      expect(out.dropped).to.equal(0);
    } finally {
      closeSync(fd);
    }
  });

  it('a process whose stderr reader is gone logs, drops the lines and exits', async () => {
    // The child logs a line at start (the pipe works), waits for its stdin to end, logs more and exits.
    const script = `
      const { createLogger } = await import(${JSON.stringify(LOGGER)});
      const log = createLogger();
      log.info({ event: 'ready' }, 'ready');
      process.stdin.on('end', () => {
        for (let i = 0; i < 100; i++) log.info({ event: 'after', i }, 'x'.repeat(200));
        process.exit(0);
      });
      process.stdin.resume();
    `;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['pipe', 'ignore', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      await new Promise<void>((resolve, reject) => {
        child.stderr!.once('data', () => resolve());
        child.once('exit', () => reject(new Error('the child exited before logging')));
      });
      child.stderr!.destroy(); // the reader goes away
      child.stdin!.end();
      const code = await Promise.race([exited, new Promise<string>((resolve) => setTimeout(() => resolve('still running after 10 s'), 10_000))]);
      expect(code).to.equal(0);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });
});
