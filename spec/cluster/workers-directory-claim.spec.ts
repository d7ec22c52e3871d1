import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { localWorkersDirectory } from '../../lib/cluster/local-workers.js';
import { CLAIM_FILE, claimWorkersDirectory, isLiveCoordinator } from '../../lib/cluster/workers-directory-claim.js';
import { VivaceError } from '../../lib/protocol/vivace-error.js';

describe('cluster: a coordinator\'s claim on its local workers\' data directory', () => {
  let data: string;
  beforeEach(() => {
    data = mkdtempSync(join(tmpdir(), 'vivace-claim-'));
  });
  afterEach(() => rmSync(data, { recursive: true, force: true }));

  it('one directory per port under data.directory/workers', () => {
    expect(localWorkersDirectory('/d', 8080)).to.equal('/d/workers/8080');
    expect(localWorkersDirectory('/d', '8081')).to.equal('/d/workers/8081');
  });

  it('writes its pid, and removes it on release', () => {
    const dir = join(data, 'workers', '8080');
    const claim = claimWorkersDirectory(dir, { pid: 4242 });
    expect(readFileSync(join(dir, CLAIM_FILE), 'utf8')).to.equal('4242\n');
    claim.release();
    expect(existsSync(join(dir, CLAIM_FILE))).to.equal(false);
  });

  it('refuses a directory a live coordinator holds, naming it, the process and --data-dir', () => {
    const dir = join(data, 'workers', '8080');
    claimWorkersDirectory(dir, { pid: 765 });
    expect(() => claimWorkersDirectory(dir, { pid: 4242, isLive: (pid) => pid === 765 })).to.throw(
      VivaceError,
      `The local workers' data directory ${dir} is in use by another coordinator (PID 765); start this one with another --data-dir (or data.directory) or another port`,
    );
    expect(readFileSync(join(dir, CLAIM_FILE), 'utf8')).to.equal('765\n'); // left to its owner
  });

  it('takes over a stale claim (its process gone) or an unreadable one, and never releases another\'s', () => {
    const dir = join(data, 'workers', '8080');
    claimWorkersDirectory(dir, { pid: 765 });
    const claim = claimWorkersDirectory(dir, { pid: 4242, isLive: () => false });
    expect(readFileSync(join(dir, CLAIM_FILE), 'utf8')).to.equal('4242\n');
    writeFileSync(join(dir, CLAIM_FILE), 'not a pid');
    claim.release(); // no longer ours: left alone
    expect(readFileSync(join(dir, CLAIM_FILE), 'utf8')).to.equal('not a pid');
    claimWorkersDirectory(dir, { pid: 4243, isLive: () => true });
    expect(readFileSync(join(dir, CLAIM_FILE), 'utf8')).to.equal('4243\n');
  });

  it('a live coordinator is a process running `serve`; a dead pid or another program is not', async () => {
    expect(isLiveCoordinator(process.pid)).to.equal(false); // mocha, not serve
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', 'serve'], { stdio: 'ignore' });
    try {
      await new Promise((resolve) => child.once('spawn', resolve));
      expect(isLiveCoordinator(child.pid!)).to.equal(true);
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
    expect(isLiveCoordinator(child.pid!)).to.equal(false);
  });
});
