// The cluster's first seconds, as real processes (bench/cluster-process.ts starts `vivace serve` as `make run`
// does): a statement posted the moment the coordinator prints its listening line waits for a worker
// (query-manager.required-workers) and answers as any other, RUNNING with its columns; /v1/info says
// `starting` until then and the coordinator prints a second line when it can take statements. Without
// workers, a statement fails past query-manager.required-workers-max-wait with Trino's error.
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startClusterProcess, type ClusterProcess } from '../../bench/cluster-process.js';
import { MAIN, ROOT } from '../cli/cli-process.js';
import { request, runStatement } from '../support/http.js';
import { validateResponse } from '../support/schema-validator.js';
import { USER } from './cluster-nodes.js';

const READY_LINE = /^vivace coordinator ready for statements: (\d+) active workers? \(query-manager\.required-workers=(\d+)\), (\d+) ms after listening$/;

describe('e2e: the cluster\'s first seconds', function () {
  this.timeout(120_000);
  let dataDirectory: string;
  let cluster: ClusterProcess | undefined;

  beforeEach(() => {
    dataDirectory = mkdtempSync(join(tmpdir(), 'vivace-e2e-startup-'));
  });
  afterEach(async () => {
    await cluster?.stop();
    cluster = undefined;
    rmSync(dataDirectory, { recursive: true, force: true });
  });

  it('a statement posted as the coordinator prints its line answers the seed\'s shape: RUNNING, scheduled false, columns, partialCancelUri', async () => {
    cluster = await startClusterProcess({ workers: 2, dataDirectory, captureOutput: true });
    const listened = Date.now();
    // With it, a statement for the memory worker (worker-0), which may announce itself after worker-1.
    const catalogs = runStatement(cluster.url, 'SHOW CATALOGS', USER);
    const posted = await request('POST', `${cluster.url}/v1/statement`, { body: 'SELECT 1 AS one', headers: USER });
    const answeredAfterMs = Date.now() - listened;
    expect(posted.status).to.equal(200);
    validateResponse('statement-initial', posted.body);
    expect(posted.body.stats).to.include({ state: 'RUNNING', scheduled: false });
    expect(posted.body.columns).to.deep.equal([{ name: 'one', type: 'integer', typeSignature: { rawType: 'integer', arguments: [] } }]);
    expect(posted.body.partialCancelUri).to.match(/^http:\/\/127\.0\.0\.1:\d+\/v1\/stage\//);
    expect(posted.body.stats.rootStage.stageId).to.equal('0');
    // Within the POST's bounded wait (vivace.startup-statement-wait, 20 s), not the detector's warm-up.
    expect(answeredAfterMs).to.be.below(20_000);
    if (process.env.VIVACE_E2E_TIMES) console.log(`first POST answered RUNNING ${answeredAfterMs} ms after the listening line`);

    let current = posted.body;
    const rows: unknown[][] = [];
    while (current.nextUri) {
      current = (await request('GET', current.nextUri)).body;
      rows.push(...((current.data ?? []) as unknown[][]));
    }
    validateResponse('statement-final', current);
    expect(current.stats.state).to.equal('FINISHED');
    expect(rows).to.deep.equal([[1]]);
    const shown = await catalogs;
    expect(shown.responses[0].stats.state).to.equal('RUNNING');
    expect(shown.rows).to.deep.equal([['lake'], ['memory'], ['system'], ['tpch']]);

    // Started: /v1/info says so, and the coordinator printed when.
    const info = await request('GET', `${cluster.url}/v1/info`);
    validateResponse('server-info', info.body);
    expect(info.body.starting).to.equal(false);
    const ready = cluster.output.map((l) => READY_LINE.exec(l)).find((m) => m !== null);
    expect(ready, cluster.output.join('\n')).to.not.equal(undefined);
    expect(Number(ready![1])).to.be.at.least(1);
    expect(ready![2]).to.equal('1');
  });

  it('with no worker: /v1/info says starting, and a statement fails past required-workers-max-wait with GENERIC_INSUFFICIENT_RESOURCES', async () => {
    cluster = await startClusterProcess({
      workers: 0,
      dataDirectory,
      captureOutput: true,
      properties: { 'query-manager.required-workers-max-wait': '2s', 'vivace.startup-statement-wait': '500ms' },
    });
    const info = await request('GET', `${cluster.url}/v1/info`);
    validateResponse('server-info', info.body);
    expect(info.body).to.include({ starting: true, state: 'ACTIVE' });
    const started = Date.now();
    const { responses, final } = await runStatement(cluster.url, 'SELECT 1', USER);
    // The POST waited its 500 ms for a worker, then answered the query still waiting for one.
    expect(responses[0].stats.state).to.be.oneOf(['QUEUED', 'PLANNING']);
    expect(final.stats.state).to.equal('FAILED');
    expect(final.error).to.include({
      errorName: 'GENERIC_INSUFFICIENT_RESOURCES',
      errorType: 'INSUFFICIENT_RESOURCES',
      errorCode: 131072,
      message: 'Insufficient active worker nodes. Waited 2.00s for at least 1 workers, but only 0 workers are active',
    });
    expect(Date.now() - started).to.be.at.least(1_900);
    expect((await request('GET', `${cluster.url}/v1/info`)).body.starting).to.equal(true);
    expect(cluster.output.some((l) => READY_LINE.test(l))).to.equal(false);
  });

  it('refuses a bad query-manager.required-workers at start, naming the property', async () => {
    const config = join(dataDirectory, 'bad.properties');
    writeFileSync(config, 'query-manager.required-workers=0\n');
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN, 'serve', '--port', '0', '--workers', '0', '--config', config], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).to.equal(1);
    expect(stderr).to.equal('vivace: query-manager.required-workers must be an integer from 1 to 10000: 0\n');
  });
});
