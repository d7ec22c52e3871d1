// The distributed plan of a statement's text as the coordinator and the workers ask for it, over the real
// tpch connector's layouts (planner-metadata.ts): the session's join properties choose the distribution,
// a worker given the coordinator's choices derives the same fragments, and anything else runs as before.
import { expect } from 'chai';
import { connectorsOf } from '../../lib/connectors/connectors.js';
import { plannerMetadataOf } from '../../lib/cluster/planner-metadata.js';
import { distributedPlanFor } from '../../lib/planner/statement-plans.js';
import { distributedPlanOf, type PlanConnectors } from '../../lib/cluster/distributed-plan.js';
import { session } from '../cluster/cluster-harness.js';
import { generatedTiny } from '../support/generated-tiny.js';
import type { PlannerMetadata } from '../../lib/planner/planner.types.js';

const Q3 = `SELECT l.orderkey, sum(l.extendedprice * (1 - l.discount)) AS revenue FROM tiny.customer c, tiny.orders o, tiny.lineitem l
  WHERE c.mktsegment = 'BUILDING' AND c.custkey = o.custkey AND l.orderkey = o.orderkey GROUP BY l.orderkey ORDER BY 2 DESC LIMIT 10`;

describe('statement plans: the distributed plan of a text in a session', function () {
  this.timeout(60_000);
  let metadata: PlannerMetadata;
  let connectors: PlanConnectors;

  before(async () => {
    const { directory } = await generatedTiny();
    // Tables of at least 10,000 rows split (lineitem, orders); the others are read whole by one task.
    connectors = connectorsOf([{ name: 'tpch', connector: 'tpch', directory }, { name: 'memory', connector: 'memory' }], { tpchMinRows: 10_000 });
    metadata = plannerMetadataOf(connectors);
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

  it('reads a memory table beside tpch splits in a fragment pinned to the memory catalog\'s worker, BROADCAST: into the join\'s tasks (its columns qualified or not), or gathered (a `*`)', () => {
    // Its columns qualified: the join planner's plan (held-relations.ts), the join in lineitem's tasks.
    const joined = distributedPlanFor('SELECT count(*) FROM memory.default.a x, tiny.lineitem l WHERE x.k = l.orderkey', session({ catalog: 'tpch' }), metadata)!;
    expect(joined.choices).to.deep.equal({ order: [1, 0], joins: ['BROADCAST'], split: [false, true], held: ['memory'] });
    expect(joined.fragments.filter((f) => f.holder === 'memory').map((f) => [f.partitioning, f.output.kind])).to.deep.equal([['SINGLE', 'BROADCAST']]);
    // An unqualified column no tpch table has is the memory table's: the same plan.
    const unqualified = distributedPlanFor('SELECT count(*) FROM memory.default.a x, tiny.lineitem l WHERE k = l.orderkey', session({ catalog: 'tpch' }), metadata)!;
    expect(unqualified.choices).to.deep.equal(joined.choices);
    // A `*` reads columns no node but the holder knows: gathered, the join in the root.
    const plan = distributedPlanFor('SELECT * FROM memory.default.a x, tiny.lineitem l WHERE x.k = l.orderkey', session({ catalog: 'tpch' }), metadata)!;
    expect(plan.choices).to.deep.equal({ order: [], joins: [], split: [false, true], held: ['memory'] });
    expect(plan.fragments.filter((f) => f.holder === 'memory').map((f) => [f.partitioning, f.output.kind])).to.deep.equal([['SINGLE', 'BROADCAST']]);
  });

  it('plans one table\'s grouping sets by group ids, the final in a HASH stage, when the sets are all different; else as before', () => {
    const rollup = 'SELECT returnflag, linestatus, count(*) FROM tiny.lineitem GROUP BY ROLLUP (returnflag, linestatus)';
    const plan = distributedPlanFor(rollup, session({ catalog: 'tpch' }), metadata)!;
    expect(plan.fragments.map((f) => f.partitioning)).to.deep.equal(['SINGLE', 'HASH', 'SOURCE']);
    expect(plan.fragments[2]!.output).to.deep.include({ kind: 'HASH' });
    expect(distributedPlanFor(rollup, session({ catalog: 'tpch' }), metadata, plan.choices)!.fragments).to.deep.equal(plan.fragments);
    // The coordinator's door asks the planner before the two stages; a worker given the choices derives the same.
    // The door marks them zoneFree (tpch alone: distributed-plan.ts).
    const marked = plan.fragments.map((f) => ({ ...f, zoneFree: true }));
    const door = distributedPlanOf(rollup, session({ catalog: 'tpch' }), connectors)!;
    expect(door.fragments).to.deep.equal(marked);
    expect(distributedPlanOf(rollup, session({ catalog: 'tpch' }), connectors, door.choices)!.fragments).to.deep.equal(marked);
    // A set written twice, an aggregate that does not split, a table that does not split: no plan here,
    // and the door's two stages (root final) where they split.
    for (const sql of [
      'SELECT returnflag, count(*) FROM tiny.lineitem GROUP BY GROUPING SETS ((returnflag), (returnflag), ())',
      'SELECT returnflag, array_agg(linestatus) FROM tiny.lineitem GROUP BY ROLLUP (returnflag)',
      'SELECT k, count(*) FROM memory.default.a GROUP BY ROLLUP (k)',
      'SELECT nationkey, count(*) FROM tiny.customer GROUP BY CUBE (nationkey)',
    ]) expect(distributedPlanFor(sql, session({ catalog: 'tpch' }), metadata), sql).to.equal(undefined);
    const twice = distributedPlanOf('SELECT returnflag, count(*) FROM tiny.lineitem GROUP BY GROUPING SETS ((returnflag), (returnflag), ())', session({ catalog: 'tpch' }), connectors)!;
    expect(twice.fragments.map((f) => f.partitioning)).to.deep.equal(['SINGLE', 'SOURCE']);
    expect(twice.fragments[0]!.sql).to.include('GROUPING SETS');
  });
});
