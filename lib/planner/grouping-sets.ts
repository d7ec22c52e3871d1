// GROUP BY with grouping sets (ROLLUP, CUBE, GROUPING SETS) in two stages, in one of two ways.
// Finest groups (the two-stage plan over one table, kept when a set is written twice or the planner has no plan): every set's groups are unions of the finest groups
// (all the sets' columns together), and every aggregate aggregate-stages.ts splits combines over any union
// of partial rows, so the leaf groups its splits' rows by all those columns at once and the final computes
// each set over the partial rows where the root runs: the root's GROUP BY is the statement's, its
// expressions read as the partial rows' key columns (a bucket of the finest keys does not hold a coarser
// set's group, so no HASH final). Group ids (the join planner, groupIds, over joins or one table): as Trino plans it, a GroupIdNode
// under the partial aggregation (QueryPlanner.planGroupingSets; AddExchanges repartitions the partial rows on
// the keys and the group id, PushPartialAggregationThroughExchange), the leaf aggregates by the statement's
// own GROUP BY, each row of a set carrying its id, `GROUPING(all keys)` (a key outside the set is NULL), and
// the final groups by the keys and that id, so it runs in a HASH stage on them (hash-final.ts); grouping()
// is computed in the leaf as its own column, constant within a set. Taken only when no two sets are alike
// (Trino keeps a set written twice as two groups; one id for both would merge them). An ordinal inside a
// set is refused (the leaf would not know it).
import { formatSql, walk, type Expression, type GroupBy, type GroupingElement, type Node } from '../sql/index.js';

/** The group id column of the partial rows (grouping-sets by ids), and each grouping() call's. */
export const GROUP_ID = 'vivace_gid';
export const groupingName = (i: number): string => `vivace_gp${i}`;

/** Most grouping sets a GROUP BY expands to for the group-id plan. */
const MAX_SETS = 4096;

/** Whether a GROUP BY has a grouping set (no finest-keys HASH final: hash-final.ts; group ids may split it here). */
export const hasGroupingSets = (groupBy: GroupBy | undefined): boolean => groupBy?.groupingElements.some((g) => g.type === 'GroupingSets') ?? false;

/** A grouping sets element's expressions, each once per set; undefined when one is an ordinal (the leaf would not know it). */
export function setExpressions(element: Extract<GroupingElement, { type: 'GroupingSets' }>): Expression[] | undefined {
  const all = element.sets.flat();
  return all.some((e) => e.type === 'LongLiteral') ? undefined : all;
}

/**
 * The root's GROUP BY text over the partial rows: each element as written, each expression (an ordinal
 * of a simple element read as `ordinal(e)`'s select item) as its key column `keyOf(text)`.
 */
export function rootGroupBy(groupBy: GroupBy, resolve: (e: Expression) => Expression, keyOf: (text: string) => string): string {
  const key = (e: Expression) => keyOf(formatSql(resolve(e)));
  const list = (es: readonly Expression[]) => es.map(key).join(', ');
  return groupBy.groupingElements.map((g) => {
    if (g.type === 'SimpleGroupBy') return list(g.expressions);
    // ROLLUP ((a, b), c) keeps its composite columns; GROUPING SETS prints each set in parentheses.
    const sets = g.sets.map((s) => (s.length === 1 && g.groupingType !== 'EXPLICIT' ? list(s) : `(${list(s)})`)).join(', ');
    return `${g.groupingType === 'EXPLICIT' ? 'GROUPING SETS' : g.groupingType} (${sets})`;
  }).join(', ');
}

/**
 * Whether the GROUP BY's sets (every element's sets crossed, as Trino expands them), each as the key
 * indices `keyOf` gives its expressions, are all different; false for more than MAX_SETS sets.
 */
export function distinctSets(groupBy: GroupBy, keyOf: (e: Expression) => number): boolean {
  let sets: number[][] = [[]];
  for (const g of groupBy.groupingElements) {
    const columns = g.type === 'SimpleGroupBy' ? [g.expressions] : g.sets;
    let choices: Expression[][];
    if (g.type === 'SimpleGroupBy') choices = [g.expressions.slice()];
    else if (g.groupingType === 'EXPLICIT') choices = g.sets.map((x) => x.slice());
    else if (g.groupingType === 'ROLLUP') choices = columns.map((_, i) => columns.slice(0, columns.length - i).flat()).concat([[]]);
    else {
      if (columns.length > 12) return false;
      choices = [];
      for (let mask = 0; mask < 2 ** columns.length; mask++) choices.push(columns.filter((_, i) => (mask & (2 ** i)) !== 0).flat());
    }
    sets = sets.flatMap((set) => choices.map((c) => [...set, ...c.map(keyOf)]));
    if (sets.length > MAX_SETS) return false;
  }
  const seen = new Set(sets.map((set) => [...new Set(set)].sort((x, y) => x - y).join(',')));
  return seen.size === sets.length;
}

/**
 * Whether a query's own GROUP BY has grouping sets: over one table the join planner takes it too, and
 * distributed-plan.ts asks it before the two stages when their sets are all different (StagePlan.setIds).
 */
export function groupsBySets(tree: Node): boolean {
  if (tree.type !== 'Query' || tree.body.type !== 'QuerySpecification') return false;
  return hasGroupingSets(tree.body.groupBy);
}

/** Whether a tree calls grouping() (over one table the join planner takes it: the two stages refuse it). */
export function callsGrouping(tree: Node): boolean {
  let found = false;
  walk(tree, (n) => {
    if (n.type === 'GroupingOperation') found = true;
    return !found;
  });
  return found;
}
