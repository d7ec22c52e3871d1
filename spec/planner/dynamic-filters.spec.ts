// Dynamic filters between broadcast builds (lib/planner/dynamic-filters.ts) and a semi source grouped on
// its table's partitioning column run in one stage (semi-stages.ts groupsByPartitioning): which builds
// filter which (a filtered build by a smaller filtered one, through equalities inferred across the probe),
// the filtered fragment reading the filtering one, the choices a worker follows (and refuses when they do
// not fit), enable_dynamic_filtering off, PARTITIONED; a build over orders joined to lineitem on orderkey,
// both cut on it, with no filter of its own, read whole in place by the probe's tasks (PlanFragment.colocated);
// TPC-H Q3, Q4, Q7, Q9, Q10, Q12 and Q18 at tiny run by fragment-runner.ts give the one-task answer over 1 and 3 tasks.
import { expect } from 'chai';
import { parseStatement } from '../../lib/sql/index.js';
import { TPCH_QUERIES } from '../../lib/tpch/queries/tpch-queries.js';
import { planDistributed } from '../../lib/planner/distributed-planner.js';
import { chooseDynamicFilters, DYNAMIC_FILTER_MIN_ROWS, equalKeys, validDynamicFilters, type EquiEdge } from '../../lib/planner/dynamic-filters.js';
import { groupsByPartitioning } from '../../lib/planner/semi-stages.js';
import { inlineSmallFragments } from '../../lib/cluster/inline-fragments.js';
import type { DistributedPlan } from '../../lib/planner/fragment.types.js';
import type { PlannerMetadata, PlannerSession } from '../../lib/planner/planner.types.js';
import type { Query } from '../../lib/sql/index.js';
import { rowsOf, runPlan, sortedRows, tinyMetadata, translate, withTinyDuckDb, TINY_ROWS } from './fragment-runner.js';
import { expectSameRows } from '../cluster/same-rows.js';

const tiny = tinyMetadata((t) => TINY_ROWS[t]! >= 2000);
/** tpch.tiny's tables with sf1's row counts (100 times tiny's): the planner's choices as at sf1, over tiny's rows. */
const asSf1: PlannerMetadata = { table: (t) => { const l = tiny.table(t); return l && { ...l, ...(l.rows !== undefined ? { rows: l.rows * 100 } : {}) }; } };
const session = (joinDistribution: PlannerSession['joinDistribution'] = 'AUTOMATIC', dynamicFiltering?: boolean): PlannerSession =>
  ({ catalog: 'tpch', schema: 'tiny', joinDistribution, maxBroadcastBytes: 100 * 1024 * 1024, ...(dynamicFiltering === undefined ? {} : { dynamicFiltering }) });
const tpch = (n: number) => TPCH_QUERIES[n - 1]!.sql;
const byId = (plan: DistributedPlan) => new Map(plan.fragments.map((f) => [f.id, f]));

describe('planner: dynamic filters between broadcast builds', () => {
  const db = withTinyDuckDb();
  const same = async (sql: string, plan: DistributedPlan, tasks: number, partitionedOn?: Record<string, string>) => {
    const options = { tasks, catalog: 'tpch', schema: 'tiny', ...(partitionedOn ? { partitionedOn } : {}) };
    const statement = parseStatement(sql);
    const order = (rows: unknown[][]) => (statement.type === 'Query' && statement.orderBy ? rows : sortedRows(rows));
    expectSameRows(order(await runPlan(db(), plan, options)), order(await rowsOf(db(), translate(sql, options))), sql.slice(0, 60));
  };

  describe('chooseDynamicFilters', () => {
    const edge = (left: string, right: string): EquiEdge => ({ left, right, leftRelation: Number(left.split('_')[1]!.slice(1)), rightRelation: Number(right.split('_')[1]!.slice(1)) });
    it('a filtered build filters a larger or unfiltered one it is joined to, never the other way; an unfiltered one filters nothing', () => {
      // Q3's shape: lineitem (2) the probe; orders (1) and customer (0) broadcast, both filtered, customer smaller.
      const q3 = [edge('vivace_r0_0', 'vivace_r1_1'), edge('vivace_r2_0', 'vivace_r1_0')];
      const rows = () => 20_000;
      expect(chooseDynamicFilters([1, 0], q3, [100, 1000, 10000], () => true, rows)).to.deep.equal([[1, 0]]);
      // A table of DYNAMIC_FILTER_MIN_ROWS rows or fewer (read in place by its consumers) is not filtered.
      expect(chooseDynamicFilters([1, 0], q3, [100, 1000, 10000], () => true, () => DYNAMIC_FILTER_MIN_ROWS)).to.deep.equal([]);
      // Q10's shape: customer (0) unfiltered and smaller than orders (1), which is filtered: orders filters customer.
      expect(chooseDynamicFilters([0, 1], q3, [100, 1000, 10000], (r) => r === 1, rows)).to.deep.equal([[0, 1]]);
      // Neither filtered: no filter (an unfiltered table's keys are every key).
      expect(chooseDynamicFilters([0, 1], q3, [100, 1000, 10000], () => false, rows)).to.deep.equal([]);
      // A dynamically filtered build filters the next one: region (3) -> nation (4) -> supplier (5).
      const chain = [edge('vivace_r3_0', 'vivace_r4_2'), edge('vivace_r4_0', 'vivace_r5_3'), edge('vivace_r5_0', 'vivace_r6_1')];
      expect(chooseDynamicFilters([5, 4, 3], chain, [0, 0, 0, 5, 25, 100, 1e6], (r) => r === 3, rows)).to.deep.equal([[4, 3], [5, 4]]);
    });

    it('finds keys equal through the probe (Q9: partsupp.partkey = lineitem.partkey = part.partkey), one per class', () => {
      const q9 = [edge('vivace_r2_1', 'vivace_r3_0'), edge('vivace_r2_2', 'vivace_r3_1'), edge('vivace_r2_1', 'vivace_r0_0')];
      expect(equalKeys(q9, 3, 0)).to.deep.equal([{ filtered: 'vivace_r3_0', filtering: 'vivace_r0_0' }]);
      expect(equalKeys(q9, 0, 3)).to.deep.equal([{ filtered: 'vivace_r0_0', filtering: 'vivace_r3_0' }]);
      expect(equalKeys(q9, 3, 2)).to.deep.equal([{ filtered: 'vivace_r3_0', filtering: 'vivace_r2_1' }, { filtered: 'vivace_r3_1', filtering: 'vivace_r2_2' }]);
      expect(equalKeys(q9, 3, 1)).to.deep.equal([]);
    });

    it('refuses pairs that name no build, no equality, the same pair twice, or a cycle', () => {
      const edges = [edge('vivace_r0_0', 'vivace_r1_1'), edge('vivace_r1_0', 'vivace_r2_0')];
      expect(validDynamicFilters([[1, 0]], [0, 1], edges)).to.equal(true);
      expect(validDynamicFilters([[1, 0], [0, 1]], [0, 1], edges)).to.equal(false);
      expect(validDynamicFilters([[1, 0], [1, 0]], [0, 1], edges)).to.equal(false);
      // r2 and r0 meet r1 on different columns: no key of one equals a key of the other.
      expect(validDynamicFilters([[2, 0]], [0, 2], edges)).to.equal(false);
      expect(validDynamicFilters([[1, 2]], [0, 1], edges)).to.equal(false);
      expect(validDynamicFilters([[1, 1]], [0, 1], edges)).to.equal(false);
    });
  });

  for (const [n, filtered, filtering] of [[3, 'orders', 'customer'], [10, 'customer', 'orders'], [9, 'partsupp', 'part']] as const) {
    it(`TPC-H Q${n}: ${filtered}'s broadcast scan reads only ${filtering}'s keys, a worker derives the same fragments; off and PARTITIONED: none; the one-task answer`, async () => {
      const statement = parseStatement(tpch(n));
      const plan = planDistributed(statement, session(), asSf1)!;
      const fragments = byId(plan);
      const target = plan.fragments.find((f) => f.sql.includes('vivace_dynamic'))!;
      expect(target, `Q${n}: a filtered build`).to.not.equal(undefined);
      expect(target.sql).to.include(`"${filtered}"`);
      expect(target.output.kind).to.equal('BROADCAST');
      const reads = target.sources.map((s) => fragments.get(s.fragmentId)!);
      expect(reads.some((f) => f.sql.includes(`"${filtering}"`) && f.output.kind === 'BROADCAST')).to.equal(true);
      expect(target.sql).to.match(/WHERE vivace_r\d+_\d+ IN \(SELECT vivace_r\d+_\d+ FROM vivace_stage\.exchange\.f\d+\)\) AS vivace_dynamic/u);
      expect(plan.choices.dynamicFilters).to.have.length.greaterThan(0);
      expect(planDistributed(statement, session(), asSf1, plan.choices), 'a worker derives the same fragments').to.deep.equal(plan);
      // A worker given pairs that do not fit refuses them.
      expect(planDistributed(statement, session(), asSf1, { ...plan.choices, dynamicFilters: [[0, 0]] })).to.equal(undefined);
      const off = planDistributed(statement, session('AUTOMATIC', false), asSf1)!;
      expect(off.fragments.some((f) => f.sql.includes('vivace_dynamic'))).to.equal(false);
      expect(off.choices.dynamicFilters).to.equal(undefined);
      const partitioned = planDistributed(statement, session('PARTITIONED'), asSf1)!;
      expect(partitioned.fragments.some((f) => f.sql.includes('vivace_dynamic'))).to.equal(false);
      for (const tasks of [1, 3]) await same(tpch(n), plan, tasks);
    });
  }

  describe('a broadcast build joined to the probe on the column both tables\' parts are cut on', () => {
    /** tpch.tiny with sf1's row counts, lineitem's and orders' parts cut on orderkey, as at sf1. */
    const parted: PlannerMetadata = { table: (t) => { const l = asSf1.table(t); return l && (t.table === 'lineitem' || t.table === 'orders' ? { ...l, partitionedOn: 'orderkey' } : l); } };

    for (const n of [7, 9, 12]) {
      it(`TPC-H Q${n}: orders is read whole in the probe's tasks (colocated, SINGLE, no scan), read in place, no dynamic filter on it; the one-task answer over 1 and 3 tasks`, async () => {
        const statement = parseStatement(tpch(n));
        const plan = planDistributed(statement, session(), parted)!;
        const orders = plan.fragments.filter((f) => f.sql.includes('"orders"'));
        expect(orders, `Q${n}`).to.have.length(1);
        expect(orders[0]).to.include({ partitioning: 'SINGLE', colocated: true });
        expect(orders[0]!.scan).to.equal(undefined);
        expect(orders[0]!.sources).to.deep.equal([]);
        expect(orders[0]!.output).to.deep.equal({ kind: 'BROADCAST' });
        const probe = plan.fragments.find((f) => f.sources.some((s) => s.fragmentId === orders[0]!.id))!;
        expect(probe.scan?.table.table).to.equal('lineitem');
        // Read in place whatever its rows (sf1's 1,500,000 here), by the coordinator's choices.
        const inPlace = inlineSmallFragments(plan, parted, { catalog: 'tpch', schema: 'tiny' });
        expect(inPlace.fragments.find((f) => f.id === orders[0]!.id)!.inline).to.equal(true);
        expect(planDistributed(statement, session(), parted, plan.choices), 'a worker derives the same fragments').to.deep.equal(plan);
        for (const tasks of [1, 3]) await same(tpch(n), plan, tasks, { lineitem: 'orderkey', orders: 'orderkey' });
      });
    }

    it('stays a SOURCE build where the probe is not cut on that column, orders has a filter of its own (Q3, Q10, Q21) or reads a semi-join source (Q18), or the join is on another key', () => {
      const onlyOrders: PlannerMetadata = { table: (t) => { const l = asSf1.table(t); return l && (t.table === 'orders' ? { ...l, partitionedOn: 'orderkey' } : l); } };
      const q3 = planDistributed(parseStatement(tpch(3)), session(), onlyOrders)!;
      expect(q3.fragments.some((f) => f.colocated)).to.equal(false);
      const q18 = planDistributed(parseStatement(tpch(18)), session(), parted)!;
      expect(q18.fragments.some((f) => f.colocated)).to.equal(false);
      // Orders with a filter of its own (Q3's, Q10's, Q21's dates and status): scanned once, its rows broadcast (Q3's filtered by customer's keys).
      for (const n of [3, 10, 21]) expect(planDistributed(parseStatement(tpch(n)), session(), parted)!.fragments.some((f) => f.colocated), `Q${n}`).to.equal(false);
      expect(planDistributed(parseStatement(tpch(3)), session(), parted)!.fragments.some((f) => f.sql.includes('vivace_dynamic'))).to.equal(true);
      // customer joins orders on custkey: not colocated (orders is the probe's start here or a build, never colocated on custkey).
      const q13 = planDistributed(parseStatement('SELECT c.name, count(*) FROM customer c, orders o WHERE c.custkey = o.custkey GROUP BY 1'), session(), parted)!;
      expect(q13.fragments.some((f) => f.colocated)).to.equal(false);
    });
  });

  describe('a semi source grouped on its table\'s partitioning column', () => {
    /** tpch.tiny with lineitem's parts cut on orderkey, as at sf1. */
    const parted: PlannerMetadata = { table: (t) => { const l = tiny.table(t); return l && (t.table === 'lineitem' ? { ...l, partitionedOn: 'orderkey' } : l); } };
    const query = (sql: string) => parseStatement(sql) as Query;

    it('groupsByPartitioning: plain keys holding the column (by name, qualified, ordinal), no grouping set, ORDER BY or LIMIT', () => {
      expect(groupsByPartitioning(query('SELECT orderkey FROM lineitem GROUP BY orderkey HAVING sum(quantity) > 300'), 'orderkey')).to.equal(true);
      expect(groupsByPartitioning(query('SELECT l.orderkey, l.partkey FROM lineitem l GROUP BY l.partkey, l.orderkey'), 'orderkey')).to.equal(true);
      expect(groupsByPartitioning(query('SELECT orderkey, count(*) FROM lineitem GROUP BY 1'), 'orderkey')).to.equal(true);
      expect(groupsByPartitioning(query('SELECT partkey FROM lineitem GROUP BY partkey'), 'orderkey')).to.equal(false);
      expect(groupsByPartitioning(query('SELECT orderkey FROM lineitem GROUP BY ROLLUP (orderkey)'), 'orderkey')).to.equal(false);
      expect(groupsByPartitioning(query('SELECT orderkey FROM lineitem GROUP BY orderkey ORDER BY count(*) DESC LIMIT 3'), 'orderkey')).to.equal(false);
      expect(groupsByPartitioning(query('SELECT orderkey FROM lineitem GROUP BY orderkey'), undefined)).to.equal(false);
    });

    for (const n of [18, 4]) {
      it(`TPC-H Q${n}: the source runs in one stage over lineitem's whole parts, broadcast, no HASH stage for it; the one-task answer over 1 and 3 tasks`, async () => {
        const statement = parseStatement(tpch(n));
        const plan = planDistributed(statement, session(), parted)!;
        const scans = plan.fragments.filter((f) => f.scan?.table.table === 'lineitem' && f.output.kind === 'BROADCAST');
        expect(scans, `Q${n}`).to.have.length(1);
        expect(scans[0]!.scan!.whole).to.equal(true);
        expect(scans[0]!.output).to.deep.equal({ kind: 'BROADCAST' });
        expect(scans[0]!.sources).to.deep.equal([]);
        expect(plan.fragments.some((f) => f.sources.some((s) => s.fragmentId === scans[0]!.id) && f.partitioning === 'HASH')).to.equal(false);
        expect(planDistributed(statement, session(), parted, plan.choices), 'a worker derives the same fragments').to.deep.equal(plan);
        for (const tasks of [1, 3]) await same(tpch(n), plan, tasks, { lineitem: 'orderkey' });
      });
    }
  });
});
