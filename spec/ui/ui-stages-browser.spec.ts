// The query page of a join planned in stages, in a real browser (Debian's chromium) against a coordinator
// with two in-process workers at tpch.tiny: every fragment is drawn as a stage nested as in
// /v1/query/{id}, each with a row per task naming its node, state, rows and bytes in and out, CPU, elapsed
// and peak memory, every stage named by its StageId `{queryId}.{n}` as in Trino's StageInfo.
import { expect } from 'chai';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { defaultConfig } from '../../lib/config.js';
import { TPCH_QUERIES } from '../../lib/tpch/queries/tpch-queries.js';
import { builtInConnectors, remoteEngine, runOn, session, startTestWorker, WorkerList, type TestWorker } from '../cluster/cluster-harness.js';
import { request, runStatement, startTestServer, type TestServer } from '../support/http.js';
import { validateResponse } from '../support/schema-validator.js';
import { launchChromium, screenshot, skipWithoutChromium, watchPage } from './browser-support.js';

const TPCH = join(defaultConfig().dataDirectory, 'tpch');

interface StageJson { stageId: string; subStages: StageJson[]; tasks?: { taskStatus: { taskId: string; nodeId: string } }[] }

describe('ui in a browser: the stage tree of a distributed query', function () {
  this.timeout(120_000);
  let workers: TestWorker[];
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let problems: string[];

  before(async function () {
    skipWithoutChromium(this);
    workers = [await startTestWorker('w0', { tpchDirectory: TPCH, stages: true }), await startTestWorker('w1', { tpchDirectory: TPCH, stages: true })];
    // tiny's tables are below the default threshold: every size splits here.
    const engine = remoteEngine(new WorkerList(workers), { connectors: builtInConnectors(TPCH, { tpchMinRows: 0 }), stages: {} });
    await runOn(engine, 'SELECT count(*) FROM tpch.tiny.region', session({ catalog: 'tpch', schema: 'tiny' }));
    server = await startTestServer({ engine });
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1400, height: 900 } })).newPage();
    problems = watchPage(page);
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    await Promise.all((workers ?? []).map((w) => w.stop()));
  });
  afterEach(() => expect(problems, 'console errors, CSP violations or dialogs').to.deep.equal([]));

  it('draws TPC-H Q3\'s stages nested as /v1/query/{id} has them, a row per task with its node and figures', async () => {
    const { final } = await runStatement(server.url, TPCH_QUERIES[2]!.sql, { 'X-Trino-User': 'alice', 'X-Trino-Catalog': 'tpch', 'X-Trino-Schema': 'tiny' });
    expect(final.stats.state).to.equal('FINISHED');
    const info = await request('GET', `${server.url}/v1/query/${final.id as string}`, { headers: { 'X-Trino-User': 'alice' } });
    validateResponse('query-info', info.body);
    const stages: StageJson[] = [];
    const collect = (s: StageJson) => { stages.push(s); s.subStages.forEach(collect); };
    collect(info.body.outputStage as StageJson);
    const tasks = stages.flatMap((s) => s.tasks ?? []);
    expect(stages.length, 'Q3 runs in stages').to.be.at.least(3);
    // Every stage by its StageId, `{queryId}.{n}`, as Trino's StageInfo names them (the sub-stages too).
    expect(stages.map((st) => st.stageId.slice(0, st.stageId.lastIndexOf('.')))).to.deep.equal(stages.map(() => final.id));
    expect(new Set(tasks.map((t) => t.taskStatus.nodeId))).to.deep.equal(new Set(['w0', 'w1']));

    await page.goto(`${server.url}/ui/query.html?${final.id as string}`);
    await page.locator('#query-state .badge', { hasText: 'FINISHED' }).waitFor();
    await page.locator('#stages .task-table').first().waitFor();
    expect(await page.locator('#stages .stage').count()).to.equal(stages.length);
    // Nested as in the info: a stage's sub-stages are in a list under its item.
    const nested = await page.locator('#stages li li .stage-id').allTextContents();
    expect(nested.length).to.equal(stages.length - 1);
    for (const task of tasks) {
      const cells = await page.locator(`tr[data-task-id="${task.taskStatus.taskId}"] td`).allTextContents();
      expect(cells[0]).to.equal(task.taskStatus.taskId);
      expect(cells[1]).to.equal(task.taskStatus.nodeId);
      expect(cells[2]).to.equal('FINISHED');
      // Rows and bytes out, CPU and elapsed are the task's own figures, printed.
      expect(cells[6], `${task.taskStatus.taskId} bytes out`).to.match(/B$/);
      expect(cells[8], `${task.taskStatus.taskId} elapsed`).to.match(/s$/);
    }
    await screenshot(page, 'query-stages');
  });
});
