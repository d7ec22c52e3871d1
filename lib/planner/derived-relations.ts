// A derived table that groups (TPC-H Q13's `(SELECT c.custkey, count(o.orderkey) FROM customer c LEFT
// JOIN orders o ... GROUP BY c.custkey) AS c_orders (c_custkey, c_count)`), or that the join planner
// cannot merge into the query above it (derived-tables.ts), is a relation of its own: its query is planned
// as a sub-plan, and the draft whose rows are the derived table's (its HASH final aggregation stage on the
// inner group keys, or its root) reads them as the relation's scan would, its columns named by the
// derived table's column aliases. The query above works in that draft's tasks: with a grouped inner query
// the outer partial aggregation runs in the inner final stage's tasks and the outer final in a stage of
// its own, as Trino plans Q13.
import { quoteIdentifier } from '../sql/sql-formatter.js';
import type { Query } from '../sql/index.js';
import type { ScannedTable } from '../connectors/connector.types.js';
import type { PlanRelation } from './column-resolution.js';
import type { Draft } from './fragment-drafts.js';
import type { OutputPartitioning, PlanChoices } from './fragment.types.js';
import type { DerivedRelation } from './outer-joins.js';

/** A query planned in drafts: its root, the draft whose rows are the query's, its choices and tables. */
export interface SubPlan {
  root: Draft;
  rows: Draft;
  choices: PlanChoices;
  tables: ScannedTable[];
}

/**
 * Each derived table's sub-plan by relation position (with the coordinator's choices for it, on a worker),
 * or undefined when one is not planned, the choices do not fit, or a sub-plan's rows read semi-join sources
 * while the query above has some too (their placeholders would share names in one fragment).
 */
export function subPlans(
  derived: ReadonlyMap<number, DerivedRelation>, given: PlanChoices | undefined, aboveSemis: boolean,
  plan: (query: Query, choices: PlanChoices | undefined) => SubPlan | undefined,
): Map<number, SubPlan> | undefined {
  if (given && (given.derived?.length ?? 0) !== derived.size) return undefined;
  const subs = new Map<number, SubPlan>();
  for (const [k, [index, d]] of [...derived.entries()].entries()) {
    const sub = plan(d.query, given?.derived?.[k]);
    if (!sub || (aboveSemis && (sub.rows.semis?.length ?? 0) > 0)) return undefined;
    subs.set(index, sub);
  }
  return subs;
}

/** The derived table's rows, as a FROM item naming it and its columns as the query above reads them. */
export function derivedRows(r: PlanRelation, rows: Draft, exchange: (d: Draft) => string): string {
  return `(${rows.sql!(exchange)}) AS ${quoteIdentifier(r.name)} (${r.layout.columns.map((c) => quoteIdentifier(c.name)).join(', ')})`;
}

/** The relation's draft: the sub-plan's rows draft (its tasks, its sources) selecting `symbols` by `sql`. */
export function derivedDraft(r: PlanRelation, rows: Draft, output: OutputPartitioning, symbols: string[], sql: (exchange: (d: Draft) => string) => string): Draft {
  return {
    partitioning: rows.partitioning,
    sources: [...rows.sources],
    ...(rows.semis ? { semis: [...rows.semis] } : {}),
    output,
    from: (x) => `(${sql(x)}) AS ${quoteIdentifier(`vivace_s${r.index}`)}`,
    where: [],
    columns: symbols,
  };
}
