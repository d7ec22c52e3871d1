// The one door to a statement's distributed plan (lib/planner/fragment.types.ts), for the coordinator's
// scheduler (staged-query.ts) and a worker's fragment tasks (lib/worker/stage-runner.ts) alike: both call
// distributedPlanOf with the same statement, session and choices and get the same fragments, so no SQL
// travels between nodes. A query over one table that splits keeps its two stages (aggregate-stages.ts:
// fragment 1 scans the splits with the leaf's SQL, fragment 0 finishes over exchange table f1); a query
// naming two tables or more gets the planner's fragments (lib/planner/statement-plans.ts: a join plan, or
// its tables gathered), built from the catalogs' layouts (planner-metadata.ts), and so does one table's
// GROUP BY with grouping sets all different (its final in a HASH stage by group ids, grouping-sets.ts).
import { exchangeTableOf, type DistributedPlan, type PlanChoices, type PlanFragment } from '../planner/fragment.types.js';
import type { Session } from '../protocol/types.js';
import { cachedStages, type StagePlan } from '../planner/aggregate-stages.js';
import { distributedPlanFor } from '../planner/statement-plans.js';
import type { Connectors } from '../connectors/connectors.js';
import type { QueryListings } from '../connectors/connector.types.js';
import { plannerMetadataOf } from './planner-metadata.js';
import { inlineSmallFragments } from './inline-fragments.js';
import { mayMeetZones } from '../sql/zoned-timestamps.js';
import { parseStatement } from '../sql/index.js';
import { EXCHANGE_CATALOG } from '../planner/fragment.types.js';
import { TextMemo } from '../text-memo.js';
import { scatteredPlanOf } from '../spooling/scattered-scan.js';
import { plannedText } from './executed-text.js';

/** What distributedPlanOf reads of the node's connectors: which split, and each table's layout. */
export type PlanConnectors = Pick<Connectors, 'splittable' | 'of'>;

/** The two stages' choices: no join, one relation read over its splits. */
const STAGE_CHOICES: PlanChoices = { order: [], joins: [], split: [] };

/** The two-stage plan as fragments, kept per StagePlan (cachedStages keeps those) so its identity is stable. */
const adapted = new WeakMap<StagePlan, DistributedPlan>();

/** Today's two stages as a DistributedPlan of two fragments. */
export function fragmentsOfStages(stages: StagePlan): DistributedPlan {
  let plan = adapted.get(stages);
  if (plan) return plan;
  const leaf: PlanFragment = {
    id: 1,
    partitioning: 'SOURCE',
    scan: { table: stages.table, ...(stages.where ? { where: stages.where } : {}) },
    sources: [],
    output: { kind: 'SINGLE' },
    sql: stages.leafSql,
    columns: stages.partialColumns,
  };
  const root: PlanFragment = { id: 0, partitioning: 'SINGLE', sources: [{ fragmentId: 1, table: exchangeTableOf(1) }], output: { kind: 'SINGLE' }, sql: stages.rootSql, columns: [] };
  plan = { fragments: [root, leaf], choices: STAGE_CHOICES, tables: [stages.table] };
  adapted.set(stages, plan);
  return plan;
}

/**
 * The statement's distributed plan, or undefined when it runs as one task. `choices`: the coordinator's
 * (a worker is given them); absent on the coordinator, which makes them. The two stages answer with
 * choices that order and split nothing; the planner's always split some relation. `listings`: what the
 * connectors list while the query is planned (the coordinator's stagedQuery reads its scans' splits from
 * them too); absent, this plan's own, so a table the planner asks about again is listed once.
 */
export function distributedPlanOf(written: string, session: Session, connectors: PlanConnectors, choices?: PlanChoices, listings: QueryListings = new Map()): DistributedPlan | undefined {
  // A scattered scan's task (the coordinator plans it only for a client of the spooling protocol).
  if (choices?.scattered) return scatteredPlanOf(written, session, connectors.splittable);
  // An EXECUTE is planned as its prepared statement with its values bound (executed-text.ts).
  const sql = plannedText(written, session);
  if (sql === undefined) return undefined;
  if (choices === undefined || (choices.split.length === 0 && choices.branches === undefined)) {
    const stages = cachedStages(sql, session, connectors.splittable);
    // Grouping sets all different: the join planner's group ids finish them in a HASH stage, as Trino's
    // GroupIdNode under the partial aggregation (grouping-sets.ts); its plan splits the table, so a worker
    // given its choices asks the planner below. Any other plan of it is none (statement-plans.ts).
    if (stages?.setIds && choices === undefined) {
      const metadata = plannerMetadataOf(connectors, listings);
      const planned = distributedPlanFor(sql, session, metadata);
      if (planned) return zoneFree(inlineSmallFragments(planned, metadata, session), session);
    }
    if (stages) return fragmentsOfStages(stages);
    if (choices !== undefined) return undefined;
  }
  const metadata = plannerMetadataOf(connectors, listings);
  // The planner's choices without the fragments read in place, which are this door's (a planner refuses
  // choices it does not know: gather-planner.ts).
  const { inline: _inline, ...planner } = choices ?? {};
  const planned = distributedPlanFor(sql, session, metadata, choices && (planner as PlanChoices));
  // Small one-task fragments read in place by their consumers (inline-fragments.ts), as the coordinator chose.
  return planned && zoneFree(inlineSmallFragments(planned, metadata, session, choices), session);
}

const EXCHANGE_ONLY: ReadonlySet<string> = new Set([EXCHANGE_CATALOG]);

/**
 * Whether a fragment's SQL may meet zoned values with its exchange tables taken as holding none, by the
 * session's catalog and schema and the text: plans are made anew for every statement (their analysis
 * follows the catalogs' metadata), but a fragment's text recurs with its query.
 */
const meetsZones = new TextMemo<boolean>(1024, 32_768);

function fragmentMeetsZones(sql: string, session: Pick<Session, 'catalog' | 'schema'>): boolean {
  return meetsZones.get(`${session.catalog ?? ''}\u0000${session.schema ?? ''}\u0000${sql}`, () => {
    try {
      return mayMeetZones(parseStatement(sql), session.catalog, session.schema, EXCHANGE_ONLY);
    } catch {
      return true;
    }
  });
}

/**
 * The plan with every fragment marked zoneFree when none of them makes a zoned value or reads a table that
 * may hold one (tpch only): then no exchange table holds one either, and a fragment reading them (with a
 * subquery, where every column went through the zoned macros' untyped wrapper: a list and a lambda per
 * value) translates as the same query over tpch does. Each node derives the same marks.
 */
function zoneFree(plan: DistributedPlan, session: Pick<Session, 'catalog' | 'schema'>): DistributedPlan {
  if (plan.fragments.some((f) => fragmentMeetsZones(f.sql, session))) return plan;
  return { ...plan, fragments: plan.fragments.map((f) => ({ ...f, zoneFree: true as const })) };
}
