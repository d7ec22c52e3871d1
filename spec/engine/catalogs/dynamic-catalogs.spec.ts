// A worker's engine under catalog.management=dynamic: a task's catalog set (CatalogSync) opens a created hive
// catalog after the sandbox was locked (its root under a dynamic root allowed at start), lists it (SHOW
// CATALOGS, system.metadata.catalogs as hive), writes and reads it, reopens it when its properties change,
// and closes it when the set drops it, its files left. An engine started without dynamic roots refuses a set.
import { expect } from 'chai';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDuckDbEngine, type DuckDbEngine } from '../../../lib/engine/duckdb-engine.js';
import { SystemTablesBinding } from '../../../lib/connectors/system/system-tables.js';
import type { CatalogSync } from '../../../lib/connectors/dynamic-catalogs.js';
import { runSql, testSession } from '../engine-helpers.js';

const failure = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e as { errorName: string; message: string });
const session = testSession({ catalog: undefined, schema: undefined });

describe('engine: catalogs a dynamic cluster creates and drops', function () {
  this.timeout(60_000);
  let dir: string;
  let roots: string;
  let engine: DuckDbEngine;
  const sync = (catalogs: CatalogSync['catalogs']) => engine.syncCatalogs({ catalogs });
  const dyn = (name: string, extra: Record<string, string> = {}) => ({
    name, properties: { 'hive.metastore': 'file', 'hive.metastore.catalog.dir': `file://${roots}/${name}`, 'fs.native-local.enabled': 'true', ...extra },
  });
  const rows = async (sql: string) => (await runSql(engine, sql, session)).rows;

  before(async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'vivace-dynamic-engine-')));
    roots = join(dir, 'roots');
    mkdirSync(roots);
    const system = new SystemTablesBinding();
    system.bind({ nodes: () => [], queries: () => [], tasks: () => [] });
    engine = await createDuckDbEngine({ tempDirectory: join(dir, 'temp'), threads: 1, maxConnections: 2, tpch: false, system, dynamicRoots: [roots] });
  });
  after(async () => {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('opens a created catalog after the lock: listed as hive, written and read under its root', async () => {
    await sync([dyn('dyn')]);
    expect(await rows('SHOW CATALOGS')).to.deep.equal([['dyn'], ['memory'], ['system']]);
    expect(await rows("SELECT connector_name FROM system.metadata.catalogs WHERE catalog_name = 'dyn'")).to.deep.equal([['hive']]);
    await rows('CREATE SCHEMA dyn.s');
    await rows("CREATE TABLE dyn.s.t (id integer, region varchar) WITH (partitioned_by = ARRAY['region'])");
    await rows("INSERT INTO dyn.s.t VALUES (1, 'us'), (2, 'eu')");
    expect(await rows('SELECT id, region FROM dyn.s.t ORDER BY id')).to.deep.equal([[1, 'us'], [2, 'eu']]);
    expect(await rows('SELECT region FROM dyn.s."t$partitions" ORDER BY 1')).to.deep.equal([['eu'], ['us']]);
    expect(existsSync(join(roots, 'dyn', 's', 't', 'region=us'))).to.equal(true);
    // The same set again changes nothing.
    await sync([dyn('dyn')]);
    expect(await rows('SELECT count(*) FROM dyn.s.t')).to.deep.equal([[2]]);
  });

  it('refuses a catalog in the set whose root leaves the dynamic roots, and one that takes a served name', async () => {
    const out = await failure(sync([dyn('dyn'), { ...dyn('bad'), properties: { ...dyn('bad').properties, 'hive.metastore.catalog.dir': `file://${dir}/temp/x` } }]));
    expect(out?.message).to.include('is not under catalog.dynamic-roots');
    expect(existsSync(join(dir, 'temp', 'x'))).to.equal(false);
    expect((await failure(sync([dyn('memory')])))?.message).to.include('served here by another connector');
    expect((await failure(sync([dyn('Bad"; DROP')])))?.message).to.include('cannot be served here');
    expect(await rows('SELECT count(*) FROM dyn.s.t')).to.deep.equal([[2]]);
  });

  it('reopens a catalog whose properties changed, and closes one the set drops, its files left', async () => {
    await sync([dyn('dyn', { 'hive.insert-existing-partitions-behavior': 'OVERWRITE' })]);
    expect(await rows("SHOW SESSION LIKE 'dyn.%'")).to.have.length(1);
    expect(((await rows("SHOW SESSION LIKE 'dyn.%'"))[0] as unknown[])[2]).to.equal('OVERWRITE');
    await sync([]);
    expect(await rows('SHOW CATALOGS')).to.deep.equal([['memory'], ['system']]);
    expect((await failure(rows('SELECT * FROM dyn.s.t')))?.errorName).to.equal('CATALOG_NOT_FOUND');
    expect(await rows("SHOW SESSION LIKE 'dyn.%'")).to.deep.equal([]);
    expect(existsSync(join(roots, 'dyn', 's', 't', 'region=us'))).to.equal(true);
    // Created again over the same tree: its tables are back.
    await sync([dyn('dyn')]);
    expect(await rows('SELECT count(*) FROM dyn.s.t')).to.deep.equal([[2]]);
  });

  it('an engine started without dynamic roots refuses a catalog set', async () => {
    const fixed = await createDuckDbEngine({ tempDirectory: join(dir, 'temp2'), threads: 1, maxConnections: 1, tpch: false });
    try {
      expect((await failure(fixed.syncCatalogs({ catalogs: [] })))?.errorName).to.equal('CONFIGURATION_INVALID');
    } finally {
      await fixed.close();
    }
  });
});
