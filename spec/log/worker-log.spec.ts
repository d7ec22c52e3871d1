// The worker's log lines: its own errors (the coordinator's internal_error line, component worker), its
// announcements (a warn line when they start failing, info when they work, the coordinator named without
// credentials), and a real `vivace worker` process logging JSON on stderr at the log.level of its config.
import { expect } from 'chai';
import Koa from 'koa';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { announcementLog } from '../../lib/cli/worker-command.js';
import { setDefaultLogger } from '../../lib/log/logger.js';
import { Announcer } from '../../lib/worker/announcer.js';
import { workerErrors } from '../../lib/worker/worker-errors.js';
import { captureLog, type LogLine } from '../support/log-capture.js';
import { expectValid } from '../support/schema-validator.js';

const BIN = resolve(dirname(fileURLToPath(import.meta.url)), '../../bin/vivace');

function listen(server: Server): Promise<string> {
  return new Promise((done) => server.listen(0, '127.0.0.1', () => done(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

function close(server: Server): Promise<void> {
  return new Promise((done) => {
    server.close(() => done());
    server.closeAllConnections();
  });
}

/**
 * A discovery stand-in answering PUTs with the statuses given, in turn (the last one from then on);
 * `answered(n)` settles once it has answered the n-th PUT.
 */
function discovery(statuses: number[]): { server: Server; answered: (n: number) => Promise<void> } {
  let puts = 0;
  const waiting: { n: number; done: () => void }[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.method !== 'PUT') return void res.writeHead(204).end();
      puts++;
      res.writeHead(statuses[Math.min(puts, statuses.length) - 1]!).end();
      for (const w of waiting.filter((w) => w.n <= puts)) w.done();
    });
  });
  return { server, answered: (n) => (puts >= n ? Promise.resolve() : new Promise((done) => waiting.push({ n, done }))) };
}

describe('log: the worker', function () {
  this.timeout(60_000);

  it("a failure of its own is one internal_error line at error, component worker, with the request and stack; the client gets a TaskError", async () => {
    const log = captureLog('info');
    const previous = setDefaultLogger(log.logger);
    const app = new Koa();
    app.use(workerErrors);
    app.use(() => {
      throw new TypeError('a bug of ours');
    });
    const server = createServer(app.callback());
    try {
      const url = await listen(server);
      const res = await fetch(`${url}/v1/task/x?secret=no`);
      expect(res.status).to.equal(500);
      expectValid('task-error', await res.json());
    } finally {
      setDefaultLogger(previous);
      await close(server);
    }
    const [line, ...more] = log.lines();
    expect(more).to.deep.equal([]);
    expect(line).to.include({ level: 'error', component: 'worker', event: 'internal_error', request: 'GET /v1/task/x', errorName: 'GENERIC_INTERNAL_ERROR', message: 'a bug of ours' });
    expect(line!.stack).to.be.an('array').with.length.greaterThan(0);
  });

  it('announcements: warn once when they start failing, info when they work again; the coordinator without its user and password', async () => {
    const { server } = discovery([503, 503, 202]);
    const url = await listen(server);
    const log = captureLog('info');
    const announcer = new Announcer({ coordinatorUrl: url, nodeId: 'w1', environment: 'test', httpUri: 'http://127.0.0.1:9', memory: false, onChange: announcementLog(log.logger, url.replace('http://', 'http://admin:hunter2@')) });
    try {
      for (let i = 0; i < 3; i++) await announcer.announce();
    } finally {
      await announcer.stop();
      await close(server);
    }
    expect(log.lines().map(({ level, component, event, coordinator, detail }: LogLine) => ({ level, component, event, coordinator, detail }))).to.deep.equal([
      { level: 'warn', component: 'worker', event: 'announcement_failed', coordinator: url, detail: 'HTTP 503' },
      { level: 'info', component: 'worker', event: 'announced', coordinator: url, detail: 'HTTP 202' },
    ]);
    expect(log.chunks().join('')).not.to.include('hunter2');
  });

  it('`vivace worker` logs JSON lines on stderr at its config\'s log.level, each naming its node', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vivace-worker-log-'));
    // Refuses the first announcement, then takes them: a warn line, then an info line that log.level=warn drops.
    const { server, answered } = discovery([503, 202]);
    const url = await listen(server);
    writeFileSync(join(dir, 'config.properties'), `data.directory=${join(dir, 'data')}\nnode.environment=spec\nlog.level=warn\nshutdown.grace-period=5s\n`);
    const child = spawn(BIN, ['worker', '--coordinator', url, '--port', '0', '--node-id', 'log-spec-worker', '--data-dir', join(dir, 'w'), '--config', join(dir, 'config.properties')], {
      env: { ...process.env, VIVACE_FROM_SOURCE: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout!.resume();
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    try {
      // The retry after the refusal (the announcer's own 1 s backoff) is the second PUT.
      await Promise.race([answered(2), exited.then(() => Promise.reject(new Error(`worker exited: ${stderr}`)))]);
      child.kill('SIGTERM');
      await exited;
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await close(server);
      rmSync(dir, { recursive: true, force: true });
    }
    const lines = stderr.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as LogLine);
    expect(lines.map(({ level, component, event, nodeId, detail }) => ({ level, component, event, nodeId, detail }))).to.deep.equal([
      { level: 'warn', component: 'worker', event: 'announcement_failed', nodeId: 'log-spec-worker', detail: 'HTTP 503' },
    ]);
  });
});
