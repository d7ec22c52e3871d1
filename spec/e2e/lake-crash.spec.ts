// A worker killed with SIGKILL in the middle of a lake CTAS or INSERT, with real processes and files: the
// statement fails, no row of it becomes visible, the table the CTAS was creating does not exist, the rows
// an INSERT had not committed never appear, and the restarted worker removes the dead writer's staging.
import { expect } from 'chai';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startClusterProcess, until, type ClusterProcess } from '../../bench/cluster-process.js';
import { workerPids } from '../../bench/process-cpu.js';
import { runStatement } from '../support/http.js';
import { healthy, USER } from './cluster-nodes.js';

/** Entries of `directory` that are a writer's staging (hidden, named by the connector), none when it is missing. */
const stagingIn = (directory: string) => (existsSync(directory) ? readdirSync(directory).filter((n) => n.startsWith('.vivace-staging-')) : []);

describe('e2e: a worker killed during a lake write', function () {
  this.timeout(180_000);
  let dataDirectory: string;
  let cluster: ClusterProcess;
  const lake = () => join(dataDirectory, 'lake');

  async function query(sql: string) {
    const result = await runStatement(cluster.url, sql, USER);
    expect(result.final.stats.state, `${sql}: ${JSON.stringify(result.final.error)}`).to.equal('FINISHED');
    return result;
  }

  /** Starts `sql`, kills the worker running lake writes once its staging shows in `tableDirectory`, and returns the statement's end. */
  async function killDuringWrite(sql: string, tableDirectory: string) {
    const pid = workerPids(cluster.pid).get('worker-0')!;
    const url = cluster.workerUrls.get('worker-0');
    const running = runStatement(cluster.url, sql, USER);
    await until('the write\'s staging directory', 60_000, () => stagingIn(tableDirectory).length > 0);
    process.kill(pid, 'SIGKILL');
    const { final } = await running;
    // A new process at a new address, and the coordinator sees it (the old one no longer listed).
    await until('worker-0 back and healthy', 60_000, async () => {
      const now = workerPids(cluster.pid).get('worker-0');
      return now !== undefined && now !== pid && cluster.workerUrls.get('worker-0') !== url && await healthy(cluster, 1);
    });
    return final;
  }

  before(async () => {
    dataDirectory = mkdtempSync(join(tmpdir(), 'vivace-e2e-lake-crash-'));
    cluster = await startClusterProcess({ workers: 1, dataDirectory, captureOutput: true });
    await until('the worker healthy', 60_000, () => healthy(cluster, 1));
    await query('CREATE SCHEMA lake.s');
    await query('CREATE TABLE lake.s.base AS SELECT * FROM tpch.tiny.lineitem');
  });
  after(async () => {
    await cluster?.stop();
    rmSync(dataDirectory, { recursive: true, force: true });
  });

  // 60,175 rows times 40: seconds of writing, long enough to be caught in the middle.
  const many = 'SELECT b.* FROM lake.s.base b CROSS JOIN UNNEST(sequence(1, 40)) AS t (i)';

  it('a CTAS: the statement fails, the table does not exist, the staging goes with the restart', async () => {
    const final = await killDuringWrite(`CREATE TABLE lake.s.big AS ${many}`, join(lake(), 's', 'big'));
    expect(final.stats.state).to.equal('FAILED');
    const missing = await runStatement(cluster.url, 'SELECT count(*) FROM lake.s.big', USER);
    expect(missing.final.error?.errorName, JSON.stringify(missing.final.error)).to.equal('TABLE_NOT_FOUND');
    expect(stagingIn(join(lake(), 's', 'big'))).to.deep.equal([]);
    // The name is free again.
    await query('CREATE TABLE lake.s.big AS SELECT 1 AS x');
    expect((await query('SELECT x FROM lake.s.big')).rows).to.deep.equal([[1]]);
  });

  it('an INSERT: the statement fails, the table keeps exactly its committed rows, the staging goes with the restart', async () => {
    const final = await killDuringWrite(`INSERT INTO lake.s.base ${many}`, join(lake(), 's', 'base'));
    expect(final.stats.state).to.equal('FAILED');
    expect((await query('SELECT count(*) FROM lake.s.base')).rows).to.deep.equal([[60_175]]);
    expect(stagingIn(join(lake(), 's', 'base'))).to.deep.equal([]);
    // The table still takes writes.
    await query('INSERT INTO lake.s.base SELECT * FROM tpch.tiny.lineitem LIMIT 5');
    expect((await query('SELECT count(*) FROM lake.s.base')).rows).to.deep.equal([[60_180]]);
  });
});
