// The one door to a statement's distributed plan (lib/planner/fragment.types.ts), for the coordinator's
// scheduler (staged-query.ts) and a worker's fragment tasks (lib/worker/stage-runner.ts) alike: both call
// distributedPlanOf with the same statement, session and choices and get the same fragments, so no SQL
// travels between nodes. Today it adapts the two-stage StagePlan (stage-planner.ts): fragment 1 (SOURCE)
// scans the table's splits with the leaf's SQL and writes one file per task (SINGLE), fragment 0 (SINGLE)
// reads them through exchange table f1 with the root's SQL. The planner room (lib/planner/) replaces it.
import { readFileSync } from 'node:fs';
import { exchangeTableOf, type DistributedPlan, type PlanChoices, type PlanFragment } from '../planner/fragment.types.js';
import type { Session } from '../protocol/types.js';
import { cachedStages, type StagePlan } from './stage-planner.js';

/** What distributedPlanOf reads of the node's connectors: the catalogs whose connector splits a scan. */
export interface PlanConnectors {
  readonly splittable: ReadonlySet<string>;
}

const NO_CHOICES: PlanChoices = { joins: [] };

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
  plan = { fragments: [root, leaf], choices: NO_CHOICES };
  adapted.set(stages, plan);
  return plan;
}

/**
 * The statement's distributed plan, or undefined when it runs as one task. `choices`: the coordinator's
 * (a worker is given them); absent on the coordinator, which makes them.
 */
export function distributedPlanOf(sql: string, session: Pick<Session, 'catalog' | 'schema'>, connectors: PlanConnectors, choices?: PlanChoices): DistributedPlan | undefined {
  const injected = testPlans(sql);
  if (injected) return injected;
  // The two-stage plan has no join to choose for; the planner room reads `choices` (PlanChoices).
  void choices;
  const stages = cachedStages(sql, session, connectors.splittable);
  return stages && fragmentsOfStages(stages);
}

/**
 * TEST SEAM, not for operators: VIVACE_TEST_DISTRIBUTED_PLANS names a JSON file mapping a statement's exact
 * text to a hand-built DistributedPlan, which every process of a cluster started with that environment
 * (the coordinator and its worker processes) returns for that text instead of planning it. Specs use it
 * to run plans the planner does not make yet (spec/e2e/fragments.spec.ts). Read once per process.
 */
export const TEST_PLANS_VARIABLE = 'VIVACE_TEST_DISTRIBUTED_PLANS';
let testPlanFile: string | undefined;
let testPlanMap: Map<string, DistributedPlan> | undefined;

function testPlans(sql: string): DistributedPlan | undefined {
  const file = process.env[TEST_PLANS_VARIABLE];
  if (file === undefined || file === '') return undefined;
  if (testPlanFile !== file) {
    testPlanFile = file;
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Record<string, DistributedPlan>;
    testPlanMap = new Map(Object.entries(parsed));
  }
  return testPlanMap?.get(sql);
}
