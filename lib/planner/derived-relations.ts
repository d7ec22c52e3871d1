// A derived table that groups (TPC-H Q13's `(SELECT c.custkey, count(o.orderkey) FROM customer c LEFT
// JOIN orders o ... GROUP BY c.custkey) AS c_orders (c_custkey, c_count)`), or that the join planner
// cannot merge into the query above it (derived-tables.ts), is a relation of its own: its query is planned
// as a sub-plan, and the draft whose rows are the derived table's (its HASH final aggregation stage on the
// inner group keys, or its root) reads them as the relation's scan would, its columns named by the
// derived table's column aliases. The query above works in that draft's tasks: with a grouped inner query
// the outer partial aggregation runs in the inner final stage's tasks and the outer final in a stage of
// its own, as Trino plans Q13. A stand-alone subquery that reads derived tables (Q15's
// `(SELECT max(total_revenue) FROM revenue0)` once its WITH is inlined) is a sub-plan too, its root's
// rows broadcast as semi-joins.ts broadcasts any stand-alone subquery's.
import { quoteIdentifier } from '../sql/sql-formatter.js';
import type { Query } from '../sql/index.js';
import type { ScannedTable } from '../connectors/connector.types.js';
import type { PlanRelation } from './column-resolution.js';
import type { Draft } from './fragment-drafts.js';
import type { OutputPartitioning, PlanChoices } from './fragment.types.js';

/** A query planned in drafts: its root, the draft whose rows are the query's, its choices and tables. */
export interface SubPlan {
  root: Draft;
  rows: Draft;
  choices: PlanChoices;
  tables: ScannedTable[];
}

/**
 * The sub-plans of `queries` (derived tables in the FROM's order, then subqueries over derived tables), with
 * the coordinator's choices for each on a worker; undefined when one is not planned or the choices do not fit.
 */
export function subPlans(queries: readonly Query[], given: PlanChoices | undefined, plan: (query: Query, choices: PlanChoices | undefined) => SubPlan | undefined): SubPlan[] | undefined {
  if (given && (given.derived?.length ?? 0) !== queries.length) return undefined;
  const subs: SubPlan[] = [];
  for (const [k, query] of queries.entries()) {
    const sub = plan(query, given?.derived?.[k]);
    if (!sub) return undefined;
    subs.push(sub);
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
