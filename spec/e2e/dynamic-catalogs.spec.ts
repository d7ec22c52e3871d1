// catalog.management=dynamic on a real cluster (a coordinator, two local workers): CREATE CATALOG over HTTP,
// the catalog read on the workers, a worker killed and restarted still reading it (its first task brings the
// set), SHOW CATALOGS and system.metadata.catalogs listing it, DROP CATALOG removing it everywhere with its
// files left, and the stored file kept across the coordinator's restart.
import { expect } from 'chai';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startClusterProcess, until, type ClusterProcess } from '../../bench/cluster-process.js';
import { workerPids } from '../../bench/process-cpu.js';
import { runStatement } from '../support/http.js';
import { finishedStatement, healthy, USER } from './cluster-nodes.js';

describe('e2e: dynamic catalogs (CREATE and DROP CATALOG) across real workers', function () {
  this.timeout(120_000);
  let dir: string;
  let roots: string;
  let cluster: ClusterProcess | undefined;
  const start = async () => {
    cluster = await startClusterProcess({
      workers: 2, dataDirectory: join(dir, 'data'), captureOutput: true,
      properties: { 'catalog.management': 'dynamic', 'catalog.dynamic-roots': roots },
    });
    await until('both workers healthy', 60_000, () => healthy(cluster!, 2));
  };
  before(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'vivace-e2e-dynamic-')));
    roots = join(dir, 'roots');
    mkdirSync(roots);
  });
  after(async () => {
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const query = (sql: string) => finishedStatement(cluster!, sql);

  it('creates a catalog every worker reads, a restarted worker too, and lists it', async () => {
    await start();
    const created = await query(`CREATE CATALOG dyn USING hive WITH ("hive.metastore" = 'file', "hive.metastore.catalog.dir" = 'file://${roots}/dyn', "fs.native-local.enabled" = 'true')`);
    expect(created.final.updateType).to.equal('CREATE CATALOG');
    expect(readdirSync(join(dir, 'data', 'catalog-store'))).to.deep.equal(['dyn.properties']);
    await query('CREATE SCHEMA dyn.s');
    await query("CREATE TABLE dyn.s.t (id integer, name varchar, region varchar) WITH (partitioned_by = ARRAY['name', 'region'])");
    await query("INSERT INTO dyn.s.t VALUES (1, 'alice', 'us-east')");
    expect((await query('SHOW CATALOGS')).rows).to.deep.include(['dyn']);
    expect((await query("SELECT connector_name FROM system.metadata.catalogs WHERE catalog_name = 'dyn'")).rows).to.deep.equal([['hive']]);
    // Each worker, the one holding memory (where DDL runs) and the other.
    for (const [nodeId, pid] of workerPids(cluster!.pid)) {
      const before = cluster!.workerUrls.get(nodeId);
      process.kill(pid, 'SIGKILL');
      await until(`${nodeId} restarted and healthy`, 60_000, async () => cluster!.workerUrls.get(nodeId) !== before && (await healthy(cluster!, 2)));
      // Reads of a created hive catalog run on any worker (each task brings the set); at once, they spread.
      const reads = await Promise.all([1, 2, 3, 4].map(() => query('SELECT id, name, region FROM dyn.s.t')));
      for (const read of reads) expect(read.rows).to.deep.equal([[1, 'alice', 'us-east']]);
      expect((await query('SELECT name, region FROM dyn.s."t$partitions"')).rows).to.deep.equal([['alice', 'us-east']]);
    }
  });

  it('keeps it across a coordinator restart, and DROP CATALOG removes it everywhere, its files left', async () => {
    await cluster?.stop();
    await start();
    expect((await query('SELECT count(*) FROM dyn.s.t')).rows).to.deep.equal([[1]]);
    expect((await query('DROP CATALOG dyn')).final.updateType).to.equal('DROP CATALOG');
    expect((await query('SHOW CATALOGS')).rows).to.not.deep.include(['dyn']);
    for (let i = 0; i < 3; i++) {
      const gone = await runStatement(cluster!.url, 'SELECT * FROM dyn.s.t', USER);
      expect(gone.final.error?.errorName).to.equal('CATALOG_NOT_FOUND');
    }
    expect(readdirSync(join(dir, 'data', 'catalog-store'))).to.deep.equal([]);
    expect(existsSync(join(roots, 'dyn', 's', 't', 'name=alice', 'region=us-east'))).to.equal(true);
    const outside = await runStatement(cluster!.url, `CREATE CATALOG out USING hive WITH ("hive.metastore" = 'file', "hive.metastore.catalog.dir" = 'file://${dir}/data/x', "fs.native-local.enabled" = 'true')`, USER);
    expect(outside.final.error?.message).to.include("Invalid catalog property 'hive.metastore.catalog.dir'");
    expect(existsSync(join(dir, 'data', 'x'))).to.equal(false);
  });
});
