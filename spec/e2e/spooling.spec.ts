// The spooling protocol across real processes: `vivace serve --workers 2`, segments written by the worker
// that produced the rows (a one-task query, and a staged query's root task), downloaded from that worker
// without credentials, and the attacks on their ids.
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startClusterProcess, until, type ClusterProcess } from '../../bench/cluster-process.js';
import { defaultConfig } from '../../lib/config.js';
import { request, runStatement } from '../support/http.js';
import { runSpooled } from '../support/spooling.js';
import { validateResponse } from '../support/schema-validator.js';
import { healthy, USER } from './cluster-nodes.js';
import { runCli } from '../cli/cli-process.js';
import { openSegmentId, spoolingKeyOf } from '../../lib/spooling/segment-id.js';

const SHARED_TPCH = join(defaultConfig().dataDirectory, 'tpch');
const SECRET = 'spooling-e2e';
const ORDERS = 'SELECT orderkey, custkey, orderstatus, totalprice, orderdate, comment FROM tpch.tiny.orders ORDER BY orderkey';
// Reads no table: one task on one worker, its first page riding with the plan (spooled: past the inlining limits).
const SEQUENCE = "SELECT a.x * 10000 + b.y AS x, concat('value ', CAST(a.x * 10000 + b.y AS varchar)) AS s FROM UNNEST(sequence(0, 9)) AS a(x) CROSS JOIN UNNEST(sequence(1, 10000)) AS b(y) ORDER BY 1";

async function startSpoolingCluster(properties: Record<string, string>): Promise<{ dir: string; cluster: ClusterProcess }> {
  const dir = mkdtempSync(join(tmpdir(), 'vivace-e2e-spooling-'));
  symlinkSync(SHARED_TPCH, join(dir, 'tpch'));
  const cluster = await startClusterProcess({
    workers: 2,
    dataDirectory: dir,
    properties: { 'shutdown.grace-period': '1s', 'internal-communication.shared-secret': SECRET, 'vivace.distributed-tpch-min-rows': '0', ...properties },
    captureOutput: true,
  });
  await until('two workers listen and are not failed', 60_000, () => healthy(cluster), 50);
  return { dir, cluster };
}

const status = async (url: string) => (await fetch(url)).status;

/** Rows as a multiset: their count and the sum of each row's text hash (order-free), as bin/trino-python-rows compares them. */
function checksum(rows: readonly unknown[][]): { rows: number; sum: bigint } {
  let sum = 0n;
  for (const row of rows) sum += BigInt(`0x${createHash('sha256').update(JSON.stringify(row)).digest('hex').slice(0, 12)}`);
  return { rows: rows.length, sum };
}

describe('e2e: spooled segments served by the workers (STORAGE)', function () {
  this.timeout(180_000);
  let started: { dir: string; cluster: ClusterProcess } | undefined;
  let cluster: ClusterProcess;
  let workers: string[];

  before(async function () {
    if (!existsSync(join(SHARED_TPCH, 'tiny', 'manifest.json'))) this.skip();
    started = await startSpoolingCluster({ 'protocol.spooling.initial-segment-size': '1MB' });
    cluster = started.cluster;
    workers = [...cluster.workerUrls.values()];
  });
  after(async () => {
    await started?.cluster.stop();
    if (started) rmSync(started.dir, { recursive: true, force: true });
  });

  for (const encoding of ['json', 'json+zstd', 'json+lz4']) {
    it(`${encoding}: a staged query's rows come from its root's worker, equal to the direct protocol's`, async () => {
      const direct = await runStatement(cluster.url, ORDERS, USER);
      const read = await runSpooled(cluster.url, ORDERS, encoding);
      expect(read.rows).to.have.length(15000);
      expect(read.rows).to.deep.equal(direct.rows);
      const spooled = read.segments.filter((s) => s.type === 'spooled');
      expect(spooled.length).to.be.greaterThan(0);
      for (const s of spooled) {
        const worker = workers.find((w) => s.uri.startsWith(`${w}/v1/spooled/download/`));
        expect(worker, s.uri).to.not.equal(undefined);
        expect(s.ackUri).to.equal(`${worker}/v1/spooled/ack/${s.uri.slice(`${worker}/v1/spooled/download/`.length)}`);
        expect(Object.keys(s.metadata).sort()).to.deep.equal(['expiresAt', 'rowOffset', 'rowsCount', 'segmentSize', ...(encoding === 'json' ? [] : ['uncompressedSize'])].sort());
      }
    });
  }

  it('a split table read row by row (no ORDER BY, LIMIT or aggregate): every worker spools its own share, the rows equal the direct protocol\'s, the offsets contiguous', async () => {
    const sql = 'SELECT orderkey, linenumber, quantity, shipdate, comment FROM tpch.tiny.lineitem WHERE linenumber < 7';
    const direct = await runStatement(cluster.url, sql, USER);
    const read = await runSpooled(cluster.url, sql, 'json');
    // runSpooled checked each segment's rowOffset against the rows before it, across responses.
    expect(read.rows).to.have.length(direct.rows.length);
    expect(checksum(read.rows)).to.deep.equal(checksum(direct.rows));
    const spooled = read.segments.filter((s) => s.type === 'spooled');
    const holders = new Set(spooled.map((s) => workers.find((w) => s.uri.startsWith(`${w}/v1/spooled/download/`))));
    expect([...holders].sort()).to.deep.equal([...workers].sort());
    let offset = 0;
    for (const s of read.segments) {
      expect(s.metadata.rowOffset).to.equal(offset);
      offset += s.metadata.rowsCount;
    }
    expect(offset).to.equal(direct.rows.length);
    // Its one stage (the root) as a staged query's: a task per worker, each with its node, splits, the rows its scan read and the rows it handed out.
    const info = await request('GET', `${cluster.url}/v1/query/${read.responses[0].id as string}`, { headers: USER });
    expect(info.status).to.equal(200);
    validateResponse('query-info', info.body);
    type TaskJson = { taskStatus: { nodeId: string; state: string }; stats: { totalDrivers: number; processedInputPositions: number; outputPositions: number } };
    const stage = info.body.outputStage as { nodes: number; totalSplits: number; completedSplits: number; subStages: unknown[]; tasks: TaskJson[] };
    expect(stage).to.include({ nodes: 2, totalSplits: 2, completedSplits: 2 });
    expect(stage.subStages).to.deep.equal([]);
    expect(stage.tasks.map((t) => t.taskStatus.nodeId).sort()).to.deep.equal([...cluster.workerUrls.keys()].sort());
    expect(stage.tasks.every((t) => t.taskStatus.state === 'FINISHED' && t.stats.totalDrivers > 0 && t.stats.processedInputPositions > 0)).to.equal(true);
    expect(stage.tasks.reduce((n, t) => n + t.stats.outputPositions, 0)).to.equal(direct.rows.length);
    expect(info.body.queryStats).to.include({ totalTasks: 2, completedTasks: 2 });
  });

  it('a scattered scan reading the time of the query: every worker\'s rows hold the query\'s one start', async () => {
    const read = await runSpooled(cluster.url, 'SELECT orderkey, now(), current_date FROM tpch.tiny.lineitem WHERE linenumber < 7', 'json');
    const holders = new Set(read.segments.filter((s) => s.type === 'spooled').map((s) => workers.find((w) => s.uri.startsWith(`${w}/v1/spooled/download/`))));
    expect(holders.size, 'both workers spooled').to.equal(2);
    expect(new Set(read.rows.map((r) => `${String(r[1])} ${String(r[2])}`)).size).to.equal(1);
  });

  it('a query that reads no table: its first page, which comes with the plan, is inline within the inlining limits and spooled past them', async () => {
    const read = await runSpooled(cluster.url, SEQUENCE, 'json+zstd');
    expect(read.rows).to.have.length(100000);
    expect(read.rows[99999]).to.deep.equal([100000, "value 100000"]);
    // Its first page holds far more than protocol.spooling.inlining.max-rows (1000): spooled, as the rest.
    expect(read.segments.map((s) => s.type)).to.not.include('inline');
    const small = await runSpooled(cluster.url, 'SELECT x FROM UNNEST(sequence(1, 500)) AS t(x)', 'json+zstd');
    expect(small.rows).to.have.length(500);
    expect(small.segments.map((s) => s.type)).to.deep.equal(['inline']);
  });

  it('a download answers 404 once acknowledged, and download and ack 404 for an id altered, given to the other worker, with a path or huge; neither needs credentials', async () => {
    const read = await runSpooled(cluster.url, SEQUENCE, 'json', USER, { ack: false });
    const segment = read.segments.find((s) => s.type === 'spooled');
    const base = segment.uri.slice(0, segment.uri.indexOf('/v1/spooled/'));
    const id: string = segment.uri.slice(segment.uri.lastIndexOf('/') + 1);
    const other = workers.find((w) => w !== base)!;
    const flipped = id.slice(0, 20) + (id[20] === 'A' ? 'B' : 'A') + id.slice(21);
    for (const bad of [flipped, id.slice(0, -2), `${id}AA`, 'A'.repeat(10_000), '..%2F..%2F..%2Fetc%2Fpasswd']) {
      expect(await status(`${base}/v1/spooled/download/${bad}`), bad.slice(0, 30)).to.equal(404);
      expect(await status(`${base}/v1/spooled/ack/${bad}`), bad.slice(0, 30)).to.equal(404);
    }
    // Dot segments resolve before the request leaves: off the open paths, where the internal bearer is asked.
    for (const dots of ['%2e%2e', '..%2F', '../../v1/task']) expect(await status(`${base}/v1/spooled/download/${dots}`), dots).to.be.oneOf([401, 404]);
    expect(await status(`${other}/v1/spooled/download/${id}`)).to.equal(404);
    // The coordinator's /v1/spooled paths serve any mode's ids (COORDINATOR_PROXY only hands them out).
    expect(await status(`${cluster.url}/v1/spooled/download/${id}`)).to.equal(200);
    expect(await status(segment.uri)).to.equal(200);
    expect(await status(segment.ackUri)).to.equal(200);
    expect(await status(segment.uri)).to.equal(404);
    // An ack again is fine (idempotent, as Trino's; clients retry it), the segment stays gone.
    expect(await status(segment.ackUri)).to.equal(200);
    expect(await status(segment.uri)).to.equal(404);
  });

  it('cancelling a query deletes its segments on every worker', async () => {
    // 1MB segments (protocol.spooling.initial-segment-size below): lineitem's many outrun the page read
    // ahead of each worker's task (a scattered scan: both workers spool their share).
    const first = await request('POST', `${cluster.url}/v1/statement`, { body: 'SELECT * FROM tpch.tiny.lineitem', headers: { ...USER, 'X-Trino-Query-Data-Encoding': 'json' } });
    let current = first.body;
    const byWorker = new Map<string, any>();
    while (byWorker.size < workers.length && current.nextUri) {
      current = (await request('GET', current.nextUri)).body;
      for (const s of current.data?.segments ?? []) {
        if (s.type === 'spooled') byWorker.set(s.uri.slice(0, s.uri.indexOf('/v1/spooled/')), s);
      }
    }
    expect(byWorker.size, 'a spooled segment of each worker before the end').to.equal(workers.length);
    expect(current.nextUri, 'before the end').to.be.a('string');
    for (const segment of byWorker.values()) expect(await status(segment.uri)).to.equal(200);
    expect((await request('DELETE', current.nextUri)).status).to.equal(204);
    for (const segment of byWorker.values()) await until('the segment is gone', 10_000, async () => (await status(segment.uri)) === 404, 50);
  });

  it('vivace query downloads and decodes the spooled segments: the same output as through the direct protocol', async () => {
    const direct = await runCli(['--server', cluster.url, '--encoding', 'none', '--execute', SEQUENCE]);
    expect(direct.code).to.equal(0);
    const spooled = await runCli(['--server', cluster.url, '--execute', SEQUENCE]);
    expect(spooled.stderr).to.equal('');
    const a = spooled.stdout.split('\n');
    const b = direct.stdout.split('\n');
    const first = a.findIndex((line, i) => line !== b[i]);
    expect({ lines: a.length, first, line: a[first] }).to.deep.equal({ lines: b.length, first: -1, line: undefined });
  });

  it('SHOW and small results stay arrays or inline', async () => {
    const show = await runSpooled(cluster.url, 'SHOW CATALOGS', 'json');
    expect(show.segments).to.have.length(0);
    const small = await runSpooled(cluster.url, 'SELECT * FROM tpch.tiny.nation', 'json');
    expect(small.rows).to.have.length(25);
    expect(small.segments.every((s) => s.type === 'inline')).to.equal(true);
  });
});

describe('e2e: spooled segments through the coordinator (COORDINATOR_PROXY)', function () {
  this.timeout(180_000);
  let started: { dir: string; cluster: ClusterProcess } | undefined;

  before(async function () {
    if (!existsSync(join(SHARED_TPCH, 'tiny', 'manifest.json'))) this.skip();
    started = await startSpoolingCluster({ 'protocol.spooling.retrieval-mode': 'COORDINATOR_PROXY' });
  });
  after(async () => {
    await started?.cluster.stop();
    if (started) rmSync(started.dir, { recursive: true, force: true });
  });

  it('a scattered scan\'s segments of both workers stream through the coordinator, the rows equal to the direct protocol\'s', async () => {
    const { cluster } = started!;
    const sql = 'SELECT orderkey, partkey, extendedprice, shipinstruct FROM tpch.tiny.lineitem';
    const direct = await runStatement(cluster.url, sql, USER);
    const read = await runSpooled(cluster.url, sql, 'json+zstd');
    expect(checksum(read.rows)).to.deep.equal(checksum(direct.rows));
    const spooled = read.segments.filter((s) => s.type === 'spooled');
    expect(spooled.length).to.be.greaterThan(1);
    for (const s of spooled) expect(s.uri.startsWith(`${cluster.url}/v1/spooled/download/`)).to.equal(true);
    // Each id names the worker that holds the segment (sealed with the key the cluster's secret derives).
    const key = spoolingKeyOf({ internalSharedSecret: SECRET })!;
    const holders = new Set(spooled.map((s) => openSegmentId(key, s.uri.slice(s.uri.lastIndexOf('/') + 1))?.nodeId));
    expect([...holders].sort()).to.deep.equal([...cluster.workerUrls.keys()].sort());
  });

  it('hands out coordinator URIs whose bytes stream from the worker, acknowledged there', async () => {
    const { cluster } = started!;
    const read = await runSpooled(cluster.url, SEQUENCE, 'json+lz4', USER, { ack: false });
    expect(read.rows).to.have.length(100000);
    const spooled = read.segments.filter((s) => s.type === 'spooled');
    expect(spooled.length).to.be.greaterThan(0);
    for (const s of spooled) {
      expect(s.uri.startsWith(`${cluster.url}/v1/spooled/download/`)).to.equal(true);
      expect(await status(s.ackUri)).to.equal(200);
      expect(await status(s.uri)).to.equal(404);
    }
  });
});
