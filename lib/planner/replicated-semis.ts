// A semi-join partitioned with its probe whatever its NULL semantics: NOT IN, NOT EXISTS decorrelated
// (`x IS NULL OR x NOT IN (...)`), an IN read as more than a filter. As Trino's partitioned SemiJoin
// (AddExchanges.visitSemiJoin, a PartitionFunctionBinding with replicateNullsAndAny), the source's final
// rows are hashed on its column with each row whose column is NULL, and one row of each task, copied to
// every bucket (OutputPartitioning.replicateNullsAndAny; the worker's bucket-rows.ts). A bucket's share of
// the source then holds every source row equal to its probe rows' values (both hashed alike), every NULL of
// the source, and a row whenever the source has one, so for each probe value x of the bucket
// `x IN (share)` is `x IN (S)` in three-valued logic (TRUE when found, else NULL when S holds a NULL or x is
// NULL and S is not empty, else FALSE) and the conjunct runs as written. The source is read once, whatever
// its shape (HASH's final, HAVING, an aggregate as its column).
// A plain `x [NOT] IN (SELECT column FROM ... WHERE ...)` reads distinct values (distinctSource), which
// gives the source its two stages and a key to hash on, as Trino's semi-join reads a set.
import { walk, type Expression, type Query } from '../sql/index.js';
import type { SemiSource } from './semi-joins.js';

/**
 * `SELECT column FROM ... [WHERE ...]` (one column, nothing grouped, no aggregate, DISTINCT or not) as the
 * same values grouped: `... GROUP BY column`. Undefined for a query of another shape.
 */
export function distinctSource(query: Query): Query | undefined {
  if (query.with || query.orderBy || query.offset || query.limit || query.body.type !== 'QuerySpecification') return undefined;
  const spec = query.body;
  if (!spec.from || spec.groupBy || spec.having || spec.windows.length > 0 || spec.select.selectItems.length !== 1) return undefined;
  const item = spec.select.selectItems[0]!;
  if (item.type !== 'SingleColumn' || (item.expression.type !== 'Identifier' && item.expression.type !== 'DereferenceExpression')) return undefined;
  const at = item.expression;
  return {
    ...query,
    body: {
      ...spec,
      select: { ...spec.select, distinct: false },
      groupBy: { type: 'GroupBy', distinct: false, location: at.location, groupingElements: [{ type: 'SimpleGroupBy', expressions: [at], location: at.location }] },
    },
  };
}

/**
 * Whether the conjunct `e` (over the probe's symbols, reading `source` and `symbol` alone) runs as written in
 * a bucket partitioned on `symbol` with the source's NULLs and a row replicated: it reads the source through
 * exactly one `symbol [NOT] IN (source)`, and the source has two stages.
 */
export function replicatedSemi(e: Expression, symbol: string, source: SemiSource): boolean {
  let reads = 0;
  let other = false;
  walk(e, (n) => {
    if (n.type === 'InPredicate' && n.valueList.type === 'SubqueryExpression') {
      if (n.value.type === 'Identifier' && n.value.value === symbol) reads++;
      else other = true;
      return false;
    }
    if (n.type === 'SubqueryExpression' || n.type === 'ExistsPredicate' || n.type === 'QuantifiedComparisonExpression') other = true;
    return undefined;
  });
  return !other && reads === 1 && source.stages !== undefined;
}
