// A stand-alone (uncorrelated) scalar subquery in the select list or HAVING of a query the join planner
// takes, `SELECT k, sum(x) / (SELECT sum(x) FROM t) FROM ... GROUP BY k`: its rows are a broadcast source as
// a WHERE's are (semi-joins.ts), read where the expression around it is evaluated. Trino plans it as a cross
// join with the subquery's one row (TransformUncorrelatedSubqueryToJoin, EnforceSingleRow), replicated to
// the tasks of whatever node reads it: above an aggregation, the FINAL aggregation's. So the query above
// the joins splits into its partial and final aggregation as if each such subquery were a column (a marker,
// vivace_u{k}), and the marker is the subquery again in the fragment that reads it, which reads its source:
// the one running the final (a HASH stage on the group keys, or the root), or, for a subquery inside an
// aggregate's argument or among a DISTINCT's items (distinct-groups.ts), read per row below the
// aggregation, the last fragment running the partial (the scan's or the last join's tasks).
import { mapTree, walk, type Expression, type Identifier, type Node } from '../sql/index.js';

/** The prefix of a scalar subquery's marker column (aggregate-stages.ts reads it as no table column). */
export const SCALAR_PREFIX = 'vivace_u';

/** A query with its stand-alone scalar subqueries as markers, and each marker's subquery. */
export interface MarkedScalars<T> {
  marked: T;
  markers: Map<string, Expression>;
}

/**
 * `tree` with each scalar subquery that reads a source's placeholder (`isSource`) as a marker column; an IN
 * predicate's subquery stays (it is no value). The markers are numbered in the tree's order.
 */
export function markScalars<T extends Node>(tree: T, isSource: (n: Node) => boolean): MarkedScalars<T> {
  const markers = new Map<string, Expression>();
  const mark = (n: Node): Node | undefined => {
    if (n.type === 'InPredicate' && n.valueList.type === 'SubqueryExpression') return { ...n, value: mapTree(n.value, mark) };
    if (n.type !== 'SubqueryExpression' || !isSource(n)) return undefined;
    const name = `${SCALAR_PREFIX}${markers.size}`;
    markers.set(name, n);
    const column: Identifier = { type: 'Identifier', value: name, quoted: false, location: n.location };
    return column;
  };
  return { marked: mapTree(tree, mark), markers };
}

/** `tree` with each marker its subquery again. */
export function unmarkScalars<T extends Node>(tree: T, markers: ReadonlyMap<string, Expression>): T {
  return mapTree(tree, (n) => (n.type === 'Identifier' ? markers.get(n.value) : undefined));
}

/** Whether `tree` reads a marker (a partial aggregation must not: its rows have no such column). */
export function readsMarker(tree: Node, markers: ReadonlyMap<string, Expression>): boolean {
  let found = false;
  walk(tree, (n) => {
    if (n.type === 'Identifier' && markers.has(n.value)) found = true;
    return !found;
  });
  return found;
}
