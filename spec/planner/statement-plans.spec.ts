// The distributed plan of a statement's text as the coordinator and the workers ask for it, over the real
// tpch connector's layouts (planner-metadata.ts): the session's join properties choose the distribution,
// a worker given the coordinator's choices derives the same fragments, and anything else runs as before.
import { expect } from 'chai';
import { connectorsOf } from '../../lib/connectors/connectors.js';
import { plannerMetadataOf } from '../../lib/cluster/planner-metadata.js';
import { distributedPlanFor } from '../../lib/planner/statement-plans.js';
import { session } from '../cluster/cluster-harness.js';
import { generatedTiny } from '../support/generated-tiny.js';
import type { PlannerMetadata } from '../../lib/planner/planner.types.js';

const Q3 = `SELECT l.orderkey, sum(l.extendedprice * (1 - l.discount)) AS revenue FROM tiny.customer c, tiny.orders o, tiny.lineitem l
  WHERE c.mktsegment = 'BUILDING' AND c.custkey = o.custkey AND l.orderkey = o.orderkey GROUP BY l.orderkey ORDER BY 2 DESC LIMIT 10`;

describe('statement plans: the distributed plan of a text in a session', function () {
  this.timeout(60_000);
  let metadata: PlannerMetadata;

  before(async () => {
    const { directory } = await generatedTiny();
    // Tables of at least 10,000 rows split (lineitem, orders); the others are read whole by one task.
    metadata = plannerMetadataOf(connectorsOf([{ name: 'tpch', connector: 'tpch', directory }, { name: 'memory', connector: 'memory' }], { tpchMinRows: 10_000 }));
  });

  it('plans a join over the tpch connector\'s layouts: the big tables over their splits, the small ones whole', () => {
    const plan = distributedPlanFor(Q3, session({ catalog: 'tpch' }), metadata)!;
    expect(plan.choices.split).to.deep.equal([false, true, true]);
    expect(plan.tables.map((t) => t.table)).to.deep.equal(['customer', 'orders', 'lineitem']);
    expect(plan.fragments.filter((f) => f.partitioning === 'SOURCE').map((f) => f.scan!.table.table).sort()).to.deep.equal(['lineitem', 'orders']);
    expect(plan.choices.joins).to.deep.equal(['BROADCAST', 'BROADCAST']);
  });

  it('honours join_distribution_type and join_max_broadcast_table_size from the session', () => {
    const partitioned = distributedPlanFor(Q3, session({ catalog: 'tpch', properties: { join_distribution_type: 'PARTITIONED' } }), metadata)!;
    expect(partitioned.choices.joins).to.deep.equal(['PARTITIONED', 'PARTITIONED']);
    const tiny = distributedPlanFor(Q3, session({ catalog: 'tpch', properties: { join_max_broadcast_table_size: '1kB' } }), metadata)!;
    expect(tiny.choices.joins).to.deep.equal(['PARTITIONED', 'PARTITIONED']);
    const worker = distributedPlanFor(Q3, session({ catalog: 'tpch' }), metadata, partitioned.choices)!;
    expect(worker.fragments).to.deep.equal(partitioned.fragments);
  });

  it('runs as before: a statement that is no join, a join in a transaction, memory tables alone, text that does not parse', () => {
    for (const sql of ['SELECT 1', 'SELECT count(*) FROM tiny.lineitem', 'SELEC', 'SELECT count(*) FROM memory.default.a x, memory.default.b l WHERE x.k = l.orderkey']) {
      expect(distributedPlanFor(sql, session({ catalog: 'tpch' }), metadata), sql).to.equal(undefined);
      expect(distributedPlanFor(sql, session({ catalog: 'tpch' }), metadata), `${sql} again`).to.equal(undefined);
    }
    expect(distributedPlanFor(Q3, session({ catalog: 'tpch', transactionId: 'abc' }), metadata)).to.equal(undefined);
  });

  it('reads a memory table beside tpch splits in a fragment pinned to the memory catalog\'s worker, BROADCAST: into the join\'s tasks, or gathered', () => {
    // Its columns qualified: the join planner's plan (held-relations.ts), the join in lineitem's tasks.
    const joined = distributedPlanFor('SELECT count(*) FROM memory.default.a x, tiny.lineitem l WHERE x.k = l.orderkey', session({ catalog: 'tpch' }), metadata)!;
    expect(joined.choices).to.deep.equal({ order: [1, 0], joins: ['BROADCAST'], split: [false, true], held: ['memory'] });
    expect(joined.fragments.filter((f) => f.holder === 'memory').map((f) => [f.partitioning, f.output.kind])).to.deep.equal([['SINGLE', 'BROADCAST']]);
    // An unqualified column might be the memory table's: gathered, the join in the root.
    const plan = distributedPlanFor('SELECT count(*) FROM memory.default.a x, tiny.lineitem l WHERE k = l.orderkey', session({ catalog: 'tpch' }), metadata)!;
    expect(plan.choices).to.deep.equal({ order: [], joins: [], split: [false, true], held: ['memory'] });
    expect(plan.fragments.filter((f) => f.holder === 'memory').map((f) => [f.partitioning, f.output.kind])).to.deep.equal([['SINGLE', 'BROADCAST']]);
  });
});
