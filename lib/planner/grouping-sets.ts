// GROUP BY with grouping sets (ROLLUP, CUBE, GROUPING SETS) in two stages: every set's groups are unions
// of the finest groups (all the sets' columns together), and every aggregate aggregate-stages.ts splits
// combines over any union of partial rows, so the leaf groups its splits' rows by all those columns at
// once and the final computes each set over the partial rows: the root's GROUP BY is the statement's, its
// expressions read as the partial rows' key columns. Trino plans it as a GroupIdNode under a partial
// aggregation on the keys and the group id (QueryPlanner.planGroupingSets); here the partial rows are
// fewer (one per finest group, not one per set) and the final runs where the root runs (hash-final.ts
// refuses sets: a bucket of the finest keys does not hold a coarser set's groups). grouping() is refused.
import { formatSql, type Expression, type GroupBy, type GroupingElement } from '../sql/index.js';

/** Whether a GROUP BY has a grouping set (the final then runs in one task). */
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
