// `bin/vivace worker` as a real child process: it prints its line, answers /v1/status, announces itself to
// a discovery stand-in, keeps its node id across a restart in its data directory, and stops on
// PUT /v1/info/state "SHUTTING_DOWN" after leaving discovery.
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { expectValid } from '../support/schema-validator.js';
import { isValidNodeId, NODE_ID_FILE, stableNodeId, WORKER_ENGINE_OPTIONS } from '../../lib/cli/worker-command.js';
import { call } from './worker-support.js';
import { startWorkerProcess, VIVACE_BIN } from '../support/worker-process.js';

const BIN = VIVACE_BIN;
const startWorker = startWorkerProcess;

describe('vivace worker (child process)', function () {
  this.timeout(60_000);
  let dir: string;
  let discovery: Server;
  let discoveryUrl: string;
  const seen: { method: string; url: string; body: string }[] = [];
  const children: ChildProcess[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vivace-worker-cmd-'));
    writeFileSync(join(dir, 'config.properties'), `data.directory=${join(dir, 'data')}\nnode.environment=spec\nshutdown.grace-period=5s\n`);
    discovery = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, body });
        res.writeHead(req.method === 'PUT' ? 202 : 204).end();
      });
    });
    await new Promise<void>((done) => discovery.listen(0, '127.0.0.1', done));
    discoveryUrl = `http://127.0.0.1:${(discovery.address() as AddressInfo).port}`;
  });
  after(async () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    await new Promise<void>((done) => {
      discovery.close(() => done());
      discovery.closeAllConnections();
    });
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints its line, answers /v1/status, announces itself, and stops gracefully on request', async () => {
    const dataDir = join(dir, 'w1');
    const w = await startWorker(['--coordinator', discoveryUrl, '--port', '0', '--data-dir', dataDir, '--config', join(dir, 'config.properties'), '--memory-catalog']);
    children.push(w.child);
    expect(w.url).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(readFileSync(join(dataDir, NODE_ID_FILE), 'utf8').trim()).to.equal(w.nodeId);
    const status = await call('GET', `${w.url}/v1/status`);
    expectValid('worker-status', status.body);
    expect(status.body).to.include({ nodeId: w.nodeId, coordinator: false, environment: 'spec' });
    while (!seen.some((r) => r.method === 'PUT' && r.url === `/v1/announcement/${w.nodeId}`)) await new Promise((done) => setImmediate(done));
    const announcement = JSON.parse(seen.find((r) => r.method === 'PUT')!.body);
    expectValid('announcement', announcement);
    expect(announcement.services[0].properties).to.include({ http: w.url, memory: 'true', coordinator: 'false' });

    expect((await call('PUT', `${w.url}/v1/info/state`, '"SHUTTING_DOWN"')).body).to.equal('SHUTTING_DOWN');
    expect(await w.exited).to.equal(0);
    expect(seen.some((r) => r.method === 'DELETE' && r.url === `/v1/announcement/${w.nodeId}`)).to.equal(true);

    // Restarted on the same data directory, it is the same node; with --nice, every thread of it runs at that priority.
    const again = await startWorker(['--coordinator', discoveryUrl, '--data-dir', dataDir, '--config', join(dir, 'config.properties'), '--nice', '7']);
    children.push(again.child);
    expect(again.nodeId).to.equal(w.nodeId);
    const threads = readdirSync(`/proc/${again.child.pid}/task`).map(Number);
    expect(threads.length).to.be.greaterThan(4);
    expect(new Set(threads.map((t) => getPriority(t)))).to.deep.equal(new Set([Math.max(7, getPriority())]));
    again.child.kill('SIGTERM');
    expect(await again.exited).to.equal(0);
  });

  it('refuses a missing or odd --coordinator, a bad --node-id and a bad --nice with a clear message', async () => {
    const bad = [[], ['--coordinator', 'not a url'], ['--coordinator', 'ftp://x'], ['--coordinator', discoveryUrl, '--node-id', 'a b/c']];
    // A priority above the coordinator's (negative), out of range, or not a plain decimal.
    for (const nice of ['--nice=-5', '--nice=20', '--nice=0x5', '--nice=1e1', '--nice=']) bad.push(['--coordinator', discoveryUrl, nice]);
    for (const args of bad) {
      const child = spawn(BIN, ['worker', '--data-dir', join(dir, 'w2'), ...args], { env: { ...process.env, VIVACE_FROM_SOURCE: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
      children.push(child);
      let err = '';
      child.stderr.on('data', (c: Buffer) => (err += c.toString()));
      const code = await new Promise<number | null>((done) => child.once('exit', done));
      expect(code, args.join(' ')).to.equal(1);
      expect(err, args.join(' ')).to.match(/^vivace: (--coordinator|--node-id|--nice)/);
    }
  });

  it('a second worker on the same memory catalog file says which directory is in use and what to do, and exits', async () => {
    const memoryDir = join(dir, 'memory-worker');
    const first = await startWorker(['--coordinator', discoveryUrl, '--config', join(dir, 'config.properties'), '--data-dir', memoryDir, '--memory-catalog', '--node-id', 'memory-a']);
    children.push(first.child);
    const second = spawn(BIN, ['worker', '--coordinator', discoveryUrl, '--config', join(dir, 'config.properties'), '--data-dir', memoryDir, '--memory-catalog', '--node-id', 'memory-b'], { env: { ...process.env, VIVACE_FROM_SOURCE: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(second);
    let err = '';
    second.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const code = await new Promise<number | null>((done) => second.once('exit', done));
    expect(code).to.equal(1);
    expect(err).to.include(`vivace: The memory catalog's database in ${memoryDir} is in use by another process (`);
    expect(err).to.include(`(PID ${first.child.pid})`);
    expect(err).to.include('give each worker with --memory-catalog its own --data-dir');
    first.child.kill('SIGTERM');
    await first.exited;
  });
});

describe("a worker's engine", () => {
  // Issue 25 b2: a worker's SELECT 1 skips DuckDB's thread hand-off (lib/engine/small-queries.ts).
  it('runs small table-free queries on the one-thread instance', () => {
    expect(WORKER_ENGINE_OPTIONS.smallQueries).to.equal(true);
  });
});

describe('worker node ids', () => {
  it('keeps a generated id in the data directory and takes a given one as it is', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vivace-node-id-'));
    try {
      const first = stableNodeId(dir);
      expect(isValidNodeId(first)).to.equal(true);
      expect(stableNodeId(dir)).to.equal(first);
      expect(stableNodeId(dir, 'worker-7')).to.equal('worker-7');
      writeFileSync(join(dir, NODE_ID_FILE), 'bad id with spaces\n');
      expect(stableNodeId(dir)).to.not.equal('bad id with spaces');
      for (const bad of ['', 'x'.repeat(129), 'a/b', 'ü', 'a\nb']) expect(isValidNodeId(bad), bad).to.equal(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
