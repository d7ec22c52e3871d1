// A created catalog's root, held to catalog.dynamic-roots before anything is created (the attacks: `..`,
// encodings, symlinks out, URIs, another catalog's tree), and the store's file written whole and read back.
import { expect } from 'chai';
import fc from 'fast-check';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VivaceError } from '../../lib/protocol/vivace-error.js';
import { CREATED_CATALOG_MARK, createdHiveCatalog, dynamicCatalogSettings, dynamicRootsOf, storeCatalogFile, storedProperties } from '../../lib/connectors/dynamic-catalogs.js';
import { ERROR_CODES } from '../../lib/protocol/error-codes.js';
import { loadCatalogs } from '../../lib/connectors/catalog-files.js';
import { formatPropertiesText, parsePropertiesText } from '../../lib/connectors/properties-text.js';
import type { CatalogConfig } from '../../lib/connectors/catalog.types.js';

const hiveProperties = (dir: string, extra: Record<string, string> = {}) => ({
  'hive.metastore': 'file', 'hive.metastore.catalog.dir': dir, 'fs.native-local.enabled': 'true', ...extra,
});

/** The VivaceError `fn` throws (the spec fails when it throws nothing or something else). */
function refusal(fn: () => unknown): VivaceError {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  expect(caught).to.be.instanceOf(VivaceError);
  return caught as VivaceError;
}

describe('dynamic catalogs: roots and store', () => {
  let dir: string;
  let roots: string[];
  let outside: string;
  beforeEach(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'vivace-dynamic-')));
    roots = dynamicRootsOf([join(dir, 'roots')], join(dir, 'data'), [join(dir, 'data', 'tpch')]);
    outside = join(dir, 'outside');
    mkdirSync(outside);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('creates a catalog under a root from a file:/// catalog directory, the root made only then', () => {
    const root = join(dir, 'roots', 'a');
    expect(existsSync(root)).to.equal(false);
    const config = createdHiveCatalog('a', hiveProperties(`file://${root}`), roots, []);
    expect(config).to.include({ name: 'a', connector: 'hive', root, metastoreDirectory: root });
    expect(existsSync(root)).to.equal(true);
    // local.location and a local:/// directory under it, and the root itself.
    const b = createdHiveCatalog('b', hiveProperties('local:///meta', { 'local.location': join(dir, 'roots', 'b') }), roots, [config]);
    expect(b).to.include({ root: join(dir, 'roots', 'b'), metastoreDirectory: join(dir, 'roots', 'b', 'meta') });
    expect(createdHiveCatalog('c', hiveProperties(`local://${roots[0]}`), roots, []).root).to.equal(roots[0]);
  });

  it('refuses roots outside catalog.dynamic-roots, however written, and creates nothing', () => {
    const attempts = [
      `file://${dir}/roots/../outside/x`, // .. out
      `file://${dir}/roots/./x`,
      `file://${dir}/roots/%2e%2e/outside`, // no decoding: refused, not guessed
      `file://${dir}/roots%2Fx`,
      `file://${outside}/x`,
      `FILE://${dir}/roots/x`, // no scheme then: not absolute
      `file:${dir}/roots/x`,
      `file://host${dir}/roots/x`,
      `${dir}/roots/x`, // a plain path is no root without local.location
      `file://${dir}/ROOTS/x`, // case matters on this file system
      `file://${dir}/roots-x/y`, // a sibling sharing the prefix
      `file://${dir}`, // holds the roots
    ];
    for (const text of attempts) {
      const err = refusal(() => createdHiveCatalog('x', hiveProperties(text), roots, []));
      expect(err.errorName, text).to.equal('INVALID_CATALOG_PROPERTY');
      expect(err.message, text).to.match(/^Invalid catalog property '(hive\.metastore\.catalog\.dir|local\.location)'/);
    }
    const local = refusal(() => createdHiveCatalog('x', hiveProperties('local:///m', { 'local.location': `${dir}/roots/../outside` }), roots, []));
    expect(local.message).to.include("Invalid catalog property 'local.location'");
    expect(readdirSync(outside)).to.deep.equal([]);
    expect(readdirSync(join(dir, 'roots'))).to.deep.equal([]);
    expect(existsSync(join(dir, 'roots-x'))).to.equal(false);
  });

  it('follows symlinks before deciding: a link out of a root is refused, nothing created through it', () => {
    symlinkSync(outside, join(dir, 'roots', 'link'));
    const err = refusal(() => createdHiveCatalog('x', hiveProperties(`file://${dir}/roots/link/new`), roots, []));
    expect(err.message).to.include('is not under catalog.dynamic-roots');
    expect(readdirSync(outside)).to.deep.equal([]);
  });

  it("refuses another catalog's root, a root nested in it, and one holding it", () => {
    const a = createdHiveCatalog('a', hiveProperties(`file://${dir}/roots/a`), roots, []);
    const others: CatalogConfig[] = [a];
    expect(refusal(() => createdHiveCatalog('b', hiveProperties(`file://${dir}/roots/a`), roots, others)).message).to.include('is the root of catalog a');
    expect(refusal(() => createdHiveCatalog('b', hiveProperties(`file://${dir}/roots/a/b`), roots, others)).message).to.include('lies under the root of catalog a');
    expect(refusal(() => createdHiveCatalog('b', hiveProperties(`file://${dir}/roots`), roots, others)).message).to.include('holds the root of catalog a');
    expect(existsSync(join(dir, 'roots', 'a', 'b'))).to.equal(false);
  });

  it('checks every property before the root: a bad one creates nothing', () => {
    for (const [extra, property] of [[{ bogus: '1' }, 'bogus'], [{ 'hive.storage-format': 'ORC' }, 'hive.storage-format'], [{ 'connector.name': 'hive' }, 'connector.name']] as const) {
      const err = refusal(() => createdHiveCatalog('x', hiveProperties(`file://${dir}/roots/x`, extra), roots, []));
      expect(err.message).to.include(`Invalid catalog property '${property}'`);
    }
    expect(refusal(() => createdHiveCatalog('x', { 'hive.metastore': 'glue' }, roots, [])).message).to.include("'hive.metastore'");
    expect(existsSync(join(dir, 'roots', 'x'))).to.equal(false);
  });

  it('refuses dynamic roots that reach what the node keeps', () => {
    const data = join(dir, 'data');
    for (const [root, why] of [['/', 'file system root'], [dir, 'holds the data directory'], [data, 'holds the data directory'], [join(data, 'tpch', 'x'), 'overlaps']] as const) {
      expect(() => dynamicRootsOf([root], data, [join(data, 'tpch')]), root).to.throw(why);
    }
    expect(dynamicRootsOf(undefined, data, [])).to.deep.equal([join(data, 'catalogs')]);
  });

  it('stores a catalog file whole (no temporary file left) and reads it back, odd values included', () => {
    const store = join(dir, 'store');
    const properties = { 'hive.metastore.catalog.dir': 'file:///x y:z=w#!\\', 'a\nb': 'line\nbreak\r\u00e9\u{1f600}', ' lead': ' both ' };
    const file = storeCatalogFile(store, 'c', 'hive', properties);
    expect(readdirSync(store)).to.deep.equal(['c.properties']);
    expect(readFileSync(file, 'utf8').split('\n')).to.have.length(6);
    expect(readFileSync(file, 'utf8').split('\n')[0]).to.equal(CREATED_CATALOG_MARK);
    expect(storedProperties(file)).to.deep.equal(properties);
  });

  it('formats any entries as text that parses back to them', () => {
    fc.assert(fc.property(fc.array(fc.record({ key: fc.string({ unit: 'binary' }), value: fc.string({ unit: 'binary' }) }), { maxLength: 8 }), (entries) => {
      const parsed = parsePropertiesText(formatPropertiesText(entries));
      expect(parsed.map((e) => ({ key: e.key, value: e.value }))).to.deep.equal(entries);
    }));
  });

  it('a node with the built-in set serves created catalogs stored beside it', () => {
    const data = join(dir, 'data');
    const store = join(data, 'catalog-store');
    createdHiveCatalog('mine', hiveProperties(`file://${dir}/roots/mine`), roots, []);
    storeCatalogFile(store, 'mine', 'hive', hiveProperties(`file://${dir}/roots/mine`));
    const names = loadCatalogs({ dataDirectory: data, createdStore: store }).map((c) => c.name);
    expect(names).to.deep.equal(['lake', 'memory', 'mine', 'system', 'tpch']);
  });

  it('holds stored catalogs to catalog.dynamic-roots again at start: a root now outside, or swapped for a link out, stops the start naming the file', () => {
    const data = join(dir, 'data');
    const store = join(data, 'catalog-store');
    createdHiveCatalog('mine', hiveProperties(`file://${dir}/roots/mine`), roots, []);
    const file = storeCatalogFile(store, 'mine', 'hive', hiveProperties(`file://${dir}/roots/mine`));
    const start = (dynamicRoots: string[]) => {
      const catalogs = loadCatalogs({ dataDirectory: data, createdStore: store });
      return dynamicCatalogSettings({ catalogManagement: 'dynamic', catalogDynamicRoots: dynamicRoots, dataDirectory: data, tempDirectory: join(dir, 'tmp') }, undefined, catalogs);
    };
    expect(start([join(dir, 'roots')])?.roots).to.deep.equal(roots);
    // The roots changed since CREATE CATALOG: the catalog is refused, its file named.
    const moved = refusal(() => start([join(dir, 'other-roots')]));
    expect(moved.errorName).to.equal('CONFIGURATION_INVALID');
    expect(moved.message).to.include(`${file}: catalog mine was created by CREATE CATALOG and is not served`);
    expect(moved.message).to.include('is not under catalog.dynamic-roots');
    // Its root swapped for a link out of the roots.
    rmSync(join(dir, 'roots', 'mine'), { recursive: true });
    symlinkSync(outside, join(dir, 'roots', 'mine'));
    expect(refusal(() => start([join(dir, 'roots')])).message).to.include(`${file}: catalog mine`);
  });

  it('in a catalog directory, re-checks only the files CREATE CATALOG stored (an administrator\'s are the configuration)', () => {
    const data = join(dir, 'data');
    const catalogDir = join(dir, 'etc', 'catalog');
    mkdirSync(join(dir, 'admin-root'));
    storeCatalogFile(catalogDir, 'admin', 'hive', hiveProperties(`file://${dir}/admin-root`));
    // An administrator's file has no mark: written by hand, its root is wherever they put it.
    const adminFile = join(catalogDir, 'admin.properties');
    writeFileSync(adminFile, readFileSync(adminFile, 'utf8').split('\n').slice(1).join('\n'));
    const settings = { catalogManagement: 'dynamic' as const, catalogDynamicRoots: [join(dir, 'roots')], dataDirectory: data, tempDirectory: join(dir, 'tmp') };
    expect(dynamicCatalogSettings(settings, catalogDir, loadCatalogs({ configDirectory: catalogDir, dataDirectory: data }))?.store).to.equal(catalogDir);
    mkdirSync(join(dir, 'elsewhere'));
    storeCatalogFile(catalogDir, 'made', 'hive', hiveProperties(`file://${dir}/elsewhere`));
    const err = refusal(() => dynamicCatalogSettings(settings, catalogDir, loadCatalogs({ configDirectory: catalogDir, dataDirectory: data })));
    expect(err.message).to.include(`${join(catalogDir, 'made.properties')}: catalog made was created by CREATE CATALOG`);
  });

  it("has Trino's INVALID_CATALOG_PROPERTY (StandardErrorCode 124, a user error) in the error table", () => {
    expect(ERROR_CODES.INVALID_CATALOG_PROPERTY).to.deep.equal({ code: 124, type: 'USER_ERROR' });
  });
});
