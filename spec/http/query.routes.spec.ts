import { expect } from 'chai';
import { request as rawRequest } from 'node:http';
import { DateTime } from 'luxon';
import sinon from 'sinon';
import { BIGINT_COLUMN, FakeEngine } from '../support/fake-engine.js';
import { request, runStatement, startTestServer, type TestServer } from '../support/http.js';
import { validateResponse } from '../support/schema-validator.js';

function engine(): FakeEngine {
  return new FakeEngine({
    'SELECT 1': { columns: [BIGINT_COLUMN('_col0')], rows: [[1]] },
    slow: { columns: [BIGINT_COLUMN('n')], rows: [[1]], gated: true },
  });
}

/** Sends one request with a raw request line, e.g. the absolute form presto-client uses for DELETE. */
function rawLine(port: number, method: string, target: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = rawRequest({ host: '127.0.0.1', port, method, path: target }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('query routes', () => {
  let server: TestServer;
  beforeEach(async () => {
    server = await startTestServer({ engine: engine(), config: { longPollMs: 100 } });
  });
  afterEach(() => server.stop());

  it('GET /v1/query/{id} returns the query information object of a finished query', async () => {
    const { final } = await runStatement(server.url, 'SELECT 1', {
      'X-Presto-User': 'alice',
      'X-Presto-Source': 'spec',
      'X-Presto-Catalog': 'memory',
      'X-Presto-Schema': 'default',
      'User-Agent': 'spec-agent',
    });
    const info = await request('GET', `${server.url}/v1/query/${final.id}`);
    expect(info.status).to.equal(200);
    expect(info.headers.get('content-type')).to.equal('application/json');
    validateResponse('query-info', info.body);
    expect(info.body).to.include({ queryId: final.id, state: 'FINISHED', query: 'SELECT 1', self: `${server.url}/v1/query/${final.id}` });
    expect(info.body.fieldNames).to.deep.equal(['_col0']);
    expect(info.body.session).to.include({ user: 'alice', source: 'spec', catalog: 'memory', schema: 'default', userAgent: 'spec-agent' });
    expect(info.body.session.startTime).to.be.a('number');
    expect(info.body.queryStats.outputPositions).to.equal(1);
    expect(info.body.outputStage.done).to.equal(true);
  });

  it("writes the query information's times as luxon would, without a luxon DateTime per time (iso-time.ts)", async () => {
    const { final } = await runStatement(server.url, 'SELECT 1');
    const fromMillis = sinon.spy(DateTime, 'fromMillis');
    try {
      const info = await request('GET', `${server.url}/v1/query/${final.id}`);
      expect(fromMillis.callCount).to.equal(0);
      const { createTime, executionStartTime, lastHeartbeat, endTime } = info.body.queryStats;
      for (const time of [createTime, executionStartTime, lastHeartbeat, endTime]) expect(time).to.equal(DateTime.fromISO(time).toISO());
    } finally {
      fromMillis.restore();
    }
  });

  it('lists live and finished queries, filtered by ?state=', async () => {
    await runStatement(server.url, 'SELECT 1');
    const post = await request('POST', `${server.url}/v1/statement`, { body: 'slow' });
    const all = await request('GET', `${server.url}/v1/query`);
    validateResponse('query-list', all.body);
    expect(all.body.map((q: any) => q.state)).to.deep.equal(['FINISHED', 'RUNNING']);
    const running = await request('GET', `${server.url}/v1/query?state=running`);
    validateResponse('query-list', running.body);
    expect(running.body.map((q: any) => q.queryId)).to.deep.equal([post.body.id]);
    const bad = await request('GET', `${server.url}/v1/query?state=SLEEPING`);
    expect(bad.status).to.equal(400);
    validateResponse('error', bad.body);
  });

  it('answers 410 for an unknown query id', async () => {
    const res = await request('GET', `${server.url}/v1/query/20200101_000000_00000_aaaaa`);
    expect(res.status).to.equal(410);
    validateResponse('error', res.body);
  });

  it('DELETE /v1/query/{id} cancels (204); PUT .../killed kills (202), then 409; unknown 410', async () => {
    const a = await request('POST', `${server.url}/v1/statement`, { body: 'slow' });
    expect((await request('DELETE', `${server.url}/v1/query/${a.body.id}`)).status).to.equal(204);
    const canceled = await request('GET', `${server.url}/v1/query/${a.body.id}`);
    expect(canceled.body.errorCode.name).to.equal('USER_CANCELED');

    const b = await request('POST', `${server.url}/v1/statement`, { body: 'slow' });
    const kill = await request('PUT', `${server.url}/v1/query/${b.body.id}/killed`, { body: 'too slow' });
    expect(kill.status).to.equal(202);
    const killed = await request('GET', `${server.url}/v1/query/${b.body.id}`);
    validateResponse('query-info', killed.body);
    expect(killed.body.errorCode.name).to.equal('ADMINISTRATIVELY_KILLED');
    expect(killed.body.failureInfo.message).to.equal('Query killed. Message: too slow');
    const again = await request('PUT', `${server.url}/v1/query/${b.body.id}/killed`);
    expect(again.status).to.equal(409);
    validateResponse('error', again.body);
    const unknown = await request('PUT', `${server.url}/v1/query/20200101_000000_00000_aaaaa/killed`);
    expect(unknown.status).to.equal(410);
  });

  it('DELETE on partialCancelUri answers 204 and the query finishes with what it produced', async () => {
    const post = await request('POST', `${server.url}/v1/statement`, { body: 'slow' });
    expect((await request('DELETE', post.body.partialCancelUri)).status).to.equal(204);
    const next = await request('GET', post.body.nextUri);
    expect(next.body.stats.state).to.equal('FINISHED');
  });

  it('routes a request line in absolute form by its path', async () => {
    const post = await request('POST', `${server.url}/v1/statement`, { body: 'slow' });
    const status = await rawLine(server.server.port, 'DELETE', post.body.nextUri);
    expect(status).to.equal(204);
    const info = await request('GET', `${server.url}/v1/query/${post.body.id}`);
    expect(info.body.state).to.equal('FAILED');
  });

  it('reads the body as raw SQL whatever its Content-Type, form-urlencoded included', async () => {
    const res = await request('POST', `${server.url}/v1/statement`, {
      body: 'SELECT 1',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).to.equal(200);
    const info = await request('GET', `${server.url}/v1/query/${res.body.id}`);
    expect(info.body.query).to.equal('SELECT 1');
  });

  it('ignores X-Forwarded-* by default: the URIs and the recorded address are the connection\'s', async () => {
    const res = await request('POST', `${server.url}/v1/statement`, {
      body: 'SELECT 1',
      headers: { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'evil.example', 'X-Forwarded-For': '203.0.113.9' },
    });
    expect(res.body.nextUri.startsWith(`${server.url}/v1/statement/${res.body.id}/`)).to.equal(true);
    expect(res.body.infoUri).to.equal(`${server.url}/ui/query.html?${res.body.id}`);
    const info = await request('GET', `${server.url}/v1/query/${res.body.id}`);
    expect(info.body.session.remoteUserAddress).to.equal('127.0.0.1');
  });

  it('builds absolute URIs from X-Forwarded-Proto and X-Forwarded-Host when http-server.process-forwarded is on', async () => {
    const proxied = await startTestServer({ engine: engine(), config: { longPollMs: 100, processForwarded: true } });
    try {
      const res = await request('POST', `${proxied.url}/v1/statement`, {
        body: 'SELECT 1',
        headers: { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'vivace.example:8443', 'X-Forwarded-For': '203.0.113.9' },
      });
      expect(res.body.nextUri).to.match(new RegExp(`^https://vivace\\.example:8443/v1/statement/${res.body.id}/1\\.y[0-9a-f]{40}$`));
      expect(res.body.infoUri).to.equal(`https://vivace.example:8443/ui/query.html?${res.body.id}`);
      const info = await request('GET', `${proxied.url}/v1/query/${res.body.id}`);
      expect(info.body.session.remoteUserAddress).to.equal('203.0.113.9');
      // A forwarded host that is no host name is not put into URIs.
      const odd = await request('POST', `${proxied.url}/v1/statement`, { body: 'SELECT 1', headers: { 'X-Forwarded-Host': 'a b/c?d', 'X-Forwarded-Proto': 'javascript' } });
      expect(odd.body.nextUri.startsWith(`${proxied.url}/v1/statement/`)).to.equal(true);
    } finally {
      await proxied.stop();
    }
  });
});

describe('node and info routes', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ engine: engine() });
  });
  after(() => server.stop());

  it('GET /v1/node and /v1/node/failed answer text/javascript arrays', async () => {
    for (const path of ['/v1/node', '/v1/node/failed']) {
      const res = await request('GET', `${server.url}${path}`);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('text/javascript');
      validateResponse('node-list', res.body);
    }
  });

  it('GET /v1/info describes the coordinator; HEAD|GET /v1/status answer 200', async () => {
    const info = await request('GET', `${server.url}/v1/info`);
    validateResponse('server-info', info.body);
    expect(info.body).to.include({ coordinator: true, state: 'ACTIVE' });
    expect((await request('HEAD', `${server.url}/v1/status`)).status).to.equal(200);
    const status = await request('GET', `${server.url}/v1/status`);
    expect(status.status).to.equal(200);
    validateResponse('status', status.body);
    expect(status.body.coordinator).to.equal(true);
  });

  it('GET|PUT /v1/info/state: invalid states are 400, SHUTTING_DOWN stops new statements with 503', async () => {
    expect((await request('GET', `${server.url}/v1/info/state`)).body).to.equal('ACTIVE');
    const bad = await request('PUT', `${server.url}/v1/info/state`, { body: '"SLEEPING"', headers: { 'Content-Type': 'application/json' } });
    expect(bad.status).to.equal(400);
    validateResponse('error', bad.body);
    const down = await request('PUT', `${server.url}/v1/info/state`, { body: '"SHUTTING_DOWN"', headers: { 'Content-Type': 'application/json' } });
    expect(down.status).to.equal(200);
    expect(down.body).to.equal('SHUTTING_DOWN');
    const post = await request('POST', `${server.url}/v1/statement`, { body: 'SELECT 1' });
    expect(post.status).to.equal(503);
    validateResponse('error', post.body);
    const back = await request('PUT', `${server.url}/v1/info/state`, { body: '"ACTIVE"', headers: { 'Content-Type': 'application/json' } });
    expect(back.status).to.equal(400);
  });
});
