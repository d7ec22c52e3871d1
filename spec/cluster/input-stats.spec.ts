// Rows and bytes processed are what the table scans read, counted on the worker that read them and rolled
// up from task to stage to query: through a real server over in-process workers, for a query in one task
// and for the same query in two stages, every body checked against its schema.
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDuckDbEngine, type DuckDbEngine } from '../../lib/engine/duckdb-engine.js';
import type { RemoteEngine } from '../../lib/cluster/remote-engine.js';
import { defaultConfig } from '../../lib/config.js';
import { formatDataSize, parseDataSize } from '../../lib/protocol/data-size.js';
import { startWorkerServer } from '../../lib/worker/worker-server.js';
import { builtInConnectors, remoteEngine, runOn, session, testWorkerOf, WorkerList, type TestWorker } from './cluster-harness.js';
import { request, runStatement, startTestServer, type TestServer } from '../support/http.js';
import { validateResponse } from '../support/schema-validator.js';

const TPCH = join(defaultConfig().dataDirectory, 'tpch');
const HEADERS = { 'X-Trino-User': 'alice', 'X-Trino-Catalog': 'tpch', 'X-Trino-Schema': 'tiny' };
const LINEITEM_ROWS = 60_175;
const BY_FLAG = 'SELECT returnflag, sum(quantity) FROM tpch.tiny.lineitem GROUP BY 1';

async function startWorker(nodeId: string): Promise<TestWorker> {
  const dir = mkdtempSync(join(tmpdir(), 'vivace-input-stats-'));
  const engine = await createDuckDbEngine({ tempDirectory: dir, memoryLimit: '1GB', threads: 1, maxConnections: 4, tpch: { directory: TPCH, log: () => {} } });
  const worker = await startWorkerServer({
    engine, nodeId, environment: 'vivace', host: '127.0.0.1', port: 0, maxBodyBytes: 4 << 20, maxQueryLength: 1_000_000, gracePeriodMs: 1_000,
    stages: { engine, connectors: builtInConnectors(TPCH), directory: join(dir, 'stages') },
  });
  return testWorkerOf({ nodeId, memory: false, worker, engine, planned: [], dir });
}

/** Runs `sql` through the server; the final statement stats and the query's info (both schema-valid). */
async function run(server: TestServer, sql: string): Promise<{ stats: any; info: any; rows: unknown[][] }> {
  const result = await runStatement(server.url, sql, HEADERS);
  expect(result.final.stats.state).to.equal('FINISHED');
  const info = await request('GET', `${server.url}/v1/query/${result.final.id as string}`, { headers: { 'X-Trino-User': 'alice' } });
  expect(info.status).to.equal(200);
  validateResponse('query-info', info.body);
  return { stats: result.final.stats, info: info.body, rows: result.rows };
}

describe('rows and bytes processed: what the table scans read (one task and two stages)', function () {
  this.timeout(120_000);
  let workers: TestWorker[];
  let oneTask: RemoteEngine;
  let staged: RemoteEngine;
  let servers: TestServer[];
  let local: DuckDbEngine;
  let localDir: string;

  before(async () => {
    localDir = mkdtempSync(join(tmpdir(), 'vivace-input-stats-local-'));
    local = await createDuckDbEngine({ tempDirectory: localDir, threads: 1, tpch: { directory: TPCH, log: () => {} } });
    // The shared cache holds tiny once anything read it; this makes sure before the workers look.
    await runOn(local, 'SELECT count(*) FROM tpch.tiny.region', session({ catalog: 'tpch', schema: 'tiny' }));
    workers = [await startWorker('w0'), await startWorker('w1')];
    const list = new WorkerList(workers);
    oneTask = remoteEngine(list);
    // tiny's tables are far below the default threshold: with minRows 0 an aggregate over one table splits.
    staged = remoteEngine(list, { connectors: builtInConnectors(TPCH, { tpchMinRows: 0 }), stages: {} });
    servers = [await startTestServer({ engine: oneTask }), await startTestServer({ engine: staged })];
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await oneTask.close();
    await staged.close();
    await local.close();
    await Promise.all(workers.map((w) => w.stop()));
    rmSync(localDir, { recursive: true, force: true });
  });

  it('one task: the stats, the root stage and the query info count the 60,175 rows read, not the 3 returned', async () => {
    const { stats, info, rows } = await run(servers[0]!, BY_FLAG);
    expect(rows).to.have.length(3);
    expect(stats.processedRows).to.equal(LINEITEM_ROWS);
    // Bytes: DuckDB's in-memory size of the two columns read, at least a byte a row.
    expect(stats.processedBytes).to.be.at.least(LINEITEM_ROWS);
    expect(stats).to.include({ physicalInputBytes: stats.processedBytes, internalNetworkInputBytes: 0 });
    expect(stats.rootStage).to.include({ processedRows: LINEITEM_ROWS, processedBytes: stats.processedBytes, subStages: stats.rootStage.subStages });
    expect(stats.rootStage.subStages).to.deep.equal([]);
    const size = formatDataSize(stats.processedBytes);
    expect(info.queryStats).to.include({
      rawInputPositions: LINEITEM_ROWS, rawInputDataSize: size,
      processedInputPositions: LINEITEM_ROWS, processedInputDataSize: size,
      physicalInputPositions: LINEITEM_ROWS, physicalInputDataSize: size,
      internalNetworkInputPositions: 0, internalNetworkInputDataSize: '0B',
      // The output stays the output.
      outputPositions: 3,
    });
    expect(info.outputStage).to.include({ processedRows: LINEITEM_ROWS, outputPositions: 3 });
  });

  it('one task streamed over many pages: the scans are counted at the end, which the last GET brings', async () => {
    const { stats, info, rows } = await run(servers[0]!, 'SELECT orderkey, comment FROM tpch.tiny.lineitem');
    expect(rows).to.have.length(LINEITEM_ROWS);
    expect(stats).to.include({ processedRows: LINEITEM_ROWS });
    expect(info.queryStats).to.include({ processedInputPositions: LINEITEM_ROWS, outputPositions: LINEITEM_ROWS });
  });

  it('two stages: the leaves count the rows they read, the root the rows exchanged, the query the rows read once', async () => {
    const { stats, info, rows } = await run(servers[1]!, BY_FLAG);
    expect(rows).to.have.length(3);
    const [leaf] = stats.rootStage.subStages;
    expect(leaf, 'a leaf stage').to.not.equal(undefined);
    // Each of the two leaves reads a slice of the table's one part: together the whole table, once.
    expect(leaf).to.include({ stageId: '1', processedRows: LINEITEM_ROWS });
    // The root reads what the leaves handed on: 3 groups from each.
    const exchanged = info.outputStage.subStages[0].outputPositions as number;
    expect(exchanged).to.equal(6);
    expect(stats.rootStage.processedRows).to.equal(exchanged);
    expect(stats.processedRows).to.equal(LINEITEM_ROWS);
    expect(stats.physicalInputBytes).to.equal(leaf.processedBytes);
    expect(stats.processedBytes).to.equal(leaf.processedBytes + stats.rootStage.processedBytes);
    // The bytes exchanged: the leaves' Parquet files, as the leaf stage's outputDataSize says.
    const fileBytes = info.outputStage.subStages[0].tasks.reduce((n: number, t: any) => n + parseDataSize(t.stats.outputDataSize), 0);
    expect(fileBytes).to.be.greaterThan(0);
    expect(info.outputStage.subStages[0].outputDataSize).to.equal(formatDataSize(fileBytes));
    expect(stats.internalNetworkInputBytes).to.equal(fileBytes);
    expect(info.queryStats).to.include({
      rawInputPositions: LINEITEM_ROWS, processedInputPositions: LINEITEM_ROWS, physicalInputPositions: LINEITEM_ROWS,
      processedInputDataSize: formatDataSize(leaf.processedBytes),
      internalNetworkInputPositions: exchanged, internalNetworkInputDataSize: formatDataSize(fileBytes),
      outputPositions: 3,
    });
  });

  it('a query that reads no table (SELECT 1, UNNEST) processes 0 rows, as in Trino; its output is still counted', async () => {
    for (const sql of ['SELECT 1', 'SELECT x FROM UNNEST(sequence(1, 100)) AS t(x)']) {
      const { stats, info } = await run(servers[0]!, sql);
      expect(stats, sql).to.include({ processedRows: 0, processedBytes: 0 });
      expect(stats.rootStage, sql).to.include({ processedRows: 0, processedBytes: 0 });
      expect(info.queryStats, sql).to.include({ rawInputPositions: 0, processedInputPositions: 0, processedInputDataSize: '0B' });
      expect(info.queryStats.outputPositions, sql).to.equal(sql === 'SELECT 1' ? 1 : 100);
    }
  });

  it('a filter DuckDB evaluates inside the scan: the rows the scan handed on (105 of 60,175), in one task and in two stages alike', async () => {
    const sql = 'SELECT count(*) FROM tpch.tiny.lineitem WHERE orderkey < 100';
    const one = await run(servers[0]!, sql);
    const two = await run(servers[1]!, sql);
    expect(one.rows).to.deep.equal([[105]]);
    expect(two.rows).to.deep.equal([[105]]);
    expect(one.stats.processedRows).to.equal(105);
    expect(two.stats.processedRows).to.equal(105);
    expect(two.stats.rootStage.subStages[0].processedRows).to.equal(105);
    // A join reads each table it scans: lineitem's and orders' scans together.
    const join = await run(servers[0]!, 'SELECT count(*) FROM tpch.tiny.lineitem l JOIN tpch.tiny.orders o ON l.orderkey = o.orderkey');
    expect(join.stats.processedRows).to.equal(LINEITEM_ROWS + 15_000);
  });
});
