// The distributed plan of a statement's text in a session, as the coordinator and each worker ask for it.
// Every statement asks (SELECT 1 too), so whether a text can be a join query at all is kept by text: only
// a query whose FROM joins tables is analysed against the catalogs' metadata (which changes: a lake table's
// files and columns), and that analysis is not kept.
import { parseStatement, type Statement } from '../sql/index.js';
import { sessionPropertyValue } from '../protocol/session-properties.js';
import type { Session } from '../protocol/types.js';
import { planDistributed } from './distributed-planner.js';
import type { DistributedPlan, PlanChoices } from './fragment.types.js';
import type { PlannerMetadata, PlannerSession } from './planner.types.js';

export function plannerSessionOf(session: Pick<Session, 'catalog' | 'schema' | 'properties'>): PlannerSession {
  return {
    ...(session.catalog !== undefined ? { catalog: session.catalog } : {}),
    ...(session.schema !== undefined ? { schema: session.schema } : {}),
    joinDistribution: sessionPropertyValue(session, 'join_distribution_type'),
    maxBroadcastBytes: sessionPropertyValue(session, 'join_max_broadcast_table_size'),
  };
}

/** Whether a statement is a query whose FROM is a join (the only shape planDistributed takes). */
function joinsTables(statement: Statement): boolean {
  return statement.type === 'Query' && statement.body.type === 'QuerySpecification' && statement.body.from?.type === 'Join';
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
    statement = parseStatement(sql);
  } catch {
    return undefined;
  }
  if (!joinsTables(statement)) {
    if (sql.length <= MAX_KEPT_TEXT) {
      notJoins.add(sql);
      if (notJoins.size > MAX_KEPT) notJoins.delete(notJoins.values().next().value!);
    }
    return undefined;
  }
  try {
    return planDistributed(statement, plannerSessionOf(session), metadata, choices);
  } catch {
    // A session property that does not decode, a name the metadata refuses: the one-task path says why.
    return undefined;
  }
}
