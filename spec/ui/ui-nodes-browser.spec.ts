// /ui/nodes.html in a real browser: two worker-like servers pinged for real on simulated time; once one
// stops answering, the page marks it failed (listed first, its last failure shown) and the overview
// counts it. The failure detector's time is simulated; the page's own refresh is the browser's.
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { SimulatedClock } from 'xstate';
import { createTestEngine } from '../support/duckdb.js';
import { startTestServer, type TestServer } from '../support/http.js';
import { launchChromium, screenshot, skipWithoutChromium, watchPage } from './browser-support.js';

async function startWorker(): Promise<{ server: Server; url: string }> {
  const server = createServer((_req, res) => res.writeHead(200).end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('ui nodes page in a browser', function () {
  this.timeout(60_000);
  let clock: SimulatedClock;
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  const workers: { server: Server; url: string }[] = [];

  /** Moves simulated time one heartbeat at a time, letting every node's real ping be answered (or refused) first. */
  async function heartbeats(count: number): Promise<void> {
    const signatures = () => server.coordinator.nodes().map((n) => `${String(n.stats.lastResponseTime)}/${String(n.stats.recentFailures)}`);
    for (let i = 0; i < count; i++) {
      const before = signatures();
      clock.increment(500);
      const settled = () => signatures().every((signature, n) => signature !== before[n]);
      for (let spin = 0; spin < 5000 && !settled(); spin++) await new Promise((resolve) => setImmediate(resolve));
    }
  }

  before(async function () {
    skipWithoutChromium(this);
    clock = new SimulatedClock();
    clock.set(Date.now());
    server = await startTestServer({ engine: await createTestEngine(2, { tpch: false }), clock, now: () => clock.now() });
    workers.push(await startWorker(), await startWorker());
    server.coordinator.announceNode('worker-a', workers[0]!.url);
    server.coordinator.announceNode('worker-b', workers[1]!.url);
    await heartbeats(14); // past the detector's warm-up after the first success
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1400, height: 600 } });
    problems = watchPage(page);
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    for (const worker of workers) if (worker.server.listening) worker.server.close();
  });

  it('lists every node alive, then marks the one that stopped answering as failed', async () => {
    await page.goto(`${server.url}/ui/nodes.html`);
    await page.locator('#node-rows tr').nth(1).waitFor();
    expect(await page.locator('#node-count').textContent()).to.equal('2 nodes, 0 failed');
    expect(await page.locator('#node-rows tr.node-failed').count()).to.equal(0);
    const uris = await page.locator('#node-rows td.uri').allTextContents();
    expect(uris).to.have.members(workers.map((w) => `${w.url}/v1/status`));

    await new Promise<void>((resolve) => workers[1]!.server.close(() => resolve()));
    workers[1]!.server.closeAllConnections();
    await heartbeats(20);
    const failed = page.locator('#node-rows tr.node-failed');
    await failed.waitFor();
    expect(await page.locator('#node-count').textContent()).to.equal('2 nodes, 1 failed');
    // Failed nodes come first, with their last failure and failures by type.
    expect(await page.locator('#node-rows tr').first().getAttribute('class')).to.equal('node-failed');
    const cells = await failed.locator('td').allTextContents();
    expect(cells[0]).to.equal('FAILED');
    expect(cells[1]).to.equal(`${workers[1]!.url}/v1/status`);
    expect(cells[9]).to.include('ECONNREFUSED');
    expect(cells[10]).to.include('ECONNREFUSED');
    expect(Number.parseFloat(cells[5]!)).to.be.greaterThan(10);
    await screenshot(page, 'nodes');

    await page.goto(`${server.url}/ui/`);
    await page.locator('#tile-nodes-failed.alert').waitFor();
    expect(await page.locator('#stat-nodes-alive').textContent()).to.equal('1');
    expect(await page.locator('#stat-nodes-failed').textContent()).to.equal('1');
    expect(problems).to.deep.equal([]);
  });
});
