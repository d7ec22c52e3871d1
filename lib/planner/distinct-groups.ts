// SELECT DISTINCT without aggregates or windows as the same query grouped by its select items. Trino plans a
// DISTINCT as an AggregationNode with no aggregates over the items (QueryPlanner.distinct), which
// AddExchanges splits as any aggregation: a partial in the source stage, the final in a HASH stage on the
// items; here aggregate-stages.ts then splits it alike (a scalar subquery among the items read in the
// source stage, its row broadcast there: scalar-values.ts).
import type { Query } from '../sql/index.js';
import { callsAggregate } from './plan-trees.js';

/**
 * `query` (SELECT DISTINCT items ...) as `SELECT items ... GROUP BY items`, or undefined when it is not a
 * plain DISTINCT (grouped, HAVING, an aggregate or window, `*`, or an integer literal an ordinal would read).
 */
export function distinctAsGroups(query: Query): Query | undefined {
  if (query.body.type !== 'QuerySpecification') return undefined;
  const spec = query.body;
  if (!spec.select.distinct || spec.groupBy || spec.having || spec.windows.length > 0 || callsAggregate(spec.select) || (query.orderBy && callsAggregate(query.orderBy))) return undefined;
  const items = spec.select.selectItems.flatMap((i) => (i.type === 'SingleColumn' ? [i] : []));
  if (items.length !== spec.select.selectItems.length || items.some((i) => i.expression.type === 'LongLiteral')) return undefined;
  const at = spec.select.location;
  return {
    ...query,
    body: {
      ...spec,
      select: { ...spec.select, distinct: false },
      groupBy: { type: 'GroupBy', distinct: false, location: at, groupingElements: [{ type: 'SimpleGroupBy', expressions: items.map((i) => i.expression), location: at }] },
    },
  };
}
