// Small fragments read in place. A one-task fragment that only reads small tables every worker reads alike
// (tpch's nation, region and supplier at sf1, a lake table of a few rows) is a stage of its own today: a
// task planned on a worker, a COPY to a Parquet file, and a pull of that file by every consumer task, each
// step 1-30 ms on the critical path (bench/stage-timeline.ts: Q2's six such stages of eleven). Trino would
// broadcast it; here each consumer task runs its SQL itself where it reads the fragment's exchange table,
// a broadcast whose exchange is every consumer reading the tables (PlanFragment.inline). So too a one-task
// fragment that only forwards or finishes whole inputs for a one-task consumer (Q20's suppliers, Q15's max
// of the revenues): its consumer reads those inputs and runs it. The coordinator decides (from the tables'
// statistics) and names the fragments in its choices (PlanChoices.inline), so a worker derives the same
// plan whatever its own statistics say; the scheduler runs no task for them.
import { findAll, parseStatement } from '../sql/index.js';
import { partsOf, qualifyTable } from '../sql/names.js';
import type { DistributedPlan, PlanChoices, PlanFragment } from '../planner/fragment.types.js';
import type { PlannerMetadata } from '../planner/planner.types.js';
import { TextMemo } from '../text-memo.js';

/**
 * Most rows of each table an inlined fragment reads (every table it names): tpch's supplier at sf1. Each
 * consumer task reads them again (two at most of a broadcast consumer on two workers), for a few ms.
 */
export const INLINE_MAX_ROWS = 10_000;

/** Whether a plan's fragment is read in place (no input names it). */
const readInPlace = (plan: DistributedPlan, fragmentId: number): boolean => plan.fragments.some((f) => f.id === fragmentId && f.inline === true);

/** The fragments that read `id`'s output. */
const consumersOf = (plan: DistributedPlan, id: number): PlanFragment[] => plan.fragments.filter((f) => f.sources.some((s) => s.fragmentId === id));

/**
 * Whether a fragment's shape lets its consumers read it in place: one task, not pinned, its output whole
 * to each consumer, read by some. Either it has no inputs (its own tables: small, readsSmallTables), or it
 * only forwards or finishes small inputs for one task (Q15's max of the revenues, Q20's list of suppliers):
 * its inputs whole (no HASH output, whose buckets are per consumer task) and every consumer one task, which
 * then reads those inputs itself and runs the fragment's SQL over them, nothing computed twice.
 */
function inlineShape(fragment: PlanFragment, plan: DistributedPlan): 'tables' | 'inputs' | undefined {
  if (fragment.id === 0 || fragment.partitioning !== 'SINGLE' || fragment.scan !== undefined || fragment.holder !== undefined) return undefined;
  const consumers = consumersOf(plan, fragment.id);
  if ((fragment.output.kind !== 'BROADCAST' && fragment.output.kind !== 'SINGLE') || consumers.length === 0) return undefined;
  if (fragment.sources.length === 0) return 'tables';
  const whole = fragment.sources.every((s) => plan.fragments.find((f) => f.id === s.fragmentId)?.output.kind !== 'HASH');
  return whole && consumers.every((c) => c.partitioning === 'SINGLE') ? 'inputs' : undefined;
}

/** The session's defaults a fragment's table names resolve by (Session's catalog and schema). */
export type NameDefaults = { catalog?: string; schema?: string };

/** The names of the tables a fragment's SQL reads (partsOf), or null when it is not read in place whatever its tables. */
type NamedTables = readonly (readonly string[])[] | null;

/**
 * Fragments' table names by SQL text: the coordinator plans every staged query anew (its analysis follows
 * the catalogs' metadata), but a text's names are the text's alone, so the same fragment of the next run
 * of a query is not parsed again. The rows behind a name are read each time.
 */
const namedTables = new TextMemo<NamedTables>(512, 32_768);

/** The tables a fragment's SQL names: null when it does not parse or has a WITH clause (its names may be the clause's). */
function tablesNamed(sql: string): NamedTables {
  try {
    const statement = parseStatement(sql);
    return findAll(statement, 'WithQuery').length > 0 ? null : findAll(statement, 'Table').map(({ name }) => partsOf(name));
  } catch {
    return null;
  }
}

/**
 * Whether every table a fragment's SQL names is a table every worker reads alike with at most
 * INLINE_MAX_ROWS rows. A name of one or two parts resolves by the session's catalog and schema, as the
 * task's translation resolves it; a fragment with a WITH clause is not read in place (its names may be the
 * clause's).
 */
function readsSmallTables(fragment: PlanFragment, metadata: PlannerMetadata, defaults: NameDefaults): boolean {
  const names = namedTables.get(fragment.sql, tablesNamed);
  return names !== null && names.length > 0 && names.every((parts) => {
    const table = qualifyTable(parts, defaults.catalog, defaults.schema);
    const rows = table && metadata.table(table)?.rows;
    return rows !== undefined && rows <= INLINE_MAX_ROWS;
  });
}

/**
 * The plan with its small fragments read in place. Without `given` (the coordinator, EXPLAIN) each
 * fragment of that shape over small tables is, and the plan's choices name them; with the coordinator's
 * choices (a worker) those it names are, of that shape (any other named is left a stage, which the task's
 * inputs then do not match: stage-runner.ts refuses it).
 */
export function inlineSmallFragments(plan: DistributedPlan, metadata: PlannerMetadata, defaults: NameDefaults, given?: PlanChoices): DistributedPlan {
  const named = given ? new Set(given.inline ?? []) : undefined;
  const ids = plan.fragments.filter((f) => {
    const shape = inlineShape(f, plan);
    return shape !== undefined && (named ? named.has(f.id) : shape === 'inputs' || f.colocated === true || readsSmallTables(f, metadata, defaults));
  }).map((f) => f.id);
  if (ids.length === 0) return plan;
  const inline = new Set(ids);
  return {
    ...plan,
    fragments: plan.fragments.map((f) => (inline.has(f.id) ? { ...f, inline: true as const } : f)),
    choices: { ...plan.choices, inline: ids },
  };
}

/**
 * The fragments the scheduler runs: the plan without those read in place, each consumer's sources without
 * them and with their own inputs instead, once each (the worker runs a fragment read in place over those,
 * so a task's inputs name only fragments that run).
 */
export function scheduledPlan(plan: DistributedPlan): DistributedPlan {
  if (!plan.fragments.some((f) => f.inline)) return plan;
  return { ...plan, fragments: plan.fragments.filter((f) => !f.inline).map((f) => scheduledFragment(plan, f)) };
}

/** A fragment as the scheduler runs it (scheduledPlan): its sources those that run, read directly or through fragments read in place. */
export function scheduledFragment(plan: DistributedPlan, fragment: PlanFragment): PlanFragment {
  if (!fragment.sources.some((s) => readInPlace(plan, s.fragmentId))) return fragment;
  const sources = new Map<number, PlanFragment['sources'][number]>();
  const add = (of: PlanFragment, depth: number) => {
    for (const s of of.sources) {
      const producer = plan.fragments.find((f) => f.id === s.fragmentId);
      // A plan is a tree of fewer than MAX_FRAGMENTS: deeper is a cycle no planner makes.
      if (producer?.inline && depth < plan.fragments.length) add(producer, depth + 1);
      else if (!sources.has(s.fragmentId)) sources.set(s.fragmentId, s);
    }
  };
  add(fragment, 0);
  return { ...fragment, sources: [...sources.values()] };
}
