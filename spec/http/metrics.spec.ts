// GET /metrics on a real server over real DuckDB: the counters and histograms move by exactly the
// queries and requests run, gauges read the coordinator at scrape time, labels stay bounded (no query
// id, slug, token or user ever becomes a label), and the page is behind authentication and the
// system_information read right.
import { expect } from 'chai';
import fc from 'fast-check';
import { Counter, Registry } from 'prom-client';
import sinon from 'sinon';
import { createTestEngine } from '../support/duckdb.js';
import { request, runStatement, startTestServer, type JsonResponse, type TestServer } from '../support/http.js';
import { parseExposition, sampleValue, type Exposition } from '../support/prometheus-text.js';
import { validateResponse } from '../support/schema-validator.js';
import { basic, bcryptLine, secureFixture, send, startSecureServer } from '../security/auth-fixtures.js';

const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';
const USER = { 'X-Trino-User': 'alice-the-user' };

/** The exposition, checked: the content type, and a TYPE line for every sample's metric. */
function exposition(res: JsonResponse | { status: number; text: string }): Exposition {
  expect(res.status).to.equal(200);
  const parsed = parseExposition(res.text);
  for (const sample of parsed.samples) {
    const base = sample.name.replace(/_(?:bucket|sum|count)$/, '');
    expect(parsed.types.has(sample.name) || parsed.types.has(base), `# TYPE of ${sample.name}`).to.equal(true);
  }
  return parsed;
}

async function scrape(server: TestServer): Promise<Exposition> {
  const res = await request('GET', `${server.url}/metrics`);
  expect(res.headers.get('content-type')).to.equal(CONTENT_TYPE);
  return exposition(res);
}

/** Resolves once the query has ended and the tracker recorded it. */
async function ended(server: TestServer, queryId: string): Promise<void> {
  const tracked = server.coordinator.lookup(queryId);
  expect(tracked, queryId).not.to.equal(undefined);
  await server.coordinator.waitFor(tracked!, () => false, 10_000);
  expect(tracked!.final, `${queryId} ended`).not.to.equal(undefined);
}

describe('GET /metrics', function () {
  this.timeout(30_000);
  let server: TestServer;

  before(async () => {
    server = await startTestServer({ engine: await createTestEngine(4), config: { maxRunningQueries: 1 } });
  });
  after(() => server.stop());

  it('counts queries started, finished and failed by error type and name, their elapsed time, and the rows sent, exactly', async () => {
    const before = await scrape(server);
    const ids: string[] = [];
    let rows = 0;
    for (const sql of ['SELECT 1', 'SELECT * FROM (VALUES 1, 2, 3) t(x)', "SELECT 'x' AS a, 2 AS b"]) {
      const run = await runStatement(server.url, sql, USER);
      expect(run.final.stats.state).to.equal('FINISHED');
      ids.push(run.final.id as string);
      rows += run.rows.length;
    }
    const failed = await runStatement(server.url, 'SELECT * FROM memory.default.no_such_table', USER);
    expect(failed.final.error.errorName).to.equal('TABLE_NOT_FOUND');
    ids.push(failed.final.id as string);
    for (const id of ids) await ended(server, id);
    const after = await scrape(server);
    const delta = (name: string, labels: Record<string, string> = {}) => sampleValue(after, name, labels) - sampleValue(before, name, labels);

    expect(delta('vivace_queries_started_total')).to.equal(4);
    expect(delta('vivace_queries_finished_total')).to.equal(3);
    expect(delta('vivace_queries_failed_total')).to.equal(1);
    expect(delta('vivace_queries_failed_total', { error_type: 'USER_ERROR', error_name: 'TABLE_NOT_FOUND' })).to.equal(1);
    expect(delta('vivace_query_elapsed_seconds_count', { state: 'FINISHED' })).to.equal(3);
    expect(delta('vivace_query_elapsed_seconds_count', { state: 'FAILED' })).to.equal(1);
    expect(delta('vivace_query_elapsed_seconds_bucket', { state: 'FINISHED', le: '+Inf' })).to.equal(3);
    expect(delta('vivace_query_elapsed_seconds_sum')).to.be.greaterThan(0);
    expect(delta('vivace_output_rows_total')).to.equal(rows).and.to.equal(5);
    expect(delta('vivace_output_bytes_total')).to.be.greaterThan(0);
    // Four POSTs answered 200, by their route pattern; the pages by theirs.
    expect(delta('vivace_http_requests_total', { route: '/v1/statement', method: 'POST', status: '200' })).to.equal(4);
    expect(delta('vivace_http_request_duration_seconds_count', { route: '/v1/statement', method: 'POST' })).to.equal(4);
    const pageRoutes = after.samples.filter((s) => s.name === 'vivace_http_requests_total' && s.labels.route!.startsWith('/v1/statement/'));
    expect(pageRoutes.length).to.be.at.least(1);
    for (const s of pageRoutes) expect(s.labels.route).to.include(':queryId');
    // The scrape before this one is counted too.
    expect(delta('vivace_http_requests_total', { route: '/metrics', method: 'GET', status: '200' })).to.equal(1);
  });

  it('never makes an id, slug, token, user or raw path a label value', async () => {
    const run = await runStatement(server.url, 'SELECT 42', USER);
    await request('GET', `${server.url}/v1/query/${run.final.id as string}`, { headers: USER });
    await request('GET', `${server.url}/v1/no/such/${run.final.id as string}/path`);
    await request('GET', `${server.url}/v1/statement/executing/20240101_000000_00000_aaaaa/zz/1`);
    const text = (await request('GET', `${server.url}/metrics`)).text;
    expect(text).not.to.include(run.final.id as string);
    expect(text).not.to.include('alice-the-user');
    expect(text).not.to.include('/v1/no/such');
    expect(text).not.to.include('20240101_000000_00000_aaaaa');
    const parsed = exposition({ status: 200, text });
    const routes = new Set(parsed.samples.filter((s) => s.labels.route !== undefined).map((s) => s.labels.route));
    expect(routes).to.include('unmatched');
    expect(routes).to.include('/v1/query/:queryId');
    const methods = new Set(parsed.samples.filter((s) => s.labels.method !== undefined).map((s) => s.labels.method));
    for (const method of methods) expect(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'OTHER']).to.include(method);
  });

  it('reads queries running and queued, and nodes alive and failed, at scrape time', async () => {
    // query.max-concurrent-queries=1: a large result nobody reads holds the one slot, the next one queues.
    const big = await request('POST', `${server.url}/v1/statement`, { body: 'SELECT * FROM tpch.tiny.lineitem', headers: USER });
    const waiting = await request('POST', `${server.url}/v1/statement`, { body: 'SELECT 2', headers: USER });
    validateResponse('statement-initial', big.body);
    server.coordinator.announceNode('metrics-unreachable', 'http://127.0.0.1:9');
    const during = await scrape(server);
    expect(sampleValue(during, 'vivace_queries_running')).to.equal(1);
    expect(sampleValue(during, 'vivace_queries_queued')).to.equal(1);
    expect(sampleValue(during, 'vivace_nodes', { state: 'failed' })).to.equal(1);
    expect(sampleValue(during, 'vivace_nodes', { state: 'alive' })).to.equal(0);
    for (const post of [big, waiting]) expect((await request('DELETE', post.body.nextUri as string)).status).to.equal(204);
    for (const post of [big, waiting]) await ended(server, post.body.id as string);
    server.coordinator.forgetNode('metrics-unreachable');
    const afterwards = await scrape(server);
    expect(sampleValue(afterwards, 'vivace_queries_running')).to.equal(0);
    expect(sampleValue(afterwards, 'vivace_queries_queued')).to.equal(0);
    expect(sampleValue(afterwards, 'vivace_queries_failed_total', { error_name: 'USER_CANCELED' })).to.equal(2);
  });

  it('sums recent heartbeat failures by type over the nodes, bounding the types a worker could make up', async () => {
    const odd = Array.from({ length: 50 }, (_, i) => [`TYPE_${i}`, 1] as const);
    const stats = [
      { recentFailuresByType: { ECONNREFUSED: 2.5, ETIMEDOUT: 1 } },
      { recentFailuresByType: { ECONNREFUSED: 0.5, 'type with spaces {"}': 3, ['x'.repeat(5000)]: 4, ...Object.fromEntries(odd) } },
    ];
    const stub = sinon.stub(server.coordinator, 'nodes').returns(stats.map((s, i) => ({ nodeId: `n${i}`, failed: i === 1, stats: s })));
    let parsed: Exposition;
    try {
      parsed = await scrape(server);
    } finally {
      stub.restore();
    }
    const failures = parsed.samples.filter((s) => s.name === 'vivace_node_heartbeat_failures_recent');
    expect(sampleValue(parsed, 'vivace_node_heartbeat_failures_recent', { type: 'ECONNREFUSED' })).to.equal(3);
    expect(sampleValue(parsed, 'vivace_node_heartbeat_failures_recent', { type: 'ETIMEDOUT' })).to.equal(1);
    expect(failures.length).to.be.at.most(33); // 32 types and 'other'
    expect(failures.reduce((sum, s) => sum + s.value, 0)).to.equal(3 + 1 + 3 + 4 + 50);
    for (const s of failures) expect(s.labels.type!.length).to.be.at.most(64);
    expect(sampleValue(parsed, 'vivace_nodes', { state: 'failed' })).to.equal(1);
    expect(sampleValue(parsed, 'vivace_nodes', { state: 'alive' })).to.equal(1);
    // The next scrape forgets them with the nodes.
    expect(sampleValue(await scrape(server), 'vivace_node_heartbeat_failures_recent')).to.equal(0);
  });

  it('answers other methods with 405 in the JSON error shape, and ignores a query string', async () => {
    const post = await request('POST', `${server.url}/metrics`, { body: 'x' });
    expect(post.status).to.equal(405);
    validateResponse('error', post.body);
    const long = await request('GET', `${server.url}/metrics?${'a=1&'.repeat(2000)}`);
    expect(long.headers.get('content-type')).to.equal(CONTENT_TYPE);
    exposition(long);
  });

  it("includes Node's process metrics", async () => {
    const parsed = await scrape(server);
    expect(parsed.types.get('process_cpu_user_seconds_total')).to.equal('counter');
    expect(parsed.types.get('nodejs_eventloop_lag_seconds')).to.equal('gauge');
  });

  it('reads back any label value prom-client writes (the parser the other cases trust)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 40 }), fc.string({ maxLength: 40 }), fc.nat(1_000_000), async (a, b, n) => {
        const registry = new Registry();
        new Counter({ name: 'c_total', help: 'h', labelNames: ['a', 'b'], registers: [registry] }).inc({ a, b }, n);
        const parsed = parseExposition(await registry.metrics());
        expect(parsed.samples).to.deep.equal([{ name: 'c_total', labels: { a, b }, value: n }]);
      }),
      { numRuns: 200 },
    );
  });
});

describe('GET /metrics with a history of one query', function () {
  this.timeout(30_000);
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ engine: await createTestEngine(2), config: { maxHistory: 1, minExpireAgeMs: 0 } });
  });
  after(() => server.stop());

  it('counts every query once though each one expires the one before it', async () => {
    const before = await scrape(server);
    for (let i = 0; i < 5; i++) {
      const run = await runStatement(server.url, `SELECT ${i}`, USER);
      await ended(server, run.final.id as string);
    }
    const after = await scrape(server);
    expect(server.coordinator.list().length).to.be.at.most(2);
    expect(sampleValue(after, 'vivace_queries_started_total') - sampleValue(before, 'vivace_queries_started_total')).to.equal(5);
    expect(sampleValue(after, 'vivace_queries_finished_total') - sampleValue(before, 'vivace_queries_finished_total')).to.equal(5);
    expect(sampleValue(after, 'vivace_output_rows_total') - sampleValue(before, 'vivace_output_rows_total')).to.equal(5);
  });
});

describe('GET /metrics with authentication and access rules', function () {
  this.timeout(30_000);
  const tls = secureFixture((dir, certificate) =>
    startSecureServer({
      authenticationTypes: ['PASSWORD'],
      passwordFile: dir.file('password.db', `${bcryptLine('alice', 'alice-secret')}\n${bcryptLine('bob', 'bob-secret')}\n`),
      httpsEnabled: true,
      httpsKeystorePath: dir.file('keystore.pem', `${certificate.key}${certificate.cert}`),
      securityConfigFile: dir.file('rules.json', JSON.stringify({ system_information: [{ user: 'alice', allow: ['read'] }] })),
    }),
  );

  it('asks for credentials (401), refuses a user without system_information read (403), serves one with it', async () => {
    const anonymous = await send('GET', `${tls.server.httpsUrl}/metrics`, { ca: tls.certificate.cert });
    expect(anonymous.status).to.equal(401);
    validateResponse('error', anonymous.body);
    const bob = await send('GET', `${tls.server.httpsUrl}/metrics`, { ca: tls.certificate.cert, headers: { Authorization: basic('bob', 'bob-secret') } });
    expect(bob.status).to.equal(403);
    validateResponse('error', bob.body);
    expect(bob.body).to.include({ errorName: 'PERMISSION_DENIED' });
    expect(bob.body.message).to.include('Cannot read system information');
    const alice = await send('GET', `${tls.server.httpsUrl}/metrics`, { ca: tls.certificate.cert, headers: { Authorization: basic('alice', 'alice-secret') } });
    expect(alice.headers.get('content-type')).to.deep.equal([CONTENT_TYPE]);
    const parsed = exposition(alice);
    // The refusals are counted by route and status, the route being the one they were meant for.
    expect(sampleValue(parsed, 'vivace_http_requests_total', { route: '/metrics', status: '401' })).to.equal(1);
    expect(sampleValue(parsed, 'vivace_http_requests_total', { route: '/metrics', status: '403' })).to.equal(1);
  });
});
