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
import { walk, type Node, type Query } from '../sql/index.js';
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

/**
 * The sub-plans of one statement: each derived query planned once, by identity (a WITH query's references
 * share one query, derived-tables.ts inlineWith), and the queries read at more than one place.
 */
export interface SubPlanContext {
  memo: Map<Query, SubPlan>;
  shared: Set<Query>;
}

/** The derived queries `statement` reads at more than one place. */
export function sharedQueries(statement: Node): Set<Query> {
  const seen = new Set<Query>();
  const shared = new Set<Query>();
  walk(statement, (n) => {
    if (n.type !== 'TableSubquery') return;
    if (seen.has(n.query)) shared.add(n.query);
    seen.add(n.query);
  });
  return shared;
}

/**
 * The derived table's rows, as a FROM item naming it and its columns as the query above reads them: the
 * rows draft's SQL, or (`shared`) its exchange table.
 */
export function derivedRows(r: PlanRelation, rows: Draft, exchange: (d: Draft) => string, shared: boolean): string {
  const sql = shared ? `SELECT * FROM ${exchange(rows)}` : rows.sql!(exchange);
  return `(${sql}) AS ${quoteIdentifier(r.name)} (${r.layout.columns.map((c) => quoteIdentifier(c.name)).join(', ')})`;
}

/**
 * The relation's draft selecting `symbols` by `sql`: the sub-plan's rows draft (its tasks, its sources), or
 * (`shared`, a WITH query read at more than one place) one task reading the rows draft's output, which
 * every reader reads whole: the rows are computed once, as one task computes a WITH query read twice once
 * (TPC-H Q15 compares a double sum with its own max: computed twice, the sums may differ in their last bit).
 */
export function derivedDraft(r: PlanRelation, rows: Draft, output: OutputPartitioning, symbols: string[], sql: (exchange: (d: Draft) => string) => string, shared: boolean): Draft {
  const from = (x: (d: Draft) => string) => `(${sql(x)}) AS ${quoteIdentifier(`vivace_s${r.index}`)}`;
  if (shared) {
    rows.output = { kind: 'BROADCAST' };
    return { partitioning: 'SINGLE', sources: [rows], output, from, where: [], columns: symbols };
  }
  return {
    partitioning: rows.partitioning,
    sources: [...rows.sources],
    ...(rows.semis ? { semis: [...rows.semis] } : {}),
    output,
    from,
    where: [],
    columns: symbols,
  };
}
