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
});
