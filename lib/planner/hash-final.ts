// A grouped aggregation's final step in a hash-partitioned stage (Trino's FINAL aggregation over a
// REPARTITION exchange on the group keys): the final query aggregate-stages.ts makes for the root runs in
// every bucket of the partial rows instead, with its HAVING, each output column named vivace_o{i} and each
// ORDER BY expression computed as vivace_s{j}; with a LIMIT it also keeps only its first rows in that
// order (a partial TopN). The root then only sorts what the buckets kept and applies the LIMIT.
import {
  type Expression, type Identifier, type Query, type QuerySpecification, type SelectItem, type SortItem,
} from '../sql/index.js';
import { fold } from '../sql/names.js';
import { hasGroupingSets } from './grouping-sets.js';

export interface HashFinal {
  /** The final aggregation, over the partial rows of one bucket. */
  bucketQuery: Query;
  /** Its output columns: vivace_o{i} for the statement's columns, vivace_s{j} for sort expressions. */
  columns: string[];
  /** The root's query over the buckets' rows, given the table that stands for them. */
  rootQuery(from: QuerySpecification['from']): Query;
}

const outputName = (i: number) => `vivace_o${i}`;
const sortName = (j: number) => `vivace_s${j}`;

/** The final query split so, or undefined when it is not one plain grouped query. */
export function hashFinal(final: Query): HashFinal | undefined {
  if (final.body.type !== 'QuerySpecification' || final.offset || (final.limit && final.limit.type !== 'Limit')) return undefined;
  const spec = final.body;
  // Grouping sets: a bucket of the finest keys holds no coarser set's whole group (grouping-sets.ts).
  if (!spec.groupBy || hasGroupingSets(spec.groupBy) || spec.select.distinct || spec.select.selectItems.some((i) => i.type !== 'SingleColumn')) return undefined;
  const at = final;
  const id = (value: string): Identifier => ({ type: 'Identifier', value, quoted: false, location: at.location });
  const items = spec.select.selectItems as Extract<SelectItem, { type: 'SingleColumn' }>[];
  const aliases = new Map<string, number>();
  items.forEach((item, i) => {
    if (item.alias && !aliases.has(fold(item.alias.value))) aliases.set(fold(item.alias.value), i);
  });

  // Each sort key as the root reads it: an output column (by ordinal or alias), or a computed one.
  const extra: Expression[] = [];
  const rootSort: SortItem[] = [];
  const bucketSort: SortItem[] = [];
  for (const s of final.orderBy?.sortItems ?? []) {
    const key = s.sortKey;
    let column: number | undefined;
    if (key.type === 'LongLiteral') column = Number(key.value) - 1;
    else if (key.type === 'Identifier' && aliases.has(fold(key.value))) column = aliases.get(fold(key.value));
    if (column !== undefined && (column < 0 || column >= items.length)) return undefined;
    const name = column !== undefined ? outputName(column) : sortName(extra.length);
    if (column === undefined) extra.push(key);
    rootSort.push({ ...s, sortKey: id(name) });
    bucketSort.push({ ...s, sortKey: id(name) });
  }
  const selectItems: SelectItem[] = [
    ...items.map((item, i) => ({ ...item, alias: id(outputName(i)) })),
    ...extra.map((e, j) => ({ type: 'SingleColumn' as const, expression: e, alias: id(sortName(j)), location: e.location })),
  ];
  const columns = [...items.map((_, i) => outputName(i)), ...extra.map((_, j) => sortName(j))];
  const orderBy = final.orderBy && { ...final.orderBy, sortItems: bucketSort };
  // A bucket's query orders by its own output names: wrap it so ORDER BY sees them (and LIMIT applies after).
  const bucketInner: QuerySpecification = { ...spec, select: { ...spec.select, selectItems } };
  const bucketQuery: Query = final.limit
    ? {
      type: 'Query', location: at.location, with: undefined, offset: undefined,
      body: {
        type: 'QuerySpecification', location: at.location, windows: [], where: undefined, groupBy: undefined, having: undefined,
        select: { type: 'Select', location: at.location, distinct: false, selectItems: columns.map((c) => ({ type: 'SingleColumn' as const, expression: id(c), alias: undefined, location: at.location })) },
        from: { type: 'TableSubquery', location: at.location, query: { type: 'Query', location: at.location, with: undefined, body: bucketInner, orderBy: undefined, offset: undefined, limit: undefined } },
      },
      orderBy, limit: final.limit,
    }
    : { ...final, body: bucketInner, orderBy: undefined, limit: undefined };
  return {
    bucketQuery,
    columns,
    rootQuery: (from) => ({
      type: 'Query', location: at.location, with: undefined, offset: undefined,
      body: {
        type: 'QuerySpecification', location: at.location, windows: [], where: undefined, groupBy: undefined, having: undefined, from,
        select: { type: 'Select', location: at.location, distinct: false, selectItems: items.map((_, i) => ({ type: 'SingleColumn' as const, expression: id(outputName(i)), alias: undefined, location: at.location })) },
      },
      orderBy: final.orderBy && { ...final.orderBy, sortItems: rootSort },
      limit: final.limit,
    }),
  };
}
