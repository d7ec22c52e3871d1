// A cluster started with a catalog directory (catalog.config-dir), real processes: it serves exactly the
// files' catalogs on every worker (tpch, a hive catalog over a root of its own, no memory; tpch under its
// file's name `tiny`, split and routed as tpch), and a bad file stops `vivace serve` before it listens,
// with a message naming the file, the line and the property.
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startClusterProcess, until, type ClusterProcess } from '../../bench/cluster-process.js';
import { runStatement } from '../support/http.js';
import { defaultConfig } from '../../lib/config.js';
import { TPCH_QUERIES } from '../../lib/tpch/queries/tpch-queries.js';
import { finishedStatement, healthy, USER } from './cluster-nodes.js';

describe('e2e: catalogs from files', function () {
  this.timeout(120_000);
  let dir: string;
  let cluster: ClusterProcess | undefined;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'vivace-e2e-catalogs-'));
    mkdirSync(join(dir, 'catalog'));
    mkdirSync(join(dir, 'warehouse'));
    writeFileSync(join(dir, 'catalog', 'tpch.properties'), 'connector.name=tpch\n');
    writeFileSync(join(dir, 'catalog', 'warehouse.properties'),
      `connector.name=hive\nhive.metastore=file\nhive.metastore.catalog.dir=local:///metastore\nfs.native-local.enabled=true\nlocal.location=${join(dir, 'warehouse')}\n`);
  });
  after(async () => {
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const query = async (sql: string) => (await finishedStatement(cluster!, sql)).rows;

  it('serves the files\' catalogs on both workers, the hive one writing under its own root', async () => {
    cluster = await startClusterProcess({ workers: 2, dataDirectory: join(dir, 'data'), properties: { 'catalog.config-dir': join(dir, 'catalog') }, captureOutput: true });
    await until('both workers healthy', 60_000, () => healthy(cluster!, 2));
    expect(await query('SHOW CATALOGS')).to.deep.equal([['system'], ['tpch'], ['warehouse']]);
    // Trino's connector_name: the connector's name, not the catalog's.
    expect(await query('SELECT catalog_name, connector_name FROM system.metadata.catalogs ORDER BY 1')).to.deep.equal([['system', 'system'], ['tpch', 'tpch'], ['warehouse', 'hive']]);
    await query('CREATE SCHEMA warehouse.s');
    expect(await query('CREATE TABLE warehouse.s.nation AS SELECT nationkey, name FROM tpch.tiny.nation')).to.deep.equal([[25]]);
    // Read on whichever worker runs it: the same files on both.
    for (let i = 0; i < 4; i++) expect(await query('SELECT count(*) FROM warehouse.s.nation')).to.deep.equal([[25]]);
    expect(existsSync(join(dir, 'warehouse', 'metastore', 's', 'nation', '.trinoSchema'))).to.equal(true);
    expect(existsSync(join(dir, 'data', 'lake'))).to.equal(false);
    const memory = await runStatement(cluster.url, 'CREATE TABLE memory.default.t (x integer)', USER);
    expect(memory.final.error.errorName).to.equal('CATALOG_NOT_FOUND');
  });

  it('a bad catalog file stops the start: non-zero exit, the file, line and property named', () => {
    const bad = join(dir, 'bad');
    mkdirSync(join(bad, 'etc', 'catalog'), { recursive: true });
    writeFileSync(join(bad, 'config.properties'), `data.directory=${join(dir, 'data')}\n`);
    writeFileSync(join(bad, 'etc', 'catalog', 'lake.properties'), '# a lake\nconnector.name=hive\nhive.metastore=glue\n');
    const run = spawnSync(resolve('bin/vivace'), ['serve', '--port', '0', '--workers', '0', '--config', join(bad, 'config.properties')], {
      encoding: 'utf8', timeout: 60_000, env: { ...process.env, VIVACE_FROM_SOURCE: '1' },
    });
    expect(run.status).to.equal(1);
    expect(run.stderr).to.include(`${join(bad, 'etc', 'catalog', 'lake.properties')}:3: hive.metastore: only 'file' is supported here`);
    expect(run.stdout).to.not.include('listening');
  });

  it('serves tpch as tiny (tiny.properties) with no memory catalog: Q6 splits with a leaf on each worker, USE needs a catalog', async () => {
    await cluster?.stop();
    cluster = undefined;
    const catalogs = join(dir, 'tiny-catalog');
    mkdirSync(catalogs);
    writeFileSync(join(catalogs, 'tiny.properties'), '# TPC-H under the name of this file\nconnector.name=tpch\n');
    const data = join(dir, 'tiny-data');
    mkdirSync(data);
    // The shared tpch cache when this machine has one: tiny is not generated again.
    const shared = join(defaultConfig().dataDirectory, 'tpch');
    if (existsSync(join(shared, 'tiny', 'manifest.json'))) symlinkSync(shared, join(data, 'tpch'));
    cluster = await startClusterProcess({
      workers: 2, dataDirectory: data, captureOutput: true,
      properties: { 'catalog.config-dir': catalogs, 'vivace.distributed-tpch-min-rows': '0' },
    });
    await until('both workers healthy', 60_000, () => healthy(cluster!, 2));
    expect(await query('SHOW CATALOGS')).to.deep.equal([['system'], ['tiny']]);
    expect(await query('SELECT catalog_name, connector_name FROM system.metadata.catalogs ORDER BY 1')).to.deep.equal([['system', 'system'], ['tiny', 'tpch']]);
    const headers = { ...USER, 'X-Trino-Catalog': 'tiny', 'X-Trino-Schema': 'tiny' };
    // One task first: a worker generates tiny into the data directory when it has none.
    expect((await runStatement(cluster.url, 'SELECT count(*) FROM nation', headers)).rows).to.deep.equal([[25]]);
    const q6 = await runStatement(cluster.url, TPCH_QUERIES[5]!.sql, headers);
    expect(q6.final.stats.state, JSON.stringify(q6.final.error)).to.equal('FINISHED');
    expect(q6.rows).to.have.length(1);
    const leaf = q6.final.stats.rootStage.subStages[0] as { nodes: number; completedSplits: number } | undefined;
    expect(leaf, 'the leaf stage').to.include({ nodes: 2, completedSplits: 2 });
    for (const sql of ['SELECT * FROM tpch.tiny.nation', 'CREATE TABLE memory.default.t (a bigint)']) {
      expect((await runStatement(cluster.url, sql, headers)).final.error?.errorName, sql).to.equal('CATALOG_NOT_FOUND');
    }
    const use = await runStatement(cluster.url, 'USE tiny', USER);
    expect([use.final.error?.errorName, use.final.error?.message]).to.deep.equal(['MISSING_CATALOG_NAME', 'Catalog must be specified when session catalog is not set']);
  });
});
