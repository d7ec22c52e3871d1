// The web UI's resource-group view and its search of the stored history, in a real browser: /ui/groups.html
// lists every live group (/ui/api/resourceGroups, the state /v1/resourceGroupState shows) with its running
// and queued queries against its limits; the overview's filters also search the durable history
// (/ui/api/queryHistory), finding a query the in-memory list no longer holds, whose link opens its stored
// info. Queries that hold their group's slot never finish planning; the others run on a real DuckDB.
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { Engine } from '../../lib/engine/engine.types.js';
import { QueryHistoryStore } from '../../lib/history/history-store.js';
import { parseResourceGroupsConfig } from '../../lib/resource-groups/resource-groups-config.js';
import { testSession } from '../support/actors.js';
import { createTestEngine } from '../support/duckdb.js';
import { request, startTestServer, type TestServer } from '../support/http.js';
import { PrestoSession } from '../support/presto-session.js';
import { validateResponse } from '../support/schema-validator.js';
import { browserPage, screenshot } from './browser-support.js';

const GROUPS = parseResourceGroupsConfig(JSON.stringify({
  rootGroups: [{
    name: 'global', softMemoryLimit: '1GB', hardConcurrencyLimit: 3, maxQueued: 10, schedulingPolicy: 'fair',
    subGroups: [{ name: '${USER}', softMemoryLimit: '100MB', hardConcurrencyLimit: 1, maxQueued: 5 }],
  }],
  selectors: [{ group: 'global.${USER}' }],
}), 'rg.json');

describe('ui resource groups and stored history in a browser', function () {
  this.timeout(60_000);
  const browsing = browserPage();
  let dir: string;
  let server: TestServer;
  let page: Page;

  before(async () => {
    page = browsing.page;
    dir = mkdtempSync(join(tmpdir(), 'vivace-ui-groups-'));
    const real = await createTestEngine(2, { tpch: false });
    // `SELECT 'hold'` plans forever: it keeps its group's running slot
    const engine: Engine = { plan: (sql, session, ...rest) => (sql.includes('hold') ? new Promise(() => {}) : real.plan(sql, session, ...rest)), close: () => real.close() };
    const history = new QueryHistoryStore({ directory: join(dir, 'history'), maxAgeMs: 3_600_000, maxSizeBytes: 1 << 20, batchSize: 1, now: Date.now });
    server = await startTestServer({ engine, history, resourceGroups: { resourceGroups: GROUPS }, config: { maxHistory: 1, minExpireAgeMs: 0, longPollMs: 100 } });
  });
  after(async () => {
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('lists the groups with their running and queued queries against their limits', async () => {
    const c = server.coordinator;
    for (let i = 0; i < 2; i++) c.start("SELECT 'hold'", testSession({ user: 'alice' }));
    c.start("SELECT 'hold'", testSession({ user: 'bob' }));
    const api = await request('GET', `${server.url}/ui/api/resourceGroups`, { headers: { 'X-Trino-User': 'admin' } });
    expect(api.status).to.equal(200);
    for (const group of api.body) validateResponse('resource-group-info.schema.json', group);

    await page.goto(`${server.url}/ui/groups.html`);
    await page.locator('#group-rows tr[data-group-id="global.bob"]').waitFor();
    const cells = async (id: string) => (await page.locator(`#group-rows tr[data-group-id="${id}"] td`).allTextContents()).map((t) => t.trim());
    expect(await page.locator('#group-rows tr').evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.groupId))).to.deep.equal(['global', 'global.alice', 'global.bob']);
    // name, state, policy, running, queued, hard, soft, max queued
    expect((await cells('global')).slice(0, 8)).to.deep.equal(['global', 'CAN_RUN', 'FAIR', '2', '1', '3', '3', '10']);
    expect((await cells('global.alice')).slice(0, 8)).to.deep.equal(['global.alice', 'CAN_QUEUE', 'FAIR', '1', '1', '1', '1', '5']);
    expect((await cells('global.bob')).slice(3, 5)).to.deep.equal(['1', '0']);
    expect(await page.locator('#group-count').textContent()).to.equal('3 groups, 2 running, 1 queued');
    await screenshot(page, 'resource-groups');
    expect(browsing.problems).to.deep.equal([]);
  });

  it("finds a query the in-memory list no longer holds in the stored history, and opens its stored info", async () => {
    const carol = new PrestoSession(server.url, { prefix: 'X-Trino-', user: 'carol' });
    await carol.ok('SELECT 42 AS answer_one');
    await carol.ok('SELECT 43 AS answer_two');
    await carol.ok('SELECT 44 AS answer_three');
    const history = server.coordinator.history!;
    for (let i = 0; i < 1000 && (await history.recentRows(10, (owner) => owner === 'carol')).rows.length < 3; i++) await new Promise((resolve) => setImmediate(resolve));
    const live = server.coordinator.list().map((t) => server.coordinator.view(t).sql);
    expect(live).to.not.include('SELECT 42 AS answer_one');

    await page.goto(`${server.url}/ui/#search=answer_one`);
    const stored = page.locator('#stored-rows tr');
    await stored.first().waitFor();
    expect(await stored.count()).to.equal(1);
    const texts = await stored.first().locator('td').allTextContents();
    expect(texts[1]).to.equal('FINISHED');
    expect(texts[2]).to.equal('carol');
    expect(texts[4]).to.equal('SELECT 42 AS answer_one');
    expect(await page.locator('#stored-count').textContent()).to.equal('1 stored query beyond the list');
    // another search asks again; one that matches nothing says so
    await page.locator('#search').fill('no such text anywhere');
    await page.locator('#stored-empty', { hasText: 'No stored query beyond the list matches.' }).waitFor();

    await page.locator('#search').fill('answer_one');
    await stored.first().waitFor();
    await stored.first().locator('a').click();
    await page.locator('#sql', { hasText: 'SELECT 42 AS answer_one' }).waitFor();
    expect(await page.locator('#query-state').textContent()).to.equal('FINISHED');
    await screenshot(page, 'stored-query');
    expect(browsing.problems).to.deep.equal([]);
  });
});
