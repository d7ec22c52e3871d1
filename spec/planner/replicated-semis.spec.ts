// Partitioned NOT IN, NOT EXISTS and an IN read as more than a filter (lib/planner/replicated-semis.ts): the
// probe's rows and the source's final rows meet in a HASH fragment on the IN's column, the source's rows
// whose column is NULL and one row of each of its tasks copied to every bucket (Trino's replicateNullsAndAny;
// the worker's bucket-rows.ts), so the conjunct runs as written and the source is read once. Generated
// predicates over small random tables with NULLs on either side, an empty source and an all-NULL source
// give the one-task answer (fragment-runner.ts: slices, buckets, broadcasts, the same placement), and a
// worker given the coordinator's choices derives the same fragments.
import { expect } from 'chai';
import fc from 'fast-check';
import type { DuckDBConnection } from '@duckdb/node-api';
import { parseStatement } from '../../lib/sql/index.js';
import { planDistributed } from '../../lib/planner/distributed-planner.js';
import type { DistributedPlan } from '../../lib/planner/fragment.types.js';
import type { PlannerSession } from '../../lib/planner/planner.types.js';
import { createSmallLakeTables, plannerDuckDb, rowsOf, runPlan, smallLakeMetadata, sortedRows, translate } from './fragment-runner.js';

const TABLES = ['a', 'b', 'c'] as const;
const metadata = smallLakeMetadata(TABLES, () => true);
const session = (joinDistribution: PlannerSession['joinDistribution'] = 'PARTITIONED', maxBroadcastBytes = 100 * 1024 * 1024): PlannerSession =>
  ({ catalog: 'lake', schema: 's', joinDistribution, maxBroadcastBytes });

/** The source's filters: some rows, none (empty), only its NULL keys, its keys without NULLs, all rows. */
const SOURCES = {
  some: 'WHERE c.v > 4',
  empty: 'WHERE c.v > 100',
  allNull: 'WHERE c.k IS NULL',
  noNull: 'WHERE c.k IS NOT NULL',
  all: '',
} as const;
/** The predicates over the probe's column x and the source S, each a WHERE conjunct reading x alone. */
const PREDICATES = {
  notIn: (x: string, s: string) => `${x} NOT IN (${s})`,
  notInGrouped: (x: string, s: string) => `${x} NOT IN (${s} GROUP BY c.k)`,
  notInDistinct: (x: string, s: string) => `${x} NOT IN (${s.replace('SELECT', 'SELECT DISTINCT')})`,
  inIsNull: (x: string, s: string) => `(${x} IN (${s})) IS NULL`,
  notInOr: (x: string, s: string) => `(${x} NOT IN (${s}) OR ${x} = 3)`,
  inDistinctFromTrue: (x: string, s: string) => `(${x} IN (${s})) IS DISTINCT FROM TRUE`,
  // Sources whose table's rows do not tell their rows: HAVING (it may keep none), an aggregate as the column
  // (max over a group of NULL keys is NULL). Their final's rows are what is replicated.
  notInHaving: (x: string, s: string) => `${x} NOT IN (${s} GROUP BY c.k HAVING count(*) > 1)`,
  notInMax: (x: string, s: string) => `${x} NOT IN (${s.replace('SELECT c.k', 'SELECT max(c.k)')} GROUP BY c.g)`,
  inMinIsNull: (x: string, s: string) => `(${x} IN (${s.replace('SELECT c.k', 'SELECT min(c.k)')} GROUP BY c.v % 3 HAVING count(*) < 4)) IS NULL`,
} as const;

const sqlOf = (q: { predicate: keyof typeof PREDICATES; source: keyof typeof SOURCES; probe: string; join: boolean; shape: string }): string => {
  const source = `SELECT c.k FROM c ${SOURCES[q.source]}`.trim();
  const from = q.join ? 'a JOIN b ON a.g = b.g' : 'a';
  const where = `WHERE ${PREDICATES[q.predicate](`a.${q.probe}`, source)}`;
  return q.shape === 'count' ? `SELECT count(*), count(a.k), sum(a.v) FROM ${from} ${where}` : `SELECT a.k, a.g, a.v FROM ${from} ${where}`;
};

/** The HASH fragment evaluating the semi-join, with its inputs: the probe and the source's final, its NULLs and a row replicated. */
function semiStage(plan: DistributedPlan) {
  const byId = new Map(plan.fragments.map((f) => [f.id, f]));
  const inputsOf = (f: DistributedPlan['fragments'][number]) => f.sources.map((s) => byId.get(s.fragmentId)!);
  return plan.fragments.filter((f) => f.partitioning === 'HASH' && inputsOf(f).some((i) => i.output.kind === 'HASH' && i.output.replicateNullsAndAny)).map((f) => ({ stage: f, inputs: inputsOf(f) }));
}

/** The SOURCE fragments scanning `table`: each reads it once. */
const scansOf = (plan: DistributedPlan, table: string) => plan.fragments.filter((f) => f.scan?.table.table === table);

describe('planner: partitioned NOT IN with the source\'s NULL and emptiness replicated', function () {
  this.timeout(120_000);
  let connection: DuckDBConnection;
  let close: () => void;
  before(async () => {
    ({ connection, close } = await plannerDuckDb());
    await createSmallLakeTables(connection, TABLES, 0.57, 10);
  });
  after(() => close?.());
  const options = (tasks: number) => ({ tasks, catalog: 'lake', schema: 's' });
  const oneTask = async (sql: string) => sortedRows(await rowsOf(connection, translate(sql, options(1))));

  it('the sources hold what their names say: a NULL key, none, only NULLs, nothing', async () => {
    expect(await oneTask('SELECT count(*) FROM c WHERE k IS NULL')).to.not.deep.equal([['0']]);
    expect(await oneTask('SELECT count(*) FROM a WHERE k IS NULL')).to.not.deep.equal([['0']]);
    expect(await oneTask('SELECT count(*) FROM c WHERE v > 100')).to.deep.equal([['0']]);
    expect(await oneTask('SELECT count(k) FROM c WHERE k IS NULL')).to.deep.equal([['0']]);
    // NOT IN's three answers: no row over a NULL key, every row (NULL probes too) over an empty source.
    expect(await oneTask('SELECT * FROM a WHERE a.k NOT IN (SELECT c.k FROM c)')).to.deep.equal([]);
    expect(await oneTask('SELECT count(*) FROM a WHERE a.k NOT IN (SELECT c.k FROM c WHERE c.v > 100)')).to.deep.equal([['40']]);
  });

  it('plans NOT IN in a HASH stage on the column: the probe and the source hashed, the source\'s NULLs and a row replicated, c read once', () => {
    const sql = 'SELECT a.k, a.v FROM a WHERE a.k NOT IN (SELECT c.k FROM c WHERE c.v > 4)';
    const plan = planDistributed(parseStatement(sql), session(), metadata)!;
    expect(plan.choices.semis).to.deep.equal(['PARTITIONED']);
    const [found, ...more] = semiStage(plan);
    expect(more).to.deep.equal([]);
    expect(found!.inputs).to.have.length(2);
    const [probe, values] = found!.inputs;
    expect(probe!.output).to.deep.equal({ kind: 'HASH', keys: ['vivace_r0_0'] });
    expect(values!.output).to.deep.equal({ kind: 'HASH', keys: ['vivace_o0'], replicateNullsAndAny: true });
    expect(values).to.include({ partitioning: 'HASH' });
    expect(scansOf(plan, 'c')).to.have.length(1);
    // The conjunct as written over the bucket's share.
    expect(found!.stage.sql).to.include('NOT IN').and.not.include('CASE WHEN');
    // A plain IN needs no replication.
    const plain = planDistributed(parseStatement('SELECT a.k FROM a WHERE a.k IN (SELECT c.k FROM c)'), session(), metadata)!;
    expect(plain.fragments.some((f) => f.output.kind === 'HASH' && f.output.replicateNullsAndAny)).to.equal(false);
    // AUTOMATIC partitions it over the broadcast limit, broadcasts it under.
    expect(planDistributed(parseStatement(sql), session('AUTOMATIC', 100), metadata)!.choices.semis).to.deep.equal(['PARTITIONED']);
    expect(planDistributed(parseStatement(sql), session('AUTOMATIC'), metadata)!.choices.semis).to.deep.equal([true]);
  });

  it('partitions a NOT IN whose source has HAVING or an aggregate, its two stages run once: its final\'s NULLs and a row replicated', () => {
    for (const sql of [
      'SELECT a.k FROM a WHERE a.k NOT IN (SELECT c.k FROM c GROUP BY c.k HAVING count(*) > 1)',
      'SELECT a.k FROM a WHERE a.k NOT IN (SELECT max(c.k) FROM c GROUP BY c.g)',
    ]) {
      const plan = planDistributed(parseStatement(sql), session(), metadata)!;
      expect(plan.choices.semis, sql).to.deep.equal(['PARTITIONED']);
      const [found] = semiStage(plan);
      const final = found!.inputs[1]!;
      expect(final, sql).to.include({ partitioning: 'HASH' });
      expect(final.output, sql).to.deep.equal({ kind: 'HASH', keys: ['vivace_o0'], replicateNullsAndAny: true });
      expect(plan.fragments.find((f) => f.id === final.sources[0]!.fragmentId)!.partitioning, sql).to.equal('SOURCE');
      expect(scansOf(plan, 'c'), sql).to.have.length(1);
      expect(planDistributed(parseStatement(sql), session(), metadata, plan.choices)!.fragments, sql).to.deep.equal(plan.fragments);
    }
  });

  it('keeps broadcast a predicate reading another column, and a source whose column is computed', () => {
    for (const sql of [
      'SELECT a.k FROM a WHERE a.k NOT IN (SELECT c.k FROM c) OR a.v = 3',
      'SELECT a.k FROM a WHERE a.k NOT IN (SELECT sum(c.k) FROM c GROUP BY c.g)',
    ]) {
      const plan = planDistributed(parseStatement(sql), session(), metadata)!;
      expect(plan, sql).to.not.equal(undefined);
      expect(plan.choices.semis, sql).to.not.include('PARTITIONED');
    }
  });

  it('holds for 150 generated predicates: NULLs on either side, empty and all-NULL sources, 1 to 4 tasks', async () => {
    const queries = fc.record({
      predicate: fc.constantFrom(...(Object.keys(PREDICATES) as (keyof typeof PREDICATES)[])),
      source: fc.constantFrom(...(Object.keys(SOURCES) as (keyof typeof SOURCES)[])),
      probe: fc.constantFrom('k', 'v'),
      join: fc.boolean(),
      shape: fc.constantFrom('count', 'rows'),
      tasks: fc.integer({ min: 1, max: 4 }),
    });
    await fc.assert(fc.asyncProperty(queries, async (q) => {
      const sql = sqlOf(q);
      const plan = planDistributed(parseStatement(sql), session(), metadata);
      expect(plan, sql).to.not.equal(undefined);
      expect(plan!.choices.semis, sql).to.deep.equal(['PARTITIONED']);
      expect(semiStage(plan!), sql).to.have.length(1);
      expect(scansOf(plan!, 'c'), sql).to.have.length(1);
      expect(planDistributed(parseStatement(sql), session(), metadata, plan!.choices)!.fragments, sql).to.deep.equal(plan!.fragments);
      expect(sortedRows(await runPlan(connection, plan!, options(q.tasks))), `${sql} (${q.tasks} tasks)`).to.deep.equal(await oneTask(sql));
    }), { numRuns: 150, seed: 20261129 });
  });
});
