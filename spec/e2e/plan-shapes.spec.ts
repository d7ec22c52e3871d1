// `vivace serve --workers 2` as real processes (vivace.distributed-tpch-min-rows=0: every tpch table
// splits), over tpch.tiny: plan shapes beyond joins run in stages across both workers and answer as DuckDB
// in process does, with the statement's column names and types. One-table aggregates beyond count, sum,
// min, max and avg split into partial and final (aggregate-stages.ts); windows partition their rows across
// HASH buckets (window-stages.ts); UNION [ALL] plans each branch on its own (union-stages.ts).
import { expect } from 'chai';
import { join } from 'node:path';
import { defaultConfig } from '../../lib/config.js';
import type { OutputColumn } from '../../lib/protocol/types.js';
import { request, runStatement } from '../support/http.js';
import { runOn, session } from '../cluster/cluster-harness.js';
import { expectSameRows } from '../cluster/same-rows.js';
import { sortedRows } from '../planner/fragment-runner.js';
import { formatType } from '../../lib/protocol/presto-type.js';
import { withTpchCluster } from './cluster-nodes.js';

const SHARED_TPCH = join(defaultConfig().dataDirectory, 'tpch');
const SECRET = 'plan-shapes-e2e-secret';
const headers = { 'X-Trino-User': 'alice', 'X-Trino-Catalog': 'tpch', 'X-Trino-Schema': 'tiny' };

interface StageNode { stageId: string; nodes: number; subStages: StageNode[]; tasks?: { taskStatus: { nodeId: string } }[] }
const flatten = (s: StageNode): StageNode[] => [s, ...s.subStages.flatMap(flatten)];

describe('e2e: more plan shapes in stages across two worker processes', function () {
  this.timeout(180_000);
  const started = withTpchCluster(SHARED_TPCH, SECRET, 'vivace-e2e-plan-shapes-');

  /** Runs `sql` on the cluster and in process: the same rows, names and types, in `stages` stages or more, with tasks on both workers. */
  async function expectStaged(sql: string, stages: number, ordered = false): Promise<void> {
    const { cluster, local } = started();
    const result = await runStatement(cluster.url, sql, headers);
    expect(result.final.stats.state, `${sql}: ${JSON.stringify(result.final.error)}`).to.equal('FINISHED');
    const expected = await runOn(local, sql, session({ catalog: 'tpch', schema: 'tiny' }));
    expectSameRows(ordered ? result.rows : sortedRows(result.rows), ordered ? expected.rows : sortedRows(expected.rows), sql);
    const columns = (result.responses.find((r) => r.columns)?.columns ?? []) as { name: string; type: string }[];
    expect(columns.map((c) => [c.name, c.type]), `${sql} columns`).to.deep.equal((expected.columns as OutputColumn[]).map((c) => [c.name, formatType(c.type)]));
    expect(flatten(result.final.stats.rootStage as StageNode).length, `${sql} stages`).to.be.at.least(stages);
    const info = await request('GET', `${cluster.url}/v1/query/${result.final.id as string}`, { headers });
    const nodes = new Set(flatten(info.body.outputStage as StageNode).flatMap((s) => (s.tasks ?? []).map((t) => t.taskStatus.nodeId)));
    expect([...nodes].sort(), `${sql} workers`).to.deep.equal([...cluster.workerUrls.keys()].sort());
  }

  it('bool_and, every, bool_or, count_if, arbitrary, max_by and min_by: partial in the leaves, final in the root', async () => {
    await expectStaged(`SELECT orderpriority, bool_and(totalprice > 1000) AS a, every(orderstatus <> 'X') AS e, bool_or(totalprice > 500000) AS o,
      count_if(totalprice > 100000) AS n, arbitrary(orderpriority) AS p, max_by(clerk, orderkey) AS c, min_by(orderdate, orderkey) AS d
      FROM orders GROUP BY orderpriority ORDER BY 1`, 2, true);
  });

  it('windows partitioned on their keys: scan, HASH buckets, root (three stages)', async () => {
    await expectStaged(`SELECT o.custkey, o.orderkey, rank() OVER (PARTITION BY o.custkey ORDER BY o.totalprice DESC, o.orderkey) AS r,
      sum(o.shippriority) OVER (PARTITION BY custkey) AS s FROM orders o WHERE o.orderstatus = 'F' ORDER BY r, o.orderkey LIMIT 25`, 3, true);
    await expectStaged('SELECT orderkey, linenumber, lag(quantity) OVER (PARTITION BY orderkey ORDER BY linenumber) AS before FROM lineitem WHERE linenumber > 5', 3);
    await expectStaged('SELECT *, rank() OVER (PARTITION BY nationkey ORDER BY acctbal DESC, custkey) AS r FROM customer WHERE custkey < 200', 3);
    // Grouped: the groups of a partition key that is a group key are aggregated in its bucket, then ranked.
    await expectStaged(`SELECT returnflag, linestatus, shipmode, count(*) AS n, rank() OVER (PARTITION BY shipmode ORDER BY count(*) DESC, returnflag, linestatus) AS r
      FROM lineitem GROUP BY returnflag, linestatus, shipmode ORDER BY shipmode, r`, 3, true);
    // A stand-alone scalar subquery in the select list: its own two stages over orders, its row broadcast to the buckets (window-scalars.ts).
    await expectStaged(`SELECT orderkey, rank() OVER (PARTITION BY custkey ORDER BY totalprice, orderkey) AS r, totalprice / (SELECT max(o2.totalprice) FROM orders o2) AS share
      FROM orders WHERE custkey < 300 ORDER BY share DESC, orderkey LIMIT 20`, 5, true);
  });

  it('UNION ALL, UNION, INTERSECT and EXCEPT: each branch in its own fragments side by side, the root unions, sorts and limits', async () => {
    await expectStaged(`SELECT orderpriority AS k, count(*) AS n FROM orders GROUP BY 1 UNION ALL SELECT name, nationkey FROM nation
      UNION ALL SELECT o.orderpriority, count(*) FROM orders o JOIN lineitem l ON l.orderkey = o.orderkey WHERE l.quantity > 49 GROUP BY 1
      UNION ALL SELECT returnflag, count(*) FROM lineitem WHERE shipmode = 'AIR' GROUP BY returnflag ORDER BY k, n`, 5, true);
    await expectStaged(`SELECT orderkey, totalprice * 2, 'o' AS source FROM orders WHERE totalprice > 450000
      UNION SELECT orderkey, extendedprice, 'l' FROM lineitem WHERE extendedprice > 100000 ORDER BY 2 DESC LIMIT 12`, 3, true);
    await expectStaged('SELECT * FROM nation UNION ALL SELECT n.* FROM nation n WHERE regionkey = 1 ORDER BY nationkey, name', 3, true);
    await expectStaged(`SELECT custkey AS c FROM orders WHERE orderpriority = '1-URGENT' INTERSECT SELECT custkey FROM orders WHERE orderstatus = 'F'
      EXCEPT SELECT suppkey FROM lineitem WHERE quantity = 50 ORDER BY c`, 3, true);
  });

  it('UNION ALL of branches whose join plans carry sub-plans and a correlated subquery: the workers derive them from the branches\' choices', async () => {
    await expectStaged(`SELECT t.n AS k, count(*) AS c FROM (SELECT o.custkey, count(*) AS n FROM orders o GROUP BY o.custkey) AS t GROUP BY t.n
      UNION ALL SELECT p.size, count(*) FROM part p, partsupp ps WHERE p.partkey = ps.partkey AND ps.availqty > 9000
        AND p.retailprice > (SELECT min(l.extendedprice) / 10 FROM lineitem l WHERE l.partkey = p.partkey AND l.quantity > 49) GROUP BY 1
      UNION ALL SELECT c.nationkey, count(x.c) FROM customer c LEFT JOIN (SELECT o.custkey AS k, count(*) AS c FROM orders o GROUP BY o.custkey) AS x
        ON x.k = c.custkey GROUP BY 1 ORDER BY k, c`, 8, true);
  });
});
