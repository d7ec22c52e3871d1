// The plans of the shapes beyond joins and one table's aggregation: a query whose windows partition their
// rows (window-stages.ts). statement-plans.ts asks here first.
import { walk, type Statement } from '../sql/index.js';
import { planWindowed } from './window-stages.js';
import type { DistributedPlan, PlanChoices } from './fragment.types.js';
import type { PlannerMetadata, PlannerSession } from './planner.types.js';

/** Whether a query may be such a shape (a window, a set operation): its text is then never kept as no join. */
export function mayShape(statement: Statement): boolean {
  if (statement.type !== 'Query') return false;
  let found = false;
  walk(statement, (n) => {
    if ((n.type === 'FunctionCall' && n.window) || n.type === 'Union') found = true;
    return !found;
  });
  return found;
}

/** The plan of a shape this room takes, or undefined. `given`: the coordinator's choices (a worker). */
export function planShapes(statement: Statement, session: PlannerSession, metadata: PlannerMetadata, given?: PlanChoices): DistributedPlan | undefined {
  if (!mayShape(statement)) return undefined;
  return planWindowed(statement, session, metadata, given);
}
