// The distributed plan of a statement's text in a session, as the coordinator and each worker ask for it
// (after one table's two stages, lib/cluster/distributed-plan.ts): windows over one table and set
// operations first (union-stages.ts, window-stages.ts), then, for a query naming two tables or more, the
// join planner's when it takes the query (distributed-planner.ts: joins, subqueries, derived tables,
// WITH), else the gathered plan (gather-planner.ts: each table read in its own fragment, the rest in the
// root). A worker is given the coordinator's choices and asks the planner they name. Every statement asks (SELECT 1 too), so whether a text names two tables at all is
// kept by text: only such a query is analysed against the catalogs' metadata (which changes: a lake
// table's files and columns), and that analysis is not kept.
import { parseStatement, walk, type Statement } from '../sql/index.js';
import { sessionPropertyValue } from '../protocol/session-properties.js';
import type { Session } from '../protocol/types.js';
import { planDistributed } from './distributed-planner.js';
import { planGathered } from './gather-planner.js';
import { mayShape, planShapes } from './union-stages.js';
import { inlineNamedWindows } from './named-windows.js';
import { callsGrouping, groupsBySets } from './grouping-sets.js';
import type { DistributedPlan, PlanChoices } from './fragment.types.js';
import type { PlannerMetadata, PlannerSession } from './planner.types.js';

export function plannerSessionOf(session: Pick<Session, 'catalog' | 'schema' | 'properties'>): PlannerSession {
  return {
    ...(session.catalog !== undefined ? { catalog: session.catalog } : {}),
    ...(session.schema !== undefined ? { schema: session.schema } : {}),
    joinDistribution: sessionPropertyValue(session, 'join_distribution_type'),
    maxBroadcastBytes: sessionPropertyValue(session, 'join_max_broadcast_table_size'),
    dynamicFiltering: sessionPropertyValue(session, 'enable_dynamic_filtering'),
  };
}

/** Whether a statement is a query naming two tables or more (a join, a subquery): what is planned here. */
function readsTables(statement: Statement): boolean {
  if (statement.type !== 'Query') return false;
  let tables = 0;
  walk(statement, (n) => {
    if (n.type === 'Table') tables++;
    return tables < 2;
  });
  return tables >= 2;
}

/** Texts known not to be join queries, most recently used last. */
const notJoins = new Set<string>();
const MAX_KEPT = 1024;
const MAX_KEPT_TEXT = 8192;

/**
 * The statement's distributed plan, or undefined when it runs as before. Without `choices` the planner
 * makes them (the coordinator); with them a worker derives the coordinator's fragments. A text that does
 * not parse is no plan here: the one-task path reports its error.
 */
export function distributedPlanFor(sql: string, session: Session, metadata: PlannerMetadata, choices?: PlanChoices): DistributedPlan | undefined {
  if (session.transactionId !== undefined && session.transactionId !== 'NONE') return undefined;
  if (notJoins.has(sql)) {
    notJoins.delete(sql);
    notJoins.add(sql);
    return undefined;
  }
  let statement: Statement;
  try {
    // Named windows read as written into their OVER clauses (named-windows.ts).
    statement = inlineNamedWindows(parseStatement(sql));
  } catch {
    return undefined;
  }
  // grouping() over one table, which the two stages refuse, is the join planner's too (grouping-sets.ts).
  const joins = readsTables(statement) || callsGrouping(statement);
  // One table's grouping sets: the join planner's by group ids (their final in a HASH stage), never gathered.
  const sets = !joins && groupsBySets(statement);
  if (!joins && !sets && !mayShape(statement)) {
    if (sql.length <= MAX_KEPT_TEXT) {
      notJoins.add(sql);
      if (notJoins.size > MAX_KEPT) notJoins.delete(notJoins.values().next().value!);
    }
    return undefined;
  }
  try {
    const planner = plannerSessionOf(session);
    // Windows and UNION first (union-stages.ts); one table's query they do not take runs as before.
    const shaped = planShapes(statement, planner, metadata, choices);
    // A union's choices (branches) are for union-stages.ts alone.
    if (shaped || choices?.branches) return shaped;
    if (sets) {
      // Only a plan whose final runs in a HASH stage: else the two stages, or one task, as before.
      const byIds = choices && choices.order.length === 0 ? undefined : planDistributed(statement, planner, metadata, choices);
      return byIds?.fragments.some((f) => f.partitioning === 'HASH') ? byIds : undefined;
    }
    if (!joins) return shaped;
    // A join plan's choices order its relations; a gathered plan's order none.
    if (choices) return choices.order.length > 0 ? planDistributed(statement, planner, metadata, choices) : planGathered(statement, planner, metadata, choices);
    return planDistributed(statement, planner, metadata) ?? planGathered(statement, planner, metadata);
  } catch {
    // A session property that does not decode, a name the metadata refuses: the one-task path says why.
    return undefined;
  }
}
