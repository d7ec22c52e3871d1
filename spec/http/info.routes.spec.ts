// The small /v1/info endpoints clients, load balancers and UIs probe, through a real server: the version is
// Vivace's own (package.json), the state a bare JSON string, the coordinator probe an empty 200.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { BIGINT_COLUMN, FakeEngine } from '../support/fake-engine.js';
import { request, startTestServer, type TestServer } from '../support/http.js';
import { isValid, validateResponse } from '../support/schema-validator.js';
import { vivaceVersion } from '../../lib/protocol/vivace-version.js';

const packageVersion = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

describe('info routes', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ engine: new FakeEngine({ 'SELECT 1': { columns: [BIGINT_COLUMN('_col0')], rows: [[1]] } }) });
  });
  after(() => server.stop());

  it("vivaceVersion() is package.json's version, not DuckDB's", () => {
    expect(vivaceVersion()).to.equal(packageVersion);
    expect(vivaceVersion()).to.match(/^\d+\.\d+\.\d+/);
    expect(vivaceVersion()).not.to.match(/^v/); // DuckDB's reads "v1.5.6"
  });

  it('GET /v1/info and /v1/status report the version of Vivace', async () => {
    const info = await request('GET', `${server.url}/v1/info`);
    validateResponse('server-info', info.body);
    expect(info.body.nodeVersion).to.deep.equal({ version: packageVersion });
    const status = await request('GET', `${server.url}/v1/status`);
    validateResponse('status', status.body);
    expect(status.body.nodeVersion).to.deep.equal({ version: packageVersion });
  });

  it('GET /v1/info/state answers the state as a JSON string', async () => {
    const res = await request('GET', `${server.url}/v1/info/state`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('application/json');
    expect(res.text).to.equal('"ACTIVE"');
    validateResponse('server-state', res.body);
    expect(isValid('server-state', 'SLEEPING')).to.equal(false);
  });

  it('GET /v1/info/coordinator answers 200 with an empty body on this coordinator', async () => {
    const res = await request('GET', `${server.url}/v1/info/coordinator`);
    expect(res.status).to.equal(200);
    expect(res.text).to.equal('');
  });

  it("GET /v1/info/nodestats answers prestodb's NodeStats: the state, no load metrics", async () => {
    const res = await request('GET', `${server.url}/v1/info/nodestats`);
    expect(res.status).to.equal(200);
    validateResponse('server-nodestats', res.body);
    expect(res.body).to.deep.equal({ nodeState: 'ACTIVE', loadMetrics: null });
    const metrics = { cpuUsedPercent: 12.5, memoryUsedInBytes: 1e9, numQueuedDrivers: 3, cpuOverload: false, memoryOverload: false };
    expect(isValid('server-nodestats', { nodeState: 'ACTIVE', loadMetrics: metrics })).to.equal(true);
    expect(isValid('server-nodestats', { nodeState: 'ACTIVE' })).to.equal(false);
  });

  it('answers 405 with Allow to a method /v1/info/state does not take (the other paths: cluster.routes.spec.ts)', async () => {
    const state = await request('DELETE', `${server.url}/v1/info/state`);
    expect(state.status).to.equal(405);
    expect(state.headers.get('allow')).to.equal('HEAD, GET, PUT');
    validateResponse('error', state.body);
  });

  // Last: the server stays shutting down.
  it('after PUT SHUTTING_DOWN, /v1/info/state and /v1/info/nodestats say so', async () => {
    const put = await request('PUT', `${server.url}/v1/info/state`, { body: '"SHUTTING_DOWN"', headers: { 'Content-Type': 'application/json' } });
    expect(put.status).to.equal(200);
    validateResponse('server-state', put.body);
    expect((await request('GET', `${server.url}/v1/info/state`)).body).to.equal('SHUTTING_DOWN');
    expect((await request('GET', `${server.url}/v1/info/nodestats`)).body).to.deep.equal({ nodeState: 'SHUTTING_DOWN', loadMetrics: null });
    const cluster = await request('GET', `${server.url}/v1/cluster`);
    validateResponse('cluster-stats', cluster.body);
    expect(cluster.body).to.include({ activeCoordinators: 0, activeWorkers: 0 });
  });
});
