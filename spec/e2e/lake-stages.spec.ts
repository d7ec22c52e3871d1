// A lake scan in two stages across two worker processes (vivace.distributed-lake-min-bytes=1B so a small
// table splits; catalogs from files: tpch, `lake` at Trino's split sizes, `small` at tiny ones): the leaf
// stage runs on both workers over the table's byte-range splits, its splits and bytes in the query's stats,
// and the answer is the one the same data gives from tpch as one task.
import { expect } from 'chai';
import { DuckDBInstance } from '@duckdb/node-api';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startClusterProcess, until, type ClusterProcess } from '../../bench/cluster-process.js';
import { defaultConfig } from '../../lib/config.js';
import { cutSplits } from '../../lib/connectors/hive/hive-splits.js';
import { request, runStatement } from '../support/http.js';
import { validateResponse } from '../support/schema-validator.js';
import { TPCH_QUERIES } from '../../lib/tpch/queries/tpch-queries.js';
import { TPCH_TABLES } from '../../lib/tpch/index.js';
import { expectSameRows } from '../cluster/same-rows.js';
import { healthy, USER } from './cluster-nodes.js';

const SHARED_TPCH = join(defaultConfig().dataDirectory, 'tpch');

interface StageNode { subStages: StageNode[]; tasks?: { taskStatus: { nodeId: string } }[] }
const flatten = (s: StageNode): StageNode[] => [s, ...s.subStages.flatMap(flatten)];

describe('e2e: a lake scan in two stages on two workers', function () {
  this.timeout(180_000);
  let dir: string;
  let cluster: ClusterProcess;

  async function query(sql: string) {
    const result = await runStatement(cluster.url, sql, USER);
    expect(result.final.stats.state, `${sql}: ${JSON.stringify(result.final.error)}`).to.equal('FINISHED');
    return result;
  }

  before(async function () {
    if (!existsSync(join(SHARED_TPCH, 'tiny', 'manifest.json'))) this.skip();
    dir = mkdtempSync(join(tmpdir(), 'vivace-e2e-lake-stages-'));
    symlinkSync(SHARED_TPCH, join(dir, 'tpch'));
    const catalogs = join(dir, 'catalog');
    mkdirSync(catalogs);
    writeFileSync(join(catalogs, 'tpch.properties'), 'connector.name=tpch\n');
    for (const [name, sizes] of [['lake', ''], ['small', 'hive.max-split-size=64kB\nhive.max-initial-split-size=16kB\nhive.max-initial-splits=10\n']]) {
      mkdirSync(join(dir, name));
      writeFileSync(join(catalogs, `${name}.properties`), `connector.name=hive\nhive.metastore=file\nhive.metastore.catalog.dir=local:///\nfs.native-local.enabled=true\nlocal.location=${join(dir, name)}\n${sizes}`);
    }
    cluster = await startClusterProcess({ workers: 2, dataDirectory: dir, properties: { 'vivace.distributed-lake-min-bytes': '1B', 'catalog.config-dir': catalogs }, captureOutput: true });
    await until('two workers healthy', 60_000, () => healthy(cluster, 2));
    await query('CREATE SCHEMA lake.s');
    await query("CREATE TABLE lake.s.items WITH (partitioned_by = ARRAY['month']) AS SELECT orderkey, quantity, extendedprice, returnflag, linestatus, month(shipdate) AS month FROM tpch.tiny.lineitem");
  });
  after(async () => {
    await cluster?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('runs the leaves on both workers over the 12 partitions\' files, with tpch\'s answer', async () => {
    const lake = await query('SELECT returnflag, linestatus, count(*), sum(quantity), sum(orderkey), avg(extendedprice), min(month), max(month) FROM lake.s.items GROUP BY 1, 2 ORDER BY 1, 2');
    const leaf = lake.final.stats.rootStage.subStages[0] as { nodes: number; completedSplits: number; totalSplits: number } | undefined;
    expect(leaf, 'a leaf stage').to.include({ nodes: 2, completedSplits: 12, totalSplits: 12 });
    const tpch = await query('SELECT returnflag, linestatus, count(*), sum(quantity), sum(orderkey), avg(extendedprice), min(month(shipdate)), max(month(shipdate)) FROM tpch.tiny.lineitem GROUP BY 1, 2 ORDER BY 1, 2');
    expectSameRows(lake.rows, tpch.rows, 'lake vs tpch');
    // The sum of a bigint column stays a bigint after the Parquet exchange (DuckDB writes HUGEINT as DOUBLE).
    expect(lake.rows.every((r) => Number.isInteger(r[4]))).to.equal(true);
    expect(JSON.stringify(lake.raw.map((r) => r.body).filter((b) => b.data))).to.not.match(/\d\.0[,\]]/);
  });

  it('prunes partitions on the WHERE clause before splitting: one month is one split and fewer bytes, two months two', async () => {
    const whole = await query('SELECT count(*), sum(quantity) FROM lake.s.items');
    const one = await query('SELECT count(*), sum(quantity) FROM lake.s.items WHERE month = 3');
    // One file under hive.max-initial-split-size: one split, on one worker (as Trino would).
    const [oneLeaf, wholeLeaf] = [one, whole].map((r) => r.final.stats.rootStage.subStages[0] as { totalSplits: number; processedBytes: number });
    expect(oneLeaf).to.include({ totalSplits: 1, completedSplits: 1, nodes: 1 });
    expect(wholeLeaf).to.include({ totalSplits: 12 });
    expect(oneLeaf.processedBytes, 'one month\'s bytes').to.be.above(0).and.below(wholeLeaf.processedBytes / 4);
    expectSameRows(one.rows, (await query('SELECT count(*), sum(quantity) FROM tpch.tiny.lineitem WHERE month(shipdate) = 3')).rows, 'one month');
    const two = await query('SELECT count(*) FROM lake.s.items WHERE "MONTH" IN (3, 4) AND quantity > 10');
    expect(two.final.stats.rootStage.subStages[0]).to.include({ totalSplits: 2 });
    expect(two.rows).to.deep.equal((await query('SELECT count(*) FROM tpch.tiny.lineitem WHERE month(shipdate) IN (3, 4) AND quantity > 10')).rows);
    const range = await query('SELECT count(*) FROM lake.s.items WHERE month BETWEEN 3 AND 5 OR month > 11');
    expect(range.final.stats.rootStage.subStages[0]).to.include({ totalSplits: 4 });
    expect(range.rows).to.deep.equal((await query('SELECT count(*) FROM tpch.tiny.lineitem WHERE month(shipdate) BETWEEN 3 AND 5 OR month(shipdate) > 11')).rows);
    // An OR with a term on a data column prunes nothing: every partition is split, and the answer is the same.
    const either = await query('SELECT count(*) FROM lake.s.items WHERE month = 3 OR quantity > 49');
    expect(either.final.stats.rootStage.subStages[0]).to.include({ totalSplits: 12 });
    expect(either.rows).to.deep.equal((await query('SELECT count(*) FROM tpch.tiny.lineitem WHERE month(shipdate) = 3 OR quantity > 49')).rows);
  });

  it('cuts a file of many row groups into Trino\'s byte ranges, read on both workers, each row group once', async () => {
    await query('CREATE SCHEMA small.s');
    await query('CREATE TABLE small.s.flat (orderkey bigint, quantity double, extendedprice double, returnflag varchar, linestatus varchar)');
    const location = join(dir, 'small', 's', 'flat');
    expect(existsSync(join(location, '.trinoSchema')), 'the table\'s directory').to.equal(true);
    // Written by another tool: 30 row groups of 2048 rows.
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    const file = join(location, 'by-hand.parquet');
    await connection.run(`COPY (SELECT orderkey, quantity, extendedprice, returnflag, linestatus FROM read_parquet('${join(SHARED_TPCH, 'tiny', 'lineitem', 'lineitem-00001.parquet')}')) TO '${file}' (FORMAT parquet, ROW_GROUP_SIZE 2048)`);
    connection.closeSync();
    instance.closeSync();
    const expected = cutSplits([{ file: 'by-hand.parquet', size: statSync(file).size }], true, { maxSplitSizeBytes: 64 * 1024, maxInitialSplitSizeBytes: 16 * 1024, maxInitialSplits: 10 });
    expect(expected.length, 'many splits').to.be.above(4);
    const sql = (table: string) => `SELECT returnflag, linestatus, count(*), count(DISTINCT orderkey), sum(quantity), avg(extendedprice) FROM ${table} GROUP BY 1, 2 ORDER BY 1, 2`;
    const lake = await query(sql('small.s.flat'));
    expect(lake.final.stats.rootStage.subStages[0]).to.include({ nodes: 2, totalSplits: expected.length, completedSplits: expected.length });
    expectSameRows(lake.rows, (await query(sql('tpch.tiny.lineitem'))).rows, 'byte-range splits vs tpch');
  });

  it('reads a file rewritten in place with other columns as it is now, in stages on both workers (its missing column NULL)', async () => {
    await query('CREATE SCHEMA IF NOT EXISTS small.s');
    await query('CREATE TABLE small.s.rewritten (a bigint, b varchar)');
    const file = join(dir, 'small', 's', 'rewritten', 'by-hand.parquet');
    const elsewhere = join(dir, 'rewritten.parquet');
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    try {
      await connection.run(`COPY (SELECT i AS a, 'b' || i AS b FROM range(0, 60000) t(i)) TO '${file}' (FORMAT parquet, ROW_GROUP_SIZE 2048)`);
      const sql = 'SELECT count(*), count(b), sum(a) FROM small.s.rewritten';
      const before = await query(sql);
      expect(before.final.stats.rootStage.subStages[0]).to.include({ nodes: 2 });
      expect(before.rows).to.deep.equal([[60000, 60000, 1799970000]]);
      // Another tool rewrites the file under its name (the directory unchanged): b is gone, c is new.
      await connection.run(`COPY (SELECT i + 1 AS a, i AS c FROM range(0, 50000) t(i)) TO '${elsewhere}' (FORMAT parquet, ROW_GROUP_SIZE 2048)`);
      writeFileSync(file, readFileSync(elsewhere));
      const after = await query(sql);
      expect(after.final.stats.rootStage.subStages[0]).to.include({ nodes: 2 });
      expect(after.rows).to.deep.equal([[50000, 0, 1250025000]]);
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  });

  it('the 22 TPC-H queries over lake copies of tiny\'s tables: in stages across both workers, with tpch\'s answers', async () => {
    await query('CREATE SCHEMA lake.t');
    for (const t of TPCH_TABLES) await query(`CREATE TABLE lake.t.${t.name} AS SELECT * FROM tpch.tiny.${t.name}`);
    const nodes = new Set<string>();
    for (const q of TPCH_QUERIES) {
      const lake = await runStatement(cluster.url, q.sql, { ...USER, 'X-Trino-Catalog': 'lake', 'X-Trino-Schema': 't' });
      expect(lake.final.stats.state, `Q${q.number}: ${JSON.stringify(lake.final.error)}`).to.equal('FINISHED');
      const tpch = await runStatement(cluster.url, q.sql, { ...USER, 'X-Trino-Catalog': 'tpch', 'X-Trino-Schema': 'tiny' });
      expectSameRows(lake.rows, tpch.rows, `Q${q.number} lake vs tpch`);
      const info = await request('GET', `${cluster.url}/v1/query/${lake.final.id as string}`, { headers: USER });
      validateResponse('query-info', info.body);
      const stages = flatten(info.body.outputStage as StageNode);
      expect(stages.length, `Q${q.number} stages`).to.be.at.least(2);
      for (const s of stages) for (const t of s.tasks ?? []) nodes.add(t.taskStatus.nodeId);
    }
    expect(nodes.size, 'tasks on both workers').to.equal(2);
  });
});

