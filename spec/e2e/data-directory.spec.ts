// Two clusters on one machine (`make run` beside a test run): same data directory, two ports. Each has its
// own working memory catalog (its local workers' data under data.directory/workers/<port>), neither sees the
// other's tables, and they share the tpch cache.
import { expect } from 'chai';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startClusterProcess, until, type ClusterProcess } from '../../bench/cluster-process.js';
import { runStatement } from '../support/http.js';
import { healthy, USER } from './cluster-nodes.js';

async function query(cluster: ClusterProcess, sql: string) {
  const result = await runStatement(cluster.url, sql, USER);
  expect(result.final.stats.state, `${sql}: ${JSON.stringify(result.final.error)}`).to.equal('FINISHED');
  return result;
}

const portOf = (cluster: ClusterProcess) => new URL(cluster.url).port;

describe('e2e: two clusters on one machine with one data directory', function () {
  this.timeout(120_000);
  let dataDirectory: string;
  const clusters: ClusterProcess[] = [];

  before(async () => {
    dataDirectory = mkdtempSync(join(tmpdir(), 'vivace-e2e-two-'));
    for (let i = 0; i < 2; i++) clusters.push(await startClusterProcess({ workers: 1, dataDirectory, captureOutput: true }));
    for (const cluster of clusters) await until(`${cluster.url}'s worker healthy`, 40_000, () => healthy(cluster, 1));
  });
  after(async () => {
    for (const cluster of clusters) await cluster.stop();
    rmSync(dataDirectory, { recursive: true, force: true });
  });

  it('each has a working memory catalog of its own: CREATE TABLE, INSERT and SELECT on each, neither sees the other\'s rows', async () => {
    const [a, b] = clusters as [ClusterProcess, ClusterProcess];
    expect(portOf(a)).to.not.equal(portOf(b));
    await query(a, "CREATE TABLE memory.default.mine AS SELECT 'a' AS who");
    await query(b, "CREATE TABLE memory.default.mine AS SELECT 'b' AS who");
    await query(a, "INSERT INTO memory.default.mine VALUES ('a2')");
    await query(b, "INSERT INTO memory.default.mine VALUES ('b2')");
    expect((await query(a, 'SELECT who FROM memory.default.mine ORDER BY who')).rows).to.deep.equal([['a'], ['a2']]);
    expect((await query(b, 'SELECT who FROM memory.default.mine ORDER BY who')).rows).to.deep.equal([['b'], ['b2']]);
    await query(a, 'CREATE TABLE memory.default.only_a (x bigint)');
    const missing = await runStatement(b.url, 'SELECT * FROM memory.default.only_a', USER);
    expect(missing.final.error.errorName).to.equal('TABLE_NOT_FOUND');
  });

  it('keeps each one\'s workers under data.directory/workers/<port>, claimed by its pid, and shares the tpch cache', async () => {
    for (const cluster of clusters) {
      const dir = join(dataDirectory, 'workers', portOf(cluster));
      expect(existsSync(join(dir, 'worker-0', 'memory.duckdb')), dir).to.equal(true);
      expect(readFileSync(join(dir, 'coordinator.pid'), 'utf8')).to.equal(`${cluster.pid}\n`);
      expect((await query(cluster, 'SELECT count(*) FROM tpch.tiny.nation')).rows).to.deep.equal([[25]]);
    }
    // The built-in lake catalog's root is shared by both clusters too, and so is the query history (once a
    // batch is written: each coordinator's files are its own, named by its queries' times).
    expect(readdirSync(dataDirectory).filter((d) => d !== 'history').sort()).to.deep.equal(['lake', 'tpch', 'workers']);
    expect(readdirSync(join(dataDirectory, 'workers')).sort()).to.deep.equal(clusters.map(portOf).sort());
    // Neither coordinator said anything about a lock: no worker had to be started again.
    for (const cluster of clusters) expect(cluster.output.filter((l) => l.includes('worker_exited') || l.includes('Could not set lock'))).to.deep.equal([]);
  });

  it('a coordinator that stops gives its claim back', async () => {
    const b = clusters[1]!;
    await b.stop();
    expect(existsSync(join(dataDirectory, 'workers', portOf(b), 'coordinator.pid'))).to.equal(false);
    expect(existsSync(join(dataDirectory, 'workers', portOf(b), 'worker-0', 'memory.duckdb'))).to.equal(true);
  });
});
