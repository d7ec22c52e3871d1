// The durable query history in real processes: `vivace serve` with one worker keeps every finished query
// under <data.directory>/history, serves it as system.runtime.completed_queries (the rows go to the worker
// with the statement) and, after a restart on the same data directory, still answers /v1/query/{id}.
import { expect } from 'chai';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startClusterProcess, until, type ClusterProcess } from '../../bench/cluster-process.js';
import { request } from '../support/http.js';
import { validateResponse } from '../support/schema-validator.js';
import { finishedStatement, healthy, USER } from './cluster-nodes.js';

describe('e2e: the query history across a restart', function () {
  this.timeout(120_000);
  let dir: string;
  let cluster: ClusterProcess | undefined;
  const properties = { 'query.history.batch-size': '1', 'query.max-history': '1', 'query.min-expire-age': '0s' };
  before(() => (dir = mkdtempSync(join(tmpdir(), 'vivace-e2e-history-'))));
  after(async () => {
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists stored queries through SQL on a worker, and answers /v1/query/{id} after a restart', async () => {
    cluster = await startClusterProcess({ workers: 1, dataDirectory: join(dir, 'data'), properties, captureOutput: true });
    await until('the worker healthy', 60_000, () => healthy(cluster!, 1));
    const first = await finishedStatement(cluster, 'SELECT 42');
    await finishedStatement(cluster, 'SELECT 43');
    await until('two queries stored', 10_000, async () => (await finishedStatement(cluster!, `SELECT count(*) FROM system.runtime.completed_queries WHERE query IN ('SELECT 42', 'SELECT 43')`)).rows[0]![0] === 2);
    const rows = (await finishedStatement(cluster, `SELECT query, state, "user", output_rows FROM system.runtime.completed_queries WHERE query_id = '${first.final.id}'`)).rows;
    expect(rows).to.deep.equal([['SELECT 42', 'FINISHED', 'alice', 1]]);
    expect(readdirSync(join(dir, 'data', 'history')).some((name) => name.endsWith('.jsonl'))).to.equal(true);

    await cluster.stop();
    cluster = await startClusterProcess({ workers: 1, dataDirectory: join(dir, 'data'), properties, captureOutput: true });
    const info = await request('GET', `${cluster.url}/v1/query/${first.final.id}`, { headers: USER });
    expect(info.status).to.equal(200);
    validateResponse('query-info', info.body);
    expect(info.body).to.include({ queryId: first.final.id, state: 'FINISHED', query: 'SELECT 42', self: `${cluster.url}/v1/query/${first.final.id}` });
    expect(existsSync(join(dir, 'data', 'history'))).to.equal(true);
  });

  it('shortens completed_queries to what a worker\'s plan request takes, instead of failing it (HTTP 413)', async () => {
    await cluster?.stop();
    // 16kB request bodies: the rows a statement carries to the worker get 8kB, about ten of these queries.
    cluster = await startClusterProcess({ workers: 1, dataDirectory: join(dir, 'small'), properties: { ...properties, 'http-server.max-request-size': '16kB' }, captureOutput: true });
    await until('the worker healthy', 60_000, () => healthy(cluster!, 1));
    const padding = 'x'.repeat(600);
    for (let i = 0; i < 30; i++) await finishedStatement(cluster, `SELECT ${i} AS n, '${padding}' AS padding`);
    await until('the last query stored', 10_000, async () => (await finishedStatement(cluster!, `SELECT count(*) FROM system.runtime.completed_queries WHERE query LIKE 'SELECT 29 AS n%'`)).rows[0]![0] === 1);
    // The newest stay (the last one was found above); the oldest of the thirty went.
    const [[count]] = (await finishedStatement(cluster, `SELECT count(*) FROM system.runtime.completed_queries WHERE query LIKE 'SELECT % AS n, %'`)).rows as [[number]];
    expect(count).to.be.within(1, 20);
    expect((await finishedStatement(cluster, `SELECT count(*) FROM system.runtime.completed_queries WHERE query LIKE 'SELECT 0 AS n%'`)).rows).to.deep.equal([[0]]);
  });
});

