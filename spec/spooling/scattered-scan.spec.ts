// Which statements run as a scattered scan (one table's rows one by one, for a client of the spooling
// protocol), and the plan a worker derives from the coordinator's choices: the same one fragment.
import { expect } from 'chai';
import { SCATTERED_CHOICES, scatteredPlanOf } from '../../lib/spooling/scattered-scan.js';
import { distributedPlanOf } from '../../lib/cluster/distributed-plan.js';
import { builtInConnectors, session } from '../cluster/cluster-harness.js';

const sf1 = session({ catalog: 'tpch', schema: 'sf1' });
const SPLITTABLE = new Set(['tpch']);

describe('scattered scan: the plan', () => {
  it('scatters a projection and filter of one split table: its root over the scan, the WHERE kept for pruning', () => {
    const sql = 'SELECT l.orderkey, quantity * 2 AS q, upper(comment) FROM lineitem AS l WHERE l.quantity > 10 AND shipmode IN (\'AIR\', \'RAIL\')';
    const plan = scatteredPlanOf(sql, sf1, SPLITTABLE)!;
    expect(plan.choices).to.deep.equal(SCATTERED_CHOICES);
    expect(plan.tables).to.deep.equal([{ catalog: 'tpch', schema: 'sf1', table: 'lineitem' }]);
    expect(plan.fragments).to.have.length(1);
    const [root] = plan.fragments;
    expect({ id: root!.id, partitioning: root!.partitioning, sources: root!.sources, output: root!.output, sql: root!.sql, table: root!.scan?.table })
      .to.deep.equal({ id: 0, partitioning: 'SOURCE', sources: [], output: { kind: 'SINGLE' }, sql, table: { catalog: 'tpch', schema: 'sf1', table: 'lineitem' } });
    expect(root!.scan?.where?.type).to.equal('LogicalExpression');
    // The time of the query too: every task prints the query's start (zoned-translation.ts).
    const timed = ['SELECT orderkey, current_timestamp FROM lineitem', 'SELECT now(), current_date, localtimestamp(6) FROM lineitem WHERE shipdate < current_date'];
    for (const other of ['SELECT * FROM tpch.sf1.lineitem', 'SELECT t.* FROM tpch.tiny.orders t', 'SELECT CAST(totalprice AS varchar), rand() FROM orders WHERE orderkey % 7 = 0', ...timed]) {
      expect(scatteredPlanOf(other, sf1, SPLITTABLE), other).to.not.equal(undefined);
    }
  });

  it('leaves anything that is not one table\'s rows one by one to the other paths', () => {
    const refused = [
      'SELECT * FROM lineitem ORDER BY orderkey', 'SELECT * FROM lineitem LIMIT 10', 'SELECT * FROM lineitem OFFSET 10', 'SELECT * FROM lineitem FETCH FIRST 5 ROWS ONLY',
      'SELECT count(*) FROM lineitem', 'SELECT orderkey FROM lineitem GROUP BY orderkey', 'SELECT DISTINCT orderkey FROM lineitem', 'SELECT max(quantity) FROM lineitem HAVING true',
      'SELECT orderkey, row_number() OVER () FROM lineitem', 'SELECT orderkey FROM lineitem WHERE orderkey IN (SELECT orderkey FROM orders)',
      'SELECT * FROM lineitem JOIN orders USING (orderkey)', 'SELECT * FROM lineitem, orders', 'WITH x AS (SELECT * FROM lineitem) SELECT * FROM x',
      'SELECT orderkey FROM lineitem UNION ALL SELECT orderkey FROM orders', 'SELECT "$path" FROM lineitem',
      'SELECT * FROM (SELECT * FROM lineitem) t', 'SELECT * FROM UNNEST(ARRAY[1])', 'VALUES 1', 'SELECT 1', 'SELECT * FROM memory.default.t', 'SHOW TABLES',
      'SELECT (SELECT 1) FROM lineitem', 'SELECT transform(ARRAY[quantity], x -> x + 1) FROM lineitem', 'not sql',
    ];
    for (const sql of refused) expect(scatteredPlanOf(sql, sf1, SPLITTABLE), sql).to.equal(undefined);
    // A catalog whose connector does not split, and an open transaction (its reads are one worker's).
    expect(scatteredPlanOf('SELECT * FROM lineitem', sf1, new Set(['hive']))).to.equal(undefined);
    expect(scatteredPlanOf('SELECT * FROM lineitem', { ...sf1, transactionId: 'tx1' }, SPLITTABLE)).to.equal(undefined);
  });

  it('a worker given the scattered choices derives the same plan; without them the statement has no distributed plan', () => {
    const connectors = builtInConnectors(undefined, { tpchMinRows: 0 });
    const sql = 'SELECT * FROM tpch.sf1.lineitem WHERE quantity < 5';
    expect(distributedPlanOf(sql, sf1, connectors, SCATTERED_CHOICES)).to.deep.equal(scatteredPlanOf(sql, sf1, connectors.splittable));
    expect(distributedPlanOf(sql, sf1, connectors)).to.equal(undefined);
    // Choices naming a statement that does not scatter: no plan (the worker refuses the task).
    expect(distributedPlanOf('SELECT count(*) FROM tpch.sf1.lineitem', sf1, connectors, SCATTERED_CHOICES)).to.equal(undefined);
  });
});
