// An engine serving tpch and memory under their catalog files' names (tiny.properties, scratch.properties)
// or serving no memory catalog: statements, listings, system.metadata.catalogs, tpch's hidden column and
// declared types, memory's declared types and USE all go by the served names; the DuckDB databases keep
// theirs (tpch, memory), which no statement reaches, and close gives the names back.
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDuckDbEngine, type DuckDbEngine } from '../../../lib/engine/duckdb-engine.js';
import { CatalogNames } from '../../../lib/engine/dialect/catalog-names.js';
import { SystemTablesBinding } from '../../../lib/connectors/system/system-tables.js';
import { defaultConfig } from '../../../lib/config.js';
import { runSql, testSession } from '../engine-helpers.js';

const TPCH = join(defaultConfig().dataDirectory, 'tpch');
const failure = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e as { errorName: string; message: string });
const noSession = testSession({ catalog: undefined, schema: undefined });

describe('served catalogs: tpch and memory under their files\' names', function () {
  this.timeout(60_000);
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'vivace-served-catalogs-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const system = () => {
    const binding = new SystemTablesBinding();
    binding.bind({ nodes: () => [], queries: () => [], tasks: () => [] });
    return binding;
  };

  describe('tpch as tiny, no memory catalog', () => {
    let engine: DuckDbEngine;
    const tiny = testSession({ catalog: 'tiny', schema: 'tiny' });
    before(async () => {
      engine = await createDuckDbEngine({ tempDirectory: join(dir, 'a'), threads: 1, maxConnections: 2, tpch: { directory: TPCH, catalog: 'tiny', log: () => {} }, memory: false, system: system() });
    });
    after(async () => engine.close());

    it('lists tiny and system, with their connectors', async () => {
      expect((await runSql(engine, 'SHOW CATALOGS', tiny)).rows).to.deep.equal([['system'], ['tiny']]);
      expect((await runSql(engine, 'SELECT catalog_name, connector_name FROM system.metadata.catalogs ORDER BY 1', tiny)).rows).to.deep.equal([['system', 'system'], ['tiny', 'tpch']]);
      expect((await runSql(engine, 'SELECT DISTINCT table_cat FROM system.jdbc.tables ORDER BY 1', tiny)).rows).to.deep.equal([['system'], ['tiny']]);
    });

    it('reads tpch as tiny, its hidden row_number and declared varchar bounds too; tpch and memory are no catalogs', async () => {
      expect((await runSql(engine, 'SELECT count(*) FROM tiny.tiny.nation', tiny)).rows).to.deep.equal([[25]]);
      expect((await runSql(engine, 'SELECT row_number, name FROM nation WHERE nationkey = 3', tiny)).rows).to.deep.equal([[3, 'CANADA']]);
      const described = (await runSql(engine, 'DESCRIBE nation', tiny)).rows.map((r) => [r[0], r[1]]);
      expect(described).to.deep.include(['name', 'varchar(25)']);
      expect((await runSql(engine, 'SELECT name FROM nation LIMIT 1', tiny)).plan.columns[0]!.type).to.deep.equal({ base: 'varchar', length: 25 });
      for (const sql of ['SELECT * FROM tpch.tiny.nation', 'CREATE TABLE memory.default.t (a bigint)', 'SELECT * FROM memory.default.t']) {
        expect((await failure(runSql(engine, sql, tiny)))?.errorName, sql).to.equal('CATALOG_NOT_FOUND');
      }
    });

    it('USE without a catalog and no session catalog: MISSING_CATALOG_NAME (no memory catalog to fall back to)', async () => {
      const err = await failure(runSql(engine, 'USE tiny', noSession));
      expect([err?.errorName, err?.message]).to.deep.equal(['MISSING_CATALOG_NAME', 'Catalog must be specified when session catalog is not set']);
      expect((await runSql(engine, 'USE tiny.sf1', noSession)).plan.sessionUpdates).to.deep.equal({ setCatalog: 'tiny', setSchema: 'sf1' });
    });
  });

  describe('memory as scratch, no tpch', () => {
    let engine: DuckDbEngine;
    const scratch = testSession({ catalog: 'scratch', schema: 'default' });
    before(async () => {
      engine = await createDuckDbEngine({ tempDirectory: join(dir, 'b'), threads: 1, maxConnections: 2, tpch: false, memory: { catalog: 'scratch' }, system: system() });
    });
    after(async () => engine.close());

    it('writes and reads scratch, keeps its declared types, protects scratch.default, and USE falls back to it', async () => {
      await runSql(engine, 'CREATE TABLE scratch.default.t (v varchar(3))', scratch);
      await runSql(engine, "INSERT INTO t VALUES ('abc')", scratch);
      expect((await runSql(engine, 'SELECT v FROM scratch.default.t', scratch)).rows).to.deep.equal([['abc']]);
      expect((await runSql(engine, 'DESCRIBE t', scratch)).rows.map((r) => [r[0], r[1]])).to.deep.equal([['v', 'varchar(3)']]);
      expect((await runSql(engine, 'SHOW CATALOGS', scratch)).rows).to.deep.equal([['scratch'], ['system']]);
      expect((await runSql(engine, 'SELECT catalog_name, connector_name FROM system.metadata.catalogs ORDER BY 1', scratch)).rows).to.deep.equal([['scratch', 'memory'], ['system', 'system']]);
      expect((await failure(runSql(engine, 'DROP SCHEMA scratch.default', scratch)))?.errorName).to.not.equal(undefined);
      expect((await failure(runSql(engine, 'SELECT * FROM memory.default.t', scratch)))?.errorName).to.equal('CATALOG_NOT_FOUND');
      expect((await runSql(engine, 'USE default', noSession)).plan.sessionUpdates).to.deep.equal({ setCatalog: 'scratch', setSchema: 'default' });
    });
  });

  describe('once both engines closed', () => {
    it('gives the names back: no mapping outlives its engine', () => {
      expect(CatalogNames.mapped()).to.not.include.members(['tiny', 'scratch']);
      expect([CatalogNames.duckdbName('tiny'), CatalogNames.prestoName('tpch'), CatalogNames.prestoName('memory')]).to.deep.equal(['tiny', 'tpch', 'memory']);
    });
  });
});
