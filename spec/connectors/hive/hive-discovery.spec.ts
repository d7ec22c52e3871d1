// hive.auto-discover: directories of Parquet files under the root that no metastore table describes,
// written by DuckDB's COPY ... (PARTITION_BY), are listed and read as read-only tables; with the property
// off nothing more is listed.
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hiveFixture, useHiveFixture, type HiveFixture } from './hive-helpers.js';
import { hiveSplitSourceSql, hiveTableFiles, hiveTableSplits } from '../../../lib/connectors/hive/hive-splits.js';
import { HiveCatalog } from '../../../lib/connectors/hive/hive-catalog.js';
import type { DuckDbEngine } from '../../../lib/engine/duckdb-engine.js';
import { parseStatement } from '../../../lib/sql/parser.js';
import type { Query, QuerySpecification } from '../../../lib/sql/ast.js';
import { catalogOfFile } from '../../../lib/connectors/catalog-files.js';
import { defaultLakeCatalog } from '../../../lib/connectors/hive/default-lake.js';
import { unionColumns } from '../../../lib/connectors/hive/hive-discovery.js';
import { discoveredColumnsHeld } from '../../../lib/connectors/hive/hive-catalog.js';
import sinon from 'sinon';

/** Writes the tree: web.hits partitioned by region and day (a NULL region), s.plain of two files (one column more in the newer), and what is never a table. */
async function writeTree(f: HiveFixture, outside: string): Promise<void> {
  const root = f.root;
  mkdirSync(join(root, 'web'), { recursive: true });
  await f.direct(`COPY (SELECT i AS id, 'u' || i AS url, CASE WHEN i % 5 = 0 THEN NULL WHEN i % 2 = 0 THEN 'eu' ELSE 'us' END AS region, '2024-01-0' || (1 + i % 3) AS day FROM range(0, 300) t(i))
    TO '${join(root, 'web', 'hits')}' (FORMAT parquet, PARTITION_BY (region, day))`);
  mkdirSync(join(root, 's', 'plain'), { recursive: true });
  await f.direct(`COPY (SELECT i AS x FROM range(0, 10) t(i)) TO '${join(root, 's', 'plain', 'a.parquet')}' (FORMAT parquet)`);
  await f.direct(`COPY (SELECT i AS x, 'n' || i AS "Note" FROM range(10, 15) t(i)) TO '${join(root, 's', 'plain', 'b.parquet')}' (FORMAT parquet)`);
  for (const hidden of ['_tmp', '.cache', 'Upper']) {
    mkdirSync(join(root, 'web', hidden), { recursive: true });
    await f.direct(`COPY (SELECT 1 AS x) TO '${join(root, 'web', hidden, 'f.parquet')}' (FORMAT parquet)`);
  }
  mkdirSync(join(root, '_staging', 't'), { recursive: true });
  await f.direct(`COPY (SELECT 1 AS x) TO '${join(root, '_staging', 't', 'f.parquet')}' (FORMAT parquet)`);
  // A link out of the root: never followed.
  mkdirSync(outside, { recursive: true });
  await f.direct(`COPY (SELECT 42 AS secret) TO '${join(outside, 'f.parquet')}' (FORMAT parquet)`);
  symlinkSync(outside, join(root, 'web', 'outward'));
  symlinkSync(outside, join(root, 'linked'));
}

const whereOf = (sql: string) => ((parseStatement(sql) as Query).body as QuerySpecification).where;

describe('hive.auto-discover', function () {
  this.timeout(120_000);
  const fixture = useHiveFixture({ autoDiscover: true });
  let f: HiveFixture;
  const outside = mkdtempSync(join(tmpdir(), 'vivace-outside-'));
  before(async () => {
    f = fixture();
    await writeTree(f, outside);
    // A registered external table's directory is that table's, never discovered.
    mkdirSync(join(f.root, 'ext', 't'), { recursive: true });
    await f.direct(`COPY (SELECT 1 AS v) TO '${join(f.root, 'ext', 't', 'f.parquet')}' (FORMAT parquet)`);
    await f.run("CREATE TABLE lake.s.ext (v integer) WITH (external_location = 'local:///ext/t')");
  });
  after(() => rmSync(outside, { recursive: true, force: true }));

  it('lists the directories as schemas and tables (SHOW, information_schema), skipping _ . upper-case names, links and registered locations', async () => {
    expect((await f.run('SHOW SCHEMAS FROM lake')).rows.map((r) => r[0])).to.deep.equal(['information_schema', 's', 'web']);
    expect((await f.run('SHOW TABLES FROM lake.web')).rows).to.deep.equal([['hits']]);
    expect((await f.run('SHOW TABLES FROM lake.s')).rows.map((r) => r[0])).to.deep.equal(['ext', 'plain']);
    const columns = await f.run("SELECT table_schema, table_name, column_name, data_type FROM lake.information_schema.columns WHERE table_schema IN ('web', 's') ORDER BY 1, 2, ordinal_position");
    expect(columns.rows).to.deep.equal([
      ['s', 'ext', 'v', 'integer'],
      ['s', 'plain', 'x', 'bigint'], ['s', 'plain', 'note', 'varchar'],
      ['web', 'hits', 'id', 'bigint'], ['web', 'hits', 'url', 'varchar'], ['web', 'hits', 'region', 'varchar'], ['web', 'hits', 'day', 'varchar'],
    ]);
    // Partition columns say so in Extra, as Trino's Hive connector shows them (HiveUtil.columnExtraInfo).
    expect((await f.run('DESCRIBE lake.web.hits')).rows).to.deep.equal([['id', 'bigint', '', ''], ['url', 'varchar', '', ''], ['region', 'varchar', 'partition key', ''], ['day', 'varchar', 'partition key', '']]);
    expect((await f.run("SHOW COLUMNS FROM lake.web.hits LIKE 'd%'")).rows).to.deep.equal([['day', 'varchar', 'partition key', '']]);
    expect((await f.failure('SELECT * FROM lake.web.outward')).errorName).to.equal('TABLE_NOT_FOUND');
    expect((await f.failure('SELECT * FROM lake.linked.f')).errorName).to.match(/SCHEMA_NOT_FOUND|TABLE_NOT_FOUND/);
  });

  it('reads them as DuckDB reads the files: partitions from the directories (NULL from __HIVE_DEFAULT_PARTITION__), a column missing in a file as NULL', async () => {
    const [[count, nulls, sum]] = await f.direct(`SELECT count(*), count(*) - count(region), sum(id) FROM read_parquet('${join(f.root, 'web', 'hits')}/*/*/*.parquet', hive_partitioning = true)`) as [[bigint, bigint, bigint]];
    expect((await f.run('SELECT count(*), count(*) - count(region), sum(id) FROM lake.web.hits')).rows).to.deep.equal([[Number(count), Number(nulls), Number(sum)]]);
    expect((await f.run("SELECT region, day, count(*) FROM lake.web.hits WHERE day = '2024-01-02' GROUP BY 1, 2 ORDER BY 1 NULLS FIRST")).rows)
      .to.deep.equal([[null, '2024-01-02', 20], ['eu', '2024-01-02', 40], ['us', '2024-01-02', 40]]);
    expect((await f.run('SELECT x, note FROM lake.s.plain WHERE x IN (9, 10) ORDER BY x')).rows).to.deep.equal([[9, null], [10, 'n10']]);
    expect((await f.run('SELECT "$partition" FROM lake.web.hits WHERE id = 7')).rows).to.deep.equal([['region=us/day=2024-01-02']]);
    expect((await f.run('SELECT count(*) FROM lake.web."hits$partitions"')).rows).to.deep.equal([[9]]);
  });

  it('prunes partitions for splits and gives SHOW STATS from the footers, as for registered tables', async () => {
    const listed = hiveTableFiles(f.config, 'web', 'hits', whereOf("SELECT * FROM t WHERE region = 'eu' AND day = '2024-01-01'"));
    expect(listed?.partitions).to.equal(1);
    expect(listed?.files.every((p) => p.startsWith('region=eu/day=2024-01-01/'))).to.equal(true);
    // A worker's split reader (its own HiveCatalog, as stage-runner's) reads the splits with the discovered columns.
    const splits = hiveTableSplits(f.config, 'web', 'hits')!.splits.map((s) => ({ ...s, slice: 0, slices: 1 }));
    const sql = await hiveSplitSourceSql(new HiveCatalog(f.config, []), 'web', 'hits', splits, (path) => (f.engine as DuckDbEngine).parquetFooter(path));
    expect(await f.direct(`SELECT count(*), count(url), count(region) FROM (${sql})`)).to.deep.equal([[300n, 300n, 240n]]);
    const stats = (await f.run("SHOW STATS FOR (SELECT * FROM lake.web.hits WHERE region = 'eu')")).rows;
    expect(stats.at(-1)![4]).to.equal(120);
    expect(stats.find((r) => r[0] === 'day')!.slice(2, 4)).to.deep.equal([3, 0]);
  });

  it('refuses writes with what to do: register it with CREATE TABLE ... WITH (external_location)', async () => {
    const register = "register it with CREATE TABLE lake.web.hits (<columns>) WITH (external_location = 'local:///web/hits', format = 'PARQUET', partitioned_by = ARRAY['region', 'day'])";
    for (const sql of ["INSERT INTO lake.web.hits VALUES (1, 'x', 'eu', '2024-01-01')", "DELETE FROM lake.web.hits WHERE region = 'eu'", 'DROP TABLE lake.web.hits']) {
      const failure = await f.failure(sql);
      expect(failure.errorName, sql).to.equal('NOT_SUPPORTED');
      expect(failure.message, sql).to.include(register);
    }
    expect(await f.failure('CREATE TABLE lake.web.hits AS SELECT 1 AS x')).to.deep.equal({ errorName: 'TABLE_ALREADY_EXISTS', message: "Table 'lake.web.hits' already exists" });
    expect(await f.failure('CREATE TABLE lake.s.plain (x bigint)')).to.deep.equal({ errorName: 'TABLE_ALREADY_EXISTS', message: "Table 'lake.s.plain' already exists" });
    await f.run('CREATE TABLE IF NOT EXISTS lake.s.plain (x bigint)');
    // SHOW CREATE TABLE shows the statement that registers it.
    const [[text]] = (await f.run('SHOW CREATE TABLE lake.s.plain')).rows as [[string]];
    expect(text).to.include("external_location = 'local:///s/plain'");
    expect((await f.run('SELECT count(*) FROM lake.s.plain')).rows).to.deep.equal([[15]]);
  });

  it('gives way to a table registered over the directory (the metastore wins)', async () => {
    await f.run("CREATE TABLE lake.s.plain (x bigint) WITH (external_location = 'local:///s/plain')");
    expect((await f.run('SELECT count(*), max(x) FROM lake.s.plain')).rows).to.deep.equal([[15, 14]]);
    expect((await f.run('DESCRIBE lake.s.plain')).rows.map((r) => r[0])).to.deep.equal(['x']);
    // Registered, it takes writes as an external table does (refused by default: hive.non-managed-table-writes-enabled).
    expect((await f.failure('INSERT INTO lake.s.plain VALUES (1)')).message).to.not.include('hive.auto-discover');
  });

  it('follows the tree: a new directory is listed at the next statement, a removed one goes', async () => {
    await f.direct(`COPY (SELECT 1 AS a) TO '${join(f.root, 'web', 'later.parquet')}' (FORMAT parquet)`);
    mkdirSync(join(f.root, 'web', 'later'));
    await f.direct(`COPY (SELECT 2 AS a) TO '${join(f.root, 'web', 'later', 'f')}' (FORMAT parquet)`);
    expect((await f.run('SELECT a FROM lake.web.later')).rows).to.deep.equal([[2]]);
    const held = discoveredColumnsHeld();
    rmSync(join(f.root, 'web', 'later'), { recursive: true });
    expect((await f.run('SHOW TABLES FROM lake.web')).rows).to.deep.equal([['hits']]);
    // Its footers' columns are forgotten with it: the process-wide map follows the tree.
    expect(discoveredColumnsHeld()).to.equal(held - 1);
  });

  it('looks at one directory for a name a statement asks about, and at the metastore only when that directory is there', () => {
    const catalog = new HiveCatalog(f.config, []);
    const schemaNames = sinon.spy(catalog.metastore, 'schemaNames');
    const listed = sinon.spy(catalog.metastore, 'tableNames');
    try {
      for (const [schema, table] of [['web', 'nothing'], ['nowhere', 'hits'], ['s', 'missing']] as const) {
        expect(catalog.tableMetadata(schema, table), `${schema}.${table}`).to.equal(undefined);
      }
      expect([schemaNames.callCount, listed.callCount], 'no walk of the registered tables').to.deep.equal([0, 0]);
      expect(catalog.discovered('web', 'hits')?.partitions.length).to.equal(9);
      expect(schemaNames.callCount, 'a directory that is there is checked against the registered locations').to.equal(1);
    } finally {
      sinon.restore();
    }
  });
});

describe('hive.auto-discover off (the default in a catalog file)', function () {
  this.timeout(60_000);

  it('lists nothing but the metastore\'s tables over the same tree', async () => {
    const f = await hiveFixture();
    const outside = mkdtempSync(join(tmpdir(), 'vivace-outside-'));
    try {
      await writeTree(f, outside);
      expect(f.config.autoDiscover).to.equal(false);
      expect((await f.run('SHOW SCHEMAS FROM lake')).rows.map((r) => r[0])).to.deep.equal(['information_schema']);
      expect((await f.run("SELECT count(*) FROM lake.information_schema.tables WHERE table_schema <> 'information_schema'")).rows).to.deep.equal([[0]]);
      expect((await f.failure('SELECT * FROM lake.web.hits')).errorName).to.match(/SCHEMA_NOT_FOUND|TABLE_NOT_FOUND/);
      expect(hiveTableFiles(f.config, 'web', 'hits')).to.equal(undefined);
    } finally {
      await f.close();
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('is read from a catalog file (false by default, a bad value named with its line) and on for the built-in lake', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vivace-discover-props-'));
    try {
      mkdirSync(join(dir, 'lake'));
      const file = (extra: string) => {
        const path = join(dir, 'c.properties');
        writeFileSync(path, `connector.name=hive\nhive.metastore=file\nfs.local.enabled=true\nlocal.location=${join(dir, 'lake')}\nhive.metastore.catalog.dir=local:///\n${extra}`);
        return path;
      };
      expect((catalogOfFile(file(''), dir) as { autoDiscover: boolean }).autoDiscover).to.equal(false);
      expect((catalogOfFile(file('hive.auto-discover=true\n'), dir) as { autoDiscover: boolean }).autoDiscover).to.equal(true);
      expect(() => catalogOfFile(file('hive.auto-discover=sometimes\n'), dir)).to.throw(':6: hive.auto-discover: must be true or false: sometimes');
      expect(defaultLakeCatalog(dir).autoDiscover).to.equal(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('unions columns by lower-case name in order of first appearance, leaving out partition keys and types Hive cannot hold', () => {
    expect(unionColumns([[{ name: 'A', type: 'int' }, { name: 'region', type: 'string' }, { name: 'u', type: undefined }, { name: 'a', type: 'bigint' }], [{ name: 'b', type: 'double' }]], ['region']))
      .to.deep.equal([{ name: 'a', type: 'int' }, { name: 'b', type: 'double' }]);
  });
});
