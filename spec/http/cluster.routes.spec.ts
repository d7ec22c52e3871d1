// GET /v1/cluster (and its Trino twin /ui/api/stats, /ui/api/cluster) through a real server: the counts
// follow queries as they queue, run, wait for their client and end; the totals keep what finished queries read.
import { expect } from 'chai';
import { availableParallelism } from 'node:os';
import { BIGINT_COLUMN, FakeEngine } from '../support/fake-engine.js';
import { createTestEngine } from '../support/duckdb.js';
import { request, runStatement, startTestServer, type TestServer } from '../support/http.js';
import { isValid, validateResponse } from '../support/schema-validator.js';
import { vivaceVersion } from '../../lib/protocol/vivace-version.js';

const TEN_ROWS = Array.from({ length: 10 }, (_, i) => [i]);

async function clusterStats(server: TestServer, path = '/v1/cluster'): Promise<Record<string, number>> {
  const res = await request('GET', `${server.url}${path}`);
  expect(res.status).to.equal(200);
  expect(res.headers.get('content-type')).to.equal('application/json');
  validateResponse('cluster-stats', res.body);
  return res.body;
}

/** Polls /v1/cluster until `predicate` holds (the actors move on their own: the pump fills buffers). */
async function statsWhen(server: TestServer, predicate: (stats: Record<string, number>) => boolean): Promise<Record<string, number>> {
  let stats = await clusterStats(server);
  for (let i = 0; i < 200 && !predicate(stats); i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    stats = await clusterStats(server);
  }
  expect(predicate(stats), JSON.stringify(stats)).to.equal(true);
  return stats;
}

async function follow(nextUri: string): Promise<void> {
  let uri: string | undefined = nextUri;
  while (uri) {
    const res = await request('GET', uri);
    expect(res.status).to.equal(200);
    uri = res.body.nextUri;
  }
}

describe('cluster routes', () => {
  describe('with canned results, one query admitted at a time', () => {
    let server: TestServer;
    let engine: FakeEngine;

    before(async () => {
      engine = new FakeEngine({
        MANY: { columns: [BIGINT_COLUMN('n')], rows: TEN_ROWS, batchRows: 1 },
        GATED: { columns: [BIGINT_COLUMN('n')], rows: TEN_ROWS, gated: true },
      });
      server = await startTestServer({ engine, config: { maxRunningQueries: 1, longPollMs: 100 } });
    });
    after(async () => {
      engine.openGates();
      await server.stop();
    });

    it('answers the idle cluster: this coordinator as the one worker, nothing running, no totals', async () => {
      expect(await clusterStats(server)).to.deep.equal({
        runningQueries: 0,
        blockedQueries: 0,
        queuedQueries: 0,
        activeCoordinators: 1,
        activeWorkers: 1,
        runningDrivers: 0,
        runningTasks: 0,
        totalAvailableProcessors: availableParallelism(),
        reservedMemory: 0,
        totalInputRows: 0,
        totalInputBytes: 0,
        totalCpuTimeSecs: 0,
        adjustedQueueSize: 0,
      });
      expect(await clusterStats(server, '/ui/api/stats')).to.deep.equal(await clusterStats(server));
    });

    it('counts a query waiting for its client as blocked, one waiting for admission as queued, and totals what they read', async () => {
      const first = await request('POST', `${server.url}/v1/statement`, { body: 'MANY' });
      // The pump fetches the two pages it may buffer (one row each, 8 bytes read a row) and waits for the client.
      const blocked = await statsWhen(server, (s) => s.blockedQueries === 1);
      expect(blocked).to.include({ runningQueries: 0, queuedQueries: 0, runningDrivers: 1, runningTasks: 1, totalInputRows: 2, totalInputBytes: 16 });
      expect(blocked.reservedMemory).to.equal(16 + 2 * '[0]'.length); // rows read + JSON buffered for the client

      const second = await request('POST', `${server.url}/v1/statement`, { body: 'MANY' });
      expect(second.body.stats.state).to.equal('QUEUED');
      expect(await clusterStats(server)).to.include({ blockedQueries: 1, queuedQueries: 1, totalInputRows: 2 });

      // The first runs to its end (10 rows, 80 bytes), the second is admitted and fills its buffer in turn.
      await follow(first.body.nextUri);
      const next = await statsWhen(server, (s) => s.blockedQueries === 1 && s.queuedQueries === 0);
      expect(next).to.include({ totalInputRows: 12, totalInputBytes: 96 });

      // Cancelled, the second keeps what it read in the totals; nothing is live any more.
      expect((await request('DELETE', second.body.nextUri)).status).to.equal(204);
      expect(await statsWhen(server, (s) => s.blockedQueries === 0)).to.include({
        runningQueries: 0,
        queuedQueries: 0,
        runningDrivers: 0,
        reservedMemory: 0,
        totalInputRows: 12,
        totalInputBytes: 96,
      });
    });

    it('counts a query whose engine is still producing as running, as /v1/query shows it', async () => {
      const before = await clusterStats(server);
      const gated = await request('POST', `${server.url}/v1/statement`, { body: 'GATED' });
      const running = await statsWhen(server, (s) => s.runningQueries === 1);
      expect(running).to.include({ blockedQueries: 0, queuedQueries: 0, totalInputRows: before.totalInputRows });
      const live = (await request('GET', `${server.url}/v1/query?state=RUNNING`)).body as { queryStats: { runningDrivers: number } }[];
      expect(running.runningDrivers).to.equal(live.reduce((n, q) => n + q.queryStats.runningDrivers, 0));
      await request('DELETE', gated.body.nextUri);
      await statsWhen(server, (s) => s.runningQueries === 0);
    });

    it('counts announced nodes as workers only while their heartbeats find them alive', async () => {
      server.coordinator.announceNode('worker-unreachable', 'http://127.0.0.1:9');
      const nodes = (await request('GET', `${server.url}/v1/node`)).body as unknown[];
      const failed = (await request('GET', `${server.url}/v1/node/failed`)).body as unknown[];
      expect(nodes).to.have.length(1);
      expect((await clusterStats(server)).activeWorkers).to.equal(1 + nodes.length - failed.length);
      server.coordinator.forgetNode('worker-unreachable');
    });

    it('answers /ui/api/cluster with the version, environment and uptime', async () => {
      const res = await request('GET', `${server.url}/ui/api/cluster`);
      expect(res.status).to.equal(200);
      validateResponse('ui-cluster-info', res.body);
      expect(res.body.nodeVersion).to.deep.equal({ version: vivaceVersion() });
      expect(res.body.environment).to.equal(server.coordinator.config.environment);
    });

    it('answers HEAD, and 405 with Allow to other methods, on these and the small /v1/info paths', async () => {
      for (const path of ['/v1/cluster', '/ui/api/stats', '/ui/api/cluster', '/v1/info/coordinator', '/v1/info/nodestats']) {
        expect((await request('HEAD', `${server.url}${path}`)).status).to.equal(200);
        for (const method of ['POST', 'PUT', 'DELETE']) {
          const res = await request(method, `${server.url}${path}`);
          expect(res.status, `${method} ${path}`).to.equal(405);
          expect(res.headers.get('allow')).to.equal('HEAD, GET');
          validateResponse('error', res.body);
        }
      }
    });
  });

  describe('over DuckDB', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ engine: await createTestEngine(2, { tpch: false }), config: { longPollMs: 200 } });
    });
    after(() => server.stop());

    it('adds what a finished query read, as /v1/query reports it, to the totals', async () => {
      // Input is what table scans read: a memory table's rows (an UNNEST reads no table).
      await runStatement(server.url, 'CREATE TABLE memory.default.cluster_input AS SELECT x FROM UNNEST(sequence(1, 5000)) AS t(x)');
      const before = await clusterStats(server);
      const { final, rows } = await runStatement(server.url, 'SELECT x FROM memory.default.cluster_input');
      expect(rows, JSON.stringify(final.error)).to.have.length(5000);
      const info = (await request('GET', `${server.url}/v1/query/${final.id}`)).body;
      expect(info.queryStats.rawInputPositions).to.equal(5000);
      const after = await clusterStats(server);
      expect(after.totalInputRows - before.totalInputRows).to.equal(info.queryStats.rawInputPositions);
      expect(after.totalInputBytes - before.totalInputBytes).to.equal(Number(info.queryStats.rawInputDataSize.replace(/B$/, '')));
      expect(after).to.include({ runningQueries: 0, queuedQueries: 0, blockedQueries: 0 });
    });
  });

  describe('cluster-stats.schema.json', () => {
    it('rejects a missing field, a negative count and a fractional count', () => {
      const valid = {
        runningQueries: 1, blockedQueries: 0, queuedQueries: 2, activeCoordinators: 1, activeWorkers: 3, runningDrivers: 4, runningTasks: 4,
        totalAvailableProcessors: 8, reservedMemory: 1024.5, totalInputRows: 10, totalInputBytes: 80, totalCpuTimeSecs: 1, adjustedQueueSize: 0,
      };
      expect(isValid('cluster-stats', valid)).to.equal(true);
      const { activeWorkers: _omitted, ...missing } = valid;
      expect(isValid('cluster-stats', missing)).to.equal(false);
      expect(isValid('cluster-stats', { ...valid, queuedQueries: -1 })).to.equal(false);
      expect(isValid('cluster-stats', { ...valid, totalInputRows: 1.5 })).to.equal(false);
    });
  });
});
