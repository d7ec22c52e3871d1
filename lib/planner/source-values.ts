// A stand-alone scalar subquery in the select list of a query that does not aggregate, `SELECT k, x / (SELECT
// max(x) FROM t) FROM ...`: Trino plans it as a cross join with the subquery's one row (TransformUncorrelated
// SubqueryToJoin, EnforceSingleRow) whose build side is replicated to the probe's tasks, so the projection
// runs in the source stage (or the last join's), not in the root. Here the select list is evaluated in the
// last fragment, which reads the subquery's broadcast source (scalar-values.ts marks the subqueries), each
// item as a column vivace_v{i}; the root only orders, offsets and limits those columns (each task its first
// rows too). Taken when the query has no aggregate, window, DISTINCT, GROUP BY or HAVING, and each ORDER
// BY key is an ordinal, an item's alias or an item's expression (another key would need a column the leaf
// does not hand on).
import { formatSql, parseExpression, type Expression, type Query, type SortItem, type Table } from '../sql/index.js';
import { fold } from '../sql/names.js';
import { callsAggregate } from './plan-trees.js';
import { partialCount, withoutOffset } from './partial-top-n.js';

/** The column of the i-th select item in the last fragment's rows. */
export const valueName = (i: number): string => `vivace_v${i}`;

export interface SourceValues {
  /** The query over the joined rows that the last fragment runs: the select list as vivace_v{i}. */
  leaf: Query;
  columns: string[];
  /** The root's query over the last fragment's exchange table. */
  root: (table: Table) => Query;
}

/**
 * The split of `above` (the query over the joined rows) when its select list reads a scalar subquery's
 * source and nothing else keeps it in the root; `marked` is `above` with each such subquery a marker column.
 */
export function sourceValues(above: Query, marked: Query, markers: number): SourceValues | undefined {
  if (markers === 0 || above.body.type !== 'QuerySpecification' || marked.body.type !== 'QuerySpecification' || above.with) return undefined;
  if (above.limit && above.limit.type !== 'Limit') return undefined;
  const spec = above.body;
  const markedSpec = marked.body;
  if (spec.select.distinct || spec.groupBy || spec.having || spec.windows.length > 0 || callsAggregate(markedSpec.select) || (marked.orderBy && callsAggregate(marked.orderBy))) return undefined;
  const items = spec.select.selectItems.flatMap((i) => (i.type === 'SingleColumn' ? [i] : []));
  if (items.length !== spec.select.selectItems.length) return undefined;
  // Only the select list reads a marker (an ORDER BY subquery stays the root's).
  if (marked.orderBy && formatSql(marked.orderBy) !== formatSql(above.orderBy!)) return undefined;
  const texts = items.map((i) => formatSql(i.expression));
  const sortItems: SortItem[] = [];
  for (const s of above.orderBy?.sortItems ?? []) {
    const key = s.sortKey;
    let at = -1;
    if (key.type === 'LongLiteral') at = Number(key.value) - 1;
    else if (key.type === 'Identifier') at = items.findIndex((i) => i.alias !== undefined && fold(i.alias.value) === fold(key.value));
    if (at < 0) at = texts.indexOf(formatSql(key));
    if (at < 0 || at >= items.length) return undefined;
    sortItems.push({ ...s, sortKey: parseExpression(valueName(at)) as Expression });
  }
  const columns = items.map((_, i) => valueName(i));
  // ORDER BY ... [OFFSET m] LIMIT n: each task keeps its first m + n rows too (a partial TopN, as partial-top-n.ts).
  const count = partialCount(above);
  const leaf: Query = {
    ...above,
    orderBy: count !== undefined && sortItems.length > 0 ? { ...above.orderBy!, sortItems } : undefined,
    offset: undefined,
    limit: count !== undefined ? withoutOffset(above).limit ?? above.limit : undefined,
    body: { ...spec, select: { ...spec.select, selectItems: items.map((item, i) => ({ ...item, alias: { type: 'Identifier', value: valueName(i), quoted: false, location: item.location } })) } },
  };
  const root = (table: Table): Query => ({
    ...above,
    orderBy: sortItems.length > 0 ? { ...above.orderBy!, sortItems } : undefined,
    body: {
      ...spec,
      where: undefined,
      from: table,
      select: { ...spec.select, selectItems: items.map((item, i) => ({ ...item, expression: parseExpression(valueName(i)), alias: undefined })) },
    },
  });
  return { leaf, columns, root };
}
