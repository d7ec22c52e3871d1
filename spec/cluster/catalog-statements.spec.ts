// CREATE and DROP CATALOG on the coordinator (catalog-statements.ts over catalog-manager.ts): Trino's
// errors (static store, exists, not found, AUTHORIZATION, DEFAULT, CASCADE), the catalogs rule (all needed,
// FileBasedSystemAccessControl), EXECUTE and EXECUTE IMMEDIATE with parameters, the stored file, and every
// other statement handed to the engine behind with the set the workers are sent.
import { expect } from 'chai';
import { existsSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CatalogStatementsEngine, catalogRulesOf } from '../../lib/cluster/catalog-statements.js';
import { createAccessControl } from '../../lib/security/access-control.js';
import { CatalogManager } from '../../lib/connectors/catalog-manager.js';
import { builtInCatalogs } from '../../lib/connectors/catalog-files.js';
import { dynamicRootsOf } from '../../lib/connectors/dynamic-catalogs.js';
import type { Session } from '../../lib/protocol/types.js';
import { VivaceError } from '../../lib/protocol/vivace-error.js';
import { FakeEngine } from '../support/fake-engine.js';

const session = (user = 'alice', preparedStatements: Record<string, string> = {}): Session => ({
  prefix: 'X-Trino-', user, clientTags: [], properties: {}, preparedStatements, remoteUserAddress: '127.0.0.1', startTime: 0,
});

describe('CREATE CATALOG and DROP CATALOG on the coordinator', () => {
  let dir: string;
  let store: string;
  let manager: CatalogManager;
  let inner: FakeEngine;
  let engine: CatalogStatementsEngine;
  let changes: number;
  const create = (name: string, path: string, extra = '') =>
    `CREATE CATALOG ${name} USING hive WITH ("hive.metastore" = 'file', "hive.metastore.catalog.dir" = 'file://${path}', "fs.native-local.enabled" = 'true'${extra})`;

  async function fails(sql: string, s = session()): Promise<VivaceError> {
    try {
      await engine.plan(sql, s);
    } catch (err) {
      expect(err).to.be.instanceOf(VivaceError);
      return err as VivaceError;
    }
    throw new Error(`expected ${sql} to fail`);
  }

  async function runs(sql: string, s = session()): Promise<string | undefined> {
    const plan = await engine.plan(sql, s);
    return plan.updateType;
  }

  beforeEach(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'vivace-catalog-statements-')));
    const data = join(dir, 'data');
    store = join(data, 'catalog-store');
    const catalogs = builtInCatalogs(data);
    manager = new CatalogManager(catalogs, { management: 'dynamic', store, roots: dynamicRootsOf([join(dir, 'roots')], data, []) });
    inner = new FakeEngine({ 'SELECT 1': { columns: [], rows: [] } });
    changes = 0;
    engine = new CatalogStatementsEngine(inner, manager, { catalogAccess: (user, catalog) => (user === 'alice' ? 'all' : catalog === 'ro' ? 'read-only' : 'none'), onChange: () => changes++ });
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('creates a hive catalog: stored as <name>.properties, sent to workers, IF NOT EXISTS a no-op', async () => {
    expect(await runs(create('Dyn', `${dir}/roots/dyn`))).to.equal('CREATE CATALOG');
    expect(manager.has('dyn')).to.equal(true);
    expect(readdirSync(store)).to.deep.equal(['dyn.properties']);
    expect(manager.catalogSync()!.catalogs).to.deep.equal([{ name: 'dyn', properties: { 'hive.metastore': 'file', 'hive.metastore.catalog.dir': `file://${dir}/roots/dyn`, 'fs.native-local.enabled': 'true' } }]);
    expect(await runs(create('IF NOT EXISTS dyn', `${dir}/roots/other`))).to.equal('CREATE CATALOG');
    expect(existsSync(join(dir, 'roots', 'other'))).to.equal(false);
    const again = await fails(create('dyn', `${dir}/roots/other`));
    expect([again.errorName, again.message]).to.deep.equal(['ALREADY_EXISTS', "Catalog 'dyn' already exists"]);
    expect((await fails(create('"system"', `${dir}/roots/s`))).errorName).to.equal('ALREADY_EXISTS');
    expect(changes).to.equal(1);
    expect(inner.planned).to.deep.equal([]);
  });

  it('drops it: the file goes, the data stays; IF EXISTS, not found, built-in and system refused', async () => {
    await runs(create('dyn', `${dir}/roots/dyn`));
    expect(await runs('DROP CATALOG dyn')).to.equal('DROP CATALOG');
    expect(readdirSync(store)).to.deep.equal([]);
    expect(existsSync(join(dir, 'roots', 'dyn'))).to.equal(true);
    expect(manager.catalogSync()!.catalogs).to.deep.equal([]);
    expect(await runs('DROP CATALOG IF EXISTS dyn')).to.equal('DROP CATALOG');
    const missing = await fails('DROP CATALOG dyn');
    expect([missing.errorName, missing.message]).to.deep.equal(['CATALOG_NOT_FOUND', "Catalog 'dyn' not found"]);
    for (const name of ['system', 'lake', 'tpch', 'memory']) expect((await fails(`DROP CATALOG ${name}`)).errorName, name).to.equal('NOT_SUPPORTED');
    expect((await fails('DROP CATALOG dyn CASCADE')).message).to.equal('CASCADE is not yet supported for DROP SCHEMA');
    expect(changes).to.equal(2);
  });

  it("refuses with Trino's messages: AUTHORIZATION, DEFAULT, duplicates, non-varchar values, other connectors, bad names", async () => {
    const cases: [string, string, string][] = [
      [`CREATE CATALOG x USING hive AUTHORIZATION bob WITH ("a" = 'b')`, 'NOT_SUPPORTED', 'CREATE CATALOG with AUTHORIZATION is not yet supported'],
      [`CREATE CATALOG x USING hive WITH ("hive.metastore" = DEFAULT)`, 'INVALID_ARGUMENTS', 'Catalog properties do not support DEFAULT value'],
      [`CREATE CATALOG x USING hive WITH ("a" = 'b', "a" = 'c')`, 'DUPLICATE_PROPERTY', "Catalog property 'a' is specified more than once"],
      [`CREATE CATALOG x USING hive WITH ("hive.metastore" = 1)`, 'INVALID_ARGUMENTS', "Invalid value for catalog property 'hive.metastore': must be a varchar literal"],
      [`CREATE CATALOG x USING memory`, 'NOT_SUPPORTED', "CREATE CATALOG supports the hive connector only here, not 'memory' (tpch and memory are one catalog per cluster)"],
      [`CREATE CATALOG "a-b" USING hive`, 'NOT_SUPPORTED', "Catalog name 'a-b' cannot be used here: lower-case letters, digits and _ starting with a letter, not a name DuckDB or Vivace keeps"],
      [`CREATE CATALOG vivace_x USING hive`, 'NOT_SUPPORTED', "Catalog name 'vivace_x' cannot be used here: lower-case letters, digits and _ starting with a letter, not a name DuckDB or Vivace keeps"],
      [create('x', `${dir}/roots/x`, `, "local.location" = '${dir}/elsewhere'`), 'INVALID_CATALOG_PROPERTY', "Invalid catalog property 'local.location'"],
    ];
    for (const [sql, name, message] of cases) {
      const err = await fails(sql);
      expect([err.errorName, err.message.slice(0, message.length)], sql).to.deep.equal([name, message]);
    }
    expect(readdirSync(dir)).to.deep.equal(['data', 'roots']);
  });

  it('holds create and drop to the catalogs rule: all is needed, read-only is not enough', async () => {
    const denied = await fails(create('ro', `${dir}/roots/ro`), session('bob'));
    expect([denied.errorName, denied.message]).to.deep.equal(['PERMISSION_DENIED', 'Access Denied: Cannot create catalog ro']);
    expect(existsSync(join(dir, 'roots', 'ro'))).to.equal(false);
    await runs(create('ro', `${dir}/roots/ro`));
    expect((await fails('DROP CATALOG ro', session('bob'))).message).to.equal('Access Denied: Cannot drop catalog ro');
    // The access check comes before the existence check, as CreateCatalogTask's.
    expect((await fails('DROP CATALOG IF EXISTS nothing', session('bob'))).message).to.equal('Access Denied: Cannot drop catalog nothing');
    expect(manager.has('ro')).to.equal(true);
  });

  it("follows a rules file's catalogs rules: the first matching one decides, all allows, read-only and none deny", async () => {
    const rules = join(dir, 'rules.json');
    writeFileSync(rules, JSON.stringify({
      catalogs: [
        { user: 'admin', allow: 'all' },
        { user: 'bob', catalog: 'bob_.*', allow: 'all' },
        { catalog: 'shared', allow: 'read-only' },
        { catalog: 'system', allow: 'read-only' },
      ],
    }));
    const access = createAccessControl({ securityConfigFile: rules });
    try {
      engine = new CatalogStatementsEngine(inner, manager, catalogRulesOf(access));
      expect(await runs(create('"Bob_One"', `${dir}/roots/bob_one`), session('bob'))).to.equal('CREATE CATALOG');
      for (const [user, name] of [['bob', 'shared'], ['bob', 'other'], ['bob', 'xbob_1'], ['carol', 'bob_two'], ['carol', 'shared']] as const) {
        const err = await fails(create(name, `${dir}/roots/${name}`), session(user));
        expect([err.errorName, err.message], `${user} ${name}`).to.deep.equal(['PERMISSION_DENIED', `Access Denied: Cannot create catalog ${name}`]);
      }
      expect((await fails('DROP CATALOG bob_one', session('carol'))).message).to.equal('Access Denied: Cannot drop catalog bob_one');
      expect(await runs(create('shared', `${dir}/roots/shared`), session('admin'))).to.equal('CREATE CATALOG');
      expect(await runs('DROP CATALOG bob_one', session('bob'))).to.equal('DROP CATALOG');
      expect(readdirSync(join(dir, 'roots')).sort()).to.deep.equal(['bob_one', 'shared']);
      // No rules file: the default access control allows everyone.
      expect(catalogRulesOf(createAccessControl({}))).to.deep.equal({});
    } finally {
      access.close();
    }
  });

  it('runs them through EXECUTE and EXECUTE IMMEDIATE, parameters bound; PREPARE and the rest go to the engine', async () => {
    const prepared = { p: `CREATE CATALOG e1 USING hive WITH ("hive.metastore" = ?, "hive.metastore.catalog.dir" = ?, "fs.native-local.enabled" = 'true')`, d: 'DROP CATALOG e1' };
    expect(await runs(`EXECUTE p USING 'file', 'file://${dir}/roots/e1'`, session('alice', prepared))).to.equal('CREATE CATALOG');
    expect(manager.has('e1')).to.equal(true);
    // An attack through a parameter meets the same check.
    const attack = await fails(`EXECUTE IMMEDIATE '${prepared.p.replace('e1', 'e2').replaceAll("'", "''")}' USING 'file', 'file://${dir}/roots/../x'`);
    expect(attack.message).to.include("Invalid catalog property 'hive.metastore.catalog.dir'");
    expect((await fails(`EXECUTE p USING 'file', 1`, session('alice', prepared))).message).to.include('must be a varchar literal');
    expect((await fails('EXECUTE p', session('bob', prepared))).message).to.equal('Access Denied: Cannot create catalog e1');
    expect(await runs('EXECUTE d', session('alice', prepared))).to.equal('DROP CATALOG');
    await runs('SELECT 1');
    await engine.plan(`PREPARE p FROM ${prepared.p}`, session()).catch(() => undefined);
    expect(inner.planned).to.deep.equal(['SELECT 1', `PREPARE p FROM ${prepared.p}`]);
  });

  it("static management refuses both with Trino's StaticCatalogManager messages", async () => {
    const fixed = new CatalogStatementsEngine(inner, new CatalogManager(builtInCatalogs(join(dir, 'data')), { management: 'static' }));
    for (const [sql, message] of [[create('x', `${dir}/roots/x`), 'CREATE CATALOG is not supported by the static catalog store'], ['DROP CATALOG lake', 'DROP CATALOG is not supported by the static catalog store']]) {
      const err = await fixed.plan(sql!, session()).then(() => undefined, (e: VivaceError) => e);
      expect([err?.errorName, err?.message]).to.deep.equal(['NOT_SUPPORTED', message]);
    }
    expect(new CatalogManager([], { management: 'static' }).catalogSync()).to.equal(undefined);
  });
});
