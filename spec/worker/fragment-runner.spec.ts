// Fragment tasks on a real DuckDB engine at tpch.tiny (stage-runner.ts planFragment), with hand-built
// plans given to planFragment in place of the planner's: a HASH output writes one Parquet file per bucket
// in one pass, keys equal under `=` land in the same bucket whatever their numeric type, an empty bucket
// is a file with the columns, a SOURCE-HASH-SINGLE pipeline answers as the whole statement, and a task
// that does not fit the fragment it names is refused with a 400.
import { expect } from 'chai';
import sinon from 'sinon';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDuckDbEngine, type DuckDbEngine } from '../../lib/engine/duckdb-engine.js';
import { defaultConfig } from '../../lib/config.js';
import { readManifest } from '../../lib/connectors/tpch/tpch-generation.js';
import { bucketFile, planFragment, type DerivePlan, type FragmentTask } from '../../lib/worker/stage-runner.js';
import { exchangeTableOf, type DistributedPlan, type PlanFragment } from '../../lib/planner/fragment.types.js';
import { drainPlan, testSession } from '../engine/engine-helpers.js';
import { builtInConnectors } from '../cluster/cluster-harness.js';
import { expectSameRows } from '../cluster/same-rows.js';

const session = testSession({ catalog: 'tpch', schema: 'tiny' });
const tpchDirectory = join(defaultConfig().dataDirectory, 'tpch');
const name = (id: number) => { const t = exchangeTableOf(id); return `${t.catalog}.${t.schema}.${t.table}`; };
const nation = { catalog: 'tpch', schema: 'tiny', table: 'nation' };

/** Nation's key as four types, each a SOURCE fragment hashed on it (fragments 1 to 4 of one plan). */
const KEY_TYPES = ['integer', 'bigint', 'decimal(10, 2)', 'double'];
const keysSql = 'SELECT nationkey FROM tpch.tiny.nation';
const keysPlan: DistributedPlan = {
  choices: { order: [], joins: [], split: [true, true, true, true] },
  tables: [nation],
  fragments: [
    { id: 0, partitioning: 'SINGLE', sources: KEY_TYPES.map((_, i) => ({ fragmentId: i + 1, table: exchangeTableOf(i + 1) })), output: { kind: 'SINGLE' }, columns: [], sql: `SELECT k FROM ${name(1)}` },
    ...KEY_TYPES.map((type, i): PlanFragment => ({
      id: i + 1, partitioning: 'SOURCE', scan: { table: nation }, sources: [], output: { kind: 'HASH', keys: ['k'] }, columns: ['k', 'name'],
      sql: `SELECT CAST(nationkey AS ${type}) AS k, name FROM tpch.tiny.nation`,
    })),
  ],
};

/** Dates and timestamps equal under `=` (Trino compares a date as its midnight): fragments 1 and 2 hashed on them. */
const datesSql = 'SELECT name FROM tpch.tiny.nation';
const dateKey = "date_add('day', nationkey, DATE '2020-01-01')";
const datesPlan: DistributedPlan = {
  choices: { order: [], joins: [], split: [true, true] },
  tables: [nation],
  fragments: [
    { id: 0, partitioning: 'SINGLE', sources: [1, 2].map((id) => ({ fragmentId: id, table: exchangeTableOf(id) })), output: { kind: 'SINGLE' }, columns: [], sql: `SELECT k FROM ${name(1)}` },
    ...['date', 'timestamp(3)'].map((type, i): PlanFragment => ({
      id: i + 1, partitioning: 'SOURCE', scan: { table: nation }, sources: [], output: { kind: 'HASH', keys: ['k'] }, columns: ['k', 'name'],
      sql: `SELECT CAST(${dateKey} AS ${type}) AS k, name FROM tpch.tiny.nation`,
    })),
  ],
};

const joinSql = 'SELECT o.orderpriority, count(*) AS lines, sum(l.quantity) AS qty FROM orders o JOIN lineitem l ON o.orderkey = l.orderkey WHERE l.quantity > 10 GROUP BY o.orderpriority ORDER BY 1';
const joinPlan: DistributedPlan = {
  choices: { order: [0, 1], joins: ['PARTITIONED'], split: [true, true] },
  tables: [{ ...nation, table: 'orders' }, { ...nation, table: 'lineitem' }],
  fragments: [
    { id: 0, partitioning: 'SINGLE', sources: [{ fragmentId: 1, table: exchangeTableOf(1) }], output: { kind: 'SINGLE' }, columns: [], sql: `SELECT orderpriority, CAST(sum(c) AS bigint) AS lines, sum(q) AS qty FROM ${name(1)} GROUP BY orderpriority ORDER BY 1` },
    {
      id: 1, partitioning: 'HASH', sources: [{ fragmentId: 2, table: exchangeTableOf(2) }, { fragmentId: 3, table: exchangeTableOf(3) }], output: { kind: 'SINGLE' }, columns: ['orderpriority', 'c', 'q'],
      sql: `SELECT o.orderpriority, count(*), sum(l.quantity) FROM ${name(2)} o JOIN ${name(3)} l ON o.orderkey = l.orderkey GROUP BY o.orderpriority`,
    },
    { id: 2, partitioning: 'SOURCE', scan: { table: { ...nation, table: 'orders' } }, sources: [], output: { kind: 'HASH', keys: ['orderkey'] }, columns: ['orderkey', 'orderpriority'], sql: 'SELECT orderkey, orderpriority FROM tpch.tiny.orders' },
    { id: 3, partitioning: 'SOURCE', scan: { table: { ...nation, table: 'lineitem' } }, sources: [], output: { kind: 'HASH', keys: ['orderkey'] }, columns: ['orderkey', 'quantity'], sql: 'SELECT orderkey, quantity FROM tpch.tiny.lineitem WHERE quantity > 10' },
  ],
};

/** The join plan with its lineitem scan reading whole parts (a subquery on its partitioning column runs there). */
const wholeSql = `${joinSql} `;
const wholePlan: DistributedPlan = { ...joinPlan, fragments: joinPlan.fragments.map((f) => (f.id === 3 ? { ...f, scan: { ...f.scan!, whole: true as const } } : f)) };

const drain = drainPlan;
/** The hand-built plans, given to planFragment in place of the planner's derivation. */
const handBuilt: DerivePlan = (sql) => new Map([[keysSql, keysPlan], [joinSql, joinPlan], [datesSql, datesPlan], [wholeSql, wholePlan]]).get(sql);

describe('fragment tasks on DuckDB at tpch.tiny (hand-built plans)', function () {
  this.timeout(60_000);
  let directory: string;
  let engine: DuckDbEngine;
  const connectors = builtInConnectors(tpchDirectory, { tpchMinRows: 0 });
  const manifest = () => readManifest(join(tpchDirectory, 'tiny'))!;
  const split = (table: string, slice = 0, slices = 1) => ({ file: manifest().tables[table]!.files[0]!, slice, slices });

  before(async () => {
    directory = mkdtempSync(join(tmpdir(), 'vivace-fragment-runner-'));
    engine = await createDuckDbEngine({ tempDirectory: directory, threads: 2, tpch: { directory: tpchDirectory, log: () => {} } });
    await drain(await engine.plan('SELECT count(*) FROM tpch.tiny.region', session));
  });
  after(async () => {
    await engine.close();
    rmSync(directory, { recursive: true, force: true });
  });

  const rowsOf = async (sql: string) => (await drain(await engine.planOwnSql(sql, session))).rows;

  it('hashes equal keys of integer, bigint, decimal and double into the same bucket; an empty bucket is a file with the columns', async () => {
    const buckets = 64;
    const placed: string[][] = [];
    for (const [i] of KEY_TYPES.entries()) {
      const out = join(directory, `keys-${i}`);
      const { updateCount } = await drain(await planFragment(engine, keysSql, session, { fragmentId: i + 1, splits: [split('nation')], inputs: [], output: { kind: 'HASH', buckets } }, connectors, { directory: out }, undefined, handBuilt));
      expect(updateCount, KEY_TYPES[i]).to.equal(25);
      const perBucket: string[] = [];
      for (let b = 0; b < buckets; b++) {
        expect(existsSync(bucketFile(out, b)), `bucket ${b}`).to.equal(true);
        const keys = await rowsOf(`SELECT CAST(k AS DOUBLE) FROM read_parquet('${bucketFile(out, b)}') ORDER BY 1`);
        perBucket.push(keys.map((r) => String(r[0])).join(','));
      }
      placed.push(perBucket);
    }
    for (const other of placed.slice(1)) expect(other).to.deep.equal(placed[0]);
    // 25 keys over 64 buckets leave some empty: still readable, with the fragment's columns.
    const empty = placed[0]!.findIndex((keys) => keys === '');
    expect(empty).to.be.at.least(0);
    const described = await rowsOf(`DESCRIBE SELECT * FROM read_parquet('${bucketFile(join(directory, 'keys-0'), empty)}')`);
    expect(described.map((r) => r[0])).to.deep.equal(['k', 'name']);
  });

  it('hashes a date and the timestamp of its midnight into the same bucket', async () => {
    const buckets = 16;
    const placed: string[][] = [];
    for (const id of [1, 2]) {
      const out = join(directory, `dates-${id}`);
      await drain(await planFragment(engine, datesSql, session, { fragmentId: id, splits: [split('nation')], inputs: [], output: { kind: 'HASH', buckets } }, connectors, { directory: out }, undefined, handBuilt));
      const perBucket: string[] = [];
      for (let b = 0; b < buckets; b++) {
        const keys = await rowsOf(`SELECT CAST(CAST(k AS TIMESTAMP) AS VARCHAR) FROM read_parquet('${bucketFile(out, b)}') ORDER BY 1`);
        perBucket.push(keys.map((r) => String(r[0])).join(','));
      }
      placed.push(perBucket);
    }
    expect(placed[0]!.filter((keys) => keys !== '').length, 'the 25 dates spread over buckets').to.be.above(1);
    expect(placed[1]).to.deep.equal(placed[0]);
  });

  it('SOURCE fragments hashed on the join key, a HASH join per bucket, a SINGLE root: the whole statement\'s rows', async () => {
    const buckets = 3;
    const produced = new Map<number, string[]>();
    for (const [id, table] of [[2, 'orders'], [3, 'lineitem']] as const) {
      for (const slice of [0, 1]) {
        const out = join(directory, `join-${id}-${slice}`);
        await drain(await planFragment(engine, joinSql, session, { fragmentId: id, splits: [split(table, slice, 2)], inputs: [], output: { kind: 'HASH', buckets } }, connectors, { directory: out }, undefined, handBuilt));
        produced.set(id, [...(produced.get(id) ?? []), out]);
      }
    }
    const joined: string[] = [];
    for (let b = 0; b < buckets; b++) {
      const file = join(directory, `join-1-${b}.parquet`);
      const inputs = [2, 3].map((id) => ({ fragmentId: id, files: produced.get(id)!.map((d) => bucketFile(d, b)), bucket: b, buckets }));
      await drain(await planFragment(engine, joinSql, session, { fragmentId: 1, inputs, output: { kind: 'SINGLE' } }, connectors, { file }, undefined, handBuilt));
      joined.push(file);
    }
    const root = await planFragment(engine, joinSql, session, { fragmentId: 0, inputs: [{ fragmentId: 1, files: joined }] }, connectors, undefined, undefined, handBuilt);
    const whole = await engine.plan(joinSql, session);
    expect(root.columns).to.deep.equal(whole.columns);
    expectSameRows((await drain(root)).rows, (await drain(whole)).rows, 'the join in fragments');
  });

  it('writes exchange files uncompressed by default (Trino\'s exchange.compression-codec NONE), or with the configured codec', async () => {
    const codecOf = async (compression?: 'zstd' | 'lz4') => {
      const out = join(directory, `codec-${compression ?? 'none'}`);
      await drain(await planFragment(engine, keysSql, session, { fragmentId: 2, splits: [split('nation')], inputs: [], output: { kind: 'HASH', buckets: 1 } }, connectors, { directory: out, ...(compression ? { compression } : {}) }, undefined, handBuilt));
      const rows = await rowsOf(`SELECT DISTINCT compression FROM parquet_metadata('${bucketFile(out, 0)}')`);
      return rows.map((r) => String(r[0]));
    };
    expect(await codecOf()).to.deep.equal(['UNCOMPRESSED']);
    expect(await codecOf('zstd')).to.deep.equal(['ZSTD']);
    expect(await codecOf('lz4')).to.have.length(1).and.satisfy((c: string[]) => c[0]!.startsWith('LZ4'));
  });

  it('writes exchange files with Parquet\'s v2 encodings, a dictionary only for a column of few values (stage-runner.ts ENCODING)', async () => {
    const out = join(directory, 'encodings');
    await drain(await planFragment(engine, joinSql, session, { fragmentId: 2, splits: [split('orders')], inputs: [], output: { kind: 'HASH', buckets: 1 } }, connectors, { directory: out }, undefined, handBuilt));
    const rows = await rowsOf(`SELECT path_in_schema, string_agg(DISTINCT encodings, ', ') FROM parquet_metadata('${bucketFile(out, 0)}') GROUP BY 1 ORDER BY 1`);
    const encodings = new Map(rows.map((r) => [String(r[0]), String(r[1])]));
    // orderkey: 15,000 distinct keys at tiny, past the dictionary's limit: delta-encoded (v2), no dictionary.
    expect(encodings.get('orderkey'), 'orderkey').to.include('DELTA_BINARY_PACKED').and.not.include('DICTIONARY');
    // orderpriority: 5 values keep their dictionary.
    expect(encodings.get('orderpriority'), 'orderpriority').to.include('DICTIONARY');
  });

  it('refuses a task that does not fit its fragment: unknown id, splits where none are read, a source missing or twice, a bucket missing or out of range, another output, a slice where whole parts are read', async () => {
    const file = join(directory, 'refused.parquet');
    const input = (id: number, extra: Partial<FragmentTask['inputs'][number]> = {}) => ({ fragmentId: id, files: [file], bucket: 0, buckets: 2, ...extra });
    const cases: FragmentTask[] = [
      { fragmentId: 9, inputs: [], output: { kind: 'SINGLE' } },
      { fragmentId: 1, splits: [split('orders')], inputs: [input(2), input(3)], output: { kind: 'SINGLE' } },
      { fragmentId: 1, inputs: [input(2)], output: { kind: 'SINGLE' } },
      { fragmentId: 1, inputs: [input(2), input(2)], output: { kind: 'SINGLE' } },
      { fragmentId: 1, inputs: [input(2), { fragmentId: 3, files: [file] }], output: { kind: 'SINGLE' } },
      { fragmentId: 1, inputs: [input(2), input(3, { bucket: 2 })], output: { kind: 'SINGLE' } },
      { fragmentId: 1, inputs: [input(2), input(3)], output: { kind: 'HASH', buckets: 2 } },
      { fragmentId: 2, inputs: [], output: { kind: 'HASH', buckets: 2 } },
      { fragmentId: 2, splits: [split('orders')], inputs: [], output: { kind: 'SINGLE' } },
      { fragmentId: 0, inputs: [{ fragmentId: 1, files: [file] }], output: { kind: 'HASH', buckets: 2 } },
    ];
    for (const task of cases) {
      const err = await planFragment(engine, joinSql, session, task, connectors, { file }, undefined, handBuilt).then(() => undefined, (e: unknown) => e);
      expect((err as { errorName?: string } | undefined)?.errorName, JSON.stringify(task)).to.equal('INVALID_ARGUMENTS');
    }
    // A fragment reading whole parts takes no slice of one.
    const sliced: FragmentTask = { fragmentId: 3, splits: [split('lineitem', 0, 2)], inputs: [], output: { kind: 'HASH', buckets: 2 } };
    const err = await planFragment(engine, wholeSql, session, sliced, connectors, { directory: join(directory, 'whole') }, undefined, handBuilt).then(() => undefined, (e: unknown) => e);
    expect((err as { errorName?: string; message?: string } | undefined)?.message).to.include('reads whole parts');
    await drain(await planFragment(engine, wholeSql, session, { ...sliced, splits: [split('lineitem')] }, connectors, { directory: join(directory, 'whole') }, undefined, handBuilt));
  });

  it('derives a query\'s plan once for its tasks on this worker, and again for another query, user or set of choices', async () => {
    const derive = sinon.spy(handBuilt);
    const task = (queryId: string, fragmentId: number): FragmentTask => ({ queryId, fragmentId, splits: [split('nation')], inputs: [], output: { kind: 'HASH', buckets: 2 } });
    const run = async (t: FragmentTask, s = session) => {
      const out = join(directory, `cache-${t.queryId}-${t.fragmentId}-${s.user}-${derive.callCount}`);
      await drain(await planFragment(engine, keysSql, s, t, connectors, { directory: out }, undefined, derive));
    };
    await run(task('q_cache_1', 1));
    await run(task('q_cache_1', 2));
    await run(task('q_cache_1', 3));
    expect(derive.callCount, 'three tasks of one query').to.equal(1);
    await run(task('q_cache_2', 1));
    expect(derive.callCount, 'another query').to.equal(2);
    await run(task('q_cache_2', 1), { ...session, user: 'mallory' });
    expect(derive.callCount, 'the same query id for another user').to.equal(3);
    await run({ ...task('q_cache_2', 1), choices: { order: [], joins: [], split: [true, true, true, true] } });
    expect(derive.callCount, 'other choices').to.equal(4);
    // Tasks of one query posted at once wait for one derivation.
    await Promise.all([1, 2, 3, 4].map((id) => run(task('q_cache_4', id))));
    expect(derive.callCount, 'four tasks at once').to.equal(5);
    // A task without its query's id (a spec's, an older coordinator's) derives its own plan.
    await run({ ...task('q_cache_3', 1), queryId: undefined });
    await run({ ...task('q_cache_3', 1), queryId: undefined });
    expect(derive.callCount).to.equal(7);
  });
});
