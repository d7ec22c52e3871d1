// The partial TopN (or partial limit) a join plan's last tasks apply below a root that only sorts and limits.
import { formatSql, type Expression, type Identifier, type Query, type QuerySpecification } from '../sql/index.js';
import { fold } from '../sql/names.js';
import { callsAggregate } from './plan-trees.js';

/**
 * How many rows each task keeps for `query`'s LIMIT n: n, or m + n after OFFSET m (Trino's TopN of m + n
 * below the Offset); undefined without a literal LIMIT.
 */
export function partialCount(query: Query): number | undefined {
  if (query.limit?.type !== 'Limit' || query.limit.rowCount.type !== 'LongLiteral') return undefined;
  const offset = query.offset?.rowCount.type === 'LongLiteral' ? Number(query.offset.rowCount.value) : 0;
  return query.offset && query.offset.rowCount.type !== 'LongLiteral' ? undefined : Number(query.limit.rowCount.value) + offset;
}

/**
 * ` ORDER BY ... LIMIT n` (or ` LIMIT n`) for the last join's tasks when the query above the joins only
 * projects, sorts and limits (Trino's partial TopN / partial limit): each task keeps its first n rows in the
 * query's order (m + n after OFFSET m: partialCount), the root sorts those. Sort keys read as the select
 * items they name (an ordinal, an alias).
 */
export function partialTopN(above: Query): string {
  const spec = above.body as QuerySpecification;
  const count = partialCount(above);
  if (count === undefined) return '';
  if (spec.select.distinct || spec.groupBy || spec.having || callsAggregate(spec.select) || (above.orderBy && callsAggregate(above.orderBy))) return '';
  const items = spec.select.selectItems.flatMap((i) => (i.type === 'SingleColumn' ? [i] : []));
  const keys: string[] = [];
  for (const s of above.orderBy?.sortItems ?? []) {
    let key: Expression = s.sortKey;
    if (key.type === 'LongLiteral') key = items[Number(key.value) - 1]?.expression ?? key;
    else if (key.type === 'Identifier') key = items.find((i) => i.alias && fold(i.alias.value) === fold((key as Identifier).value))?.expression ?? key;
    if (key.type === 'LongLiteral') return '';
    keys.push([formatSql(key), s.ordering ?? '', s.nullOrdering ? `NULLS ${s.nullOrdering}` : ''].filter((t) => t !== '').join(' '));
  }
  return `${keys.length > 0 ? ` ORDER BY ${keys.join(', ')}` : ''} LIMIT ${count}`;
}

/**
 * `query` without its OFFSET m, its LIMIT n as m + n (Trino's PushLimitThroughOffset), for a plan whose
 * stages keep the first m + n rows; `query` itself without OFFSET. The root puts them back (withOffset).
 */
export function withoutOffset(query: Query): Query {
  if (!query.offset) return query;
  const count = partialCount(query);
  const at = query.offset.location;
  return { ...query, offset: undefined, limit: count === undefined ? undefined : { type: 'Limit', location: at, rowCount: { type: 'LongLiteral', value: String(count), text: String(count), location: at } } };
}

/** `root` (the root's query) with `written`'s OFFSET and LIMIT, when `written` has an OFFSET. */
export function withOffset(root: Query, written: Query): Query {
  return written.offset ? { ...root, offset: written.offset, limit: written.limit } : root;
}
