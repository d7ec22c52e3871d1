// The task POST, every statement's plan and a short query's only exchange, is answered by the worker's
// listener without Koa (worker-app.ts workerRequestListener): this spec fails if it goes through Koa again,
// and holds its answers to Koa's byte for byte (the same request with a query string goes through Koa).
import { expect } from 'chai';
import { request } from 'node:http';
import Koa from 'koa';
import sinon from 'sinon';
import { internalHeaders } from '../../lib/cluster/cluster-auth.js';
import { INTERNAL_BEARER_HEADER, TASK_HEADERS, taskPath } from '../../lib/cluster/task-protocol.js';
import { expectValid } from '../support/schema-validator.js';
import { session, startTestWorker, type TestWorker } from './worker-support.js';

const SECRET = 'direct-post-secret';

interface RawAnswer {
  status: number;
  /** The status line's text, then the header lines as sent, names and values, without Date and the page's CPU milliseconds (timing). */
  headers: string[];
  body: Buffer;
}

function post(url: string, path: string, body: string, headers: Record<string, string>): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)), ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const lines: string[] = [`${res.statusCode} ${res.statusMessage}`];
        for (let i = 0; i < res.rawHeaders.length; i += 2) {
          const name = res.rawHeaders[i]!;
          if (name.toLowerCase() !== 'date' && name.toLowerCase() !== TASK_HEADERS.cpuTimeMillis) lines.push(`${name}: ${res.rawHeaders[i + 1]}`);
        }
        resolve({ status: res.statusCode ?? 0, headers: lines, body: Buffer.concat(chunks) });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('worker: the task POST without Koa', function () {
  this.timeout(30_000);
  let w: TestWorker;
  let bearer: Record<string, string>;
  let seq = 0;
  before(async () => {
    w = await startTestWorker({ sharedSecret: SECRET, maxBodyBytes: 64 << 10 });
    bearer = await internalHeaders(SECRET, 'coordinator');
  });
  after(async () => w.stop());
  afterEach(() => sinon.restore());

  const selectOne = (sql = 'SELECT 1') => JSON.stringify({ queryId: `q${seq}`, sql, session: session(), execute: true, inlineFirstPage: true, targetBytes: 1 << 20 });

  it('answers a SELECT 1 with its plan and page without a Koa context; other requests still go through Koa', async () => {
    const contexts = sinon.spy(Koa.prototype, 'createContext');
    for (let i = 0; i < 5; i++) {
      const answer = await post(w.url, taskPath(`direct-${seq++}.0.0.0`), selectOne(), bearer);
      expect(answer.status).to.equal(200);
      const planBytes = Number(answer.headers.find((h) => h.startsWith(`${TASK_HEADERS.planBytes}: `))!.split(': ')[1]);
      const plan: unknown = JSON.parse(answer.body.subarray(0, planBytes).toString('utf8'));
      expectValid('task-plan-response', plan);
      expect(plan).to.deep.equal({ columns: [{ name: '_col0', type: { base: 'integer' } }], executing: true });
      expect(answer.body.subarray(planBytes).toString('utf8')).to.equal('[1]');
    }
    expect(contexts.callCount).to.equal(0);
    await post(w.url, `${taskPath(`direct-${seq++}.0.0.0`)}?via=koa`, selectOne(), bearer);
    expect(contexts.callCount).to.equal(1);
  });

  // Each request twice: on the direct path, and with a query string (the router reads the same path) through Koa.
  const cases: [string, () => { body: string; headers: Record<string, string>; taskId?: string }][] = [
    ['a query with its first page', () => ({ body: selectOne("SELECT 1 AS one, 'two' AS two"), headers: bearer })],
    ['a plan alone (no execute)', () => ({ body: JSON.stringify({ queryId: 'q', sql: 'SELECT 2 AS two', session: session() }), headers: bearer })],
    ['a statement that fails (400)', () => ({ body: selectOne('SELECT * FROM memory.default.no_such_table'), headers: bearer })],
    ['a body that is not JSON (400)', () => ({ body: '{"queryId":', headers: bearer })],
    ['a request that is no task request (400)', () => ({ body: JSON.stringify({ queryId: 'q', sql: '' }), headers: bearer })],
    ['a body over the limit (413)', () => ({ body: JSON.stringify({ queryId: 'q', sql: `SELECT '${'x'.repeat(70 << 10)}'`, session: session() }), headers: bearer })],
    ['no bearer (401)', () => ({ body: selectOne(), headers: {} })],
    ['a foreign bearer (401)', () => ({ body: selectOne(), headers: { [INTERNAL_BEARER_HEADER]: 'not.a.token' } })],
    ['a task id too long (400)', () => ({ body: selectOne(), headers: bearer, taskId: 'a'.repeat(300) })],
  ];
  for (const [name, make] of cases) {
    it(`answers ${name} as Koa does, byte for byte`, async () => {
      const { body, headers, taskId } = make();
      const direct = await post(w.url, taskPath(taskId ?? `same-${seq++}.0.0.0`), body, headers);
      const viaKoa = await post(w.url, `${taskPath(taskId ?? `same-${seq++}.0.0.0`)}?via=koa`, body, headers);
      expect(direct.status).to.equal(viaKoa.status);
      expect(direct.headers).to.deep.equal(viaKoa.headers);
      expect(direct.body.toString('utf8')).to.equal(viaKoa.body.toString('utf8'));
      if (direct.status !== 200) expectValid('task-error', JSON.parse(direct.body.toString('utf8')));
    });
  }

  it('answers a worker shutting down with the 503 Koa gives', async () => {
    sinon.replace(w.worker.state, 'state', 'SHUTTING_DOWN');
    const direct = await post(w.url, taskPath(`down-${seq++}.0.0.0`), selectOne(), bearer);
    const viaKoa = await post(w.url, `${taskPath(`down-${seq++}.0.0.0`)}?via=koa`, selectOne(), bearer);
    expect(direct.status).to.equal(503);
    expect([direct.headers, direct.body.toString('utf8')]).to.deep.equal([viaKoa.headers, viaKoa.body.toString('utf8')]);
  });
});
