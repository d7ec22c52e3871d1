// Catalog files as in Trino (catalog.config-dir, NAME.properties): the set they make, and every way a file
// can be wrong stopping the start with a message that names the file, the line and the property.
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync, chmodSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtInCatalogs, catalogDirectory, catalogOfFile, loadCatalogs } from '../../lib/connectors/catalog-files.js';
import type { HiveCatalogConfig } from '../../lib/connectors/catalog.types.js';

describe('catalog files', () => {
  let dir: string;
  let catalogs: string;
  let lake: string;
  beforeEach(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'vivace-catalog-files-')));
    catalogs = join(dir, 'etc', 'catalog');
    lake = join(dir, 'lake');
    mkdirSync(catalogs, { recursive: true });
    mkdirSync(lake);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const write = (name: string, text: string) => {
    writeFileSync(join(catalogs, name), text);
    return join(catalogs, name);
  };
  const hive = (extra = '', location = lake) => `connector.name=hive\nhive.metastore=file\nfs.local.enabled=true\nlocal.location=${location}\nhive.metastore.catalog.dir=local:///\n${extra}`;
  const problem = (name: string, text: string) => {
    const file = write(name, text);
    try {
      catalogOfFile(file, dir);
    } catch (err) {
      const e = err as { errorName: string; message: string };
      expect(e.errorName).to.equal('CONFIGURATION_INVALID');
      return e.message.slice(file.length);
    }
    throw new Error(`${name} was taken`);
  };

  it('takes a folder of files as a hive catalog in two lines: the file metastore and local file system are the defaults', () => {
    const two = catalogOfFile(write('w.properties', `connector.name=hive\nlocal.location=${lake}\n`), dir) as HiveCatalogConfig;
    const five = catalogOfFile(write('w.properties', hive()), dir) as HiveCatalogConfig;
    expect(two).to.deep.equal(five);
    expect(two.metastoreDirectory).to.equal(two.root);
    const legacy = catalogOfFile(write('w.properties', `connector.name=hive\nfs.local.enabled=false\nfs.native-local.enabled=true\nlocal.location=${lake}\n`), dir) as HiveCatalogConfig;
    expect(legacy.root).to.equal(two.root);
  });

  it('serves the built-in set without a catalog directory: tpch, memory, system and a lake over data.directory/lake', () => {
    const set = loadCatalogs({ dataDirectory: dir });
    expect(set.map((c) => `${c.name}:${c.connector}`)).to.deep.equal(['tpch:tpch', 'memory:memory', 'system:system', 'lake:hive']);
    expect((set[3] as HiveCatalogConfig).root).to.equal(join(dir, 'lake'));
    expect(builtInCatalogs(dir)).to.deep.equal(set);
  });

  it('reads etc/catalog beside the config file: one catalog per .properties file, system always, other files ignored', () => {
    write('tpch.properties', 'connector.name=tpch\ntpch.splits-per-node=4\n');
    write('sales.properties', hive('hive.storage-format=csv\nhive.max-split-size=16MB\n'));
    write('notes.txt', 'connector.name=nothing');
    mkdirSync(join(catalogs, 'dir.properties'));
    const set = loadCatalogs({ configFile: join(dir, 'config.properties'), dataDirectory: dir });
    expect(set.map((c) => `${c.name}:${c.connector}`)).to.deep.equal(['sales:hive', 'system:system', 'tpch:tpch']);
    const sales = set[0] as HiveCatalogConfig;
    expect([sales.storageFormat, sales.maxSplitSizeBytes, sales.maxInitialSplitSizeBytes, sales.metastoreDirectory]).to.deep.equal(['CSV', 16 * 1024 * 1024, 8 * 1024 * 1024, lake]);
    expect(sales.file).to.equal(join(catalogs, 'sales.properties'));
  });

  it('finds Trino\'s layout first: etc/catalog beside etc/config.properties', () => {
    const trino = join(dir, 'trino', 'etc');
    mkdirSync(join(trino, 'catalog'), { recursive: true });
    expect(catalogDirectory({ configFile: join(trino, 'config.properties'), dataDirectory: dir })).to.equal(join(trino, 'catalog'));
    expect(catalogDirectory({ configFile: join(dir, 'config.properties'), dataDirectory: dir })).to.equal(catalogs);
    expect(catalogDirectory({ configFile: join(dir, 'etc', 'config.properties'), dataDirectory: dir }), 'etc/config.properties beside etc/catalog').to.equal(catalogs);
  });

  it('takes catalog.config-dir relative to the config file, and refuses one that does not exist', () => {
    expect(catalogDirectory({ configDirectory: 'etc/catalog', configFile: join(dir, 'c.properties'), dataDirectory: dir })).to.equal(catalogs);
    expect(() => catalogDirectory({ configDirectory: 'nowhere', configFile: join(dir, 'c.properties'), dataDirectory: dir })).to.throw(/catalog.config-dir: not a directory/);
    // No explicit directory and none beside the config: the built-in set.
    expect(catalogDirectory({ configFile: join(dir, 'elsewhere', 'c.properties'), dataDirectory: dir })).to.equal(undefined);
  });

  it('names the file, the line and the property of every mistake', () => {
    expect(problem('a.properties', 'hive.metastore=file\n')).to.equal(`: connector.name: Catalog configuration ${join(catalogs, 'a.properties')} does not contain 'connector.name'`);
    expect(problem('a.properties', '\nconnector.name=mysql\n')).to.equal(":2: connector.name: unknown connector 'mysql' (here: tpch, memory, hive)");
    expect(problem('a.properties', hive('hive.foo=1\n'))).to.equal(':6: hive.foo: is not a property of the hive connector here');
    expect(problem('a.properties', 'connector.name=hive\nhive.metastore=thrift\n')).to.match(/^:2: hive.metastore: only 'file' is supported here/);
    expect(problem('a.properties', 'connector.name=hive\nfs.local.enabled=false\nlocal.location=/tmp\n')).to.match(/^:2: fs.local.enabled: must be true/);
    expect(problem('a.properties', 'connector.name=hive\n')).to.equal(': local.location: is required');
    expect(problem('a.properties', 'connector.name=hive\nhive.metastore=file\nfs.native-local.enabled=true\n')).to.equal(': local.location: is required');
    expect(problem('a.properties', hive('hive.storage-format=ORC\n'))).to.equal(':6: hive.storage-format: ORC has no reader here (PARQUET, JSON, TEXTFILE and CSV do)');
    expect(problem('a.properties', hive('hive.storage-format=parquet2\n'))).to.match(/^:6: hive.storage-format: must be one of ORC, PARQUET/);
    expect(problem('a.properties', hive('hive.max-split-size=big\n'))).to.equal(':6: hive.max-split-size: must be a data size such as 64MB: big');
    expect(problem('a.properties', hive('fs.local.enabled=yes\n'))).to.equal(':6: fs.local.enabled: must be true or false: yes');
    expect(problem('a.properties', hive('hive.security=ranger\n'))).to.include(":6: hive.security: 'ranger' is not supported here (allow-all only)");
    expect(problem('a.properties', hive('hive.security=file\nsecurity.config-file=/etc/rules.json\n'))).to.match(/^:6: hive.security: 'file' is not supported here \(allow-all only\): write the catalog's rules in the system access rules file/);
    expect(problem('a.properties', hive('hive.security=READ-ONLY\n'))).to.include(":6: hive.security: 'read-only' is not supported here");
    expect(problem('memory.properties', 'connector.name=tpch\n')).to.equal(':1: connector.name: the catalog memory must use the memory connector here (DuckDB keeps the database memory for it)');
    expect(problem('tpch.properties', hive())).to.equal(':1: connector.name: the catalog tpch must use the tpch connector here (DuckDB keeps the database tpch for it)');
    expect(problem('tpch.properties', 'connector.name=tpch\ntpch.column-naming=STANDARD\n')).to.equal(':2: tpch.column-naming: only SIMPLE is supported here');
    expect(problem('a.properties', 'connector.name=hive\\\n  \\u00zz\n')).to.equal(':1: Malformed \\uxxxx encoding');
  });

  it('refuses reserved and unreachable catalog names', () => {
    expect(problem('system.properties', 'connector.name=memory\n')).to.equal(': Catalog name SYSTEM is reserved for internal usage');
    for (const name of ['Sales', 'temp', 'main', 'vivace_stage', '1abc', 'a-b', 'information_schema']) {
      expect(problem(`${name}.properties`, hive()), name).to.match(/cannot name a catalog here/);
    }
    expect(problem('a.properties', 'connector.name=system\n')).to.match(/the system connector is built in/);
  });

  it('holds the root and the metastore directory to real, writable directories, the metastore under the root', () => {
    expect(problem('a.properties', hive('', join(dir, 'missing')))).to.equal(`:4: local.location: directory does not exist: ${join(dir, 'missing')}`);
    expect(problem('a.properties', hive('', 'lake'))).to.equal(':4: local.location: must be an absolute path: lake');
    writeFileSync(join(dir, 'file'), '');
    expect(problem('a.properties', hive('', join(dir, 'file')))).to.equal(`:4: local.location: is not a directory: ${join(dir, 'file')}`);
    if (process.getuid?.() !== 0) {
      mkdirSync(join(dir, 'readonly'));
      chmodSync(join(dir, 'readonly'), 0o555);
      expect(problem('a.properties', hive('', join(dir, 'readonly')))).to.match(/cannot be written/);
    }
    // The metastore directory: under the root in every spelling, never outside it.
    symlinkSync('/etc', join(lake, 'out'));
    const base = 'connector.name=hive\nhive.metastore=file\nfs.local.enabled=true\nlocal.location=' + lake + '\n';
    for (const escape of ['local:///../x', 'file:///../../etc', '/etc', 'local:///out/x', `${lake}/../x`, 'relative/dir', 'local://host/x']) {
      const message = problem('a.properties', `${base}hive.metastore.catalog.dir=${escape}\n`);
      expect(message, escape).to.match(/^:5: hive.metastore.catalog.dir: /);
    }
    // %2e%2e is a name, not a way up: it stays inside the root.
    const inside = catalogOfFile(write('a.properties', `${base}hive.metastore.catalog.dir=local:///%2e%2e/meta\n`), dir) as HiveCatalogConfig;
    expect(inside.metastoreDirectory).to.equal(join(lake, '%2e%2e', 'meta'));
    const sub = catalogOfFile(write('a.properties', `${base}hive.metastore.catalog.dir=local:///metastore\n`), dir) as HiveCatalogConfig;
    expect([sub.root, sub.metastoreDirectory]).to.deep.equal([lake, join(lake, 'metastore')]);
  });

  it('serves tpch and memory under their files\' names, one of each', () => {
    write('tiny.properties', 'connector.name=tpch\n');
    write('scratch.properties', 'connector.name=memory\n');
    const set = loadCatalogs({ configDirectory: catalogs, dataDirectory: dir });
    expect(set.map((c) => [c.name, c.connector])).to.deep.equal([['scratch', 'memory'], ['system', 'system'], ['tiny', 'tpch']]);
    const second = write('tpch.properties', '# another\nconnector.name=tpch\n');
    expect(() => loadCatalogs({ configDirectory: catalogs, dataDirectory: dir })).to.throw(`${second}:2: connector.name: a second tpch catalog (tiny is one): one tpch catalog per cluster here`);
    rmSync(second);
    const memory = write('x.properties', 'connector.name=memory\n');
    expect(() => loadCatalogs({ configDirectory: catalogs, dataDirectory: dir })).to.throw(`${memory}:1: connector.name: a second memory catalog (scratch is one): one memory catalog per cluster here`);
  });

  it('refuses two hive catalogs whose roots are one directory or nested, naming the later file\'s line', () => {
    mkdirSync(join(lake, 'inner'));
    write('a.properties', hive());
    const check = (name: string, location: string, relation: string) => {
      const file = write(name, hive('', location));
      expect(() => loadCatalogs({ configDirectory: catalogs, dataDirectory: dir }), name)
        .to.throw(`${file}:4: local.location: ${location} ${relation} catalog a (${join(catalogs, 'a.properties')}): two hive catalogs cannot share a tree`);
      rmSync(file);
    };
    check('b.properties', lake, 'is the root of');
    check('b.properties', join(lake, 'inner'), 'lies under the root of');
    mkdirSync(join(dir, 'outer', 'deeper'), { recursive: true });
    rmSync(join(catalogs, 'a.properties'));
    write('a.properties', hive('', join(dir, 'outer', 'deeper')));
    check('b.properties', join(dir, 'outer'), 'holds the root of');
    // Siblings, and a name that only starts like the other root, are separate trees.
    mkdirSync(join(dir, 'outer', 'deeper2'));
    write('c.properties', hive('', join(dir, 'outer', 'deeper2')));
    expect(loadCatalogs({ configDirectory: catalogs, dataDirectory: dir }).map((c) => c.name)).to.deep.equal(['a', 'c', 'system']);
  });
});
