// OFFSET on `vivace serve --workers 2` (every tpch table split, vivace.distributed-tpch-min-rows=0), each
// statement answering as in one DuckDB in process. Inside a derived table it is not planned in fragments
// (query-analysis.ts refuses an OFFSET in a sub-plan, derived-tables.ts any ORDER BY, OFFSET or LIMIT of a
// derived table): such a statement runs as one task on one worker, reading its tables whole there. As a
// parameter of EXECUTE it is planned as the statement with its values bound (cluster/executed-text.ts): the
// tasks keep offset + limit rows, the root offsets, as for a literal OFFSET.
import { expect } from 'chai';
import { join } from 'node:path';
import { defaultConfig } from '../../lib/config.js';
import { request, runStatement } from '../support/http.js';
import { validateResponse } from '../support/schema-validator.js';
import { runOn, session } from '../cluster/cluster-harness.js';
import { expectSameRows } from '../cluster/same-rows.js';
import { USER, withTpchCluster } from './cluster-nodes.js';

const SHARED_TPCH = join(defaultConfig().dataDirectory, 'tpch');

interface StageNode { subStages: StageNode[] }
const flatten = (s: StageNode): StageNode[] => [s, ...s.subStages.flatMap(flatten)];

describe('e2e: OFFSET in a derived table and as a parameter, over tables split across two worker processes', function () {
  this.timeout(240_000);
  const started = withTpchCluster(SHARED_TPCH, 'offset-stages-e2e-secret', 'vivace-e2e-offset-stages-');

  /** Runs `sql` on the cluster (with `headers`) and in process: equal rows; the stages it ran in. */
  async function same(sql: string, headers: Record<string, string> = {}, prepared: Record<string, string> = {}): Promise<number> {
    const { cluster, local: engine } = started();
    const result = await runStatement(cluster.url, sql, { ...USER, ...headers });
    expect(result.final.stats.state, `${sql}: ${JSON.stringify(result.final.error)}`).to.equal('FINISHED');
    const expected = await runOn(engine, sql, session({ catalog: 'tpch', schema: 'tiny', preparedStatements: prepared }));
    expectSameRows(result.rows, expected.rows, sql);
    const info = await request('GET', `${cluster.url}/v1/query/${result.final.id as string}`, { headers: USER });
    validateResponse('query-info', info.body);
    return flatten(info.body.outputStage as StageNode).length;
  }

  it('OFFSET inside a derived table: ordered, with and without LIMIT, and joined', async () => {
    const shapes = [
      'SELECT orderkey, linenumber FROM (SELECT orderkey, linenumber FROM tpch.tiny.lineitem ORDER BY orderkey, linenumber OFFSET 10 LIMIT 5) t ORDER BY 1, 2',
      'SELECT count(*), sum(orderkey), min(orderkey) FROM (SELECT orderkey FROM tpch.tiny.lineitem ORDER BY orderkey DESC, linenumber OFFSET 100) t',
      'SELECT t.orderkey, o.totalprice FROM (SELECT orderkey FROM tpch.tiny.orders ORDER BY orderkey OFFSET 3 LIMIT 4) t JOIN tpch.tiny.orders o ON o.orderkey = t.orderkey ORDER BY 1',
      'SELECT s, count(*) FROM (SELECT suppkey AS s FROM tpch.tiny.lineitem ORDER BY orderkey, linenumber OFFSET 59000) t GROUP BY s ORDER BY 2 DESC, 1 LIMIT 3',
    ];
    // Run as one task, or (the join) with the derived table's relation gathered (gather-planner.ts): 1, 1, 2, 1 stages.
    const stages: number[] = [];
    for (const sql of shapes) stages.push(await same(sql));
    expect(stages).to.deep.equal([1, 1, 2, 1]);
  });

  it('EXECUTE over split tables is planned in stages as its statement with the values bound: a parameter OFFSET, LIMIT and FETCH FIRST, a parameter in WHERE', async () => {
    const statements = {
      p: 'SELECT o.orderkey, l.linenumber FROM tpch.tiny.orders o JOIN tpch.tiny.lineitem l ON o.orderkey = l.orderkey ORDER BY 1, 2 OFFSET ? LIMIT ?',
      q: 'SELECT l.returnflag, count(*) FROM tpch.tiny.lineitem l WHERE l.quantity > ? GROUP BY 1 ORDER BY 1',
      r: 'SELECT o.orderpriority, count(*) FROM tpch.tiny.orders o JOIN tpch.tiny.lineitem l ON o.orderkey = l.orderkey WHERE l.quantity > ? GROUP BY 1 ORDER BY 1 OFFSET ?',
      s: 'SELECT o.orderkey FROM tpch.tiny.orders o JOIN tpch.tiny.customer c ON o.custkey = c.custkey ORDER BY o.orderkey DESC OFFSET ? FETCH FIRST ? ROWS ONLY',
      t: 'SELECT orderkey, linenumber FROM tpch.tiny.lineitem ORDER BY orderkey, linenumber OFFSET ? LIMIT ?',
    };
    const header = { 'X-Trino-Prepared-Statement': Object.entries(statements).map(([name, sql]) => `${name}=${encodeURIComponent(sql)}`).join(',') };
    const staged = ['EXECUTE p USING 20, 7', 'EXECUTE p USING 0, 2', 'EXECUTE q USING 30', 'EXECUTE r USING 10, 1', 'EXECUTE s USING 5, 2', "EXECUTE IMMEDIATE 'SELECT count(*) FROM tpch.tiny.lineitem WHERE quantity > ?' USING 3"];
    for (const execute of staged) expect(await same(execute, header, statements), `${execute}: stages`).to.be.at.least(2);
    // As the statement written with its values: one table's ORDER BY ... OFFSET runs as one task; a row count
    // given by an expression is the engine's to evaluate (and check), in one task.
    for (const execute of ['EXECUTE t USING 20, 7', 'EXECUTE p USING 1 + 1, 3']) expect(await same(execute, header, statements), `${execute}: one task`).to.equal(1);
    const negative = await runStatement(started().cluster.url, 'EXECUTE p USING -1, 2', { ...USER, ...header });
    expect(negative.final.error).to.deep.include({ errorName: 'NUMERIC_VALUE_OUT_OF_RANGE' });
  });
});
