// The two stages of a query over one tpch table, run on a real DuckDB engine at tpch.tiny: each leaf
// writes its splits' partial rows to Parquet, the root combines them, and the rows equal the same
// statement run whole. The 22 TPC-H queries that split (single-table ones) and hand-made ones.
import { expect } from 'chai';
import fc from 'fast-check';
import { expectSameRows } from './same-rows.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDuckDbEngine, type DuckDbEngine } from '../../lib/engine/duckdb-engine.js';
import { readManifest } from '../../lib/connectors/tpch/tpch-generation.js';
import { defaultConfig } from '../../lib/config.js';
import { TPCH_QUERIES } from '../../lib/tpch/queries/tpch-queries.js';
import { parseStatement } from '../../lib/sql/index.js';
import { planStages } from '../../lib/planner/aggregate-stages.js';
import { splitsOf } from '../../lib/cluster/stage-sql.js';
import { planLeaf, planRoot } from '../../lib/worker/stage-runner.js';
import { drainPlan, testSession } from '../engine/engine-helpers.js';
import { builtInConnectors } from './cluster-harness.js';

const TPCH = new Set(['tpch']);

const session = testSession({ catalog: 'tpch', schema: 'tiny' });

const drain = drainPlan;

describe('stage runner: a leaf per worker, a root, on DuckDB at tpch.tiny', function () {
  this.timeout(60_000);
  let directory: string;
  let engine: DuckDbEngine;
  const tpchDirectory = join(defaultConfig().dataDirectory, 'tpch');
  const connectors = builtInConnectors(tpchDirectory);

  before(async () => {
    directory = mkdtempSync(join(tmpdir(), 'vivace-stage-runner-'));
    engine = await createDuckDbEngine({ tempDirectory: directory, threads: 2, tpch: { directory: tpchDirectory, log: () => {} } });
    // The shared cache holds tiny once any spec or server has read it; this makes sure.
    await drain(await engine.plan('SELECT count(*) FROM tpch.tiny.region', session));
  });
  after(async () => {
    await engine.close();
    rmSync(directory, { recursive: true, force: true });
  });

  /** Runs `sql` in two stages over `workers` leaves; returns the root's rows and the partial rows exchanged. */
  async function staged(sql: string, workers: number): Promise<{ rows: unknown[][]; columns: string[]; exchanged: number; splits: number }> {
    const plan = planStages(parseStatement(sql), session, TPCH)!;
    const manifest = readManifest(join(tpchDirectory, 'tiny'))!;
    const splits = splitsOf(manifest.tables[plan.table.table]!.files, workers);
    const files: string[] = [];
    let exchanged = 0;
    for (let w = 0; w < workers; w++) {
      const mine = splits.filter((_, i) => i % workers === w);
      if (mine.length === 0) continue;
      const file = join(directory, `leaf-${files.length}-${Math.random().toString(36).slice(2)}.parquet`);
      const { updateCount } = await drain(await planLeaf(engine, sql, session, mine, connectors, file));
      exchanged += updateCount ?? 0;
      files.push(file);
    }
    const root = await planRoot(engine, sql, session, files, connectors);
    const { rows } = await drain(root);
    return { rows, columns: root.columns.map((c) => `${c.name} ${c.type.base}`), exchanged, splits: splits.length };
  }

  async function whole(sql: string): Promise<{ rows: unknown[][]; columns: string[] }> {
    const plan = await engine.plan(sql, session);
    const columns = plan.columns.map((c) => `${c.name} ${c.type.base}`);
    return { rows: (await drain(plan)).rows, columns };
  }

  const splitting = TPCH_QUERIES.filter((q) => planStages(parseStatement(q.sql), session, TPCH) !== undefined);

  it('reuses one output path and input path query after query (cached plans, no DuckDB crash), each run right', async () => {
    // Stage tasks name their files by slot (stage-tasks.ts), so the same paths are written and read again
    // with plans the engine cached; a re-run parquet_file_metadata plan once invalidated the database.
    const sql = 'SELECT returnflag, count(*), sum(quantity) FROM lineitem WHERE linenumber <= 3 GROUP BY returnflag ORDER BY 1';
    const manifest = readManifest(join(tpchDirectory, 'tiny'))!;
    const leafFile = join(directory, 'slot0-out.parquet');
    const expected = (await whole(sql)).rows;
    for (const slices of [1, 2, 3, 1]) {
      const inputs: string[] = [];
      let exchanged = 0;
      for (let slice = 0; slice < slices; slice++) {
        rmSync(leafFile, { force: true });
        const { updateCount } = await drain(await planLeaf(engine, sql, session, [{ file: manifest.tables.lineitem!.files[0]!, slice, slices }], connectors, leafFile));
        exchanged += updateCount ?? 0;
        const input = join(directory, `slot0-in${slice}.parquet`);
        rmSync(input, { force: true });
        await drain(await engine.planOwnSql(`COPY (SELECT * FROM read_parquet('${leafFile}')) TO '${input}' (FORMAT parquet)`, session));
        inputs.push(input);
      }
      const { rows } = await drain(await planRoot(engine, sql, session, inputs, connectors));
      expectSameRows(rows, expected, `${slices} slices`);
      expect(exchanged, `${slices} slices`).to.be.within(3, 3 * slices);
    }
  });

  it("a leaf's update count is the rows its COPY wrote (DuckDB's own count), empty output included", async () => {
    const manifest = readManifest(join(tpchDirectory, 'tiny'))!;
    const split = { file: manifest.tables.lineitem!.files[0]!, slice: 0, slices: 1 };
    const cases: [string, number][] = [
      ['SELECT returnflag, linestatus, count(*) FROM lineitem GROUP BY 1, 2', 4],
      ['SELECT sum(quantity) FROM lineitem WHERE quantity > 20', 1],
      ['SELECT returnflag, count(*) FROM lineitem WHERE quantity < 0 GROUP BY 1', 0],
    ];
    for (const [i, [sql, rows]] of cases.entries()) {
      const file = join(directory, `count-${i}.parquet`);
      const { rows: none, updateCount } = await drain(await planLeaf(engine, sql, session, [split], connectors, file));
      expect(none, sql).to.deep.equal([]);
      expect(updateCount, sql).to.equal(rows);
      const { rows: [[written]] = [[]] } = await drain(await engine.planOwnSql(`SELECT count(*) FROM read_parquet('${file}')`, session));
      expect(Number(written), sql).to.equal(rows);
    }
  });

  it('splits Q1 and Q6 (the single-table TPC-H queries), and no query with a join or subquery', () => {
    expect(splitting.map((q) => q.number)).to.deep.equal([1, 6]);
  });

  for (const q of TPCH_QUERIES.filter((x) => x.number === 1 || x.number === 6)) {
    it(`Q${q.number} in two stages over 2 leaves equals the whole statement, a few rows exchanged per split`, async () => {
      const [two, one] = [await staged(q.sql, 2), await whole(q.sql)];
      expect(two.columns).to.deep.equal(one.columns);
      expectSameRows(two.rows, one.rows, `Q${q.number}`);
      // Partial aggregation: Q1 exchanges at most its 4 groups per split, Q6 one row per split.
      expect(two.exchanged).to.be.at.least(q.number === 1 ? 4 : 2);
      expect(two.exchanged).to.be.at.most((q.number === 1 ? 4 : 1) * two.splits);
    });
  }

  const HAND_MADE = [
    'SELECT count(*), count(comment), min(shipdate), max(shipdate), sum(quantity), avg(tax) FROM lineitem',
    'SELECT count(*) FROM lineitem WHERE quantity > 1000',
    'SELECT avg(quantity), sum(quantity), max(comment) FROM lineitem WHERE quantity > 1000',
    'SELECT returnflag, count(*) AS c FROM lineitem GROUP BY 1 HAVING count(*) > 100 ORDER BY c DESC LIMIT 2',
    'SELECT l.shipmode, sum(l.extendedprice * l.discount) / count(*) AS r FROM tpch.tiny.lineitem AS l GROUP BY l.shipmode ORDER BY 2',
    'SELECT year(orderdate) AS y, orderpriority, max(totalprice) - min(totalprice) FROM orders WHERE orderstatus <> \'P\' GROUP BY year(orderdate), orderpriority ORDER BY y, orderpriority',
    'SELECT nationkey FROM customer GROUP BY nationkey ORDER BY nationkey DESC LIMIT 3',
    'SELECT avg(acctbal) AS a, upper(mktsegment) AS m FROM customer GROUP BY mktsegment ORDER BY a',
    'SELECT count(*) FROM region',
    'SELECT sum(linenumber), sum(orderkey), avg(linenumber), min(comment), max(receiptdate), sum(discount * 2) FROM lineitem WHERE linenumber > 2',
    'SELECT sum(linenumber * 1.5), min(linenumber * 1.5), count(DATE \'2020-01-01\') FROM lineitem',
    'SELECT shipinstruct, sum(linenumber) AS s FROM lineitem GROUP BY shipinstruct HAVING sum(linenumber) > 0 ORDER BY s DESC NULLS LAST, 1',
    // Distinct counts: the leaf emits each (keys, x) once, the root counts x.
    'SELECT count(DISTINCT returnflag) FROM lineitem',
    'SELECT returnflag, count(DISTINCT suppkey) AS s, count(*), sum(quantity) FROM lineitem GROUP BY returnflag HAVING count(DISTINCT suppkey) > 10 ORDER BY s DESC, 1',
    'SELECT shipmode, approx_distinct(partkey), count(DISTINCT partkey), avg(discount) FROM lineitem WHERE quantity > 30 GROUP BY 1 ORDER BY 1',
    'SELECT count(DISTINCT comment), count(*) FROM lineitem WHERE quantity < 0',
    'SELECT year(shipdate), count(DISTINCT shipdate) - 1 FROM lineitem GROUP BY 1 ORDER BY 2 DESC, 1',
  ];
  for (const sql of HAND_MADE) {
    for (const workers of [1, 3]) {
      it(`${workers} leaves: ${sql}`, async () => {
        const [two, one] = [await staged(sql, workers), await whole(sql)];
        expect(two.columns).to.deep.equal(one.columns);
        expectSameRows(two.rows, one.rows, sql);
      });
    }
  }

  it('any query of keys, aggregates, WHERE, HAVING, ORDER BY and LIMIT over lineitem: two stages equal the whole (fast-check)', async () => {
    const KEYS = ['returnflag', 'linestatus', 'shipmode', 'year(shipdate)'];
    // One distinct argument at most (shipinstruct): two different ones do not split.
    const AGGREGATES = ['count(*)', 'count(comment)', 'sum(quantity)', 'min(shipdate)', 'max(extendedprice)', 'avg(discount)', 'sum(linenumber)', 'max(comment)', 'sum(extendedprice * (1 - discount))', 'avg(tax + 1)', 'count(DISTINCT shipinstruct)', 'approx_distinct(shipinstruct)'];
    const FILTERS = ['quantity > 20', "shipmode <> 'AIR'", 'discount BETWEEN 0.02 AND 0.05', "shipdate < DATE '1995-01-01'", 'quantity < 0'];
    const query = fc.record({
      keys: fc.subarray(KEYS, { maxLength: 2 }),
      aggregates: fc.subarray(AGGREGATES, { minLength: 1, maxLength: 3 }),
      where: fc.option(fc.constantFrom(...FILTERS), { nil: undefined }),
      having: fc.option(fc.constantFrom('count(*) > 10', 'sum(quantity) < 1000000', 'max(comment) > \'m\''), { nil: undefined }),
      limit: fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined }),
      workers: fc.integer({ min: 1, max: 3 }),
    });
    await fc.assert(fc.asyncProperty(query, async ({ keys, aggregates, where, having, limit, workers }) => {
      const columns = [...keys, ...aggregates];
      const sql = [
        `SELECT ${columns.join(', ')} FROM lineitem`,
        where ? `WHERE ${where}` : '',
        keys.length > 0 ? `GROUP BY ${keys.join(', ')}` : '',
        having ? `HAVING ${having}` : '',
        // Every output column sorts: the rows' order is the same both ways.
        `ORDER BY ${columns.map((_, i) => i + 1).join(', ')}`,
        limit === undefined ? '' : `LIMIT ${limit}`,
      ].filter((p) => p !== '').join(' ');
      expect(planStages(parseStatement(sql), session, TPCH), sql).to.not.equal(undefined);
      const [two, one] = [await staged(sql, workers), await whole(sql)];
      expect(two.columns, sql).to.deep.equal(one.columns);
      expectSameRows(two.rows, one.rows, sql);
    }), { numRuns: 40 });
  });

  it('leaves nothing it cannot combine exactly to the stages', () => {
    for (const sql of [
      'SELECT count(DISTINCT returnflag), count(DISTINCT linestatus) FROM lineitem',
      'SELECT sum(DISTINCT quantity) FROM lineitem',
      'SELECT approx_distinct(partkey, 0.1) FROM lineitem',
      'SELECT count(DISTINCT returnflag) FILTER (WHERE tax > 0) FROM lineitem',
      'SELECT returnflag FROM lineitem',
      'SELECT sum(quantity) FILTER (WHERE tax > 0) FROM lineitem',
      'SELECT avg(quantity * 1.5) FROM lineitem',
      'SELECT avg(INTERVAL \'1\' DAY) FROM lineitem',
      'SELECT n.name, count(*) FROM nation n JOIN region r ON n.regionkey = r.regionkey GROUP BY n.name',
      'SELECT count(*) FROM lineitem WHERE orderkey IN (SELECT orderkey FROM orders)',
      // Grouping sets split (grouping-sets.ts), but not grouping() nor an ordinal inside a set.
      'SELECT returnflag, grouping(returnflag), count(*) FROM lineitem GROUP BY ROLLUP (returnflag)',
      'SELECT returnflag, count(*) FROM lineitem GROUP BY ROLLUP (1)',
      'SELECT returnflag, quantity, count(*) FROM lineitem GROUP BY returnflag',
      'SELECT count(*) FROM memory.default.t',
      'SELECT max(row_number) FROM lineitem',
      'SELECT count(*) FROM lineitem OFFSET 1',
      'SELECT sum(quantity), rank() OVER (ORDER BY sum(quantity)) FROM lineitem',
      'INSERT INTO memory.default.t SELECT count(*) FROM lineitem',
    ]) expect(planStages(parseStatement(sql), session, TPCH), sql).to.equal(undefined);
  });

  it('refuses a split that is no part of the table, and a slice out of range', async () => {
    const sql = 'SELECT count(*) FROM lineitem';
    const out = join(directory, 'refused.parquet');
    for (const split of [{ file: '../../../etc/passwd', slice: 0, slices: 1 }, { file: 'lineitem/lineitem-00001.parquet', slice: 2, slices: 2 }, { file: 'orders/orders-00001.parquet', slice: 0, slices: 1 }]) {
      const err = await planLeaf(engine, sql, session, [split], connectors, out).then(() => undefined, (e: unknown) => e);
      expect((err as { errorName?: string } | undefined)?.errorName, JSON.stringify(split)).to.equal('INVALID_ARGUMENTS');
    }
  });

  it('refuses a stage over a table the user reads through a mask or row filter (it runs as one task, where they apply)', async () => {
    const guarded = { plan: engine.plan, planOwnSql: engine.planOwnSql, close: engine.close, readsGuarded: (user: string, table: { table: string }) => user === session.user && table.table === 'lineitem' };
    const sql = 'SELECT count(*) FROM lineitem';
    const split = { file: readManifest(join(tpchDirectory, 'tiny'))!.tables.lineitem!.files[0]!, slice: 0, slices: 1 };
    for (const run of [() => planLeaf(guarded, sql, session, [split], connectors, join(directory, 'guarded.parquet')), () => planRoot(guarded, sql, session, ['x.parquet'], connectors)]) {
      const err = await run().then(() => undefined, (e: unknown) => e);
      expect(err).to.deep.include({ errorName: 'PERMISSION_DENIED' });
      expect((err as Error).message).to.include('tpch.tiny.lineitem has a column mask or row filter for this user');
    }
    expect(engine.readsGuarded(session.user, { catalog: 'tpch', schema: 'tiny', table: 'lineitem' }), 'no rules: nothing guarded').to.equal(false);
  });

  it('answers a statement\'s own error as the whole statement would (the user\'s plan runs first)', async () => {
    const err = await planRoot(engine, 'SELECT count(nosuchcolumn) FROM lineitem', session, ['x.parquet'], connectors).then(() => undefined, (e: unknown) => e);
    expect((err as { errorName?: string }).errorName).to.equal('COLUMN_NOT_FOUND');
  });
});
