// Resource groups where Trino shows them, over one real HTTP server: resourceGroupId (the group's names as an
// array, ResourceGroupId's @JsonValue) in /v1/query and /v1/query/{id}, system.runtime.queries'
// resource_group_id, and GET /v1/resourceGroupState/{path} (ResourceGroupStateInfoResource: '/'-separated,
// URL-decoded names; 404 for a group that does not exist). Bodies are checked against the schemas.
import { expect } from 'chai';
import { SimulatedClock } from 'xstate';
import type { Engine } from '../../lib/engine/engine.types.js';
import { parseResourceGroupsConfig } from '../../lib/resource-groups/resource-groups-config.js';
import { queryRow } from '../../lib/actors/system-tables.source.js';
import { request, startTestServer, type TestServer } from '../support/http.js';
import { validateResponse } from '../support/schema-validator.js';
import { settle, testSession } from '../support/actors.js';
import { parseExposition, sampleValue } from '../support/prometheus-text.js';

/** Plans that never finish: queries stay where admission put them. */
const waitingEngine: Engine = {
  plan: () => new Promise(() => {}),
  async close() {},
};

const GROUPS = parseResourceGroupsConfig(JSON.stringify({
  rootGroups: [{
    name: 'global', softMemoryLimit: '1GB', hardConcurrencyLimit: 2, maxQueued: 10,
    subGroups: [{ name: '${USER}', softMemoryLimit: '100MB', hardConcurrencyLimit: 1, maxQueued: 5 }],
  }],
  selectors: [{ user: 'alice|bob|carol x', group: 'global.${USER}' }],
}), 'rg.json');

describe('resource groups over HTTP', () => {
  let server: TestServer;
  before(async () => {
    const clock = new SimulatedClock();
    clock.set(Date.UTC(2026, 0, 1));
    server = await startTestServer({ engine: waitingEngine, clock, now: () => clock.now(), resourceGroups: { resourceGroups: GROUPS } });
  });
  after(() => server.stop());

  it('names each query\'s group in /v1/query, /v1/query/{id} and system.runtime.queries', async () => {
    const c = server.coordinator;
    const running = c.start('SELECT 1', testSession({ user: 'alice' })).tracked;
    const queued = c.start('SELECT 2', testSession({ user: 'alice' })).tracked;
    const unmatched = c.start('SELECT 3', testSession({ user: 'mallory' })).tracked;
    await settle();
    expect(c.view(queued).state).to.equal('QUEUED');
    const list = await request('GET', `${server.url}/v1/query`, { headers: { 'X-Trino-User': 'admin' } });
    validateResponse('query-list.schema.json', list.body);
    const byId = new Map((list.body as { queryId: string; resourceGroupId?: string[] }[]).map((q) => [q.queryId, q.resourceGroupId]));
    expect(byId.get(running.queryId)).to.deep.equal(['global', 'alice']);
    expect(byId.get(queued.queryId)).to.deep.equal(['global', 'alice']);
    expect(byId.get(unmatched.queryId)).to.equal(undefined);
    const info = await request('GET', `${server.url}/v1/query/${queued.queryId}`, { headers: { 'X-Trino-User': 'alice' } });
    validateResponse('query-info.schema.json', info.body);
    expect(info.body.resourceGroupId).to.deep.equal(['global', 'alice']);
    expect(queryRow(c.view(running)).resourceGroupId).to.deep.equal(['global', 'alice']);
    expect(queryRow(c.view(unmatched)).resourceGroupId).to.equal(null);
    expect(c.view(unmatched).error).to.include({ errorName: 'QUERY_REJECTED' });
  });

  it("answers GET /v1/resourceGroupState/{path} with Trino's ResourceGroupInfo", async () => {
    const c = server.coordinator;
    const bob = c.start('SELECT 4', testSession({ user: 'bob', source: 'cli' })).tracked;
    await settle();
    const root = await request('GET', `${server.url}/v1/resourceGroupState/global`, { headers: { 'X-Trino-User': 'admin' } });
    expect(root.status).to.equal(200);
    validateResponse('resource-group-info.schema.json', root.body);
    expect(root.body).to.include({ state: 'CAN_QUEUE', schedulingPolicy: 'FAIR', schedulingWeight: 1, softMemoryLimit: '1073741824B', hardConcurrencyLimit: 2, softConcurrencyLimit: 2, maxQueuedQueries: 10, numRunningQueries: 2, numQueuedQueries: 1, memoryUsage: '0B', cpuUsage: '0.00s' });
    expect(root.body.id).to.deep.equal(['global']);
    expect(root.body.subGroups.map((g: { id: string[] }) => g.id)).to.deep.equal([['global', 'alice'], ['global', 'bob']]);
    expect(root.body.runningQueries.map((q: { user: string }) => q.user).sort()).to.deep.equal(['alice', 'bob']);
    const bobs = (root.body.runningQueries as { queryId: string }[]).find((q) => q.queryId === bob.queryId);
    expect(bobs).to.include({ queryState: 'PLANNING', query: 'SELECT 4', source: 'cli', pathToRoot: null });
    const leaf = await request('GET', `${server.url}/v1/resourceGroupState/global/alice`, { headers: { 'X-Trino-User': 'admin' } });
    validateResponse('resource-group-info.schema.json', leaf.body);
    expect(leaf.body).to.include({ state: 'CAN_QUEUE', numRunningQueries: 1, numQueuedQueries: 1, maxQueuedQueries: 5, softMemoryLimit: '104857600B' });
    expect((await request('GET', `${server.url}/v1/resourceGroupState/global/nobody`)).status).to.equal(404);
    // a malformed escape is refused by the router before the route (Trino's URLDecoder throws too)
    expect((await request('GET', `${server.url}/v1/resourceGroupState/global/%zz`)).status).to.equal(400);
  });

  it('URL-decodes each name of the path', async () => {
    server.coordinator.start('SELECT 5', testSession({ user: 'carol x' }));
    await settle();
    const spaced = await request('GET', `${server.url}/v1/resourceGroupState/global/carol%20x`);
    expect(spaced.status).to.equal(200);
    expect(spaced.body.id).to.deep.equal(['global', 'carol x']);
    expect((await request('GET', `${server.url}/v1/resourceGroupState/global/carol+x`)).body.id).to.deep.equal(['global', 'carol x']);
  });

  it('counts running, queued and rejected queries per group in /metrics, named as the file names the group', async () => {
    const c = server.coordinator;
    // alice's group (1 running, 1 queued, maxQueued 5) takes 4 more queued, then refuses
    for (let i = 0; i < 5; i++) c.start(`SELECT ${10 + i}`, testSession({ user: 'alice' }));
    await settle();
    const res = await request('GET', `${server.url}/metrics`);
    expect(res.status).to.equal(200);
    const metrics = parseExposition(res.text);
    expect(sampleValue(metrics, 'vivace_resource_group_queries', { group: 'global', state: 'running' })).to.equal(2);
    expect(sampleValue(metrics, 'vivace_resource_group_queries', { group: 'global.${USER}', state: 'running' })).to.equal(2);
    expect(sampleValue(metrics, 'vivace_resource_group_queries', { group: 'global.${USER}', state: 'queued' })).to.equal(6); // alice's 5 and carol x's 1
    expect(sampleValue(metrics, 'vivace_resource_group_rejected_total', { group: 'global.${USER}' })).to.equal(1);
    expect(res.text).to.not.include('alice');
  });
});
