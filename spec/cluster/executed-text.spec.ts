// An EXECUTE's distributed plan is its prepared statement's with the USING values bound (executed-text.ts),
// derived alike by the coordinator and, from its choices, by a worker.
import { expect } from 'chai';
import { plannedText } from '../../lib/cluster/executed-text.js';
import { distributedPlanOf } from '../../lib/cluster/distributed-plan.js';
import { builtInConnectors, session } from './cluster-harness.js';

const JOIN = 'SELECT o.orderkey FROM tpch.tiny.orders o JOIN tpch.tiny.lineitem l ON o.orderkey = l.orderkey WHERE l.quantity > ? ORDER BY 1 OFFSET ? LIMIT ?';
const prepared = session({ catalog: 'tpch', schema: 'tiny', preparedStatements: { Q: JOIN, show: 'SHOW TABLES' } });

describe('cluster: the text an EXECUTE is planned as', () => {
  it('binds the values on the tree, row counts from integer literals, and leaves any other statement as it is', () => {
    expect(plannedText('SELECT 1', prepared)).to.equal('SELECT 1');
    expect(plannedText("EXECUTE q USING 'x' || 'y', 2, 3", prepared)).to.equal(
      "SELECT o.orderkey FROM tpch.tiny.orders AS o INNER JOIN tpch.tiny.lineitem AS l ON o.orderkey = l.orderkey WHERE l.quantity > 'x' || 'y' ORDER BY 1 OFFSET 2 ROWS LIMIT 3",
    );
    expect(plannedText("EXECUTE IMMEDIATE 'SELECT ? + 1 FROM tpch.tiny.nation LIMIT ?' USING 41, 5", prepared)).to.equal('SELECT 41 + 1 FROM tpch.tiny.nation LIMIT 5');
  });

  it('has none (one task, whose planning reports what is wrong) for a row count not a literal, a count of values that does not match, an unknown name, a statement that is no query', () => {
    for (const sql of ['EXECUTE q USING 1, 1 + 1, 3', 'EXECUTE q USING 1, -2, 3', 'EXECUTE q USING 1, 2', 'EXECUTE missing USING 1', 'EXECUTE show', "EXECUTE IMMEDIATE 'SELECT 1 FETCH FIRST ? ROWS ONLY' USING 0"]) {
      expect(plannedText(sql, prepared), sql).to.equal(undefined);
    }
  });

  it('plans the bound statement\'s fragments, and a worker given the coordinator\'s choices derives the same', () => {
    const connectors = builtInConnectors(undefined, { tpchMinRows: 0 });
    const coordinator = distributedPlanOf('EXECUTE q USING 5, 10, 20', prepared, connectors)!;
    const written = distributedPlanOf('SELECT o.orderkey FROM tpch.tiny.orders o JOIN tpch.tiny.lineitem l ON o.orderkey = l.orderkey WHERE l.quantity > 5 ORDER BY 1 OFFSET 10 LIMIT 20', prepared, connectors)!;
    expect(coordinator.fragments.map((f) => f.sql)).to.deep.equal(written.fragments.map((f) => f.sql));
    expect(coordinator.fragments[0]!.sql).to.match(/ OFFSET 10 ROWS LIMIT 20$/u);
    const worker = distributedPlanOf('EXECUTE q USING 5, 10, 20', prepared, connectors, coordinator.choices)!;
    expect(worker.fragments.map((f) => f.sql)).to.deep.equal(coordinator.fragments.map((f) => f.sql));
  });
});
