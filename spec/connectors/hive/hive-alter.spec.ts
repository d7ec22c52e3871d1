// ALTER TABLE and COMMENT on hive tables against a real root: metadata changes read back from the files on
// disk, Parquet read by column name (an added column is NULL in older files, a renamed one NULL where the
// files have the old name), RENAME TO moving a managed table's directory, Trino's refusals.
import { expect } from 'chai';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { useHiveFixture } from './hive-helpers.js';

describe('hive ALTER TABLE', function () {
  this.timeout(120_000);
  const hive = useHiveFixture();
  const columnsOnDisk = (dir: string) => (JSON.parse(readFileSync(join(hive().root, dir, '.trinoSchema'), 'utf8')) as { dataColumns: { name: string; type: string; comment?: string }[] }).dataColumns;
  const rows = async (sql: string) => (await hive().run(sql)).rows;

  it('adds a column: NULL in older files, values in new ones, written to the metastore', async () => {
    await hive().run("CREATE TABLE lake.s.a (x bigint, p varchar) WITH (partitioned_by = ARRAY['p'])");
    await hive().run("INSERT INTO lake.s.a VALUES (1, 'k')");
    const out = await hive().run("ALTER TABLE lake.s.a ADD COLUMN c varchar(5) COMMENT 'new'");
    expect(out.plan.updateType).to.equal('ADD COLUMN');
    expect(columnsOnDisk('s/a')).to.deep.equal([{ name: 'x', type: 'bigint' }, { name: 'c', type: 'varchar(5)', comment: 'new' }]);
    expect((await rows('DESCRIBE lake.s.a')).map((r) => [r[0], r[1], r[2]])).to.deep.equal([['x', 'bigint', ''], ['c', 'varchar(5)', ''], ['p', 'varchar', 'partition key']]);
    await hive().run("INSERT INTO lake.s.a VALUES (2, 'abc', 'k')");
    expect(await rows('SELECT x, c, p FROM lake.s.a ORDER BY x')).to.deep.equal([[1, null, 'k'], [2, 'abc', 'k']]);
    await hive().run('ALTER TABLE lake.s.a ADD COLUMN IF NOT EXISTS c bigint');
    expect(await hive().failure('ALTER TABLE lake.s.a ADD COLUMN c bigint')).to.deep.equal({ errorName: 'COLUMN_ALREADY_EXISTS', message: "Column 'c' already exists" });
    expect((await hive().failure('ALTER TABLE lake.s.a ADD COLUMN d bigint NOT NULL')).errorName).to.equal('NOT_SUPPORTED');
    await hive().run('ALTER TABLE IF EXISTS lake.s.missing ADD COLUMN d bigint');
    expect((await hive().failure('ALTER TABLE lake.s.missing ADD COLUMN d bigint')).errorName).to.equal('TABLE_NOT_FOUND');
  });

  it('renames a data column (older files read NULL under the new name, as Trino reads Parquet by name) and drops one', async () => {
    await hive().run("CREATE TABLE lake.s.r (x bigint, y varchar, p varchar) WITH (partitioned_by = ARRAY['p'])");
    await hive().run("INSERT INTO lake.s.r VALUES (1, 'one', 'k')");
    await hive().run('ALTER TABLE lake.s.r RENAME COLUMN y TO z');
    expect(await rows('SELECT x, z FROM lake.s.r')).to.deep.equal([[1, null]]);
    await hive().run("INSERT INTO lake.s.r VALUES (2, 'two', 'k')");
    expect(await rows('SELECT x, z FROM lake.s.r ORDER BY x')).to.deep.equal([[1, null], [2, 'two']]);
    expect((await hive().failure('ALTER TABLE lake.s.r RENAME COLUMN p TO q')).message).to.equal('Renaming partition columns is not supported');
    expect((await hive().failure('ALTER TABLE lake.s.r RENAME COLUMN nothing TO q')).errorName).to.equal('COLUMN_NOT_FOUND');
    expect((await hive().failure('ALTER TABLE lake.s.r RENAME COLUMN x TO z')).errorName).to.equal('COLUMN_ALREADY_EXISTS');
    await hive().run('ALTER TABLE lake.s.r DROP COLUMN z');
    expect(columnsOnDisk('s/r').map((c) => c.name)).to.deep.equal(['x']);
    expect(await rows('SELECT * FROM lake.s.r ORDER BY x')).to.deep.equal([[1, 'k'], [2, 'k']]);
    expect((await hive().failure('ALTER TABLE lake.s.r DROP COLUMN p')).message).to.equal('Cannot drop partition columns');
    expect((await hive().failure('ALTER TABLE lake.s.r DROP COLUMN x')).message).to.equal('Cannot drop the only non-partition column in a table');
  });

  it('renames a table, into another schema too: the managed directory moves with its rows', async () => {
    await hive().run('CREATE TABLE lake.s.old AS SELECT 1 AS x');
    const out = await hive().run('ALTER TABLE lake.s.old RENAME TO new_name');
    expect(out.plan.updateType).to.equal('RENAME TABLE');
    expect([existsSync(join(hive().root, 's', 'old')), existsSync(join(hive().root, 's', 'new_name', '.trinoSchema'))]).to.deep.equal([false, true]);
    expect(await rows('SELECT x FROM lake.s.new_name')).to.deep.equal([[1]]);
    expect((await hive().failure('SELECT x FROM lake.s.old')).errorName).to.equal('TABLE_NOT_FOUND');
    await hive().run('CREATE SCHEMA lake.t');
    await hive().run('ALTER TABLE lake.s.new_name RENAME TO lake.t.moved');
    expect(await rows('SELECT x FROM lake.t.moved')).to.deep.equal([[1]]);
    await hive().run('CREATE TABLE lake.t.other AS SELECT 2 AS x');
    expect((await hive().failure('ALTER TABLE lake.t.moved RENAME TO other')).errorName).to.equal('TABLE_ALREADY_EXISTS');
    expect((await hive().failure('ALTER TABLE lake.t.moved RENAME TO memory.default.moved')).message).to.equal('Table rename across catalogs is not supported');
    expect((await hive().failure('ALTER TABLE lake.t.moved RENAME TO nowhere.moved')).errorName).to.equal('SCHEMA_NOT_FOUND');
    await hive().run('ALTER TABLE IF EXISTS lake.t.missing RENAME TO m2');
    // Names stay inside the root: a climbing name is refused before anything moves.
    for (const climbing of ['"../../escape"', '".."', '"."']) {
      expect((await hive().failure(`ALTER TABLE lake.t.moved RENAME TO ${climbing}`)).message, climbing).to.match(/^Invalid table name: /);
    }
    expect(existsSync(join(hive().root, '..', 'escape'))).to.equal(false);
    expect(await rows('SELECT x FROM lake.t.moved')).to.deep.equal([[1]]);
  });

  it('rolls a crashed commit forward before RENAME TO moves the directory (its marker names the old table)', async () => {
    await hive().run("CREATE TABLE lake.s.crashed (x bigint, p varchar) WITH (partitioned_by = ARRAY['p'])");
    await hive().run("INSERT INTO lake.s.crashed VALUES (1, 'a')");
    // What an INSERT killed after writing its marker leaves: a staged file and the marker naming s.crashed.
    const location = join(hive().root, 's', 'crashed');
    const staging = '.vivace-staging-gone.1.q.x';
    mkdirSync(join(location, staging), { recursive: true });
    await hive().direct(`COPY (SELECT 2::BIGINT AS x) TO '${join(location, staging, 'f.parquet')}' (FORMAT PARQUET)`);
    const metadata = { columns: [{ name: 'x', type: 'bigint' }], parameters: {}, storageFormat: 'PARQUET', serdeParameters: {} };
    const marker = { version: 1, staging, renames: [[`${staging}/f.parquet`, 'p=b/f.parquet']], deletes: [], partitions: ['p=b'], partitionMetadata: metadata, schema: 's', tableName: 'crashed' };
    writeFileSync(join(location, '.vivace-commit-crash.json'), JSON.stringify(marker));
    await hive().run('ALTER TABLE lake.s.crashed RENAME TO renamed');
    expect(await rows('SELECT x, p FROM lake.s.renamed ORDER BY x')).to.deep.equal([[1, 'a'], [2, 'b']]);
    expect(readdirSync(join(hive().root, 's', 'renamed')).filter((e) => e.startsWith('.vivace-'))).to.deep.equal([]);
    // Nothing was registered under the old name.
    expect(existsSync(join(hive().root, 's', 'crashed'))).to.equal(false);
  });

  it('comments a table and a column, shown by SHOW CREATE TABLE and DESCRIBE', async () => {
    await hive().run('CREATE TABLE lake.s.c (x bigint)');
    await hive().run("COMMENT ON TABLE lake.s.c IS 'the table'");
    await hive().run("COMMENT ON COLUMN lake.s.c.x IS 'the column'");
    expect(String((await rows('SHOW CREATE TABLE lake.s.c'))[0]![0])).to.include("COMMENT 'the table'");
    expect((await rows('DESCRIBE lake.s.c'))[0]).to.deep.equal(['x', 'bigint', '', 'the column']);
    await hive().run('COMMENT ON TABLE lake.s.c IS NULL');
    expect(String((await rows('SHOW CREATE TABLE lake.s.c'))[0]![0])).to.not.include("COMMENT 'the table'");
  });

  it('answers SET PROPERTIES as Trino\'s Hive connector (no setTableProperties: NOT_SUPPORTED), also prepared', async () => {
    await hive().run('CREATE TABLE lake.s.props (x bigint)');
    const unsupported = { errorName: 'NOT_SUPPORTED', message: 'This connector does not support setting table properties' };
    expect(await hive().failure("ALTER TABLE lake.s.props SET PROPERTIES format = 'CSV'")).to.deep.equal(unsupported);
    const session = { ...hive().session, preparedStatements: { p: 'ALTER TABLE lake.s.props SET PROPERTIES format = ?' } };
    expect(await hive().failure("EXECUTE p USING 'CSV'", session)).to.deep.equal(unsupported);
    expect(columnsOnDisk('s/props')).to.deep.equal([{ name: 'x', type: 'bigint' }]);
  });
});
