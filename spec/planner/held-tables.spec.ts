// A query reading a table of a catalog one worker holds (memory) beside tables that split. When the
// statement qualifies every column it reads, the join planner joins it in the probe's tasks
// (held-relations.ts): its fragment pinned to its catalog's worker (`holder`), its output BROADCAST to the
// lineitem scan's SOURCE tasks. Otherwise the gathered plan (gather-planner.ts) reads the held table whole
// in such a pinned fragment while the tpch side is read over its splits (columns pruned, only conjuncts
// qualified by its alias pushed down) and joins them in the root. A worker told the coordinator's choices
// (their `held` catalogs) derives the same fragments without the held catalog.
import { expect } from 'chai';
import fc from 'fast-check';
import { parseStatement } from '../../lib/sql/index.js';
import { planGathered } from '../../lib/planner/gather-planner.js';
import { distributedPlanFor } from '../../lib/planner/statement-plans.js';
import type { PlannerMetadata, PlannerSession } from '../../lib/planner/planner.types.js';
import type { Session } from '../../lib/protocol/types.js';
import { expectSameRows } from '../cluster/same-rows.js';
import { rowsOf, runPlan, sortedRows, withTinyDuckDb, tinyMetadata, translate } from './fragment-runner.js';

const tiny = tinyMetadata((t) => t === 'lineitem' || t === 'orders');
const coordinator: PlannerMetadata = { ...tiny, held: (t) => t.catalog === 'memory' };
const session: PlannerSession = { catalog: 'tpch', schema: 'tiny', joinDistribution: 'AUTOMATIC', maxBroadcastBytes: 100 * 1024 * 1024 };

const JOIN = `SELECT p.label, count(*) AS lines, sum(l.quantity) AS qty FROM memory.s.prio p JOIN lineitem l ON l.linenumber = p.n
  WHERE l.shipdate < DATE '1995-01-01' GROUP BY p.label ORDER BY 1`;

describe('held tables: a memory table beside tpch splits, read on its worker and broadcast', function () {
  this.timeout(60_000);
  const db = withTinyDuckDb(async (c) => {
    await c.run('CREATE SCHEMA memory.s');
    await c.run('CREATE TABLE memory.s.prio AS SELECT n, CASE WHEN n % 2 = 0 THEN \'even\' ELSE \'odd\' END AS label FROM range(1, 5) t(n)');
  });

  it('pins the memory table\'s fragment to its catalog, BROADCAST, and splits lineitem (its columns pruned, its qualified filter pushed down)', async () => {
    const plan = planGathered(parseStatement(JOIN), session, coordinator)!;
    expect(plan.choices).to.deep.equal({ order: [], joins: [], split: [false, true], held: ['memory'] });
    const held = plan.fragments.find((f) => f.holder !== undefined)!;
    expect(held).to.deep.include({ partitioning: 'SINGLE', holder: 'memory', output: { kind: 'BROADCAST' }, sql: 'SELECT * FROM "memory"."s"."prio"', sources: [] });
    expect(held.scan).to.equal(undefined);
    const lineitem = plan.fragments.find((f) => f.scan?.table.table === 'lineitem')!;
    expect(lineitem.partitioning).to.equal('SOURCE');
    expect(lineitem.holder).to.equal(undefined);
    // A conjunct whose columns are all qualified by lineitem's alias goes down (and prunes splits).
    expect(lineitem.sql).to.equal('SELECT "linenumber", "quantity", "shipdate" FROM "tpch"."tiny"."lineitem" AS "l" WHERE l.shipdate < DATE \'1995-01-01\'');
    expect(lineitem.scan!.where).to.not.equal(undefined);
    const root = plan.fragments[0]!;
    expect(root.sources.map((s) => s.fragmentId).sort()).to.deep.equal([held.id, lineitem.id].sort());
    expect(root.sql).to.not.include('"memory"');
    expect(plan.tables.map((t) => `${t.catalog}.${t.schema}.${t.table}`).sort()).to.deep.equal(['memory.s.prio', 'tpch.tiny.lineitem']);
    const options = { tasks: 3, catalog: 'tpch', schema: 'tiny' };
    expectSameRows(await runPlan(db(), plan, options), await rowsOf(db(), translate(JOIN, options)), JOIN);
  });

  it('distributedPlanFor pins the held fragment too (the join planner\'s plan here), and a worker without the catalog derives it from the choices', () => {
    const user: Session = { user: 'alice', catalog: 'tpch', schema: 'tiny', properties: {} } as unknown as Session;
    const planned = distributedPlanFor(JOIN, user, coordinator)!;
    expect(planned.fragments.some((f) => f.holder === 'memory')).to.equal(true);
    // A worker's metadata knows nothing of memory (not even that it is held): the choices say it.
    const derived = distributedPlanFor(JOIN, user, tiny, planned.choices)!;
    expect(derived.fragments).to.deep.equal(planned.fragments);
    expect(distributedPlanFor(JOIN, user, tiny)).to.equal(undefined);
  });

  it('joins a held table whose columns the statement qualifies in the probe\'s tasks: its fragment pinned and broadcast to lineitem\'s SOURCE tasks (held-relations.ts)', async () => {
    const user: Session = { user: 'alice', catalog: 'tpch', schema: 'tiny', properties: {} } as unknown as Session;
    const options = { tasks: 3, catalog: 'tpch', schema: 'tiny' };
    for (const properties of [{}, { join_distribution_type: 'PARTITIONED' }]) {
      const plan = distributedPlanFor(JOIN, { ...user, properties } as Session, coordinator)!;
      expect(plan.choices).to.deep.include({ joins: ['BROADCAST'], held: ['memory'] });
      const held = plan.fragments.find((f) => f.holder === 'memory')!;
      expect(held).to.deep.include({ partitioning: 'SINGLE', output: { kind: 'BROADCAST' } });
      expect(held.sql).to.include('FROM "memory"."s"."prio" AS "p"');
      const lineitem = plan.fragments.find((f) => f.scan?.table.table === 'lineitem')!;
      expect(lineitem.sources.map((x) => x.fragmentId)).to.deep.equal([held.id]);
      expect(lineitem.sql).to.include(' JOIN ');
      // The join's partial aggregation in lineitem's tasks, its final in a HASH stage.
      expect(lineitem.output.kind).to.equal('HASH');
      expect(distributedPlanFor(JOIN, { ...user, properties } as Session, tiny, plan.choices)!.fragments).to.deep.equal(plan.fragments);
      expectSameRows(await runPlan(db(), plan, options), await rowsOf(db(), translate(JOIN, options)), JOIN);
    }
    // A `*`, a held table's name used twice, a held table in a FULL join: the gathered plan.
    for (const sql of [
      'SELECT * FROM memory.s.prio p JOIN lineitem l ON l.linenumber = p.n',
      'SELECT p.label FROM memory.s.prio p JOIN lineitem l ON l.linenumber = p.n WHERE l.orderkey IN (SELECT p.n FROM orders p)',
      'SELECT p.label, l.orderkey FROM lineitem l FULL JOIN memory.s.prio p ON l.linenumber = p.n',
    ]) expect(distributedPlanFor(sql, user, coordinator)!.choices.order, sql).to.deep.equal([]);
  });

  it('joins a held table read by unqualified names in the probe\'s tasks: a name no tpch table has is the held table\'s (held-relations.ts)', async () => {
    const user: Session = { user: 'alice', catalog: 'tpch', schema: 'tiny', properties: {} } as unknown as Session;
    const options = { tasks: 3, catalog: 'tpch', schema: 'tiny' };
    const sql = `SELECT label, count(*) AS lines, sum(quantity) AS qty FROM memory.s.prio p JOIN lineitem l ON linenumber = n
      WHERE shipdate < DATE '1995-01-01' AND label <> 'none' GROUP BY label ORDER BY label`;
    const plan = distributedPlanFor(sql, user, coordinator)!;
    expect(plan.choices).to.deep.include({ joins: ['BROADCAST'], held: ['memory'] });
    const held = plan.fragments.find((f) => f.holder === 'memory')!;
    expect(held).to.deep.include({ partitioning: 'SINGLE', output: { kind: 'BROADCAST' } });
    // Only the held table's columns the plan reads: label and n.
    expect(held.sql).to.include('"label"').and.include('"n"').and.include('FROM "memory"."s"."prio" AS "p"');
    expect(held.sql).to.not.include('quantity');
    const lineitem = plan.fragments.find((f) => f.scan?.table.table === 'lineitem')!;
    expect(lineitem.sources.map((x) => x.fragmentId)).to.deep.equal([held.id]);
    expect(lineitem.sql).to.include(' JOIN ');
    expect(distributedPlanFor(sql, user, tiny, plan.choices)!.fragments).to.deep.equal(plan.fragments);
    expectSameRows(await runPlan(db(), plan, options), await rowsOf(db(), translate(sql, options)), sql);
    // An output alias is no column: ORDER BY reads it as the alias, here over the held table's column n.
    const aliased = 'SELECT label AS lab, count(*) AS n FROM memory.s.prio p JOIN lineitem l ON linenumber = n GROUP BY label ORDER BY n, lab DESC';
    const aliasedPlan = distributedPlanFor(aliased, user, coordinator)!;
    expect(aliasedPlan.choices.held).to.deep.equal(['memory']);
    expect(await runPlan(db(), aliasedPlan, options)).to.deep.equal(await rowsOf(db(), translate(aliased, options)));
    // A name both tpch tables have stays unresolved (ambiguous): not this plan.
    const ambiguous = 'SELECT label, count(*) FROM memory.s.prio p JOIN lineitem l ON linenumber = n JOIN orders o ON o.orderkey = l.orderkey WHERE orderkey > 3 GROUP BY label';
    expect(distributedPlanFor(ambiguous, user, coordinator)?.choices.order ?? [], ambiguous).to.deep.equal([]);
  });

  it('holds for 60 generated joins with a held table (inner, LEFT, RIGHT, after another join, grouped or not, its columns qualified or not) under every distribution, 1 to 4 tasks', async () => {
    const user = (joinDistribution: string): Session => ({ user: 'alice', catalog: 'tpch', schema: 'tiny', properties: { join_distribution_type: joinDistribution } }) as unknown as Session;
    const queries = fc.record({
      join: fc.constantFrom('JOIN', 'LEFT JOIN', 'RIGHT JOIN'),
      orders: fc.boolean(),
      shape: fc.constantFrom('grouped', 'rows', 'global'),
      limit: fc.integer({ min: 1, max: 600 }),
      mode: fc.constantFrom('AUTOMATIC', 'BROADCAST', 'PARTITIONED'),
      tasks: fc.integer({ min: 1, max: 4 }),
      // Columns only one table has written unqualified (held-relations.ts reads label and n as the held table's).
      unqualified: fc.boolean(),
    });
    const unqualify = (text: string) => text.replace(/\b(?:p\.(label|n)|l\.(quantity|linenumber))\b/gu, (_, held: string | undefined, split: string | undefined) => held ?? split!);
    await fc.assert(fc.asyncProperty(queries, async (q) => {
      const from = `lineitem l${q.orders ? ' JOIN orders o ON o.orderkey = l.orderkey AND o.orderstatus = \'F\'' : ''} ${q.join} memory.s.prio p ON l.linenumber = p.n AND p.n <> 2`;
      // The probe's filter: in the ON for a RIGHT join (a WHERE on the NULL side would turn it inner), else in the WHERE.
      const sql = (q.join === 'RIGHT JOIN' ? `${from.replace(' AND p.n <> 2', ` AND p.n <> 2 AND l.orderkey < ${q.limit}`)}` : `${from} WHERE l.orderkey < ${q.limit}`);
      const written = q.shape === 'grouped' ? `SELECT p.label, count(*) AS c, sum(l.quantity) AS s, count(l.orderkey) AS k FROM ${sql} GROUP BY p.label`
        : q.shape === 'global' ? `SELECT count(*) AS c, count(p.n) AS n, max(l.orderkey) AS m FROM ${sql}`
        : `SELECT l.orderkey, l.linenumber, p.label FROM ${sql}`;
      const text = q.unqualified ? unqualify(written) : written;
      const plan = distributedPlanFor(text, user(q.mode), coordinator);
      expect(plan?.choices.held, text).to.deep.equal(['memory']);
      expect(plan!.choices.order.length, text).to.be.greaterThan(0);
      expect(distributedPlanFor(text, user(q.mode), tiny, plan!.choices)!.fragments, `${text}: a worker's derivation`).to.deep.equal(plan!.fragments);
      const options = { tasks: q.tasks, catalog: 'tpch', schema: 'tiny' };
      expectSameRows(sortedRows(await runPlan(db(), plan!, options)), sortedRows(await rowsOf(db(), translate(text, options))), `${text} (${q.mode}, ${q.tasks} tasks)`);
    }), { numRuns: 60, seed: 20261129 });
  });

  it('pushes down beside a held table only conjuncts qualified by the other table\'s name, and keeps a query over held tables alone out', async () => {
    const sql = `SELECT count(*) FROM memory.s.prio p, orders o WHERE n = 1 AND o.orderkey = p.n AND o.orderstatus = 'F' AND length(o.comment) > 40
      AND orderpriority = '1-URGENT' AND o.totalprice > (SELECT avg(totalprice) FROM orders)`;
    const plan = planGathered(parseStatement(sql), session, coordinator)!;
    const orders = plan.fragments.filter((f) => f.scan?.table.table === 'orders').map((f) => f.sql);
    // An unqualified name might be the held table's; a subquery stays in the root.
    expect(orders).to.include('SELECT "orderkey", "orderstatus", "totalprice", "orderpriority", "comment" FROM "tpch"."tiny"."orders" AS "o" WHERE o.orderstatus = \'F\' AND length(o.comment) > 40');
    const options = { tasks: 3, catalog: 'tpch', schema: 'tiny' };
    expectSameRows(await runPlan(db(), plan, options), await rowsOf(db(), translate(sql, options)), sql);
    expect(planGathered(parseStatement('SELECT count(*) FROM memory.s.prio p, memory.s.prio q'), session, coordinator)).to.equal(undefined);
  });
});
