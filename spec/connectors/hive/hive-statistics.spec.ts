// SHOW STATS of hive tables from their Parquet footers (lib/connectors/hive/hive-statistics.ts), against
// DuckDB's own count, min and max over the same files, and the footer cache.
import { expect } from 'chai';
import sinon from 'sinon';
import { mkdirSync, readdirSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { useHiveFixture, type HiveFixture } from './hive-helpers.js';
import { duckdbFooterReader, FooterCache, type FooterColumn, HiveStatistics, hiveTableStatistics, statsValue } from '../../../lib/connectors/hive/hive-statistics.js';
import { HiveCatalog } from '../../../lib/connectors/hive/hive-catalog.js';
import { parseHiveType } from '../../../lib/connectors/hive/hive-types.js';
import { createDuckDbEngine } from '../../../lib/engine/duckdb-engine.js';
import { RulesFiles } from '../../security/rules-fixtures.js';
import { runSql, testSession } from '../../engine/engine-helpers.js';

type StatsRow = [string | null, number | null, number | null, number | null, number | null, string | null, string | null];

describe('hive statistics from Parquet footers', function () {
  this.timeout(120_000);
  const fixture = useHiveFixture();
  let f: HiveFixture;
  const stats = async (sql: string) => (await f.run(sql)).rows as StatsRow[];
  const byName = (rows: StatsRow[]) => new Map(rows.map((r) => [r[0], r]));
  const dataFiles = (dir: string) => readdirSync(join(f.root, dir)).filter((n) => !n.startsWith('.') && !n.startsWith('_')).map((n) => join(f.root, dir, n));
  const list = (files: string[]) => `[${files.map((p) => `'${p}'`).join(', ')}]`;

  before(async () => {
    f = fixture();
    // Two files written by DuckDB: the older one lacks column b and has NULLs in s; the newer has 3 row groups.
    mkdirSync(join(f.root, 'ext', 't'), { recursive: true });
    await f.direct(`COPY (SELECT i AS id, 'v' || i AS s, (i / 2)::DOUBLE AS d, DATE '2024-01-01' + i::INTEGER AS dt, i % 2 = 0 AS b FROM range(0, 5000) t(i))
      TO '${join(f.root, 'ext', 't', 'new')}' (FORMAT parquet, ROW_GROUP_SIZE 2048)`);
    await f.direct(`COPY (SELECT i - 700 AS id, CASE WHEN i % 4 = 0 THEN NULL ELSE 'w' || i END AS s, (-i * 1.5)::DOUBLE AS d, DATE '2023-06-01' + i::INTEGER AS dt FROM range(0, 1000) t(i))
      TO '${join(f.root, 'ext', 't', 'old')}' (FORMAT parquet)`);
    await f.run("CREATE TABLE lake.s.ext (id bigint, s varchar, d double, dt date, b boolean) WITH (external_location = 'local:///ext/t')");
    await f.run("CREATE TABLE lake.s.pt (n integer, region varchar, yr integer) WITH (partitioned_by = ARRAY['region', 'yr'])");
    await f.run("INSERT INTO lake.s.pt VALUES (1, 'emea', 2023), (2, 'emea', 2023), (3, 'emea', 2024), (4, 'apac', 2024), (5, NULL, 2024), (NULL, NULL, 2025)");
    await f.run("CREATE TABLE lake.s.csv (a varchar, p varchar) WITH (format = 'CSV', partitioned_by = ARRAY['p'])");
    await f.run("INSERT INTO lake.s.csv VALUES ('x', 'one'), ('y', 'two'), ('z', NULL)");
  });

  it('gives row count, nulls, sizes and ranges of data columns as DuckDB counts them in the files', async () => {
    const rows = await stats('SHOW STATS FOR lake.s.ext');
    const files = dataFiles('ext/t');
    const [[count, ids, minId, maxId, strings, minD, maxD, minDt, maxDt, bools]] = await f.direct(
      `SELECT count(*), count(id), min(id), max(id), count(s), min(d), max(d), min(dt)::VARCHAR, max(dt)::VARCHAR, count(b) FROM read_parquet(${list(files)}, union_by_name = true)`,
    ) as [[bigint, bigint, bigint, bigint, bigint, number, number, string, string, bigint]];
    const [[sBytes, sText]] = await f.direct(`SELECT (SELECT sum(total_uncompressed_size) FROM parquet_metadata(${list(files)}) WHERE path_in_schema = 's'), (SELECT sum(strlen(s)) FROM read_parquet(${list(files)}, union_by_name = true))`) as [[bigint, bigint]];
    const total = Number(count);
    expect(rows.map((r) => r[0])).to.deep.equal(['id', 's', 'd', 'dt', 'b', null]);
    const m = byName(rows);
    expect(m.get(null)).to.deep.equal([null, null, null, null, total, null, null]);
    expect(m.get('id')).to.deep.equal(['id', null, null, (total - Number(ids)) / total, null, String(minId), String(maxId)]);
    expect(m.get('s')!.slice(1, 6)).to.deep.equal([Number(sBytes), null, (total - Number(strings)) / total, null, null]);
    expect(m.get('s')![1]!).to.be.at.least(Number(sText)).and.below(Number(sText) * 3);
    expect(m.get('d')!.slice(3)).to.deep.equal([0, null, '-1498.5', '2499.5']);
    expect([minD, maxD]).to.deep.equal([-1498.5, 2499.5]);
    expect(m.get('dt')!.slice(5)).to.deep.equal([minDt, maxDt]);
    // b: missing from the older file (NULL there), both values in the newer: 2 distinct values.
    expect(m.get('b')).to.deep.equal(['b', null, 2, (total - Number(bools)) / total, null, null, null]);
  });

  it('gives partition columns distinct values, NULL partitions, ranges and sizes from the partition values', async () => {
    const m = byName(await stats('SHOW STATS FOR lake.s.pt'));
    expect(m.get(null)![4]).to.equal(6);
    // regions: emea x3, apac x1, NULL x2.
    expect(m.get('region')).to.deep.equal(['region', 4 * 3 + 4 * 1, 2, 2 / 6, null, null, null]);
    expect(m.get('yr')).to.deep.equal(['yr', null, 3, 0, null, '2023', '2025']);
    const files = readdirSync(join(f.root, 's', 'pt')).filter((r) => r.startsWith('region=')).flatMap((r) => readdirSync(join(f.root, 's', 'pt', r)).filter((y) => y.startsWith('yr=')).flatMap((y) => dataFiles(join('s', 'pt', r, y))));
    expect(files).to.have.length(5);
    const [[nulls, low, high]] = await f.direct(`SELECT count(*) - count(n), min(n), max(n) FROM read_parquet(${list(files)})`) as [[bigint, number, number]];
    expect(m.get('n')).to.deep.equal(['n', null, null, Number(nulls) / 6, null, String(low), String(high)]);
  });

  it('gives the statistics of the partitions a WHERE on partition columns keeps', async () => {
    const m = byName(await stats("SHOW STATS FOR (SELECT * FROM lake.s.pt WHERE region = 'emea' AND yr >= 2024)"));
    expect(m.get(null)![4]).to.equal(1);
    expect(m.get('n')!.slice(3)).to.deep.equal([0, null, '3', '3']);
    expect(m.get('region')).to.deep.equal(['region', 4, 1, 0, null, null, null]);
    const nulls = byName(await stats('SHOW STATS FOR (SELECT * FROM lake.s.pt WHERE region IS NULL)'));
    expect(nulls.get('region')!.slice(1, 4)).to.deep.equal([0, 0, 1]);
    expect(nulls.get(null)![4]).to.equal(2);
    // Any expression of partition columns, evaluated over the partitions.
    const fn = byName(await stats("SHOW STATS FOR (SELECT * FROM s.pt WHERE upper(region) = 'APAC' OR yr + 1 = 2026)"));
    expect(fn.get(null)![4]).to.equal(2);
  });

  it('gives zero statistics when no partition is left (Trino\'s createZeroStatistics)', async () => {
    const rows = await stats('SHOW STATS FOR (SELECT * FROM lake.s.pt WHERE yr = 1999)');
    expect(rows).to.deep.equal([['n', null, 0, 0, null, null, null], ['region', 0, 0, 0, null, null, null], ['yr', null, 0, 0, null, null, null], [null, null, null, null, 0, null, null]]);
  });

  it('leaves a CSV table\'s rows unknown, with its partition columns\' statistics', async () => {
    const rows = await stats('SHOW STATS FOR lake.s.csv');
    expect(rows).to.deep.equal([['a', null, null, null, null, null, null], ['p', null, 2, 1 / 3, null, null, null], [null, null, null, null, null, null, null]]);
  });

  it('scans for a user who reads the table masked or filtered: the footers would show what the mask hides', async () => {
    const files = new RulesFiles();
    const access = files.control({ tables: [
      { user: 'admin', privileges: ['SELECT'] },
      { user: 'mallory', catalog: 'lake', schema: 's', table: 'pt', privileges: ['SELECT'], columns: [{ name: 'n', mask: '0' }] },
    ] });
    const engine = await createDuckDbEngine({ tempDirectory: join(f.directory, 'guarded'), threads: 2, maxConnections: 4, tpch: false, hive: [f.config], access });
    try {
      const as = async (user: string) => byName((await runSql(engine, 'SHOW STATS FOR lake.s.pt', testSession({ user }))).rows as StatsRow[]);
      expect((await as('mallory')).get('n')!.slice(5)).to.deep.equal(['0', '0']);
      expect((await as('admin')).get('n')!.slice(5)).to.deep.equal(['1', '5']);
    } finally {
      await engine.close();
      files.close();
    }
  });

  it('scans for any other query (a data column in WHERE), as before', async () => {
    const rows = await stats('SHOW STATS FOR (SELECT * FROM lake.s.pt WHERE n > 1)');
    // The scan estimates distinct values (the footers do not).
    expect(byName(rows).get('n')![2]).to.equal(4);
    expect(byName(rows).get(null)![4]).to.equal(4);
  });
});

describe('hive footer cache', function () {
  this.timeout(60_000);
  const fixture = useHiveFixture();

  it('reads a file\'s footer once while its size and mtime stay, again when it changes', async () => {
    const f = fixture();
    await f.run('CREATE TABLE lake.s.c (x bigint, y varchar) WITH (partitioned_by = ARRAY[\'y\'])');
    await f.run("INSERT INTO lake.s.c VALUES (1, 'a'), (2, 'b')");
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    try {
      const read = sinon.spy(duckdbFooterReader(async (sql) => (await connection.runAndReadAll(sql)).getRows()));
      const cache = new FooterCache(read);
      const provider = new HiveStatistics(new HiveCatalog(f.config, []), cache);
      const first = await provider.statistics({ schema: 's', table: 'c' });
      expect(first?.rowCount).to.equal(2);
      expect(cache.reads).to.equal(2);
      await provider.statistics({ schema: 's', table: 'c' });
      expect(cache.reads).to.equal(2);
      expect(read.callCount).to.equal(1);
      // Only the partition kept is read; a new file is read, the old ones are not.
      await f.run("INSERT INTO lake.s.c VALUES (3, 'a')");
      const a = await provider.statistics({ schema: 's', table: 'c' }, (p) => p.values[0] === 'a');
      expect(a?.rowCount).to.equal(2);
      expect(cache.reads).to.equal(3);
      // A rewritten file (new mtime) is read again.
      const [file] = readdirSync(join(f.root, 's', 'c', 'y=b')).filter((n) => !n.startsWith('.'));
      utimesSync(join(f.root, 's', 'c', 'y=b', file!), new Date(), new Date(Date.now() + 5000));
      await provider.statistics({ schema: 's', table: 'c' });
      expect(cache.reads).to.equal(4);
      expect(await provider.statistics({ schema: 's', table: 'none' })).to.equal(undefined);
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  });
});

describe('hiveTableStatistics', () => {
  const int = parseHiveType('int');
  it('reads footer values in Trino\'s stats representation', () => {
    expect(statsValue(int, '-12')).to.equal(-12);
    expect(statsValue(parseHiveType('date'), '1970-01-03')).to.equal(2);
    expect(statsValue(parseHiveType('decimal(10,2)'), '14.14')).to.equal(14.14);
    expect(statsValue(parseHiveType('double'), 'nan')).to.equal(undefined);
    expect(statsValue(int, '1e3')).to.equal(undefined);
  });

  it('leaves a range unknown when a file with values has no least or greatest value; NULL-only row groups need none', () => {
    const file = (path: string, rows: number, column: FooterColumn) => ({ path, size: 1, mtimeMs: 0, footer: { rows, columns: new Map([['x', column]]) } });
    const files = [file('/a', 3, { nulls: 3, bytes: 0 }), file('/b', 2, { nulls: 0, bytes: 8, mins: ['1'], maxs: ['9'] })];
    const input = (fs: typeof files) => ({
      format: 'PARQUET', dataColumns: [{ name: 'x', hive: int }], partitionColumns: [],
      partitions: [{ name: '', values: [], files: fs }], footers: new Map(fs.map((x) => [x.path, x.footer])),
    });
    expect(hiveTableStatistics(input(files)).columns.get('x')).to.deep.equal({ nullsFraction: 0.6, range: { low: 1, high: 9 } });
    const unknown = [...files, file('/c', 1, { nulls: 0, bytes: 4 })];
    expect(hiveTableStatistics(input(unknown)).columns.get('x')).to.deep.equal({ nullsFraction: 0.5 });
  });
});
