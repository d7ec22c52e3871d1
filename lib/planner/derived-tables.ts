// A derived table merged into the query above it, as Trino's planner inlines a subquery in FROM that only
// filters and computes columns (TPC-H Q7, Q8, Q9: `SELECT ..., sum(volume) FROM (SELECT ... FROM joins
// WHERE ...) AS shipping GROUP BY ...`): the outer query's references to the derived table's columns read
// the inner select items' expressions, so the inner joins are planned as if written in the outer query.
// WITH queries are written inline at each reference as Trino inlines them (inlineWith), the references
// sharing one query the join planner plans once (derived-relations.ts); a recursive WITH, a WITH inside a
// subquery, or one read twice that sums or averages without grouping is not inlined (the gathered plan or
// one task takes the query).
import { mapTree, walk, type Expression, type Node, type Query, type QuerySpecification, type Relation, type WithQuery } from '../sql/index.js';
import { fold } from '../sql/names.js';
import { callsAggregate } from './plan-trees.js';
import { OPAQUE, UNRESOLVABLE, type ResolvedExpression } from './column-resolution.js';

/** The derived table in `spec`'s FROM, when it can be merged: its query and the name it is read by. */
export function mergeableDerived(spec: QuerySpecification): { inner: QuerySpecification; name?: string } | undefined {
  let from = spec.from;
  let name: string | undefined;
  if (from?.type === 'AliasedRelation') {
    if (from.columnNames) return undefined;
    name = fold(from.alias.value);
    from = from.relation;
  }
  if (from?.type !== 'TableSubquery') return undefined;
  const q = from.query;
  if (q.with || q.orderBy || q.offset || q.limit || q.body.type !== 'QuerySpecification') return undefined;
  const inner = q.body;
  if (inner.groupBy || inner.having || inner.select.distinct || inner.windows.length > 0) return undefined;
  if (inner.select.selectItems.some((i) => i.type !== 'SingleColumn')) return undefined;
  // An aggregate or window call makes the inner query aggregate (or number) its rows: no merging.
  return callsAggregate(inner.select) ? undefined : { inner, ...(name !== undefined ? { name } : {}) };
}

/** The names a derived table's columns are read by: an alias, else a plain column's name. */
export function derivedColumnName(item: Extract<QuerySpecification['select']['selectItems'][number], { type: 'SingleColumn' }>): string | undefined {
  if (item.alias) return fold(item.alias.value);
  if (item.expression.type === 'Identifier') return fold(item.expression.value);
  if (item.expression.type === 'DereferenceExpression') return fold(item.expression.field.value);
  return undefined;
}

/** Resolves the outer query's expressions over a merged derived table, to the inner items' symbol expressions. */
export class DerivedScope {
  constructor(
    private readonly columns: ReadonlyMap<string, ResolvedExpression>,
    private readonly name: string | undefined,
  ) {}

  resolve(expression: Expression, keep?: (n: Node) => boolean): ResolvedExpression | undefined {
    const relations = new Set<number>();
    const symbols = new Set<string>();
    let failed = false;
    const take = (column: string | undefined): Expression | undefined => {
      const found = column === undefined ? undefined : this.columns.get(column);
      if (!found) return undefined;
      for (const r of found.relations) relations.add(r);
      for (const s of found.symbols) symbols.add(s);
      return found.expression;
    };
    const replace = (n: Node): Node | undefined => {
      if (failed || keep?.(n) || OPAQUE.has(n.type)) return n;
      if (UNRESOLVABLE.has(n.type) || (n.type === 'FunctionCall' && n.window)) {
        failed = true;
        return n;
      }
      let resolved: Expression | undefined;
      if (n.type === 'Identifier') resolved = take(fold(n.value));
      else if (n.type === 'DereferenceExpression') resolved = n.base.type === 'Identifier' && fold(n.base.value) === this.name ? take(fold(n.field.value)) : undefined;
      else if (n.type === 'FunctionCall') return { ...n, arguments: n.arguments.map((a) => mapTree(a, replace)), filter: n.filter && mapTree(n.filter, replace), orderBy: n.orderBy && mapTree(n.orderBy, replace) };
      else if (n.type === 'Cast') return { ...n, expression: mapTree(n.expression, replace) };
      else return undefined;
      if (!resolved) failed = true;
      return resolved ?? n;
    };
    const mapped = mapTree(expression, replace);
    return failed ? undefined : { expression: mapped, relations, symbols };
  }
}

/** Aggregates whose value does not depend on the order rows are added in (a double's sum and avg do). */
const ORDER_FREE: ReadonlySet<string> = new Set(['count', 'count_if', 'min', 'max', 'min_by', 'max_by', 'approx_distinct', 'arbitrary', 'any_value', 'bool_and', 'bool_or', 'every']);

/** Whether `node` calls an aggregate (or window) whose value may depend on the order it adds rows in. */
function ordersMatter(node: Node): boolean {
  let found = false;
  walk(node, (n) => {
    if (n.type === 'FunctionCall' && !ORDER_FREE.has(fold(n.name.parts[n.name.parts.length - 1]!.value)) && callsAggregate(n)) found = true;
  });
  return found;
}

/** Whether a query groups its rows (a derived table of it is then a sub-plan of its own, never merged). */
function groups(query: Query): boolean {
  const body = query.body;
  return body.type === 'QuerySpecification' && (body.groupBy !== undefined || body.having !== undefined || callsAggregate(body.select));
}

/**
 * `query` with its WITH queries written inline at each reference (Trino inlines a non-recursive WITH query
 * likewise): `FROM revenue0` reads `(SELECT ...) AS revenue0 (its column names)`, in the main query and in
 * its subqueries, each WITH query seeing those before it; its references share one query (the planner
 * plans it once: derived-relations.ts). Undefined for a recursive WITH, a WITH inside (names it may
 * shadow), `TABLE name` as a query body, or a WITH query read twice or more that sums or averages without
 * grouping (merged into the query above at each reference, it would be computed at each): one task
 * computes it once (DuckDB materializes it), so TPC-H Q15's `total_revenue = (SELECT max(total_revenue)
 * FROM revenue0)` compares a double sum with itself, which two computations adding in different orders
 * may miss by a bit.
 */
export function inlineWith(query: Query): Query | undefined {
  if (!query.with) return query;
  if (query.with.recursive) return undefined;
  let refused = false;
  walk({ ...query, with: undefined }, (n) => {
    if (n.type === 'With' || (n.type === 'Query' && n.body.type === 'Table')) refused = true;
  });
  for (const w of query.with.queries) walk(w.query, (n) => {
    if (n.type === 'With' || (n.type === 'Query' && n.body.type === 'Table')) refused = true;
  });
  if (refused) return undefined;
  const defined = new Map<string, WithQuery>();
  const inline = <T extends Node>(tree: T): T => mapTree(tree, (n) => {
    const table = n.type === 'AliasedRelation' ? n.relation : n;
    if (table.type !== 'Table' || table.name.parts.length !== 1) return undefined;
    const written = table.name.parts[0]!;
    const cte = defined.get(fold(written.value));
    if (!cte) return undefined;
    const relation: Relation = { type: 'TableSubquery', query: cte.query, location: table.location };
    if (n.type === 'AliasedRelation') return { ...n, relation, columnNames: n.columnNames ?? cte.columnNames };
    return { type: 'AliasedRelation', relation, alias: written, columnNames: cte.columnNames, location: n.location };
  });
  const reads = new Map<string, number>();
  for (const w of query.with.queries) {
    if (defined.has(fold(w.name.value))) return undefined;
    defined.set(fold(w.name.value), { ...w, query: inline(w.query) });
  }
  const inlined = inline({ ...query, with: undefined });
  // How often each is read, counting reads through another WITH query's inlined text.
  walk(inlined, (n) => {
    if (n.type === 'TableSubquery') for (const [name, w] of defined) if (n.query === w.query) reads.set(name, (reads.get(name) ?? 0) + 1);
  });
  for (const [name, count] of reads) if (count > 1 && ordersMatter(defined.get(name)!.query) && !groups(defined.get(name)!.query)) return undefined;
  return inlined;
}
