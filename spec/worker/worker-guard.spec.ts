// The worker against hostile or unauthenticated requests, its bounds, and its graceful shutdown.
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { SignJWT } from 'jose';
import { internalBearer } from '../../lib/cluster/cluster-auth.js';
import { taskPath, taskStatusPath } from '../../lib/cluster/task-protocol.js';
import { expectValid } from '../support/schema-validator.js';
import { call, execute, exhausted, planTask, results, rowsOf, session, startTestWorker, type TestWorker } from './worker-support.js';

describe('worker: hostile task requests', () => {
  let w: TestWorker;
  before(async () => {
    w = await startTestWorker({ maxBodyBytes: 64 << 10, maxQueryLength: 1000 });
  });
  after(async () => w.stop());

  const post = (taskId: string, body: unknown) => call('POST', w.url + taskPath(taskId), body);

  it('answers malformed bodies with a 400 naming the problem', async () => {
    const cases: [unknown, string][] = [
      ['{not json', 'Task request is not valid JSON'],
      ['[]', 'Task request must be a JSON object'],
      [{ sql: 'SELECT 1', session: session() }, 'queryId must be a string'],
      [{ queryId: 'q', sql: 42, session: session() }, 'sql must be a string'],
      [{ queryId: 'q', sql: '   ', session: session() }, 'sql must not be empty'],
      [{ queryId: 'q', sql: 'SELECT 1' }, 'session must be a JSON object'],
      [{ queryId: 'q', sql: 'SELECT 1', session: { ...session(), prefix: 'X-Evil-' } }, 'session.prefix must be one of X-Service-, X-Presto-, X-Trino-'],
      [{ queryId: 'q', sql: 'SELECT 1', session: { ...session(), user: '' } }, 'session.user must not be empty'],
      [{ queryId: 'q', sql: 'SELECT 1', session: { ...session(), properties: { a: 1 } } }, 'session.properties.a must be a string'],
      [{ queryId: 'q', sql: 'SELECT 1', session: { ...session(), clientTags: 'x' } }, 'session.clientTags must be an array of strings'],
      [{ queryId: 'q', sql: 'SELECT 1', session: session(), execute: 'yes' }, 'execute must be a boolean'],
      [{ queryId: 'q', sql: 'SELECT 1', session: session(), targetBytes: -5 }, 'targetBytes must be a positive integer'],
      [{ queryId: 'q', sql: 'SELECT 1', session: session(), inlineFirstPage: 1 }, 'inlineFirstPage must be a boolean'],
      [{ queryId: 'q', sql: 'SELECT 1', session: session(), system: { nodes: [1] } }, 'system.nodes must be an array of objects'],
      [{ queryId: 'q', sql: `SELECT '${'x'.repeat(2000)}'`, session: session() }, 'sql is longer than 1000 characters'],
    ];
    for (const [body, message] of cases) {
      const answer = await post('t-bad', body);
      expect(answer.status, JSON.stringify(body).slice(0, 80)).to.equal(400);
      expect(answer.body.message).to.equal(message);
    }
    expect(w.worker.registry.activeCount + w.worker.registry.finishedCount).to.equal(0);
  });

  it('answers a body over the limit with a 413, and odd ids, tokens and sizes with a 400', async () => {
    const big = await call('POST', w.url + taskPath('t-big'), { queryId: 'q', sql: 'SELECT 1', session: session(), pad: 'x'.repeat(100_000) });
    expect(big.status).to.equal(413);
    expect((await post('x'.repeat(300), { queryId: 'q', sql: 'SELECT 1', session: session() })).status).to.equal(400);
    expect((await post('t\u0000id', { queryId: 'q', sql: 'SELECT 1', session: session() })).status).to.equal(400);
    await planTask(w.url, 't-odd', 'SELECT 1', { execute: true });
    for (const path of ['/results/-1', '/results/abc', '/results/99999999999999999999', '/results/0?targetBytes=abc', '/results/0?targetBytes=0']) {
      const answer = await call('GET', w.url + taskPath('t-odd') + path);
      expect(answer.status, `${path} ${answer.text}`).to.equal(400);
    }
    // An absurd targetBytes is clamped, not honoured or refused.
    expect(rowsOf(await call('GET', `${w.url}${taskPath('t-odd')}/results/0?targetBytes=9999999999999`))).to.deep.equal([[1]]);
  });

  it('answers another method on a task path with a 405 TaskError', async () => {
    const answer = await call('PATCH', w.url + taskPath('t-odd'));
    expect(answer.status).to.equal(405);
  });

  it('treats a retried POST of a task as the same task, and one for another query as a conflict', async () => {
    const first = await planTask(w.url, 't-twice', 'SELECT 5', { execute: true });
    const again = await planTask(w.url, 't-twice', 'SELECT 5', { execute: true });
    expect(again.body).to.deep.equal(first.body);
    expect(rowsOf(await results(w.url, 't-twice', 0))).to.deep.equal([[5]]);
    const other = await planTask(w.url, 't-twice', 'SELECT 6', { queryId: 'another' });
    expect(other.status).to.equal(409);
  });
});

describe('worker: the task registry bounds', () => {
  let w: TestWorker;
  let now = 1_000_000;
  before(async () => {
    w = await startTestWorker({ now: () => now, registry: { maxActiveTasks: 2, finishedLingerMs: 10_000, abandonedAfterMs: 60_000 }, sweepIntervalMs: 3_600_000 });
  });
  after(async () => w.stop());

  it('refuses a task past the active cap with a 503, and drops abandoned and finished tasks on the sweep', async () => {
    await planTask(w.url, 'a1', 'SELECT 1');
    await planTask(w.url, 'a2', 'SELECT 2');
    const full = await planTask(w.url, 'a3', 'SELECT 3');
    expect(full.status).to.equal(503);
    expect(full.body.errorName).to.equal('GENERIC_INSUFFICIENT_RESOURCES');
    now += 30_000;
    await execute(w.url, 'a2');
    expect(rowsOf(await results(w.url, 'a2', 0))).to.deep.equal([[2]]);
    expect(w.worker.registry.finishedCount).to.equal(1);
    // a1 untouched for 60 s is abandoned; a2 finished 30 s ago is past its linger.
    now += 30_000;
    w.worker.registry.sweep();
    expect(w.worker.registry.activeCount).to.equal(0);
    expect(w.worker.registry.finishedCount).to.equal(0);
    expect((await results(w.url, 'a1', 0)).status).to.equal(404);
    // The abandoned plan gave its connection back.
    await planTask(w.url, 'a4', 'SELECT 4', { execute: true });
    expect(rowsOf(await results(w.url, 'a4', 0))).to.deep.equal([[4]]);
    // A finished task is still there for a retried GET within its linger.
    now += 5_000;
    w.worker.registry.sweep();
    expect(rowsOf(await results(w.url, 'a4', 0))).to.deep.equal([[4]]);
  });

  it('keeps a task whose end was rendered ahead, unread, past the finished linger (a slow client of a scattered scan)', async () => {
    // One row a page: the page after the last row is the end, rendered ahead of any request for it.
    await planTask(w.url, 'slow', 'SELECT x FROM (VALUES 1, 2, 3) AS t (x)', { execute: true, targetBytes: 1 });
    for (let token = 0; token < 3; token++) expect(rowsOf(await results(w.url, 'slow', token, 1))).to.have.length(1);
    while (w.worker.registry.finishedCount === 0) await new Promise((resolve) => setImmediate(resolve));
    // Past the 10 s linger of a finished task, within the 60 s abandonment: the end is still there.
    now += 30_000;
    w.worker.registry.sweep();
    const end = await results(w.url, 'slow', 3, 1);
    expect(end.status).to.equal(204);
    // Read, it lingers as any finished task and then goes.
    now += 30_000;
    w.worker.registry.sweep();
    expect((await results(w.url, 'slow', 3, 1)).status).to.equal(404);
  });
});

describe('worker: internal authentication', () => {
  const secret = 'spec-shared-secret';
  let w: TestWorker;
  before(async () => {
    w = await startTestWorker({ sharedSecret: secret });
  });
  after(async () => w.stop());

  const bearer = (token: string) => ({ 'X-Trino-Internal-Bearer': token });

  it('takes a task with a valid bearer', async () => {
    const headers = bearer(await internalBearer(secret, 'coordinator'));
    expect((await planTask(w.url, 'auth-ok', 'SELECT 1', { execute: true }, headers)).status).to.equal(200);
    expect(rowsOf(await results(w.url, 'auth-ok', 0, 1024, headers))).to.deep.equal([[1]]);
    const listed = await call('GET', `${w.url}/v1/task`, undefined, headers);
    expectValid('task-list', listed.body);
  });

  it('refuses a missing, foreign or expired bearer with a 401, on every task path', async () => {
    const foreign = await internalBearer('another-secret', 'intruder');
    const key = new Uint8Array(createHash('sha256').update(secret).digest());
    const expired = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject('old').setExpirationTime(Math.floor(Date.now() / 1000) - 60).sign(key);
    for (const headers of [{}, bearer(foreign), bearer(expired), bearer('garbage')]) {
      const plan = await planTask(w.url, 'auth-no', 'SELECT 1', {}, headers);
      expect(plan.status).to.equal(401);
      expect(plan.body.errorName).to.equal('PERMISSION_DENIED');
      expect((await results(w.url, 'auth-ok', 0, 1024, headers)).status).to.equal(401);
      expect((await call('DELETE', w.url + taskPath('auth-ok'), undefined, headers)).status).to.equal(401);
      // The status a coordinator asks for its slow clients' tasks (task-keep-alive.ts): named like the open /v1/status, not open.
      for (const path of [taskStatusPath('auth-ok'), '/v1/task/auth-ok/STATUS', '/v1/task/auth-ok/status/', '/v1/task/auth-ok%2Fstatus']) {
        expect((await call('GET', w.url + path, undefined, headers)).status, path).to.equal(401);
      }
      expect((await call('GET', `${w.url}/v1/task`, undefined, headers)).status).to.equal(401);
      expect((await call('GET', `${w.url}/V1/TASK`, undefined, headers)).status).to.equal(401);
    }
    expect((await call('GET', `${w.url}/v1/task`, undefined, bearer(expired))).body.message).to.equal('Internal bearer expired');
  });

  it('keeps the status endpoints open', async () => {
    expect((await fetch(`${w.url}/v1/status`, { method: 'HEAD' })).status).to.equal(200);
    expectValid('worker-status', (await call('GET', `${w.url}/v1/status`)).body);
    expectValid('server-info', (await call('GET', `${w.url}/v1/info`)).body);
  });
});

describe('worker: graceful shutdown', () => {
  it('stops taking tasks, lets the running one be read to its end, leaves discovery, then stops', async () => {
    const events: string[] = [];
    let stopped!: () => void;
    const done = new Promise<void>((resolve) => (stopped = resolve));
    const w = await startTestWorker({
      leaveDiscovery: async () => void events.push('left discovery'),
      onStopped: () => {
        events.push('stopped');
        stopped();
      },
      // The grace period never ends by itself here: only the drained task ends the wait.
      sleep: () => new Promise<void>(() => {}),
    });
    try {
      await planTask(w.url, 'drain', "SELECT a.x FROM UNNEST(sequence(1, 1000)) AS a(x) CROSS JOIN UNNEST(sequence(1, 20)) AS b(y)", { execute: true, targetBytes: 4096 });
      const first = await results(w.url, 'drain', 0, 4096);
      expect(first.status).to.equal(200);
      expect((await call('PUT', `${w.url}/v1/info/state`, '"SHUTTING_DOWN"')).body).to.equal('SHUTTING_DOWN');
      expect((await call('GET', `${w.url}/v1/info`)).body.state).to.equal('SHUTTING_DOWN');
      const refused = await planTask(w.url, 'late', 'SELECT 1');
      expect(refused.status).to.equal(503);
      expect(refused.body.errorName).to.equal('SERVER_SHUTTING_DOWN');
      expect(events).to.deep.equal([]);
      let rows = rowsOf(first).length;
      // The coordinator's side reads up to the page marked exhausted and asks no further.
      for (let token = 1; ; token++) {
        const page = await results(w.url, 'drain', token, 4096);
        rows += rowsOf(page).length;
        if (exhausted(page)) break;
      }
      expect(rows).to.equal(20_000);
      await done;
      expect(events).to.deep.equal(['left discovery', 'stopped']);
    } finally {
      await w.stop();
    }
  });

  it('cancels what is still running once the grace period ends', async () => {
    let endGrace!: () => void;
    let stopped!: () => void;
    const done = new Promise<void>((resolve) => (stopped = resolve));
    const w = await startTestWorker({ onStopped: () => stopped(), sleep: () => new Promise<void>((resolve) => (endGrace = resolve)) });
    try {
      await planTask(w.url, 'slow', "SELECT a.x FROM UNNEST(sequence(1, 1000)) AS a(x) CROSS JOIN UNNEST(sequence(1, 200)) AS b(y)", { execute: true, targetBytes: 4096 });
      await call('PUT', `${w.url}/v1/info/state`, '"SHUTTING_DOWN"');
      while (endGrace === undefined) await new Promise((resolve) => setImmediate(resolve));
      expect(w.worker.registry.activeCount).to.equal(1);
      endGrace();
      await done;
      expect(w.worker.registry.activeCount).to.equal(0);
      expect(w.worker.server.listening).to.equal(false);
    } finally {
      await w.stop();
    }
  });
});
