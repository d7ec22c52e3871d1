// EXPLAIN of a statement with a distributed plan (the engine's distributedPlan hook, which a worker fills
// from its connectors): every fragment in Trino's text, root first, each with its partitioning, output
// layout and output partitioning, its scan or the RemoteSource of each fragment it reads.
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDuckDbEngine, type DuckDbEngine } from '../../../lib/engine/duckdb-engine.js';
import { distributedPlanFor } from '../../../lib/planner/statement-plans.js';
import type { DistributedPlan } from '../../../lib/planner/fragment.types.js';
import type { Session } from '../../../lib/protocol/types.js';
import { generatedTiny } from '../../support/generated-tiny.js';
import { tinyMetadata } from '../../planner/fragment-runner.js';
import { TPCH_QUERIES } from '../../../lib/tpch/queries/tpch-queries.js';
import { runSql, testSession } from '../engine-helpers.js';
import { FileBasedAccessControl } from '../../../lib/security/access-control.js';
import { parseAccessRules } from '../../../lib/security/access-rules.js';

const tiny = (properties: Record<string, string> = {}) => testSession({ catalog: 'tpch', schema: 'tiny', properties });

describe('dialect: EXPLAIN of a distributed plan', function () {
  this.timeout(60_000);
  let engine: DuckDbEngine;
  let dir: string;
  /** The plans the hook gave, by the statement's text. */
  const plans = new Map<string, DistributedPlan>();

  before(async () => {
    const { directory } = await generatedTiny();
    dir = mkdtempSync(join(tmpdir(), 'vivace-explain-distributed-'));
    // lineitem and orders split; the other tables are read whole by one task.
    const metadata = tinyMetadata((t) => t === 'lineitem' || t === 'orders');
    const distributedPlan = (sql: string, session: Session) => {
      const plan = distributedPlanFor(sql, session, metadata);
      if (plan) plans.set(sql, plan);
      return plan;
    };
    // A pool of one: the exchanges' stand-ins are dropped before the connection goes back.
    engine = await createDuckDbEngine({ tempDirectory: dir, threads: 2, maxConnections: 1, tpch: { directory }, distributedPlan });
  });
  after(async () => {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const explain = async (sql: string, session: Session) => {
    const out = await runSql(engine, sql, session);
    expect(out.plan.columns.map((c) => c.name)).to.deep.equal(['Query Plan']);
    return String(out.rows[0]![0]);
  };

  /** The text's fragments: each block from its `Fragment N [P]` line to the empty line after it. */
  const blocks = (text: string) => {
    expect(text.endsWith('\n\n'), 'each fragment ends with an empty line').to.equal(true);
    const lines = text.split('\n');
    expect(lines[0]).to.match(/^Trino version: /);
    const out: string[][] = [];
    for (const line of lines.slice(1, -1)) {
      if (line.startsWith('Fragment ')) out.push([line]);
      else out.at(-1)!.push(line);
    }
    return out;
  };
  const partitioningText = (output: DistributedPlan['fragments'][number]['output']) => (output.kind === 'HASH' ? `HASH [${output.keys.join(', ')}]` : `${output.kind} []`);

  /** Every fragment of the plan the hook gave, in id order, as Trino's formatFragment prints it. */
  function expectFragments(text: string, plan: DistributedPlan): void {
    const fragments = [...plan.fragments].sort((a, b) => a.id - b.id);
    const printed = blocks(text);
    expect(printed.map((b) => b[0])).to.deep.equal(fragments.map((f) => `Fragment ${f.id} [${f.partitioning}]`));
    fragments.forEach((f, i) => {
      const block = printed[i]!;
      expect(block.at(-1), 'an empty line after the fragment').to.equal('');
      expect(block[1]).to.match(/^ {4}Output layout: \[/);
      if (f.id > 0) expect(block[1]).to.equal(`    Output layout: [${f.columns.join(', ')}]`);
      expect(block[2]).to.equal(`    Output partitioning: ${partitioningText(f.output)}`);
      const body = block.slice(3).join('\n');
      expect(block[3]).to.match(f.id === 0 ? /^ {4}Output\[columnNames = / : /^ {4}[A-Z]/);
      const remote = [...body.matchAll(/RemoteSource\[sourceFragmentIds = \[(\d+)\]\]/g)].map((m) => Number(m[1])).sort();
      expect(remote, `RemoteSources of fragment ${f.id}`).to.deep.equal(f.sources.map((s) => s.fragmentId).sort());
      const scans = [...body.matchAll(/(?:TableScan|ScanFilter)\[table = ([a-z:]+)/g)].map((m) => m[1]);
      expect(scans, `scans of fragment ${f.id}`).to.deep.equal(f.scan ? [`tpch:tiny:${f.scan.table.table}`] : scans.length > 0 ? scans : []);
      expect(body).to.not.include('vivace_explain_');
    });
  }

  const JOIN = 'SELECT o.orderpriority, count(*) AS n FROM orders o JOIN lineitem l ON l.orderkey = o.orderkey WHERE l.quantity > 45 GROUP BY o.orderpriority';

  /** The plan's fragment that `pick` finds, and its printed block. */
  const fragmentOf = (plan: DistributedPlan, text: string, pick: (f: DistributedPlan['fragments'][number]) => boolean) => {
    const fragment = plan.fragments.find(pick)!;
    expect(fragment).to.not.equal(undefined);
    return { fragment, block: blocks(text).find((b) => b[0]!.startsWith(`Fragment ${fragment.id} `))!.join('\n') };
  };
  const scanning = (table: string) => (f: DistributedPlan['fragments'][number]) => f.scan?.table.table === table;

  it('EXPLAIN of a broadcast join prints each fragment: the root, the probe side over its splits, the build side broadcast', async () => {
    const session = tiny({ join_distribution_type: 'BROADCAST' });
    const text = await explain(`EXPLAIN ${JOIN}`, session);
    const plan = plans.get(JOIN)!;
    expect(plan.choices.joins).to.deep.equal(['BROADCAST']);
    expectFragments(text, plan);
    const printed = blocks(text);
    expect(printed[0]!.slice(0, 5)).to.deep.equal([
      'Fragment 0 [SINGLE]',
      '    Output layout: [orderpriority, n]',
      '    Output partitioning: SINGLE []',
      '    Output[columnNames = [orderpriority, n]]',
      '    │   Layout: [orderpriority:varchar(15), n:bigint]',
    ]);
    // The build side scans orders over its splits and is broadcast to the probe side's tasks, which scan
    // lineitem with its filter and join the broadcast rows.
    const build = fragmentOf(plan, text, scanning('orders'));
    expect(build.fragment).to.include({ partitioning: 'SOURCE' });
    expect(build.block).to.include('    Output partitioning: BROADCAST []').and.include('TableScan[table = tpch:tiny:orders]');
    const probe = fragmentOf(plan, text, scanning('lineitem'));
    expect(probe.fragment.sources.map((s) => s.fragmentId)).to.deep.equal([build.fragment.id]);
    expect(probe.block).to.include('ScanFilter[table = tpch:tiny:lineitem, filterPredicate = quantity>45');
    expect(probe.block).to.match(new RegExp(`RemoteSource\\[sourceFragmentIds = \\[${build.fragment.id}\\]\\]\\n +Layout: \\[[a-z0-9_]+:bigint, [a-z0-9_]+:varchar\\]`));
    expect(probe.block).to.match(/InnerJoin\[criteria = [^\n]*, distribution = REPLICATED\]\n +│ +Distribution: REPLICATED/);
    // EXPLAIN (TYPE DISTRIBUTED) is the same text.
    expect(await explain(`EXPLAIN (TYPE DISTRIBUTED) ${JOIN}`, session)).to.equal(text);
  });

  it('a partitioned join reads both sides hashed on the join keys in a HASH fragment', async () => {
    const text = await explain(`EXPLAIN (TYPE DISTRIBUTED) ${JOIN}`, tiny({ join_distribution_type: 'PARTITIONED' }));
    const plan = plans.get(JOIN)!;
    expect(plan.choices.joins).to.deep.equal(['PARTITIONED']);
    expectFragments(text, plan);
    const orders = fragmentOf(plan, text, scanning('orders'));
    const lineitem = fragmentOf(plan, text, scanning('lineitem'));
    for (const side of [orders, lineitem]) expect(side.block).to.match(/\n {4}Output partitioning: HASH \[vivace_\w+\]\n/);
    const join = fragmentOf(plan, text, (f) => f.sources.some((s) => s.fragmentId === orders.fragment.id));
    expect(join.fragment.partitioning).to.equal('HASH');
    expect(join.fragment.sources.map((s) => s.fragmentId).sort()).to.deep.equal([orders.fragment.id, lineitem.fragment.id].sort());
    expect(join.block.match(/RemoteSource/g)).to.have.length(2);
    expect(join.block).to.include(', distribution = PARTITIONED]').and.include('Distribution: PARTITIONED');
  });

  it('correlated subqueries (TPC-H Q17, Q21) print their HASH fragment reading the outer rows and their tables, hashed on the correlation key', async () => {
    const sql = `SELECT sum(l.extendedprice) / 7.0 AS avg_yearly FROM lineitem l, part p WHERE p.partkey = l.partkey AND p.brand = 'Brand#23'
      AND p.container = 'MED BOX' AND l.quantity < (SELECT 0.2 * avg(l2.quantity) FROM lineitem l2 WHERE l2.partkey = p.partkey)`;
    const text = await explain(`EXPLAIN (TYPE DISTRIBUTED) ${sql}`, tiny());
    const plan = plans.get(sql)!;
    expectFragments(text, plan);
    const inner = fragmentOf(plan, text, (f) => f.scan?.table.table === 'lineitem' && f.sql.includes('AS "l2"'));
    expect(inner.block).to.include('    Output partitioning: HASH [partkey]').and.match(/(TableScan|ScanFilter)\[table = tpch:tiny:lineitem/);
    const stage = fragmentOf(plan, text, (f) => f.sources.some((s) => s.fragmentId === inner.fragment.id));
    expect(stage.fragment.partitioning).to.equal('HASH');
    expect(stage.block.match(/RemoteSource/g)).to.have.length(2);
    const outer = fragmentOf(plan, text, (f) => stage.fragment.sources.some((s) => s.fragmentId === f.id) && f.id !== inner.fragment.id);
    expect(outer.block).to.match(/\n {4}Output partitioning: HASH \[vivace_\w+\]\n/);
    // Q21's EXISTS and NOT EXISTS on l1.orderkey: one HASH fragment reading the outer rows and both lineitem scans.
    const q21 = TPCH_QUERIES[20]!.sql;
    const text21 = await explain(`EXPLAIN (TYPE DISTRIBUTED) ${q21}`, tiny());
    const plan21 = plans.get(q21)!;
    expectFragments(text21, plan21);
    const scans = plan21.fragments.filter((f) => f.scan?.table.table === 'lineitem' && f.output.kind === 'HASH' && f.output.keys.join() === 'orderkey');
    expect(scans).to.have.length(2);
    const stage21 = fragmentOf(plan21, text21, (f) => scans.every((x) => f.sources.some((s) => s.fragmentId === x.id)));
    expect(stage21.fragment.partitioning).to.equal('HASH');
    expect(stage21.block.match(/RemoteSource/g)).to.have.length(3);
  });

  it('a query the join planner leaves gathered (a subquery) prints each table in its fragment and the root over them', async () => {
    const sql = 'SELECT count(*) FROM customer WHERE custkey IN (SELECT custkey FROM orders WHERE totalprice > 1000)';
    const text = await explain(`EXPLAIN ${sql}`, tiny());
    const plan = plans.get(sql)!;
    expect(plan.choices.order).to.deep.equal([]);
    expectFragments(text, plan);
    // orders over its splits, customer (not split) whole by one task; the root reads both.
    const orders = fragmentOf(plan, text, (f) => f.sql.includes('"orders"'));
    const customer = fragmentOf(plan, text, (f) => f.sql.includes('"customer"'));
    expect([orders.fragment.partitioning, customer.fragment.partitioning]).to.deep.equal(['SOURCE', 'SINGLE']);
    expect(orders.block).to.match(/(TableScan|ScanFilter)\[table = tpch:tiny:orders/);
    expect(customer.block).to.include('TableScan[table = tpch:tiny:customer]');
    expect(plan.fragments.find((f) => f.id === 0)!.sources.map((s) => s.fragmentId).sort()).to.deep.equal([orders.fragment.id, customer.fragment.id].sort());
  });

  it('a single-table query, TYPE LOGICAL, EXPLAIN ANALYZE and Presto clients print as before', async () => {
    const single = blocks(await explain('EXPLAIN SELECT count(*) FROM lineitem WHERE quantity > 45', tiny()));
    expect(single.map((b) => b[0])).to.deep.equal(['Fragment 0 [SINGLE]']);
    expect(single[0]!.join('\n')).to.include('ScanFilter[table = tpch:tiny:lineitem');
    const logical = await explain(`EXPLAIN (TYPE LOGICAL) ${JOIN}`, tiny());
    expect(logical.split('\n')[1]).to.equal('Output[columnNames = [orderpriority, n]]');
    expect(logical).to.not.match(/Fragment|RemoteSource/);
    const analyzed = await explain(`EXPLAIN ANALYZE ${JOIN}`, tiny());
    expect(analyzed.match(/^Fragment \d+/gm)).to.deep.equal(['Fragment 0']);
    const presto = await explain(`EXPLAIN (TYPE DISTRIBUTED) ${JOIN}`, testSession({ prefix: 'X-Presto-', catalog: 'tpch', schema: 'tiny' }));
    expect(presto.match(/^Fragment \d+/gm)).to.deep.equal(['Fragment 0']);
    expect(presto).to.not.include('RemoteSource');
  });

  it('a user who reads a table through a row filter gets one fragment, as the statement would run', async () => {
    const rules = parseAccessRules(JSON.stringify({
      tables: [
        { user: 'alice', catalog: 'tpch', schema: 'tiny', table: 'orders', privileges: ['SELECT'], filter: "orderpriority = '1-URGENT'" },
        { privileges: ['SELECT'] },
      ],
    }), 'spec');
    let bobs: DistributedPlan | undefined;
    const guarded = await createDuckDbEngine({
      tempDirectory: join(dir, 'guarded'), threads: 1, maxConnections: 1, tpch: { directory: (await generatedTiny()).directory },
      access: new FileBasedAccessControl({ current: () => rules }),
      distributedPlan: (sql, session) => (bobs = distributedPlanFor(sql, session, tinyMetadata((t) => t === 'lineitem' || t === 'orders'))),
    });
    try {
      const text = async (user: string) => String((await runSql(guarded, `EXPLAIN ${JOIN}`, testSession({ user, catalog: 'tpch', schema: 'tiny' }))).rows[0]![0]);
      expect((await text('alice')).match(/^Fragment \d+/gm)).to.deep.equal(['Fragment 0']);
      expect((await text('bob')).match(/^Fragment \d+/gm)).to.deep.equal(bobs!.fragments.map((f) => `Fragment ${f.id}`).sort());
    } finally {
      await guarded.close();
    }
  });

  it("leaves no stand-in on the pooled connection, and answers the statement's own error", async () => {
    await explain(`EXPLAIN ${JOIN}`, tiny());
    const own = await runSql({ plan: (sql, session) => engine.planOwnSql(sql, session), close: async () => {} }, "SELECT count(*) FROM duckdb_tables() WHERE table_name LIKE 'vivace_explain%'", tiny());
    expect(own.rows).to.deep.equal([[0]]);
    try {
      await explain('EXPLAIN SELECT nope FROM orders o JOIN lineitem l ON l.orderkey = o.orderkey', tiny());
      expect.fail('expected a failure');
    } catch (err) {
      expect((err as { errorName?: string }).errorName).to.equal('COLUMN_NOT_FOUND');
    }
  });
});
