// PUT/DELETE /v1/announcement/{nodeId} on a real coordinator server: workers join, expire 30 s after their
// last announcement (injected clock), and bad bodies, other environments and strangers are refused.
import { expect } from 'chai';
import fc from 'fast-check';
import { SimulatedClock } from 'xstate';
import { internalBearer } from '../../lib/cluster/cluster-auth.js';
import { attachDiscovery, Discovery } from '../../lib/cluster/discovery.js';
import { coordinatorDiscovery } from '../../lib/http/announcement.routes.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pbkdf2Line } from '../security/auth-fixtures.js';
import { temporaryDirectory } from './cluster-harness.js';
import { FakeEngine } from '../support/fake-engine.js';
import { request, startTestServer, type TestServer } from '../support/http.js';
import { validateResponse } from '../support/schema-validator.js';

/** airlift's announcement body, as a worker sends it. */
function announcement(http: string, extra: Record<string, unknown> = {}, properties: Record<string, string> = {}) {
  return {
    environment: 'vivace',
    pool: 'general',
    location: '/worker',
    services: [{ id: '6d9f0d7a-0c2e-4a43-9f8e-1d2b3c4d5e6f', type: 'trino', properties: { http, node_version: '1', coordinator: 'false', ...properties } }],
    ...extra,
  };
}

const put = (server: TestServer, nodeId: string, body: unknown, headers: Record<string, string> = {}) =>
  request('PUT', `${server.url}/v1/announcement/${nodeId}`, {
    body: typeof body === 'string' ? body : JSON.stringify(body),
    headers: { 'Content-Type': 'application/json', ...headers },
  });

function expectError(res: { status: number; body: any }, status: number, messagePart: string): void {
  expect(res.status, JSON.stringify(res.body)).to.equal(status);
  validateResponse('error', res.body);
  expect(res.body.message).to.contain(messagePart);
}

describe('discovery: PUT /v1/announcement/{nodeId}', () => {
  let server: TestServer;
  let clock: SimulatedClock;
  let discovery: Discovery;

  beforeEach(async () => {
    clock = new SimulatedClock();
    clock.set(Date.now());
    server = await startTestServer({ engine: new FakeEngine({}), clock, now: () => clock.now() });
    // The sweep is driven by the spec: entries age on the simulated clock.
    discovery = attachDiscovery(server.coordinator, new Discovery({ nodes: server.coordinator, environment: 'vivace', selfNodeId: server.server.nodeId, now: () => clock.now(), sweepIntervalMs: 0 }));
  });
  afterEach(() => server.stop());

  it('answers 202 with no body and monitors the node at its http address', async () => {
    const res = await put(server, 'worker-1', announcement('http://127.0.0.1:9'));
    expect(res.status).to.equal(202);
    expect(res.text).to.equal('');
    const nodes = await request('GET', `${server.url}/v1/node`);
    validateResponse('node-list', nodes.body);
    expect(nodes.body.map((n: { uri: string }) => n.uri)).to.deep.equal(['http://127.0.0.1:9/v1/status']);
    // The service id is the announcing process's instance (a worker restarted on its address announces another).
    expect(discovery.list()).to.deep.include({ nodeId: 'worker-1', uri: 'http://127.0.0.1:9', memory: false, firstSeen: clock.now(), lastSeen: clock.now(), instance: '6d9f0d7a-0c2e-4a43-9f8e-1d2b3c4d5e6f' });
  });

  it('records which worker holds the memory catalog', async () => {
    expect((await put(server, 'w0', announcement('http://127.0.0.1:9', {}, { memory: 'true' }))).status).to.equal(202);
    expect((await put(server, 'w1', announcement('http://127.0.0.1:10', {}, { memory: 'false' }))).status).to.equal(202);
    expect(discovery.list().map((n) => [n.nodeId, n.memory])).to.deep.equal([['w0', true], ['w1', false]]);
  });

  it('does not list a coordinator (its own or another announcing coordinator=true)', async () => {
    expect((await put(server, 'coord', announcement('http://127.0.0.1:9', {}, { coordinator: 'true' }))).status).to.equal(202);
    expect((await put(server, server.server.nodeId, announcement('http://127.0.0.1:9'))).status).to.equal(202);
    expect(discovery.list()).to.deep.equal([]);
    expect((await request('GET', `${server.url}/v1/node`)).body).to.deep.equal([]);
  });

  it('expires an entry 30 s after its last announcement: the node is then listed as failed (gone)', async () => {
    await put(server, 'worker-1', announcement('http://127.0.0.1:9'));
    clock.increment(20_000);
    await put(server, 'worker-1', announcement('http://127.0.0.1:9')); // renewed
    clock.increment(29_999);
    discovery.sweep();
    expect(discovery.list()).to.have.length(1);
    clock.increment(1);
    discovery.sweep();
    expect(discovery.list()).to.deep.equal([]);
    const failed = await request('GET', `${server.url}/v1/node/failed`);
    validateResponse('node-list', failed.body);
    expect(failed.body).to.have.length(1);
  });

  it('DELETE forgets the node at once (204), and answers 204 for an unknown one too', async () => {
    await put(server, 'worker-1', announcement('http://127.0.0.1:9'));
    const res = await request('DELETE', `${server.url}/v1/announcement/worker-1`);
    expect(res.status).to.equal(204);
    expect(discovery.list()).to.deep.equal([]);
    expect(server.coordinator.nodes().map((n) => n.failed)).to.deep.equal([true]);
    expect((await request('DELETE', `${server.url}/v1/announcement/nobody`)).status).to.equal(204);
  });

  it('a worker back on another address is monitored there', async () => {
    await put(server, 'worker-1', announcement('http://127.0.0.1:9'));
    await put(server, 'worker-1', announcement('http://127.0.0.1:10'));
    expect(server.coordinator.nodes().map((n) => n.stats.uri)).to.deep.equal(['http://127.0.0.1:10/v1/status']);
    expect(discovery.get('worker-1')?.uri).to.equal('http://127.0.0.1:10');
  });

  it('refuses another environment with 400', async () => {
    expectError(await put(server, 'w', announcement('http://127.0.0.1:9', { environment: 'production' })), 400, "Environment mismatch: this coordinator runs in 'vivace', the announcement is for 'production'");
    expect(discovery.list()).to.deep.equal([]);
  });

  it('refuses malformed bodies with a 400 that says what is wrong', async () => {
    expectError(await put(server, 'w', 'not json'), 400, 'not JSON');
    expectError(await put(server, 'w', '[]'), 400, 'Invalid announcement');
    expectError(await put(server, 'w', { environment: 'vivace' }), 400, "must have required property 'services'");
    expectError(await put(server, 'w', { environment: 'vivace', services: [{ type: 'trino', properties: { http: 7 } }] }), 400, 'must be string');
    expectError(await put(server, 'w', { environment: 'vivace', services: [] }), 400, 'no trino or presto service');
    expectError(await put(server, 'w', { environment: 'vivace', services: [{ type: 'trino', properties: {} }] }), 400, 'no http address');
    expectError(await put(server, 'w', announcement('ftp://127.0.0.1:9')), 400, 'http or https URL');
    expectError(await put(server, 'w', announcement('http://user:pw@127.0.0.1:9')), 400, 'scheme://host:port only');
    expectError(await put(server, 'w', announcement('http://127.0.0.1:9/v1/status')), 400, 'scheme://host:port only');
    expectError(await put(server, 'w', announcement('not a url')), 400, 'not a URL');
    expectError(await put(server, 'w', announcement('http://127.0.0.1:9', { nodeId: 'other' })), 400, 'does not match the path');
    expectError(await put(server, 'bad%20id', announcement('http://127.0.0.1:9')), 400, 'Invalid node id');
    expectError(await put(server, 'x'.repeat(300), announcement('http://127.0.0.1:9')), 400, '1 to 256 characters');
    expectError(await put(server, 'w', announcement('http://127.0.0.1:9', {}, { junk: 'j'.repeat(70_000) })), 413, 'exceeds the limit');
    expect(discovery.list()).to.deep.equal([]);
  });

  it('answers any JSON body with 202 or a 4xx error, never a 5xx (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.json(), fc.jsonValue().map((v) => JSON.stringify({ environment: 'vivace', services: [{ type: 'trino', properties: v }] }))), async (text) => {
        const res = await put(server, 'prop', text);
        if (res.status !== 202) expectError(res, res.status, '');
        expect(res.status).to.be.oneOf([202, 400]);
      }),
      { numRuns: 60 },
    );
  });

  it('refuses a flood of node ids past the limit instead of growing', async () => {
    discovery = attachDiscovery(server.coordinator, new Discovery({ nodes: server.coordinator, environment: 'vivace', sweepIntervalMs: 0, maxNodes: 2 }));
    expect((await put(server, 'a', announcement('http://127.0.0.1:9'))).status).to.equal(202);
    expect((await put(server, 'b', announcement('http://127.0.0.1:10'))).status).to.equal(202);
    expectError(await put(server, 'c', announcement('http://127.0.0.1:11')), 429, 'holds 2 nodes');
    expect((await put(server, 'a', announcement('http://127.0.0.1:9'))).status).to.equal(202); // a known node renews
  });
});

describe('discovery with internal-communication.shared-secret', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ engine: new FakeEngine({}), config: { internalSharedSecret: 'cluster secret' } });
  });
  after(() => server.stop());

  it('refuses an announcement without a bearer, or with one signed by another secret (401)', async () => {
    expectError(await put(server, 'w', announcement('http://127.0.0.1:9')), 401, 'Internal authentication required');
    const stranger = await internalBearer('another secret', 'w');
    expectError(await put(server, 'w', announcement('http://127.0.0.1:9'), { 'X-Trino-Internal-Bearer': stranger }), 401, 'Invalid internal bearer');
    // The bearer is checked before the body: a stranger learns nothing about what a good body is.
    expectError(await put(server, 'w', 'not json'), 401, 'Internal authentication required');
    expectError(await request('DELETE', `${server.url}/v1/announcement/w`), 401, 'Internal authentication required');
    expect(coordinatorDiscovery(server.coordinator).list()).to.deep.equal([]);
  });

  it('accepts one signed with the shared secret', async () => {
    const bearer = await internalBearer('cluster secret', 'w');
    expect((await put(server, 'w', announcement('http://127.0.0.1:9'), { 'X-Trino-Internal-Bearer': bearer })).status).to.equal(202);
    expect(coordinatorDiscovery(server.coordinator).list().map((n) => n.nodeId)).to.deep.equal(['w']);
    expect((await request('DELETE', `${server.url}/v1/announcement/w`, { headers: { 'X-Trino-Internal-Bearer': bearer } })).status).to.equal(204);
  });
});

describe('discovery on a coordinator with user authentication', () => {
  const dir = temporaryDirectory('vivace-discovery-auth-');
  const passwordFile = join(dir.path, 'password.db');
  writeFileSync(passwordFile, `${pbkdf2Line('alice', 'alice-secret')}\n`);
  const authenticated = { authenticationTypes: ['PASSWORD' as const], passwordFile, allowInsecureOverHttp: true };
  after(() => dir.remove());

  it('takes workers\' announcements on their internal bearer, not a user\'s password, when a shared secret is set', async () => {
    const server = await startTestServer({ engine: new FakeEngine({}), config: { ...authenticated, internalSharedSecret: 'cluster secret' } });
    try {
      const bearer = await internalBearer('cluster secret', 'w');
      expect((await put(server, 'w', announcement('http://127.0.0.1:9'), { 'X-Trino-Internal-Bearer': bearer })).status).to.equal(202);
      expectError(await put(server, 'w', announcement('http://127.0.0.1:9')), 401, 'Internal authentication required');
      // Everything else still needs a user.
      expect((await request('GET', `${server.url}/v1/node`, { headers: { 'X-Trino-Internal-Bearer': bearer } })).status).to.equal(401);
    } finally {
      await server.stop();
    }
  });

  it('without a shared secret, announcements need a user like any other request', async () => {
    const server = await startTestServer({ engine: new FakeEngine({}), config: authenticated });
    try {
      expect((await put(server, 'w', announcement('http://127.0.0.1:9'))).status).to.equal(401);
      expect(coordinatorDiscovery(server.coordinator).list()).to.deep.equal([]);
    } finally {
      await server.stop();
    }
  });
});
