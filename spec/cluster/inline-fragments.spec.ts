// Small one-task fragments read in place (lib/cluster/inline-fragments.ts): at tpch.tiny with tables under
// 2,000 rows read whole (supplier, nation, region), TPC-H plans lose those stages (the scheduler's plan
// has fewer fragments, no task reads them as inputs), a worker given the coordinator's choices derives the
// same plan, and every scheduled fragment run through the worker's planFragment on a real DuckDB (SOURCE
// over two slices, HASH over two buckets) gives the one-task answer.
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stagedQuery, type StagedQuery } from '../../lib/cluster/staged-query.js';
import { distributedPlanOf } from '../../lib/cluster/distributed-plan.js';
import { INLINE_MAX_ROWS, inlineSmallFragments } from '../../lib/cluster/inline-fragments.js';
import { splitsOf } from '../../lib/cluster/stage-sql.js';
import { createDuckDbEngine, type DuckDbEngine } from '../../lib/engine/duckdb-engine.js';
import { bucketFile, planFragment, type FragmentTask } from '../../lib/worker/stage-runner.js';
import type { FragmentOutput } from '../../lib/cluster/task-protocol.js';
import { distributedPlanFor } from '../../lib/planner/statement-plans.js';
import type { PlanFragment } from '../../lib/planner/fragment.types.js';
import { TPCH_QUERIES } from '../../lib/tpch/queries/tpch-queries.js';
import type { Connectors } from '../../lib/connectors/connectors.js';
import { tinyMetadata, TINY_ROWS } from '../planner/fragment-runner.js';
import { drainPlan } from '../engine/engine-helpers.js';
import { generatedTiny } from '../support/generated-tiny.js';
import { builtInConnectors, session } from './cluster-harness.js';
import { expectSameRows } from './same-rows.js';

const tiny = session({ catalog: 'tpch', schema: 'tiny' });
const sqlOf = (n: number) => TPCH_QUERIES[n - 1]!.sql;
/** The ids of a plan's fragments, and of those read in place. */
const ids = (fragments: readonly PlanFragment[]) => fragments.map((f) => f.id).sort((a, b) => a - b);
const inlined = (fragments: readonly PlanFragment[]) => ids(fragments.filter((f) => f.inline));

/**
 * Runs a staged query's scheduled fragments as the workers would, producers first: a SOURCE fragment in
 * two tasks (its splits dealt round-robin), a HASH one in two buckets, a SINGLE one in one task; the root's rows.
 */
async function runStaged(engine: DuckDbEngine, connectors: Connectors, sql: string, staged: StagedQuery, directory: string, queryId: string): Promise<unknown[][]> {
  const { plan } = staged;
  const byId = new Map(plan.fragments.map((f) => [f.id, f]));
  const consumerOf = (id: number) => plan.fragments.find((f) => f.sources.some((s) => s.fragmentId === id))!;
  const tasksOf = (f: PlanFragment) => (f.partitioning === 'SINGLE' ? 1 : 2);
  const outputs = new Map<number, string[]>();
  const run = async (f: PlanFragment): Promise<unknown[][]> => {
    for (const s of f.sources) if (!outputs.has(s.fragmentId)) await run(byId.get(s.fragmentId)!);
    const files: string[] = [];
    const splits = f.scan ? splitsOf(staged.splits.get(f.id)!.names, 2, staged.splits.get(f.id)!.rows) : [];
    for (let t = 0; t < tasksOf(f); t++) {
      const inputs = f.sources.map((s) => {
        const producer = byId.get(s.fragmentId)!;
        const produced = outputs.get(s.fragmentId)!;
        return producer.output.kind === 'HASH'
          ? { fragmentId: s.fragmentId, files: produced.map((d) => bucketFile(d, t)), bucket: t, buckets: tasksOf(f) }
          : { fragmentId: s.fragmentId, files: produced };
      });
      const task: FragmentTask = { queryId, fragmentId: f.id, inputs, choices: plan.choices, ...(f.scan ? { splits: splits.filter((_, i) => i % 2 === t) } : {}) };
      if (f.id === 0) return (await drainPlan(await planFragment(engine, sql, tiny, task, connectors, undefined))).rows;
      const at = join(directory, `${queryId}-f${f.id}-t${t}`);
      const hashed = f.output.kind === 'HASH';
      const output: FragmentOutput = f.output.kind === 'HASH' ? { kind: 'HASH', buckets: tasksOf(consumerOf(f.id)) } : { kind: f.output.kind };
      await drainPlan(await planFragment(engine, sql, tiny, { ...task, output }, connectors, hashed ? { directory: at } : { file: `${at}.parquet` }));
      files.push(hashed ? at : `${at}.parquet`);
    }
    outputs.set(f.id, files);
    return [];
  };
  return run(byId.get(0)!);
}

describe('small fragments read in place by their consumers (inline-fragments.ts)', function () {
  this.timeout(120_000);
  let tpchDirectory: string;
  let directory: string;
  let engine: DuckDbEngine;
  /** tpch.tiny's tables of 2,000 rows or more read over splits, the rest whole. */
  let connectors: Connectors;

  before(async () => {
    ({ directory: tpchDirectory } = await generatedTiny());
    connectors = builtInConnectors(tpchDirectory, { tpchMinRows: 2000 });
    directory = mkdtempSync(join(tmpdir(), 'vivace-inline-'));
    engine = await createDuckDbEngine({ tempDirectory: directory, threads: 2, tpch: { directory: tpchDirectory, log: () => {} } });
  });
  after(async () => {
    await engine.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('Q2: the six stages of supplier, nation and region leave the scheduler\'s plan, named in the choices a worker derives them by', () => {
    const whole = distributedPlanOf(sqlOf(2), tiny, connectors)!;
    expect(ids(whole.fragments)).to.have.length(11);
    expect(inlined(whole.fragments)).to.deep.equal([4, 5, 6, 7, 8, 9]);
    expect(whole.choices.inline).to.deep.equal([4, 5, 6, 7, 8, 9]);
    const staged = stagedQuery(sqlOf(2), tiny, connectors)!;
    // f10, the parts of size 15, is read by the probe and by the subquery's partsupp scan, filtered to them.
    expect(ids(staged.plan.fragments), 'scheduled stages').to.deep.equal([0, 1, 2, 3, 10]);
    expect(staged.plan.fragments.flatMap((f) => f.sources.map((s) => s.fragmentId)).sort((a, b) => a - b), 'exchanges read').to.deep.equal([1, 2, 3, 10, 10]);
    expect(staged.plan.choices.inline).to.deep.equal([4, 5, 6, 7, 8, 9]);
    // A worker given the choices derives the same fragments, whatever its own statistics (every table split here).
    const derived = distributedPlanOf(sqlOf(2), tiny, builtInConnectors(tpchDirectory, { tpchMinRows: 0 }), whole.choices);
    expect(derived?.fragments).to.deep.equal(whole.fragments);
  });

  it('reads in place only one-task fragments without inputs over tables of at most INLINE_MAX_ROWS rows', () => {
    // Every table split: nothing is one task, nothing is read in place.
    const split = distributedPlanOf(sqlOf(2), tiny, builtInConnectors(tpchDirectory, { tpchMinRows: 0 }))!;
    expect(inlined(split.fragments)).to.deep.equal([]);
    expect(split.choices.inline).to.equal(undefined);
    // supplier one row over the bound: its fragments stay stages, nation's and region's do not.
    const metadata = tinyMetadata((t) => TINY_ROWS[t]! >= 2000);
    const rowsOf = (over: string) => ({ table: (t: Parameters<typeof metadata.table>[0]) => { const l = metadata.table(t); return l && (t.table === over ? { ...l, rows: INLINE_MAX_ROWS + 1 } : l); } });
    const plan = distributedPlanFor(sqlOf(2), tiny, metadata)!;
    expect(inlined(inlineSmallFragments(plan, metadata, tiny).fragments)).to.deep.equal([4, 5, 6, 7, 8, 9]);
    // The same fragments' texts again (their names kept by text): the rows behind them are read anew.
    expect(inlined(inlineSmallFragments(plan, rowsOf('supplier'), tiny).fragments)).to.deep.equal([5, 6, 8, 9]);
    // A table of unknown size is not read in place.
    expect(inlined(inlineSmallFragments(plan, { table: (t) => { const l = metadata.table(t); return l && { ...l, rows: undefined }; } }, tiny).fragments)).to.deep.equal([]);
    // A name of one part resolves by the session (Q16's suppliers with complaints: `FROM supplier AS s`),
    // unless the session has no schema or the fragment has a WITH clause whose name it may be.
    const q16 = distributedPlanFor(sqlOf(16), tiny, metadata)!;
    const complaints = q16.fragments.find((f) => f.sql.includes('FROM supplier AS s'))!;
    expect(inlined(inlineSmallFragments(q16, metadata, tiny).fragments)).to.deep.equal([complaints.id]);
    expect(inlined(inlineSmallFragments(q16, metadata, { catalog: 'tpch' }).fragments)).to.deep.equal([]);
    const withClause = { ...q16, fragments: q16.fragments.map((f) => (f === complaints ? { ...f, sql: `WITH supplier AS (SELECT 1 AS suppkey) ${f.sql}` } : f)) };
    expect(inlined(inlineSmallFragments(withClause, metadata, tiny).fragments)).to.deep.equal([]);
    // A one-task fragment forwarding whole inputs to a one-task consumer (Q20's f2 the suppliers of f4 for
    // f1, f1 the answer for the root) is read in place; one over a HASH input (f4: its buckets) is not.
    const q20 = distributedPlanOf(sqlOf(20), tiny, connectors)!;
    expect(inlined(q20.fragments)).to.deep.equal([1, 2, 3]);
    expect(q20.fragments.find((f) => f.id === 2)!.sources.map((s) => s.fragmentId)).to.deep.equal([4]);
    expect(stagedQuery(sqlOf(20), tiny, connectors)!.plan.fragments.find((f) => f.id === 0)!.sources.map((s) => s.fragmentId), 'the root reads f4 itself').to.deep.equal([4]);
    // Choices naming a fragment that has inputs or splits (1, 2, 10) leave it a stage.
    expect(inlined(inlineSmallFragments(plan, metadata, tiny, { ...plan.choices, inline: [1, 2, 5, 10] }).fragments)).to.deep.equal([5]);
  });

  for (const number of [2, 3, 5, 7, 8, 9, 11, 15, 16, 20, 21, 22]) {
    it(`Q${number}: its scheduled fragments through the worker's planFragment give the one-task answer`, async () => {
      const staged = stagedQuery(sqlOf(number), tiny, connectors)!;
      const whole = distributedPlanOf(sqlOf(number), tiny, connectors)!;
      expect(inlined(whole.fragments).length, 'fragments read in place').to.be.above(0);
      expect(staged.plan.fragments.length).to.equal(whole.fragments.length - inlined(whole.fragments).length);
      const rows = await runStaged(engine, connectors, sqlOf(number), staged, directory, `q_inline_${number}`);
      const one = await drainPlan(await engine.plan(sqlOf(number), tiny));
      expectSameRows(rows, one.rows, `Q${number}`);
    });
  }
});
