// A lake scan in two stages across two worker processes (vivace.distributed-lake-min-bytes=1B so a small
// table splits): the leaf stage runs on both workers over the table's files, its splits in the query's
// stats, and the answer is the one the same data gives from tpch as one task.
import { expect } from 'chai';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startClusterProcess, until, type ClusterProcess } from '../../bench/cluster-process.js';
import { defaultConfig } from '../../lib/config.js';
import { runStatement } from '../support/http.js';
import { expectSameRows } from '../cluster/same-rows.js';
import { healthy, USER } from './cluster-nodes.js';

const SHARED_TPCH = join(defaultConfig().dataDirectory, 'tpch');

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
    cluster = await startClusterProcess({ workers: 2, dataDirectory: dir, properties: { 'vivace.distributed-lake-min-bytes': '1B' }, captureOutput: true });
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

  it('prunes partitions on the WHERE clause before splitting: one month\'s file is cut in two slices, two months are two files', async () => {
    const one = await query('SELECT count(*), sum(quantity) FROM lake.s.items WHERE month = 3');
    // One file left for two workers: two slices of its row groups (tiny's one row group: one of them reads nothing).
    expect(one.final.stats.rootStage.subStages[0]).to.include({ totalSplits: 2, completedSplits: 2 });
    expectSameRows(one.rows, (await query('SELECT count(*), sum(quantity) FROM tpch.tiny.lineitem WHERE month(shipdate) = 3')).rows, 'one month');
    const two = await query('SELECT count(*) FROM lake.s.items WHERE "MONTH" IN (3, 4) AND quantity > 10');
    expect(two.final.stats.rootStage.subStages[0]).to.include({ totalSplits: 2 });
    expect(two.rows).to.deep.equal((await query('SELECT count(*) FROM tpch.tiny.lineitem WHERE month(shipdate) IN (3, 4) AND quantity > 10')).rows);
    // An OR prunes nothing: every partition is split, and the answer is the same.
    const either = await query('SELECT count(*) FROM lake.s.items WHERE month = 3 OR quantity > 49');
    expect(either.final.stats.rootStage.subStages[0]).to.include({ totalSplits: 12 });
    expect(either.rows).to.deep.equal((await query('SELECT count(*) FROM tpch.tiny.lineitem WHERE month(shipdate) = 3 OR quantity > 49')).rows);
  });
});
