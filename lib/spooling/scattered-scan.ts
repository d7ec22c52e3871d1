// A scattered scan: a query whose rows are its one table's rows one by one (a projection and a filter of a
// table whose connector splits its scan; no aggregate, window, DISTINCT, ORDER BY, LIMIT, OFFSET, join or
// subquery), asked for by a client of the spooling protocol. Its rows need no gathering: the order across
// them is free (no ORDER BY), and the client downloads segments wherever they are. So the plan is one
// fragment, the root itself over the scan's splits: each of its tasks (one per worker) reads its splits,
// renders its rows and spools them as segments on its own worker, and the coordinator hands out the
// segments of all tasks with row offsets in the order it hands them out (Trino's STORAGE retrieval mode,
// each worker its own storage). No exchange file is written. The coordinator plans it (scattered-query.ts)
// and each task's worker derives the same fragment from the choices' `scattered` mark (distributed-plan.ts).
import { walk, type Node, type Statement } from '../sql/index.js';
import { parsedStatement } from '../sql/statement-cache.js';
import { callsAggregate } from '../planner/plan-trees.js';
import { scannedTable } from '../planner/aggregate-stages.js';
import type { DistributedPlan, PlanChoices, PlanFragment } from '../planner/fragment.types.js';
import type { Session } from '../protocol/types.js';
import { TextMemo } from '../text-memo.js';

/** The choices a scattered scan's tasks carry: its one relation read over its splits, by the root's own tasks. */
export const SCATTERED_CHOICES: PlanChoices = { order: [], joins: [], split: [true], scattered: true };

/**
 * Nodes that make a query more than one table's rows one by one: another relation or a subquery, rows
 * across rows (grouping, windows), a parameter. The time of the query is not refused: every task prints
 * the query's start (the session's, zoned-translation.ts), as every task of a staged plan does.
 */
const REFUSED: ReadonlySet<string> = new Set([
  'SubqueryExpression', 'TableSubquery', 'ExistsPredicate', 'Join', 'Unnest', 'Lateral', 'TableFunctionInvocation',
  'Parameter', 'LambdaExpression', 'GroupingOperation', 'WindowDefinition', 'QuantifiedComparisonExpression',
  'With', 'Values', 'Union', 'Intersect', 'Except', 'Offset', 'FetchFirst', 'Limit', 'OrderBy',
]);

/** Whether the statement's rows are its table's rows one by one (see above). */
function rowByRow(statement: Statement): boolean {
  if (statement.type !== 'Query' || statement.with || statement.orderBy || statement.offset || statement.limit) return false;
  const spec = statement.body;
  if (spec.type !== 'QuerySpecification' || spec.select.distinct || spec.groupBy || spec.having || spec.windows.length > 0) return false;
  let refused = false;
  walk(statement, (n: Node) => {
    // A hidden column ($path) is no column of the rows a split gives.
    if (REFUSED.has(n.type) || (n.type === 'Identifier' && n.value.startsWith('$'))) refused = true;
    return !refused;
  });
  return !refused && !callsAggregate(statement);
}

/** Plans kept per text and session names (the coordinator asks for each spooled query, a worker for each task). */
const kept = new TextMemo<DistributedPlan | undefined>(256, 8192);

/**
 * The scattered plan of `sql` (one SOURCE fragment, the root, over its table's splits), or undefined when
 * its rows are not one table's row by row or the table's catalog does not split (`splittable`).
 */
export function scatteredPlanOf(sql: string, session: Pick<Session, 'catalog' | 'schema' | 'transactionId'>, splittable: ReadonlySet<string>): DistributedPlan | undefined {
  if (session.transactionId !== undefined && session.transactionId !== 'NONE') return undefined;
  const key = `${[...splittable].join(',')}\u0000${session.catalog ?? '\u0001'}\u0000${session.schema ?? '\u0001'}\u0000${sql}`;
  return kept.get(key, () => planOf(sql, session, splittable));
}

function planOf(sql: string, session: Pick<Session, 'catalog' | 'schema'>, splittable: ReadonlySet<string>): DistributedPlan | undefined {
  const statement = parsedStatement(sql);
  if (!statement || !rowByRow(statement) || statement.type !== 'Query' || statement.body.type !== 'QuerySpecification') return undefined;
  const spec = statement.body;
  const table = scannedTable(spec.from, session, splittable);
  if (!table) return undefined;
  const root: PlanFragment = {
    id: 0,
    partitioning: 'SOURCE',
    scan: { table, ...(spec.where ? { where: spec.where } : {}) },
    sources: [],
    output: { kind: 'SINGLE' },
    sql,
    columns: [],
  };
  return { fragments: [root], choices: SCATTERED_CHOICES, tables: [table] };
}
