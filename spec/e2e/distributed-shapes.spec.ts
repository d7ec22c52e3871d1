// `vivace serve --workers 2` as real processes over tpch and a `lake` catalog whose small tables split
// (vivace.distributed-lake-min-bytes=1B): plan shapes that used to run in one task now run in stages on
// both workers, and answer as the plan they replace does. NOT IN with NULLs on either side, an empty and
// an all-NULL source (replicated-semis.ts) partitioned under join_distribution_type=PARTITIONED gives the
// answer of the broadcast plan and of the same query over tpch's rows with the NULLs made by expressions;
// over a source with HAVING or an aggregate too, grouping sets over one table or a join and grouping() (grouping-sets.ts), correlated scalar subqueries in the select list and HAVING
// (correlated-values.ts), a WINDOW clause (named-windows.ts), a flipped RIGHT join (outer-joins.ts), one
// after an inner join, and stand-alone scalar subqueries in the select list and HAVING (scalar-values.ts; without
// aggregation in the source stage, source-values.ts; a DISTINCT or an aggregate's argument, distinct-groups.ts) give
// the in-process DuckDB answer.
import { expect } from 'chai';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startClusterProcess, until, type ClusterProcess } from '../../bench/cluster-process.js';
import { defaultConfig } from '../../lib/config.js';
import { request, runStatement } from '../support/http.js';
import { expectSameRows } from '../cluster/same-rows.js';
import { sortedRows } from '../planner/fragment-runner.js';
import { healthy, USER } from './cluster-nodes.js';
import { runOn, session } from '../cluster/cluster-harness.js';
import { createDuckDbEngine, type DuckDbEngine } from '../../lib/engine/duckdb-engine.js';

const SHARED_TPCH = join(defaultConfig().dataDirectory, 'tpch');

interface StageNode { subStages: StageNode[]; tasks?: { taskStatus: { nodeId: string } }[] }
const flatten = (s: StageNode): StageNode[] => [s, ...s.subStages.flatMap(flatten)];

describe('e2e: more shapes distributed across two worker processes', function () {
  this.timeout(240_000);
  let dir: string;
  let cluster: ClusterProcess;
  let local: DuckDbEngine | undefined;

  async function query(sql: string, session?: string) {
    const result = await runStatement(cluster.url, sql, { ...USER, ...(session ? { 'X-Trino-Session': session } : {}) });
    expect(result.final.stats.state, `${sql}: ${JSON.stringify(result.final.error)}`).to.equal('FINISHED');
    return result;
  }

  /** Runs `sql` under `session`: at least `stages` stages, tasks on both workers; answers its rows, sorted. */
  async function staged(sql: string, session: string, stages: number): Promise<unknown[][]> {
    const result = await query(sql, session);
    expect(flatten(result.final.stats.rootStage as StageNode).length, `${sql} stages`).to.be.at.least(stages);
    const info = await request('GET', `${cluster.url}/v1/query/${result.final.id as string}`, { headers: USER });
    const nodes = new Set(flatten(info.body.outputStage as StageNode).flatMap((s) => (s.tasks ?? []).map((t) => t.taskStatus.nodeId)));
    expect([...nodes].sort(), `${sql} workers`).to.deep.equal([...cluster.workerUrls.keys()].sort());
    return sortedRows(result.rows);
  }

  before(async function () {
    if (!existsSync(join(SHARED_TPCH, 'tiny', 'manifest.json'))) this.skip();
    dir = mkdtempSync(join(tmpdir(), 'vivace-e2e-distributed-shapes-'));
    symlinkSync(SHARED_TPCH, join(dir, 'tpch'));
    const catalogs = join(dir, 'catalog');
    mkdirSync(catalogs);
    mkdirSync(join(dir, 'lake'));
    writeFileSync(join(catalogs, 'tpch.properties'), 'connector.name=tpch\n');
    writeFileSync(join(catalogs, 'lake.properties'), `connector.name=hive\nhive.metastore=file\nhive.metastore.catalog.dir=local:///\nfs.native-local.enabled=true\nlocal.location=${join(dir, 'lake')}\n`);
    cluster = await startClusterProcess({ workers: 2, dataDirectory: dir, properties: { 'vivace.distributed-lake-min-bytes': '1B', 'vivace.distributed-tpch-min-rows': '0', 'catalog.config-dir': catalogs }, captureOutput: true });
    await until('two workers healthy', 60_000, () => healthy(cluster, 2));
    local = await createDuckDbEngine({ tempDirectory: join(dir, 'local'), threads: 1, tpch: { directory: SHARED_TPCH, log: () => {} } });
    await query('CREATE SCHEMA lake.s');
    // Several files each (partitioned), NULL keys on both sides: a NULL custkey in every 11th order, in every 97th customer.
    await query(`CREATE TABLE lake.s.orders WITH (partitioned_by = ARRAY['p']) AS SELECT orderkey, CASE WHEN orderkey % 11 = 0 THEN NULL ELSE custkey END AS custkey,
      totalprice, orderkey % 4 AS p FROM tpch.tiny.orders`);
    await query(`CREATE TABLE lake.s.customer WITH (partitioned_by = ARRAY['p']) AS SELECT CASE WHEN custkey % 97 = 0 THEN NULL ELSE custkey END AS custkey,
      acctbal, nationkey, custkey % 3 AS p FROM tpch.tiny.customer`);
  });
  after(async () => {
    await local?.close();
    await cluster?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  describe('NOT IN partitioned with its source\'s NULL and emptiness replicated', () => {
    // The same predicate over tpch's rows, the NULLs made by the same expressions (a broadcast plan).
    const O = `(SELECT orderkey, CASE WHEN orderkey % 11 = 0 THEN NULL ELSE custkey END AS custkey, totalprice FROM tpch.tiny.orders)`;
    const C = `(SELECT CASE WHEN custkey % 97 = 0 THEN NULL ELSE custkey END AS custkey, acctbal, nationkey FROM tpch.tiny.customer)`;
    // Each source's filter, and the orders NOT IN keeps: none over a NULL key, all (NULL keys too) over an empty source.
    const SOURCES: Record<string, [string, (n: number) => boolean]> = {
      'a NULL key in the source': ['WHERE c.acctbal > 0', (n) => n === 0],
      'no NULL key in the source': ['WHERE c.custkey IS NOT NULL AND c.acctbal > 0', (n) => n > 0 && n < 15000],
      'an empty source': ['WHERE c.acctbal > 100000', (n) => n === 15000],
      'an all-NULL source': ['WHERE c.custkey IS NULL', (n) => n === 0],
    };
    for (const [name, [where, kept]] of Object.entries(SOURCES)) {
      it(`${name}: the broadcast plan's answer, and tpch's`, async () => {
        const sql = (o: string, c: string) => `SELECT count(*) AS n, count(o.custkey) AS k, sum(o.totalprice) AS t FROM ${o} o
          WHERE o.custkey NOT IN (SELECT c.custkey FROM ${c} c ${where})`;
        const partitioned = await staged(sql('lake.s.orders', 'lake.s.customer'), 'join_distribution_type=PARTITIONED', 5);
        expectSameRows(partitioned, sortedRows((await query(sql('lake.s.orders', 'lake.s.customer'), 'join_distribution_type=BROADCAST')).rows), `${name}: broadcast`);
        expectSameRows(partitioned, sortedRows((await query(sql(O, C))).rows), `${name}: tpch`);
        expect(kept(Number(partitioned[0]![0])), `${name}: ${String(partitioned[0]![0])} orders kept`).to.equal(true);
        const rows = `SELECT o.orderkey, o.custkey FROM lake.s.orders o WHERE o.custkey NOT IN (SELECT c.custkey FROM lake.s.customer c ${where}) OR o.custkey IS NULL`;
        expectSameRows(await staged(rows, 'join_distribution_type=PARTITIONED', 5), sortedRows((await query(rows, 'join_distribution_type=BROADCAST')).rows), `${name}: rows`);
      });
    }
  });

  it('NOT IN over a source with HAVING or an aggregate as its column, partitioned: its final\'s NULLs and a row replicated, customer read once, the broadcast plan\'s answer', async () => {
    for (const source of [
      'SELECT c.custkey FROM lake.s.customer c WHERE c.acctbal > 0 GROUP BY c.custkey HAVING count(*) = 1',
      'SELECT max(c.custkey) FROM lake.s.customer c GROUP BY c.nationkey, c.p',
      'SELECT c.custkey FROM lake.s.customer c WHERE c.acctbal > 0 GROUP BY c.custkey HAVING count(*) > 1',
    ]) {
      const sql = `SELECT count(*) AS n, count(o.custkey) AS k, sum(o.totalprice) AS t FROM lake.s.orders o WHERE o.custkey NOT IN (${source})`;
      const partitioned = await staged(sql, 'join_distribution_type=PARTITIONED', 5);
      expectSameRows(partitioned, sortedRows((await query(sql, 'join_distribution_type=BROADCAST')).rows), source);
      // Trino's text for the source's final (PlanPrinter.formatFragment), and one scan of customer.
      const text = String((await query(`EXPLAIN (TYPE DISTRIBUTED) ${sql}`, 'join_distribution_type=PARTITIONED')).rows[0]![0]);
      expect(text.match(/Output partitioning: HASH \(replicate nulls and any\) \[/gu), source).to.have.length(1);
      expect(text.match(/table = lake:s:customer/gu), source).to.have.length(1);
    }
  });

  /** `sql` over tpch.tiny on the cluster, in `stages` stages or more on both workers, and in process as one task: the same rows. */
  async function sameAsOneTask(sql: string, stages: number): Promise<void> {
    const expected = await runOn(local!, sql, session({ catalog: 'tpch', schema: 'tiny' }));
    expectSameRows(await staged(sql, 'join_distribution_type=AUTOMATIC', stages), sortedRows(expected.rows), sql);
  }

  it('ROLLUP, CUBE and GROUPING SETS: partial aggregation by the sets in the leaves, the final in a HASH stage on the keys and the set\'s id; a set written twice, the sets in the root', async () => {
    // One table (grouping-sets.ts by group ids): SOURCE leaf, HASH final, SINGLE root.
    const rollup = 'SELECT returnflag, linestatus, count(*), sum(quantity), avg(discount) FROM tpch.tiny.lineitem GROUP BY ROLLUP (returnflag, linestatus)';
    await sameAsOneTask(rollup, 3);
    await sameAsOneTask('SELECT returnflag, shipmode, count(DISTINCT suppkey) FROM tpch.tiny.lineitem GROUP BY CUBE (returnflag, shipmode)', 3);
    const one = String((await query(`EXPLAIN (TYPE DISTRIBUTED) ${rollup}`, 'join_distribution_type=AUTOMATIC')).rows[0]![0]);
    expect(one).to.match(/^Fragment \d+ \[HASH\]$/mu);
    expect(one).to.include('vivace_gid');
    // Trino keeps a set written twice as two groups: the two stages, the sets in the root.
    await sameAsOneTask('SELECT returnflag, count(*) FROM tpch.tiny.lineitem GROUP BY GROUPING SETS ((returnflag), (returnflag), ())', 2);
    // By group ids (grouping-sets.ts): the partial by the sets in the join's tasks, hashed on the keys and the id.
    const joined = `SELECT o.orderpriority, l.returnflag, count(*), sum(l.extendedprice), grouping(o.orderpriority, l.returnflag) FROM tpch.tiny.orders o
      JOIN tpch.tiny.lineitem l ON o.orderkey = l.orderkey GROUP BY GROUPING SETS ((o.orderpriority), (l.returnflag), ())`;
    await sameAsOneTask(joined, 4);
    await sameAsOneTask('SELECT returnflag, linestatus, grouping(linestatus), count(*) FROM tpch.tiny.lineitem GROUP BY ROLLUP (returnflag, linestatus)', 3);
    const text = String((await query(`EXPLAIN (TYPE DISTRIBUTED) ${joined}`, 'join_distribution_type=AUTOMATIC')).rows[0]![0]);
    expect(text).to.match(/^Fragment \d+ \[HASH\]$/mu);
    expect(text).to.include('vivace_gid');
  });

  it('a correlated scalar subquery in the select list or HAVING: co-partitioned with its table in a HASH stage, not gathered', async () => {
    await sameAsOneTask(`SELECT c.custkey, c.name, (SELECT count(*) FROM tpch.tiny.orders o WHERE o.custkey = c.custkey AND o.orderstatus = 'F') AS n
      FROM tpch.tiny.customer c WHERE c.acctbal > 9000`, 4);
    await sameAsOneTask(`SELECT n.name, sum((SELECT max(o.totalprice) FROM tpch.tiny.orders o WHERE o.custkey = c.custkey)) AS m
      FROM tpch.tiny.customer c JOIN tpch.tiny.nation n ON n.nationkey = c.nationkey GROUP BY n.name`, 4);
    // In HAVING, over a group key.
    await sameAsOneTask(`SELECT o.orderstatus, c.mktsegment, sum(o.totalprice) FROM tpch.tiny.orders o JOIN tpch.tiny.customer c ON c.custkey = o.custkey
      GROUP BY o.orderstatus, c.mktsegment HAVING sum(o.totalprice) > (SELECT sum(o2.totalprice) / 5.2 FROM tpch.tiny.orders o2 WHERE o2.orderstatus = o.orderstatus)`, 4);
  });

  it('a WINDOW clause: its named windows partition the rows in HASH buckets as the windows written out do', async () => {
    await sameAsOneTask(`SELECT o.custkey, o.orderkey, rank() OVER w AS r, sum(o.totalprice) OVER (w ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS s
      FROM tpch.tiny.orders o WHERE o.orderstatus = 'F' WINDOW w AS (PARTITION BY o.custkey ORDER BY o.totalprice DESC, o.orderkey)`, 3);
  });

  it('a RIGHT join after an inner join: flipped (the joined rows broadcast to the preserved side\'s tasks) or partitioned, the one-task answer', async () => {
    const sql = `SELECT c.custkey, n.name, o.orderkey FROM tpch.tiny.customer c JOIN tpch.tiny.nation n ON c.nationkey = n.nationkey AND n.regionkey = 2
      RIGHT JOIN tpch.tiny.orders o ON o.custkey = c.custkey AND c.acctbal > 5000 WHERE o.totalprice > 300000`;
    const expected = sortedRows((await runOn(local!, sql, session({ catalog: 'tpch', schema: 'tiny' }))).rows);
    expect(expected.length).to.be.greaterThan(0);
    for (const distribution of ['BROADCAST', 'PARTITIONED']) {
      expectSameRows(await staged(sql, `join_distribution_type=${distribution}`, 3), expected, `${sql} ${distribution}`);
      const text = String((await query(`EXPLAIN (TYPE DISTRIBUTED) ${sql}`, `join_distribution_type=${distribution}`)).rows[0]![0]);
      // Flipped: no HASH stage; partitioned: the RIGHT join in one.
      expect(/^Fragment \d+ \[HASH\]$/mu.test(text), `${distribution}: ${text}`).to.equal(distribution === 'PARTITIONED');
    }
  });

  it('a stand-alone scalar subquery in the select list and HAVING: its row broadcast to the final aggregation\'s HASH stage, or without aggregation to the scan\'s SOURCE stage', async () => {
    await sameAsOneTask(`SELECT o.orderpriority, sum(o.totalprice) / (SELECT sum(o2.totalprice) FROM tpch.tiny.orders o2) AS share, count(*) AS n
      FROM tpch.tiny.orders o JOIN tpch.tiny.customer c ON c.custkey = o.custkey GROUP BY o.orderpriority
      HAVING count(*) > (SELECT count(*) FROM tpch.tiny.nation) * 100`, 4);
    const text = String((await query(`EXPLAIN (TYPE DISTRIBUTED) SELECT o.orderstatus, max(o.totalprice) - (SELECT min(o2.totalprice) FROM tpch.tiny.orders o2) AS m
      FROM tpch.tiny.orders o GROUP BY o.orderstatus`, 'join_distribution_type=AUTOMATIC')).rows[0]![0]);
    expect(text).to.match(/^Fragment \d+ \[HASH\]$/mu);
    // No aggregation: the select list runs in the scan's SOURCE stage, the subquery's row broadcast to its tasks.
    await sameAsOneTask(`SELECT o.orderkey, o.totalprice / (SELECT max(o2.totalprice) FROM tpch.tiny.orders o2) AS r FROM tpch.tiny.orders o
      WHERE o.orderkey < 3000 ORDER BY r DESC`, 3);
    // A DISTINCT (an aggregation: distinct-groups.ts) with the value among its items, and the value inside an
    // aggregate's argument: read by the partial in the join's SOURCE tasks, the final in a HASH stage.
    const distinct = `SELECT DISTINCT o.orderstatus, c.mktsegment, o.totalprice > (SELECT avg(o2.totalprice) FROM tpch.tiny.orders o2) AS above
      FROM tpch.tiny.orders o JOIN tpch.tiny.customer c ON c.custkey = o.custkey`;
    await sameAsOneTask(distinct, 4);
    await sameAsOneTask(`SELECT o.orderstatus, sum(o.totalprice - (SELECT min(o2.totalprice) FROM tpch.tiny.orders o2)) AS s FROM tpch.tiny.orders o GROUP BY o.orderstatus`, 3);
    const explained = String((await query(`EXPLAIN (TYPE DISTRIBUTED) ${distinct}`, 'join_distribution_type=AUTOMATIC')).rows[0]![0]);
    expect(explained).to.match(/^Fragment \d+ \[HASH\]$/mu);
    // OFFSET: the select list in the join's tasks, each keeping its first m + n rows; the root orders, offsets and limits.
    const offset = `SELECT o.orderkey, c.name, o.totalprice - (SELECT avg(o2.totalprice) FROM tpch.tiny.orders o2) AS d FROM tpch.tiny.orders o
      JOIN tpch.tiny.customer c ON c.custkey = o.custkey ORDER BY d DESC, 1 OFFSET 20 LIMIT 15`;
    const staged = await query(offset, 'join_distribution_type=AUTOMATIC');
    expectSameRows(staged.rows, (await runOn(local!, offset, session({ catalog: 'tpch', schema: 'tiny' }))).rows, 'OFFSET, in order');
    expect(flatten(staged.final.stats.rootStage as StageNode).length, 'stages').to.be.at.least(3);
    // Grouped under OFFSET: each HASH bucket keeps m + n groups, the root offsets.
    await sameAsOneTask(`SELECT c.nationkey, count(*) AS n, sum(o.totalprice) AS t FROM tpch.tiny.orders o JOIN tpch.tiny.customer c ON c.custkey = o.custkey
      GROUP BY c.nationkey ORDER BY 1 OFFSET 5 LIMIT 7`, 4);
  });

  it('a RIGHT join as the LEFT join with sides swapped: the small side broadcast to the preserved side\'s leaf tasks', async () => {
    const sql = `SELECT c.custkey, n.name FROM tpch.tiny.nation n RIGHT JOIN tpch.tiny.customer c ON n.nationkey = c.nationkey AND n.regionkey = 1 WHERE c.acctbal > 8000`;
    await sameAsOneTask(sql, 3);
  });
});
