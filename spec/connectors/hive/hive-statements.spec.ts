// The hive connector's statements against a real temporary root: each statement's files read back with
// DuckDB directly, partitions under Trino's names, formats, CSV headers, schema evolution, concurrent writes.
import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { hiveFixture, type HiveFixture } from './hive-helpers.js';

describe('hive connector statements', function () {
  this.timeout(120_000);
  let f: HiveFixture;
  before(async () => {
    f = await hiveFixture();
    await f.run('CREATE SCHEMA lake.s');
  });
  after(() => f.close());

  const metadata = (path: string) => JSON.parse(readFileSync(join(f.root, path), 'utf8')) as Record<string, unknown>;
  const dataFiles = (dir: string) => readdirSync(join(f.root, dir)).filter((n) => !n.startsWith('.') && !n.startsWith('_'));

  it('keeps schemas and tables in the file metastore layout, as Trino', async () => {
    expect(metadata('.s.trinoSchema')).to.include({ ownerName: 'test', ownerType: 'USER' });
    await f.run("CREATE TABLE lake.s.people (id bigint, name varchar(10) COMMENT 'who', born date) COMMENT 'tc'");
    const table = metadata('s/people/.trinoSchema');
    expect(table).to.include({ tableType: 'MANAGED_TABLE', storageFormat: 'PARQUET', owner: 'test' });
    expect(table.dataColumns).to.deep.equal([{ name: 'id', type: 'bigint' }, { name: 'name', type: 'varchar(10)', comment: 'who' }, { name: 'born', type: 'date' }]);
    expect((await f.run('DESCRIBE lake.s.people')).rows).to.deep.equal([['id', 'bigint', '', ''], ['name', 'varchar(10)', '', 'who'], ['born', 'date', '', '']]);
    expect((await f.run('SELECT count(*) FROM lake.s.people')).rows).to.deep.equal([[0]]);
    expect((await f.run('SHOW TABLES FROM lake.s')).rows).to.deep.include(['people']);
  });

  it('inserts new files named <queryId>_<uuid> that DuckDB reads back, and counts the rows', async () => {
    const out = await f.run("INSERT INTO lake.s.people VALUES (1, 'ann', DATE '2001-02-03'), (2, 'bob', NULL)");
    expect(out.updateCount).to.equal(2);
    const files = dataFiles('s/people');
    expect(files).to.have.length(1);
    expect(files[0]).to.match(/^\d{8}_\d{6}_\d{5}_[a-z]{5}_[0-9a-f-]{36}$/);
    expect(await f.direct(`SELECT id, name FROM read_parquet('${join(f.root, 's/people', files[0]!)}') ORDER BY id`)).to.deep.equal([[1n, 'ann'], [2n, 'bob']]);
    await f.run("INSERT INTO lake.s.people (name, id) SELECT 'cy', 3");
    expect(dataFiles('s/people')).to.have.length(2);
    expect((await f.run('SELECT id, name, born FROM lake.s.people ORDER BY id')).rows).to.deep.equal([[1, 'ann', '2001-02-03'], [2, 'bob', null], [3, 'cy', null]]);
  });

  it('partitions by directory under Trino escaping; NULL and empty as the default partition', async () => {
    await f.run("CREATE TABLE lake.s.events (n integer, tag varchar, day date) WITH (partitioned_by = ARRAY['tag', 'day'])");
    const out = await f.run("INSERT INTO lake.s.events VALUES (1, 'a/b=c', DATE '2024-01-01'), (2, NULL, DATE '2024-01-02'), (3, '', DATE '2024-01-02'), (4, 'x y', DATE '2024-01-01')");
    expect(out.updateCount).to.equal(4);
    const tags = readdirSync(join(f.root, 's/events')).filter((n) => !n.startsWith('.')).sort();
    expect(tags).to.deep.equal(['tag=__HIVE_DEFAULT_PARTITION__', 'tag=a%2Fb%3Dc', 'tag=x y']);
    expect(existsSync(join(f.root, 's/events/tag=a%2Fb%3Dc/day=2024-01-01/.trinoSchema'))).to.equal(true);
    expect((await f.run('SELECT n, tag, day FROM lake.s.events ORDER BY n')).rows).to.deep.equal([[1, 'a/b=c', '2024-01-01'], [2, null, '2024-01-02'], [3, null, '2024-01-02'], [4, 'x y', '2024-01-01']]);
    expect((await f.run("SELECT count(*) FROM lake.s.events WHERE day = DATE '2024-01-02'")).rows).to.deep.equal([[2]]);
    // The partition files hold the data columns only.
    const file = readdirSync(join(f.root, 's/events/tag=x y/day=2024-01-01')).find((n) => !n.startsWith('.'))!;
    expect(await f.direct(`SELECT * FROM read_parquet('${join(f.root, 's/events/tag=x y/day=2024-01-01', file)}', hive_partitioning = false)`)).to.deep.equal([[4]]);
  });

  it('round-trips any partition value through a write and a read (property)', async () => {
    await f.run("CREATE TABLE lake.s.values_of (n integer, v varchar) WITH (partitioned_by = ARRAY['v'])");
    let n = 0;
    await fc.assert(fc.asyncProperty(fc.string({ unit: 'grapheme', maxLength: 12 }).filter((s) => !s.includes('\u0000')), async (v) => {
      n++;
      const literal = `'${v.split("'").join("''")}'`;
      await f.run(`INSERT INTO lake.s.values_of VALUES (${n}, ${literal})`);
      expect((await f.run(`SELECT v FROM lake.s.values_of WHERE n = ${n}`)).rows).to.deep.equal([[v === '' ? null : v]]);
    }), { numRuns: 25 });
  });

  it('applies insert_existing_partitions_behavior: APPEND by default, ERROR and OVERWRITE by session', async () => {
    await f.run("CREATE TABLE lake.s.daily (n integer, d varchar) WITH (partitioned_by = ARRAY['d'])");
    await f.run("INSERT INTO lake.s.daily VALUES (1, 'x')");
    await f.run("INSERT INTO lake.s.daily VALUES (2, 'x')");
    expect((await f.run('SELECT count(*) FROM lake.s.daily')).rows).to.deep.equal([[2]]);
    const error = { ...f.session, properties: { 'lake.insert_existing_partitions_behavior': 'ERROR' } };
    expect(await f.failure("INSERT INTO lake.s.daily VALUES (3, 'x')", error)).to.deep.equal({ errorName: 'HIVE_PARTITION_READ_ONLY', message: 'Cannot insert into an existing partition of Hive table: d=x' });
    const overwrite = { ...f.session, properties: { 'lake.insert_existing_partitions_behavior': 'OVERWRITE' } };
    await f.run("INSERT INTO lake.s.daily VALUES (4, 'x'), (5, 'y')", overwrite);
    expect((await f.run('SELECT n, d FROM lake.s.daily ORDER BY n')).rows).to.deep.equal([[4, 'x'], [5, 'y']]);
  });

  it('creates a table as a query: files first, its metadata last', async () => {
    const out = await f.run("CREATE TABLE lake.s.copy WITH (partitioned_by = ARRAY['d']) AS SELECT n, d FROM lake.s.daily");
    expect(out.updateCount).to.equal(2);
    expect((await f.run('SELECT n, d FROM lake.s.copy ORDER BY n')).rows).to.deep.equal([[4, 'x'], [5, 'y']]);
    expect(await f.failure('CREATE TABLE lake.s.copy AS SELECT 1 AS x')).to.deep.equal({ errorName: 'TABLE_ALREADY_EXISTS', message: "Destination table 'lake.s.copy' already exists" });
    expect((await f.failure('CREATE TABLE lake.s.unnamed AS SELECT 1')).errorName).to.equal('MISSING_COLUMN_NAME');
    expect(existsSync(join(f.root, 's/unnamed/.trinoSchema'))).to.equal(false);
  });

  it('declares a CTAS\'s columns as the query reports them, and holds INSERTs to a bounded column\'s length', async () => {
    await f.run("CREATE TABLE lake.s.declared AS SELECT 'a' AS c, CAST('xy' AS varchar(5)) AS v, CAST('q' AS char(3)) AS ch, ARRAY['x'] AS arr, TIMESTAMP '2020-01-01 00:00:00.123' AS ts");
    const described = (await f.run('DESCRIBE lake.s.declared')).rows.map((r) => [r[0], r[1]]);
    expect(described).to.deep.equal([['c', 'varchar(1)'], ['v', 'varchar(5)'], ['ch', 'char(3)'], ['arr', 'array(varchar(1))'], ['ts', 'timestamp(3)']]);
    const columns = (metadata('s/declared/.trinoSchema').dataColumns as { name: string; type: string }[]).map((c) => c.type);
    expect(columns).to.deep.equal(['varchar(1)', 'varchar(5)', 'char(3)', 'array<varchar(1)>', 'timestamp']);
    // As Trino's INSERT: longer than the column but for trailing spaces fails; trailing spaces are cut.
    expect(await f.failure("INSERT INTO lake.s.declared (c) VALUES ('toolong')")).to.deep.equal({ errorName: 'GENERIC_USER_ERROR', message: 'Cannot truncate non-space characters when casting from varchar(7) to varchar(1) on INSERT' });
    expect(await f.failure("INSERT INTO lake.s.declared (ch) VALUES ('abcd')")).to.deep.equal({ errorName: 'GENERIC_USER_ERROR', message: 'Cannot truncate non-space characters when casting from varchar(4) to char(3) on INSERT' });
    await f.run("INSERT INTO lake.s.declared (c, ch) VALUES ('b   ', 'ab   ')");
    expect((await f.run("SELECT c, ch FROM lake.s.declared WHERE v IS NULL")).rows).to.deep.equal([['b   ', 'ab ']]);
    const files = dataFiles('s/declared').map((n) => `'${join(f.root, 's', 'declared', n)}'`).join(', ');
    expect(await f.direct(`SELECT c, ch FROM read_parquet([${files}]) WHERE v IS NULL`)).to.deep.equal([['b   ', 'ab']]);
  });

  it('shows CREATE TABLE in Trino\'s form, properties by name', async () => {
    await f.run("CREATE TABLE lake.s.shown (a integer, \"B c\" varchar, p bigint) COMMENT 'hi' WITH (format = 'json', partitioned_by = ARRAY['p'])");
    expect((await f.run('SHOW CREATE TABLE lake.s.shown')).rows[0]![0]).to.equal(
      'CREATE TABLE lake.s.shown (\n   a integer,\n   "b c" varchar,\n   p bigint\n)\nCOMMENT \'hi\'\nWITH (\n   format = \'JSON\',\n   partitioned_by = ARRAY[\'p\']\n)',
    );
  });

  it('reads and writes JSON lines, CSV (header skipped) and TEXTFILE per table, never by suffix', async () => {
    await f.run("CREATE TABLE lake.s.j (a integer, b varchar) WITH (format = 'JSON')");
    await f.run("INSERT INTO lake.s.j VALUES (1, 'x')");
    const jf = dataFiles('s/j')[0]!;
    expect(readFileSync(join(f.root, 's/j', jf), 'utf8')).to.equal('{"a":1,"b":"x"}\n');
    await f.run("CREATE TABLE lake.s.c (a varchar, b varchar) WITH (format = 'CSV', skip_header_line_count = 1, csv_separator = ';')");
    writeFileSync(join(f.root, 's/c/by-hand.parquet'), 'a;b\n1;two\n3;\n');
    writeFileSync(join(f.root, 's/c/_ignored'), 'x;y\n');
    expect((await f.run('SELECT a, b FROM lake.s.c ORDER BY a')).rows).to.deep.equal([['1', 'two'], ['3', '']]);
    await f.run("CREATE TABLE lake.s.t (a integer, b varchar) WITH (format = 'TEXTFILE')");
    await f.run("INSERT INTO lake.s.t VALUES (1, 'x'), (NULL, 'y')");
    expect(readFileSync(join(f.root, 's/t', dataFiles('s/t')[0]!), 'utf8')).to.equal('1\u0001x\n\\N\u0001y\n');
    expect((await f.run('SELECT a, b FROM lake.s.t ORDER BY b')).rows).to.deep.equal([[1, 'x'], [null, 'y']]);
  });

  it('refuses what Trino refuses: CSV types, partition order, unreadable formats, unknown properties', async () => {
    expect(await f.failure("CREATE TABLE lake.s.bad (a integer, b varchar(3)) WITH (format = 'CSV')")).to.deep.equal({ errorName: 'NOT_SUPPORTED', message: 'Hive CSV storage format only supports VARCHAR (unbounded). Unsupported columns: a integer, b varchar(3)' });
    expect(await f.failure("CREATE TABLE lake.s.bad (p integer, a integer) WITH (partitioned_by = ARRAY['p'])")).to.deep.equal({ errorName: 'HIVE_COLUMN_ORDER_MISMATCH', message: 'Partition keys must be the last columns in the table and in the same order as the table properties: [p]' });
    for (const format of ['ORC', 'AVRO', 'RCBINARY', 'SEQUENCEFILE', 'REGEX', 'OPENX_JSON']) {
      const e = await f.failure(`CREATE TABLE lake.s.bad (a integer) WITH (format = '${format}')`);
      expect(e.errorName, format).to.equal('NOT_SUPPORTED');
      expect(e.message, format).to.include(format);
    }
    expect((await f.failure("CREATE TABLE lake.s.bad (a integer) WITH (colour = 'red')")).message).to.equal("Catalog 'lake' table property 'colour' does not exist");
    expect((await f.failure('CREATE TABLE lake.s.bad (a time)')).message).to.equal('Unsupported Hive type: time(3)');
    expect(existsSync(join(f.root, 's/bad'))).to.equal(false);
  });

  it('reads NULL for a column an older file lacks (columns matched by name)', async () => {
    await f.run('CREATE TABLE lake.s.evolve (a integer, b varchar)');
    await f.direct(`COPY (SELECT 7 AS a) TO '${join(f.root, 's/evolve/old')}' (FORMAT parquet)`);
    expect((await f.run('SELECT a, b FROM lake.s.evolve')).rows).to.deep.equal([[7, null]]);
    await f.direct(`COPY (SELECT 'z' AS b, 8 AS a) TO '${join(f.root, 's/evolve/new')}' (FORMAT parquet)`);
    expect((await f.run('SELECT a, b FROM lake.s.evolve ORDER BY a')).rows).to.deep.equal([[7, null], [8, 'z']]);
  });

  it('lands two INSERTs into one table at once', async () => {
    await f.run("CREATE TABLE lake.s.both (n integer, p varchar) WITH (partitioned_by = ARRAY['p'])");
    const counts = await Promise.all([
      f.run("INSERT INTO lake.s.both SELECT x, 'same' FROM UNNEST(sequence(1, 100)) AS t(x)"),
      f.run("INSERT INTO lake.s.both SELECT x, 'same' FROM UNNEST(sequence(101, 250)) AS t(x)"),
    ]);
    expect(counts.map((c) => c.updateCount)).to.deep.equal([100, 150]);
    expect((await f.run('SELECT count(*), sum(n) FROM lake.s.both')).rows).to.deep.equal([[250, 31375]]);
  });

  it('drops a managed table with its files, an external table without them; drops only an empty schema', async () => {
    await f.run('CREATE SCHEMA lake.gone');
    await f.run('CREATE TABLE lake.gone.m AS SELECT 1 AS x');
    await f.run("CREATE TABLE lake.gone.e (x integer) WITH (external_location = 'local:///outside/e')");
    await f.direct(`COPY (SELECT 5 AS x) TO '${join(f.root, 'outside/e/f1')}' (FORMAT parquet)`);
    expect((await f.run('SELECT x FROM lake.gone.e')).rows).to.deep.equal([[5]]);
    expect(await f.failure('DROP SCHEMA lake.gone')).to.deep.equal({ errorName: 'SCHEMA_NOT_EMPTY', message: "Cannot drop non-empty schema 'gone'" });
    expect(await f.failure('INSERT INTO lake.gone.e VALUES (1)')).to.deep.equal({ errorName: 'NOT_SUPPORTED', message: 'Cannot write to non-managed Hive table' });
    await f.run('DROP TABLE lake.gone.m');
    await f.run('DROP TABLE lake.gone.e');
    expect(existsSync(join(f.root, 'gone/m'))).to.equal(false);
    expect(existsSync(join(f.root, 'outside/e/f1'))).to.equal(true);
    await f.run('DROP SCHEMA lake.gone');
    expect(existsSync(join(f.root, '.gone.trinoSchema'))).to.equal(false);
    expect((await f.run('SHOW SCHEMAS FROM lake')).rows).to.not.deep.include(['gone']);
  });
});
