// A grouped semi-join source over one table that splits finishes in a HASH stage (lib/planner/semi-stages.ts):
// its leaf hashed on the group keys, hash-final.ts's bucket query (HAVING included) per bucket, every bucket's
// rows broadcast to the fragment evaluating the predicate. TPC-H Q4's decorrelated EXISTS and Q18's IN keep no
// SINGLE stage for their sources; run by fragment-runner.ts with 1 and 3 tasks every shape (NOT IN over a
// source with a NULL key, an empty source, a HAVING that keeps nothing, count(DISTINCT)) gives the one-task
// answer; a source with ORDER BY ... LIMIT keeps its SINGLE final. EXPLAIN prints it (shapes-explain.spec.ts).
// Partitioned semi-joins (Trino's DetermineSemiJoinDistributionType): under PARTITIONED, or over the broadcast
// limit, a WHERE conjunct `column IN (source)` meets the source's rows in a HASH fragment on that column;
// NOT IN and NOT EXISTS partition too, the source's NULLs and a row replicated to every bucket
// (replicated-semis.ts, spec/planner/replicated-semis.spec.ts; a source with HAVING too, read once); an IN
// under OR beside another column stays broadcast; every shape keeps the one-task answer.
import { expect } from 'chai';
import { parseStatement } from '../../lib/sql/index.js';
import { TPCH_QUERIES } from '../../lib/tpch/queries/tpch-queries.js';
import { planDistributed } from '../../lib/planner/distributed-planner.js';
import type { DistributedPlan, PlanFragment } from '../../lib/planner/fragment.types.js';
import type { PlannerMetadata, PlannerSession } from '../../lib/planner/planner.types.js';
import { createSmallLakeTables, rowsOf, runPlan, smallLakeMetadata, sortedRows, tinyMetadata, translate, withTinyDuckDb, TINY_ROWS } from './fragment-runner.js';
import { expectSameRows } from '../cluster/same-rows.js';

const LAKE = ['a', 'c'];
const tiny = tinyMetadata((t) => TINY_ROWS[t]! >= 2000);
const lake = smallLakeMetadata(LAKE, () => true);
const metadata: PlannerMetadata = { table: (t) => tiny.table(t) ?? lake.table(t) };
const session = (joinDistribution: PlannerSession['joinDistribution'] = 'AUTOMATIC'): PlannerSession =>
  ({ catalog: 'tpch', schema: 'tiny', joinDistribution, maxBroadcastBytes: 100 * 1024 * 1024 });
const tpch = (n: number) => TPCH_QUERIES[n - 1]!.sql;

/** A semi source's final (the broadcast fragment that reads a scan of `table`), and that scan. */
function finalOver(plan: DistributedPlan, table: string): { leaf: PlanFragment; final: PlanFragment } {
  const byId = new Map(plan.fragments.map((f) => [f.id, f]));
  const final = plan.fragments.find((f) => f.output.kind === 'BROADCAST' && f.sources.some((s) => byId.get(s.fragmentId)!.scan?.table.table === table));
  expect(final, `a broadcast final over ${table}`).to.not.equal(undefined);
  return { leaf: byId.get(final!.sources[0]!.fragmentId)!, final: final! };
}

/** The SINGLE fragments but the root that read other fragments (a small table's scan alone is one task anyway). */
// A SINGLE build reading another build's keys (a dynamic filter, dynamic-filters.ts) is no semi source's final.
const singleStages = (plan: DistributedPlan) => plan.fragments.filter((f) => f.id !== 0 && f.partitioning === 'SINGLE' && f.sources.length > 0 && !f.sql.includes('vivace_dynamic'));
const unordered = (rows: unknown[][]) => sortedRows(rows);

const SHAPES: Record<string, string> = {
  // IN over a grouped source with HAVING, joined rows above.
  in: `SELECT a.k, a.g, a.v FROM lake.s.a a WHERE a.v IN (SELECT c.v FROM lake.s.c c GROUP BY c.v HAVING count(*) > 3) ORDER BY 1, 2, 3`,
  // NOT IN over a source whose keys hold a NULL (in one bucket only): unknown for every row, so no row.
  notInNull: `SELECT a.k, a.v FROM lake.s.a a WHERE a.v NOT IN (SELECT c.k FROM lake.s.c c GROUP BY c.k)`,
  // NOT IN with the NULL filtered out: the rows whose v is no key.
  notIn: `SELECT a.k, a.v FROM lake.s.a a WHERE a.v NOT IN (SELECT c.k FROM lake.s.c c WHERE c.k IS NOT NULL GROUP BY c.k HAVING max(c.v) > 2)`,
  // An empty source: IN keeps nothing, NOT IN everything (a NULL a.v too).
  emptyIn: `SELECT a.k, a.v FROM lake.s.a a WHERE a.k IN (SELECT c.k FROM lake.s.c c WHERE c.v > 100 GROUP BY c.k)`,
  emptyNotIn: `SELECT a.k, a.v, a.g FROM lake.s.a a WHERE a.k NOT IN (SELECT c.k FROM lake.s.c c WHERE c.v > 100 GROUP BY c.k)`,
  // A HAVING that keeps no group.
  havingNothing: `SELECT count(*) AS n, count(a.k) AS nk FROM lake.s.a a WHERE a.k NOT IN (SELECT c.k FROM lake.s.c c GROUP BY c.k HAVING count(*) > 1000)`,
  // count(DISTINCT) makes its argument a leaf key: the partial rows still hash on the group key alone.
  distinct: `SELECT a.g, count(*) AS n FROM lake.s.a a WHERE a.k IN (SELECT c.k FROM lake.s.c c GROUP BY c.k HAVING count(DISTINCT c.g) > 1) GROUP BY a.g`,
  // Two group keys, a row IN.
  twoKeys: `SELECT a.k, a.g FROM lake.s.a a WHERE (a.k, a.g) IN (SELECT c.k, c.g FROM lake.s.c c GROUP BY c.k, c.g HAVING sum(c.v) > 4)`,
  // EXISTS decorrelated into IN ... GROUP BY (Q4's shape) and NOT EXISTS.
  exists: `SELECT a.g, count(*) AS n FROM lake.s.a a WHERE EXISTS (SELECT 1 FROM lake.s.c c WHERE c.k = a.k AND c.v > 4) GROUP BY a.g`,
  notExists: `SELECT a.k, a.v FROM lake.s.a a WHERE NOT EXISTS (SELECT 1 FROM lake.s.c c WHERE c.k = a.k AND c.v > 6)`,
};

describe('planner: grouped semi-join sources finish in a HASH stage', function () {
  this.timeout(60_000);
  const db = withTinyDuckDb((connection) => createSmallLakeTables(connection, LAKE, 0.22, 8));
  const oneTask = (sql: string) => rowsOf(db(), translate(sql, { tasks: 1, catalog: 'tpch', schema: 'tiny' }));

  for (const [name, sql] of Object.entries(SHAPES)) {
    it(`${name}: the source's final in a HASH stage, broadcast; the one-task answer with 1 and 3 tasks`, async () => {
      const plan = planDistributed(parseStatement(sql), session(), metadata)!;
      expect(plan, 'a distributed plan').to.not.equal(undefined);
      const { leaf, final } = finalOver(plan, 'c');
      expect(leaf.output.kind).to.equal('HASH');
      expect(final).to.include({ partitioning: 'HASH' });
      expect(final.output).to.deep.equal({ kind: 'BROADCAST' });
      expect(singleStages(plan)).to.deep.equal([]);
      const expected = unordered(await oneTask(sql));
      for (const tasks of [1, 3]) expectSameRows(unordered(await runPlan(db(), plan, { tasks, catalog: 'tpch', schema: 'tiny' })), expected, `${name} ${tasks}`);
    });
  }

  it('the edge shapes answer what they mean: NOT IN over a NULL key no row, an empty source all rows', async () => {
    expect(await oneTask('SELECT count(*) FROM lake.s.c WHERE k IS NULL')).to.not.deep.equal([[0]]);
    expect(await oneTask(SHAPES.notInNull!)).to.have.length(0);
    expect(await oneTask(SHAPES.emptyIn!)).to.have.length(0);
    expect(await oneTask(SHAPES.emptyNotIn!)).to.have.length(40);
    expect(await oneTask(SHAPES.havingNothing!)).to.deep.equal(await oneTask('SELECT count(*), count(k) FROM lake.s.a'));
  });

  for (const n of [4, 18]) {
    it(`TPC-H Q${n}: no SINGLE stage for its source, whose final is HASH and broadcast, the one-task answer`, async () => {
      const plan = planDistributed(parseStatement(tpch(n)), session(), metadata)!;
      const { leaf, final } = finalOver(plan, 'lineitem');
      expect(leaf.output).to.deep.equal({ kind: 'HASH', keys: ['vivace_g0'] });
      expect(final).to.include({ partitioning: 'HASH' });
      expect(final.output).to.deep.equal({ kind: 'BROADCAST' });
      if (n === 18) expect(final.sql).to.include('HAVING');
      expect(singleStages(plan)).to.deep.equal([]);
      // A worker given the coordinator's choices derives the same fragments.
      expect(planDistributed(parseStatement(tpch(n)), session(), metadata, plan.choices)!.fragments).to.deep.equal(plan.fragments);
      const expected = await oneTask(tpch(n));
      for (const tasks of [1, 3]) expectSameRows(await runPlan(db(), plan, { tasks, catalog: 'tpch', schema: 'tiny' }), expected, `Q${n} ${tasks}`);
    });
  }

  it('keeps a SINGLE final for a source with ORDER BY ... LIMIT, or without group keys', async () => {
    for (const sql of [
      'SELECT a.k, a.v FROM lake.s.a a WHERE a.k IN (SELECT c.k FROM lake.s.c c GROUP BY c.k ORDER BY count(*) DESC, c.k LIMIT 3)',
      'SELECT a.k, a.v FROM lake.s.a a WHERE a.v > (SELECT avg(c.v) FROM lake.s.c c)',
    ]) {
      const plan = planDistributed(parseStatement(sql), session(), metadata)!;
      const leaf = plan.fragments.find((f) => f.scan?.table.table === 'c')!;
      const final = plan.fragments.find((f) => f.sources.some((s) => s.fragmentId === leaf.id))!;
      expect(leaf.output, sql).to.deep.equal({ kind: 'SINGLE' });
      expect(final, sql).to.include({ partitioning: 'SINGLE' });
      expect(final.output).to.deep.equal({ kind: 'BROADCAST' });
      const expected = unordered(await oneTask(sql));
      expectSameRows(unordered(await runPlan(db(), plan, { tasks: 3, catalog: 'tpch', schema: 'tiny' })), expected, sql);
    }
  });
});

describe('planner: semi-joins partitioned with their probe (DetermineSemiJoinDistributionType)', function () {
  this.timeout(60_000);
  const db = withTinyDuckDb((connection) => createSmallLakeTables(connection, LAKE, 0.31, 8));
  const oneTask = (sql: string) => rowsOf(db(), translate(sql, { tasks: 1, catalog: 'tpch', schema: 'tiny' }));
  const IN_JOIN = `SELECT o.orderpriority, count(*) AS n FROM orders o JOIN lineitem l ON o.orderkey = l.orderkey
    WHERE l.partkey IN (SELECT ps.partkey FROM partsupp ps WHERE ps.availqty > 5000 GROUP BY ps.partkey HAVING count(*) > 2) GROUP BY 1 ORDER BY 1`;
  const IN_OR = `SELECT a.k, a.v FROM lake.s.a a WHERE a.v IN (SELECT c.v FROM lake.s.c c GROUP BY c.v HAVING count(*) > 3) OR a.k IS NULL`;

  /** Whether a fragment is a source's final hashed on its column. */
  const hashedOnSource = (f: PlanFragment) => f.output.kind === 'HASH' && f.output.keys.join() === 'vivace_o0';
  /** The HASH fragment that evaluates the semi-join: it reads a source's final hashed on vivace_o0. */
  const semiStage = (plan: DistributedPlan) => {
    const byId = new Map(plan.fragments.map((f) => [f.id, f]));
    return plan.fragments.filter((f) => f.partitioning === 'HASH' && f.sources.length >= 2 && f.sources.some((x) => hashedOnSource(byId.get(x.fragmentId)!)));
  };

  const cases = { ...SHAPES, Q4: tpch(4), Q18: tpch(18), IN_JOIN, IN_OR };
  for (const [name, sql] of Object.entries(cases)) {
    it(`${name} under PARTITIONED: the one-task answer with 1 and 3 tasks, a worker derives the same fragments`, async () => {
      const plan = planDistributed(parseStatement(sql), session('PARTITIONED'), metadata)!;
      expect(plan, 'a distributed plan').to.not.equal(undefined);
      const partitioned = ['in', 'emptyIn', 'distinct', 'exists', 'Q4', 'Q18', 'IN_JOIN', 'notInNull', 'emptyNotIn', 'notExists', 'notIn', 'havingNothing'].includes(name);
      expect(plan.choices.semis ?? [], name).to.satisfy((semis: unknown[]) => semis.includes('PARTITIONED') === partitioned);
      expect(semiStage(plan), name).to.have.length(partitioned ? 1 : 0);
      if (partitioned) {
        // The probe's rows hashed on the IN's column, beside the source's final hashed on its own.
        const stage = semiStage(plan)[0]!;
        const inputs = stage.sources.map((x) => plan.fragments.find((f) => f.id === x.fragmentId)!);
        const probe = inputs.find((f) => !hashedOnSource(f) && f.output.kind !== 'BROADCAST')!;
        expect(probe.output.kind).to.equal('HASH');
        expect(stage.sql).to.match(/ IN \(SELECT \* FROM "vivace_stage"\."exchange"\."f\d+"\)/);
      }
      expect(planDistributed(parseStatement(sql), session('PARTITIONED'), metadata, plan.choices)!.fragments).to.deep.equal(plan.fragments);
      const expected = unordered(await oneTask(sql));
      for (const tasks of [1, 3]) expectSameRows(unordered(await runPlan(db(), plan, { tasks, catalog: 'tpch', schema: 'tiny' })), expected, `${name} ${tasks}`);
    });
  }

  it('AUTOMATIC partitions a source over join_max_broadcast_table_size, broadcasts it under; BROADCAST always broadcasts', () => {
    const over = planDistributed(parseStatement(tpch(18)), { ...session('AUTOMATIC'), maxBroadcastBytes: 1000 }, metadata)!;
    expect(over.choices.semis).to.deep.equal(['PARTITIONED']);
    expect(semiStage(over)).to.have.length(1);
    for (const s of [session('AUTOMATIC'), session('BROADCAST'), { ...session('BROADCAST'), maxBroadcastBytes: 1000 }]) {
      const plan = planDistributed(parseStatement(tpch(18)), s, metadata)!;
      expect(plan.choices.semis).to.deep.equal([true]);
      expect(semiStage(plan)).to.have.length(0);
    }
  });

  it('refuses PARTITIONED choices for a semi-join that cannot run so (IN under OR beside another column), and a forced one where it can', () => {
    const inOr = planDistributed(parseStatement(IN_OR), session('PARTITIONED'), metadata)!;
    expect(inOr.choices.semis).to.deep.equal([true]);
    expect(planDistributed(parseStatement(IN_OR), session(), metadata, { ...inOr.choices, semis: ['PARTITIONED'] })).to.equal(undefined);
    const q18 = planDistributed(parseStatement(tpch(18)), session(), metadata)!;
    const forced = planDistributed(parseStatement(tpch(18)), session(), metadata, { ...q18.choices, semis: ['PARTITIONED'] })!;
    expect(semiStage(forced)).to.have.length(1);
  });
});
