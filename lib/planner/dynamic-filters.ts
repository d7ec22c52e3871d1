// Dynamic filters between the broadcast build sides of a query's inner joins, as Trino's
// DynamicFilterService feeds a join's probe-side scan with its build side's key values
// (sql/planner/optimizer/AddDynamicFilterSource, server/DynamicFilterService): when two broadcast builds
// are joined by an equality (Q3's orders and customer on custkey, Q10's customer and orders, Q9's partsupp
// and part on partkey), the larger one's scan reads only the key values of the smaller one, whose
// fragment runs first and is read by both (the join and the filtered scan). Every row the joins keep has
// a row of each inner build with equal keys, so no other row of the filtered build can be joined. Only a
// build whose rows are themselves filtered (a predicate of its own, or a dynamic filter it reads) filters
// another: an unfiltered table's keys are every key a foreign key refers to, and waiting for them only
// delays the scan. enable_dynamic_filtering (Trino's session property, default true) turns them off; the
// coordinator's pairs travel in the choices (PlanChoices.dynamicFilters), so a worker derives the same
// fragments whatever its own statistics say.
import type { Draft } from './fragment-drafts.js';

/** A dynamic filter: the relation (by position) whose build scan is filtered, and the one whose keys filter it. */
export type DynamicFilterPair = readonly [filtered: number, filtering: number];

/** An equality between two relations' symbols (query-analysis.ts Analysis.edges). */
export interface EquiEdge {
  left: string;
  right: string;
  leftRelation: number;
  rightRelation: number;
}

/** A filtered side's symbol and the filtering side's it must equal. */
export interface FilterKey {
  filtered: string;
  filtering: string;
}

/**
 * The keys relation `x` can be filtered on by relation `y`: a symbol of each equal through the query's
 * equalities, directly or through other relations (Q9's partsupp.partkey = lineitem.partkey =
 * part.partkey), as Trino's EqualityInference derives them; one pair per class of equal symbols.
 */
export function equalKeys(edges: readonly EquiEdge[], x: number, y: number): FilterKey[] {
  const parent = new Map<string, string>();
  const find = (s: string): string => {
    let r = s;
    while (parent.has(r) && parent.get(r) !== r) r = parent.get(r)!;
    parent.set(s, r);
    return r;
  };
  const relation = new Map<string, number>();
  for (const e of edges) {
    relation.set(e.left, e.leftRelation);
    relation.set(e.right, e.rightRelation);
    const [a, b] = [find(e.left), find(e.right)];
    if (a !== b) parent.set(a, b);
  }
  const keys = new Map<string, FilterKey>();
  const symbols = [...relation.keys()].sort();
  for (const filtered of symbols.filter((s) => relation.get(s) === x)) {
    const filtering = symbols.find((s) => relation.get(s) === y && find(s) === find(filtered));
    if (filtering !== undefined && !keys.has(find(filtered))) keys.set(find(filtered), { filtered, filtering });
  }
  return [...keys.values()];
}

/**
 * Fewest rows of a table a dynamic filter filters: a smaller one-task fragment is read in place by its
 * consumers (lib/cluster/inline-fragments.ts INLINE_MAX_ROWS, tpch's supplier at sf1), which a fragment
 * reading another's keys cannot be, and filtering so few rows saves less than the stage it would cost.
 */
export const DYNAMIC_FILTER_MIN_ROWS = 10_000;

/**
 * The pairs for the inner broadcast builds `builds` (relation positions, each a plain table scan), with the
 * query's equalities `edges`, each relation's estimated bytes (`sizes`, undefined when unknown: last) and
 * whether its scan filters its rows (`filters`); only a table of more than DYNAMIC_FILTER_MIN_ROWS `rows`
 * is filtered. Builds with a filter of their own come first, smaller
 * first, then the others smaller first; each is filtered by every build before it that is joined to it
 * and filtered (by its own predicate or a dynamic filter). So an unfiltered table never filters a
 * filtered one, and the order leaves no cycle.
 */
export function chooseDynamicFilters(builds: readonly number[], edges: readonly EquiEdge[], sizes: readonly (number | undefined)[], filters: (relation: number) => boolean, rows: (relation: number) => number | undefined): DynamicFilterPair[] {
  const size = (r: number) => sizes[r] ?? Number.POSITIVE_INFINITY;
  const rank = (r: number) => (filters(r) ? 0 : 1);
  const ordered = [...builds].sort((x, y) => rank(x) - rank(y) || size(x) - size(y) || x - y);
  const selective = new Set<number>();
  const pairs: DynamicFilterPair[] = [];
  for (const [k, x] of ordered.entries()) {
    const big = (rows(x) ?? 0) > DYNAMIC_FILTER_MIN_ROWS;
    for (const y of ordered.slice(0, k)) if (big && selective.has(y) && equalKeys(edges, x, y).length > 0) pairs.push([x, y]);
    if (filters(x) || pairs.some(([filtered]) => filtered === x)) selective.add(x);
  }
  return pairs;
}

/**
 * Whether `pairs` (the coordinator's, on a worker) fit this plan: each names two distinct builds of
 * `builds` with equal keys, at most once, and together they form no cycle (a filtering fragment must
 * run before the one it filters).
 */
export function validDynamicFilters(pairs: readonly DynamicFilterPair[], builds: readonly number[], edges: readonly EquiEdge[]): boolean {
  const seen = new Set<string>();
  for (const [x, y] of pairs) {
    if (x === y || !builds.includes(x) || !builds.includes(y) || seen.has(`${x},${y}`) || equalKeys(edges, x, y).length === 0) return false;
    seen.add(`${x},${y}`);
  }
  // Kahn's order over the pairs' graph: every build comes out unless there is a cycle.
  const incoming = new Map(builds.map((b) => [b, pairs.filter(([x]) => x === b).length]));
  const ready = builds.filter((b) => incoming.get(b) === 0);
  let out = 0;
  while (ready.length > 0) {
    const y = ready.pop()!;
    out++;
    for (const [x, from] of pairs) {
      if (from !== y) continue;
      incoming.set(x, incoming.get(x)! - 1);
      if (incoming.get(x) === 0) ready.push(x);
    }
  }
  return out === builds.length;
}

/**
 * Makes `filtered` (a build's scan draft) read only the key values of `filtering` (another build's draft)
 * on each of `keys`: the filtering fragment becomes a source of the filtered one, which so starts after it.
 */
export function applyDynamicFilter(filtered: Draft, filtering: Draft, keys: readonly FilterKey[]): void {
  if (!filtered.sources.includes(filtering)) filtered.sources.push(filtering);
  const before = filtered.from;
  filtered.from = (x) => `(SELECT * FROM ${before(x)} WHERE ${keys.map((k) => `${k.filtered} IN (SELECT ${k.filtering} FROM ${x(filtering)})`).join(' AND ')}) AS vivace_dynamic`;
}
