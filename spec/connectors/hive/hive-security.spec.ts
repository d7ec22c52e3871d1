// Every location a statement names stays under the catalog's root (issue 21 §4): `..`, absolute paths
// elsewhere, symlinks out, another catalog's directory, URIs, quoting, case and encodings, and via
// PREPARE/EXECUTE; each refused before anything is written.
import { expect } from 'chai';
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hiveFixture, type HiveFixture } from './hive-helpers.js';

describe('hive connector locations', function () {
  this.timeout(60_000);
  let f: HiveFixture;
  let outside: string;
  before(async () => {
    f = await hiveFixture();
    outside = join(f.directory, 'outside');
    mkdirSync(outside, { recursive: true });
    symlinkSync(outside, join(f.root, 'link-out'));
    await f.run('CREATE SCHEMA lake.s');
  });
  after(() => f.close());

  const attacks = () => [
    '../outside/t',
    `${outside}/t`,
    `${f.root}/../outside/t`,
    `local:///../outside/t`,
    `local:///a/../../outside/t`,
    `file:///../../outside`,
    `local://host/t`,
    `LOCAL:///t`,
    `${f.root}/link-out/t`,
    `local:///link-out/t`,
    `${f.directory}/engine/t`,
    f.root,
    `local:///`,
    '/etc',
    's3://bucket/t',
  ];

  it('refuses an external_location outside the root, whatever its spelling', async () => {
    for (const location of attacks()) {
      const literal = `'${location.split("'").join("''")}'`;
      const e = await f.failure(`CREATE TABLE lake.s.x (a integer) WITH (external_location = ${literal})`);
      expect(e.errorName, location).to.equal('INVALID_TABLE_PROPERTY');
      expect(existsSync(join(f.root, 's/x')), location).to.equal(false);
    }
    expect(readdirSync(outside)).to.deep.equal([]);
  });

  it('refuses a schema location outside the root, also through PREPARE and EXECUTE ... USING', async () => {
    for (const location of attacks()) {
      const literal = `'${location.split("'").join("''")}'`;
      const e = await f.failure(`CREATE SCHEMA lake.y WITH (location = ${literal})`);
      expect(e.errorName, location).to.equal('INVALID_SCHEMA_PROPERTY');
    }
    const session = { ...f.session, preparedStatements: { p: 'CREATE TABLE lake.s.z (a integer) WITH (external_location = ?)' } };
    const e = await f.failure(`EXECUTE p USING '${outside}/z'`, session);
    expect(e.message).to.equal(`Location references data outside of the root: ${outside}/z`);
    expect(readdirSync(outside)).to.deep.equal([]);
    expect(existsSync(join(f.root, '.y.trinoSchema'))).to.equal(false);
  });

  it('takes local:/// and absolute paths under the root, and %2e%2e as the literal name it is', async () => {
    await f.run("CREATE TABLE lake.s.inside (a integer) WITH (external_location = 'local:///data/inside')");
    expect(existsSync(join(f.root, 'data/inside'))).to.equal(true);
    await f.run("CREATE TABLE lake.s.dots (a integer) WITH (external_location = 'local:///%2e%2e/x')");
    expect(existsSync(join(f.root, '%2e%2e/x'))).to.equal(true);
    await f.run(`CREATE SCHEMA lake.placed WITH (location = '${f.root}/places/p')`);
    await f.run('CREATE TABLE lake.placed.t AS SELECT 1 AS a');
    expect(readdirSync(join(f.root, 'places/p/t')).filter((n) => !n.startsWith('.'))).to.have.length(1);
    expect((await f.run('SELECT a FROM lake.placed.t')).rows).to.deep.equal([[1]]);
  });

  it('keeps table and schema names inside their directories', async () => {
    expect((await f.failure('CREATE SCHEMA lake."..".')).errorName).to.equal('SYNTAX_ERROR');
    expect((await f.failure('CREATE SCHEMA lake.".."')).errorName).to.equal('INVALID_SCHEMA_PROPERTY');
    expect((await f.failure('CREATE TABLE lake.s."..x" (a integer)')).errorName).to.equal('INVALID_TABLE_PROPERTY');
    await f.run('CREATE TABLE lake.s."a/b" (a integer)');
    expect(existsSync(join(f.root, 's/a%2Fb/.trinoSchema'))).to.equal(true);
    expect(readdirSync(outside)).to.deep.equal([]);
  });

  it('holds metadata written by others to the root too: a table pointing outside cannot be read', async () => {
    mkdirSync(join(f.root, 's/forged'), { recursive: true });
    const forged = { tableType: 'EXTERNAL_TABLE', dataColumns: [{ name: 'a', type: 'int' }], partitionColumns: [], parameters: {}, storageFormat: 'PARQUET', serdeParameters: {}, externalLocation: outside };
    writeFileSync(join(f.root, 's/forged/.trinoSchema'), JSON.stringify(forged));
    const e = await f.failure('SELECT * FROM lake.s.forged');
    expect(e.message).to.include('Location references data outside of the root');
  });
});
