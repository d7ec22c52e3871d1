// The web UI in a real browser (playwright-core driving Debian's chromium) against a real coordinator
// on DuckDB: the overview lists a query that just ran, its page shows it, the cancel button cancels a
// running query, hostile text stays text, filters and a refresh keep the user's place with a thousand
// queries, and the CSP blocks nothing the pages need. A screenshot per page goes to spec-artifacts/ui/.
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createTestEngine } from '../support/duckdb.js';
import { request, runStatement, startTestServer, type TestServer } from '../support/http.js';
import { validateResponse } from '../support/schema-validator.js';
import { launchChromium, screenshot, skipWithoutChromium, watchPage } from './browser-support.js';

const XSS = '<img src=x onerror=alert(1)>';

describe('ui in a browser', function () {
  this.timeout(60_000);
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];

  before(async function () {
    skipWithoutChromium(this);
    // A long history: the thousand-query test keeps every query listed. Small result pages: a client that
    // reads none keeps a query of a few thousand rows RUNNING (its buffer full) until it is cancelled.
    server = await startTestServer({ engine: await createTestEngine(4, { tpch: false }), config: { maxHistory: 2000, targetResultBytes: 4 * 1024 } });
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    page = await context.newPage();
    problems = watchPage(page);
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
  });
  afterEach(() => {
    expect(problems, 'console errors, CSP violations or dialogs').to.deep.equal([]);
  });

  const row = (queryId: string) => page.locator(`tr[data-query-id="${queryId}"]`);

  it('lists a query that just ran, with its state, user, source, text and splits; draws the chart', async () => {
    const { final } = await runStatement(server.url, 'SELECT 42 AS answer', { 'X-Trino-User': 'alice', 'X-Trino-Source': 'ui-spec' });
    await page.goto(`${server.url}/ui/`);
    await row(final.id).waitFor();
    const cells = await row(final.id).locator('td').allTextContents();
    expect(cells[0]).to.equal(final.id);
    expect(cells.slice(1, 5)).to.deep.equal(['FINISHED', 'alice', 'ui-spec', 'SELECT 42 AS answer']);
    expect(cells[6]).to.equal('1/1');
    await page.locator('#chart polyline.series-queries').waitFor({ state: 'attached' });
    expect(Number(await page.locator('#stat-finished').textContent())).to.be.at.least(1);
    expect(await page.locator('#stat-nodes-alive').textContent()).to.equal('0');
    await screenshot(page, 'overview');
  });

  it('opens the query page from the list: session, timings, stages and raw JSON', async () => {
    const { final } = await runStatement(server.url, 'SELECT count(*) FROM (VALUES 1, 2, 3) t(x)', { 'X-Trino-User': 'alice', 'X-Trino-Catalog': 'memory', 'X-Trino-Schema': 'default' });
    await page.goto(`${server.url}/ui/`);
    await row(final.id).locator('a').click();
    await page.waitForURL(`${server.url}/ui/query.html?${final.id}`);
    await page.locator('#query-state .badge', { hasText: 'FINISHED' }).waitFor();
    expect(await page.locator('#query-id').textContent()).to.equal(final.id);
    const session = await page.locator('#session-table').textContent();
    expect(session).to.include('alice').and.include('memory').and.include('default');
    expect(await page.locator('#timing-table').textContent()).to.include('Elapsed');
    expect(await page.locator('#stages .stage').first().textContent()).to.include('FINISHED');
    expect(await page.locator('#cancel').isDisabled()).to.equal(true);
    const raw = JSON.parse((await page.locator('#raw-json').textContent()) ?? '');
    validateResponse('query-info', raw);
    expect(raw.queryId).to.equal(final.id);
    // The statement's infoUri is this page.
    expect(final.infoUri).to.equal(`${server.url}/ui/query.html?${final.id}`);
    await screenshot(page, 'query');
  });

  it('cancels a running query from its page: the API then reports FAILED with USER_CANCELED', async () => {
    // The client reads no page, so the query stays RUNNING (its buffer full) until it is cancelled.
    const post = await request('POST', `${server.url}/v1/statement`, { body: 'SELECT a.x FROM UNNEST(sequence(1, 3000)) AS a(x) CROSS JOIN UNNEST(sequence(1, 100)) AS b(y)', headers: { 'X-Trino-User': 'alice' } });
    const queryId: string = post.body.id;
    await page.goto(post.body.infoUri);
    await page.locator('#query-state .badge', { hasText: 'RUNNING' }).waitFor();
    await page.locator('#cancel:not([disabled])').click();
    await page.locator('#query-state .badge', { hasText: 'FAILED' }).waitFor();
    const info = await request('GET', `${server.url}/v1/query/${queryId}`);
    validateResponse('query-info', info.body);
    expect(info.body.state).to.equal('FAILED');
    expect(info.body.errorCode.name).to.equal('USER_CANCELED');
    expect(await page.locator('#error-table').textContent()).to.include('USER_CANCELED');
  });

  it('marks a failed query\'s error location in its SQL', async () => {
    const { final } = await runStatement(server.url, 'SELECT 1\nFROM nosuch', { 'X-Trino-User': 'alice' });
    await page.goto(`${server.url}/ui/query.html?${final.id}`);
    await page.locator('#sql mark').waitFor();
    expect(await page.locator('#sql mark').textContent()).to.equal('nosuch');
    expect(await page.locator('#sql .error-line .line-number').textContent()).to.equal('2');
    const error = await page.locator('#error-table').textContent();
    expect(error).to.include(final.error.errorName).and.include('line 2, column 6');
    await screenshot(page, 'query-failed');
  });

  it('shows hostile SQL, user and source as text, in the list and on the query page', async () => {
    const { final } = await runStatement(server.url, XSS, { 'X-Trino-User': '<b>eve</b>', 'X-Trino-Source': '<script>alert(2)</script>' });
    expect(final.stats.state).to.equal('FAILED');
    await page.goto(`${server.url}/ui/`);
    await row(final.id).waitFor();
    const cells = await row(final.id).locator('td').allTextContents();
    expect(cells.slice(2, 5)).to.deep.equal(['<b>eve</b>', '<script>alert(2)</script>', XSS]);
    expect(await page.locator('main img, main b, main script').count()).to.equal(0);
    await page.goto(`${server.url}/ui/query.html?${final.id}`);
    await page.locator('#query-state .badge', { hasText: 'FAILED' }).waitFor();
    expect(await page.locator('#sql').textContent()).to.include(XSS);
    expect(await page.locator('main img, main b, main script').count()).to.equal(0);
  });

  it('filters by state, user and text; a refresh keeps the filters, the focus, the selection and the scroll', async () => {
    const tag = `marker_${Date.now()}`;
    const a = await runStatement(server.url, `SELECT 1 AS ${tag}`, { 'X-Trino-User': 'carol' });
    const b = await runStatement(server.url, `SELECT * FROM no_such_catalog.s.${tag}`, { 'X-Trino-User': 'dave' });
    await page.goto(`${server.url}/ui/`);
    await row(b.final.id).waitFor();
    await page.locator('#search').fill(tag);
    expect(await page.locator('#query-rows tr').count()).to.equal(2);
    await page.locator('#state-filter').selectOption('FAILED');
    await row(a.final.id).waitFor({ state: 'detached' });
    expect(await page.locator('#query-rows tr').count()).to.equal(1);
    await page.locator('#state-filter').selectOption('');
    await page.locator('#user-filter').fill('car');
    expect(await page.locator('#query-rows tr').count()).to.equal(1);
    await row(a.final.id).locator('td.sql').click();
    // A new matching query shows up at the next refresh; the user's place must survive that refresh.
    await page.locator('#user-filter').focus();
    const c = await runStatement(server.url, `SELECT 2 AS ${tag}`, { 'X-Trino-User': 'carol' });
    await row(c.final.id).waitFor();
    expect(await page.evaluate(() => document.activeElement?.id)).to.equal('user-filter');
    expect(await page.locator('#user-filter').inputValue()).to.equal('car');
    expect(await row(a.final.id).getAttribute('class')).to.include('selected');
    expect(page.url()).to.include(`search=${tag}`);
    // A reload keeps the filters (they live in the address).
    await page.reload();
    await row(c.final.id).waitFor();
    expect(await page.locator('#search').inputValue()).to.equal(tag);
    expect(await page.locator('#query-rows tr').count()).to.equal(2);
  });

  it('says so on the query page for a malformed or unknown query id, and offers no cancel', async () => {
    await page.goto(`${server.url}/ui/query.html?%3Cimg%20src=x%20onerror=alert(3)%3E`);
    await page.locator('#error-banner:not([hidden])').waitFor();
    expect(await page.locator('#error-banner').textContent()).to.include('No query id');
    expect(await page.locator('main img').count()).to.equal(0);
    expect(await page.locator('#cancel').isDisabled()).to.equal(true);
    await page.goto(`${server.url}/ui/query.html?20200101_000000_00000_aaaaa`);
    await page.locator('#error-banner:not([hidden])').waitFor();
    expect(await page.locator('#error-banner').textContent()).to.include('is not known');
    expect(await page.locator('#cancel').isDisabled()).to.equal(true);
    // The browser logs the 410 of /v1/query/{id} itself; nothing else may be reported.
    expect(problems.filter((p) => !p.includes('410'))).to.deep.equal([]);
    problems.length = 0;
  });

  it('stays usable with a thousand queries: rows kept across refreshes, scroll and selection survive', async () => {
    const started = Date.now();
    const batch = 25;
    for (let i = 0; i < 1000; i += batch) {
      await Promise.all(Array.from({ length: batch }, (_, j) => runStatement(server.url, `SELECT ${i + j} AS n`, { 'X-Trino-User': 'loader' })));
    }

    const loaded = Date.now() - started;
    const opened = Date.now();
    // From the filtered overview of the test before: a new hash alone must apply its filters.
    await page.goto(`${server.url}/ui/#user=loader&limit=1000`);
    await page.locator('#query-rows tr:nth-child(1000)').waitFor({ state: 'attached' });
    const firstRender = Date.now() - opened;
    const target = page.locator('#query-rows tr').nth(600);
    await target.scrollIntoViewIfNeeded();
    await target.locator('td.sql').click();
    const before = await page.evaluate(() => {
      const rows = document.querySelectorAll('#query-rows tr');
      (rows[600] as HTMLElement & { keep?: boolean }).keep = true;
      return { top: Math.round(rows[600]!.getBoundingClientRect().top), id: (rows[600] as HTMLElement).dataset.queryId };
    });
    const next = await runStatement(server.url, 'SELECT 1000 AS n', { 'X-Trino-User': 'loader' });
    await row(next.final.id).waitFor();
    const after = await page.evaluate((id) => {
      const tr = document.querySelector(`tr[data-query-id="${id}"]`) as (HTMLElement & { keep?: boolean }) | null;
      const top = Math.round(tr?.getBoundingClientRect().top ?? -1);
      return { top, kept: tr?.keep === true, selected: tr?.classList.contains('selected'), rows: document.querySelectorAll('#query-rows tr').length };
    }, before.id!);
    // Same element (no rebuild), still selected, still where the user saw it (the browser's scroll anchoring
    // absorbs the row added above), the list still bounded.
    expect(after).to.deep.equal({ top: before.top, kept: true, selected: true, rows: 1000 });
    console.log(`      (1000 queries run in ${loaded} ms; listed in ${firstRender} ms)`);
    await screenshot(page, 'overview-1000');
  });
});
