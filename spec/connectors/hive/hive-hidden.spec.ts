// A hive table's hidden columns ($path, $file_size, $file_modified_time, $partition) and its system tables
// ("t$partitions", "t$properties"), against real files read back with DuckDB and stat.
import { expect } from 'chai';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { useHiveFixture, type HiveFixture } from './hive-helpers.js';
import { hiddenReadSql } from '../../../lib/connectors/hive/hive-hidden-sql.js';
import { propertiesOf } from '../../../lib/connectors/hive/hive-table-properties.js';
import { parseHiveType } from '../../../lib/connectors/hive/hive-types.js';

describe('hive hidden columns and system tables', function () {
  this.timeout(120_000);
  const fixture = useHiveFixture();
  let f: HiveFixture;
  before(async () => {
    f = fixture();
    await f.run("CREATE TABLE lake.s.ev (n integer, tag varchar(5), day date) WITH (partitioned_by = ARRAY['tag', 'day'])");
    await f.run("INSERT INTO lake.s.ev VALUES (1, 'a/b', DATE '2024-01-01'), (2, NULL, DATE '2024-01-02')");
    await f.run("INSERT INTO lake.s.ev VALUES (3, 'a/b', DATE '2024-01-01')");
    await f.run('CREATE TABLE lake.s.flat (x bigint)');
    await f.run('INSERT INTO lake.s.flat VALUES (7)');
  });

  const files = (dir: string) => readdirSync(join(f.root, dir)).filter((n) => !n.startsWith('.')).sort();

  it('reads $path, $file_size, $file_modified_time and $partition by name, as the files are', async () => {
    const out = await f.run('SELECT n, "$path", "$file_size", "$file_modified_time", "$partition" FROM lake.s.ev ORDER BY n');
    expect(out.plan.columns.map((c) => c.type)).to.deep.equal([{ base: 'integer' }, { base: 'varchar' }, { base: 'bigint' }, { base: 'timestamp with time zone', precision: 3 }, { base: 'varchar' }]);
    const rows = out.rows as [number, string, number, string, string][];
    expect(rows.map((r) => r[4])).to.deep.equal(['tag=a%2Fb/day=2024-01-01', 'tag=__HIVE_DEFAULT_PARTITION__/day=2024-01-02', 'tag=a%2Fb/day=2024-01-01']);
    for (const [, path, size, modified, partition] of rows) {
      expect(path.startsWith(`local:///s/ev/${partition}/`)).to.equal(true);
      const file = join(f.root, path.slice('local:///'.length));
      const stat = statSync(file);
      expect(size).to.equal(stat.size);
      expect(modified).to.equal(`${new Date(Math.floor(stat.mtimeMs)).toISOString().replace('T', ' ').replace('Z', '')} UTC`);
      // The row is in the file $path names.
      expect((await f.direct(`SELECT count(*) FROM read_parquet('${file}')`))[0]![0]).to.not.equal(0n);
    }
    expect(new Set(rows.map((r) => r[1])).size).to.equal(3);
  });

  it('leaves them out of SELECT *, DESCRIBE and information_schema, also when a query names one', async () => {
    expect((await f.run('SELECT * FROM lake.s.ev WHERE "$file_size" > 0 ORDER BY n')).plan.columns.map((c) => c.name)).to.deep.equal(['n', 'tag', 'day']);
    expect((await f.run('SELECT *, "$path" FROM lake.s.flat')).plan.columns.map((c) => c.name)).to.deep.equal(['x', '$path']);
    expect((await f.run('DESCRIBE lake.s.ev')).rows.map((r) => r[0])).to.deep.equal(['n', 'tag', 'day']);
    expect((await f.run("SELECT column_name FROM lake.information_schema.columns WHERE table_name = 'ev'")).rows.map((r) => r[0]).sort()).to.deep.equal(['day', 'n', 'tag']);
  });

  it('limits the files read by a $path predicate', async () => {
    const [first] = (await f.run('SELECT "$path" FROM lake.s.ev WHERE n = 1')).rows[0] as [string];
    expect((await f.run(`SELECT n FROM lake.s.ev WHERE "$path" = '${first}'`)).rows).to.deep.equal([[1]]);
    // DuckDB applies it to the file names before opening a file: 1 of the partition's 2 files is scanned.
    const partition = join(f.root, 's/ev/tag=a%2Fb/day=2024-01-01');
    const listed = files('s/ev/tag=a%2Fb/day=2024-01-01').map((n) => ({ path: join(partition, n), size: 1, mtimeMs: 0 }));
    const sql = hiddenReadSql({
      properties: propertiesOf({ tableType: 'MANAGED_TABLE', dataColumns: [], partitionColumns: [], parameters: {}, storageFormat: 'PARQUET', serdeParameters: {} }),
      dataColumns: [{ name: 'n', hive: parseHiveType('int') }], partitionColumns: [],
      partitions: [{ values: [], files: listed.map((l) => l.path) }],
    }, listed, f.root);
    const analyzed = await f.direct(`EXPLAIN ANALYZE SELECT n FROM (${sql}) WHERE "$path" = '${first}'`);
    expect(String(analyzed[0]![1])).to.include('Scanning Files: 1/2');
    expect((await f.run(`SELECT count(*) FROM lake.s.ev e WHERE e."$path" <> '${first}'`)).rows).to.deep.equal([[2]]);
  });

  it('has no $partition for an unpartitioned table (Trino: cannot be resolved)', async () => {
    expect((await f.run('SELECT x, "$path" FROM lake.s.flat')).rows).to.deep.equal([[7, `local:///s/flat/${files('s/flat')[0]}`]]);
    // A data column named as DuckDB's file column keeps its values.
    await f.run("CREATE TABLE lake.s.named (filename varchar)");
    await f.run("INSERT INTO lake.s.named VALUES ('mine')");
    const [[value, path]] = (await f.run('SELECT filename, "$path" FROM lake.s.named')).rows as [[string, string]];
    expect([value, path]).to.deep.equal(['mine', `local:///s/named/${files('s/named')[0]}`]);
    const failure = await f.failure('SELECT "$partition" FROM lake.s.flat');
    expect(failure.errorName).to.equal('COLUMN_NOT_FOUND');
  });

  it('lists a partitioned table\'s partitions in "t$partitions", with the partition columns\' types', async () => {
    const out = await f.run('SELECT * FROM s."ev$partitions" ORDER BY day');
    expect(out.plan.columns.map((c) => c.name)).to.deep.equal(['tag', 'day']);
    expect(out.rows).to.deep.equal([['a/b', '2024-01-01'], [null, '2024-01-02']]);
    // A partition another writer adds is seen at the next statement.
    await f.run("INSERT INTO lake.s.ev VALUES (4, 'z', DATE '2024-02-01')");
    expect((await f.run('SELECT count(*) FROM lake.s."ev$partitions"')).rows).to.deep.equal([[3]]);
    const missing = await f.failure('SELECT * FROM lake.s."flat$partitions"');
    expect(missing.errorName).to.equal('TABLE_NOT_FOUND');
  });

  it('shows the table parameters in "t$properties", one varchar column each, sorted', async () => {
    const out = await f.run('SELECT * FROM lake.s."flat$properties"');
    const names = out.plan.columns.map((c) => c.name);
    expect(names).to.include('trino_query_id');
    expect([...names].sort()).to.deep.equal(names);
    expect(out.rows).to.have.length(1);
  });
});
