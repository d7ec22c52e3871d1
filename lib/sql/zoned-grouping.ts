// Grouping by the instant, as Trino groups timestamp with time zone values (its equality and hash ignore
// the zone): one group for `2020-01-01 00:00 UTC` and `2020-01-01 01:00 +01:00`, shown with one row's zone.
// DuckDB would group the zoned STRUCT by instant and zone, so in a statement that may meet zoned values
// the tree is rewritten before it prints: GROUP BY e groups by vivace_instant_key(e), and e where the select
// list, HAVING or ORDER BY reads it becomes vivace_group_value(vivace_instant_key(e), e), which DuckDB
// expands to that same key for any other type (so it matches the group and costs nothing) and to
// any_value(e) for a zoned value. SELECT DISTINCT becomes such a GROUP BY of its items; PARTITION BY and
// count(DISTINCT ...) read the instant too. GROUPING SETS, ROLLUP and CUBE are left as they are.
import type { Expression, FunctionCall, Node, Query, QuerySpecification, SelectItem, Statement } from './ast.js';
import { lookupFunction } from './function-catalog.js';
import { fold } from './names.js';
import { callNode } from './zoned-translation.js';
import { instantKey, surelyUnzoned } from './zoned-timestamps.js';

const isNode = (v: unknown): v is Node => v !== null && typeof v === 'object' && typeof (v as { type?: unknown }).type === 'string';

/** `node` with each child replaced by `f(child)`; the same object when no child changes. */
function mapChildren<T extends Node>(node: T, f: (child: Node) => Node): T {
  let changed = false;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'location' || key === 'type') {
      copy[key] = value;
      continue;
    }
    if (Array.isArray(value)) {
      const mapped = value.map((item: unknown) => (isNode(item) ? f(item) : item));
      if (mapped.some((m, i) => m !== value[i])) changed = true;
      copy[key] = mapped;
    } else if (isNode(value)) {
      const mapped = f(value);
      if (mapped !== value) changed = true;
      copy[key] = mapped;
    } else copy[key] = value;
  }
  return changed ? (copy as T) : node;
}

/** Whether two expressions are the same as written, names compared as Trino folds them, locations aside. */
function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  // `t.c` and `c` name one column (were they two, Trino would call `c` ambiguous).
  if (isNode(a) && isNode(b) && a.type !== b.type) {
    const [name, qualified] = a.type === 'Identifier' ? [a, b] : [b, a];
    return name.type === 'Identifier' && qualified.type === 'DereferenceExpression' && qualified.base.type === 'Identifier' && same(name, qualified.field);
  }
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => same(x, b[i]));
  if (!isNode(a) || !isNode(b) || a.type !== b.type) return false;
  if (a.type === 'Identifier') return fold(a.value) === fold((b as typeof a).value);
  const keys = Object.keys(a).filter((k) => k !== 'location');
  return keys.every((k) => same((a as unknown as Record<string, unknown>)[k], (b as unknown as Record<string, unknown>)[k]));
}

const isAggregateCall = (n: Node): n is FunctionCall =>
  n.type === 'FunctionCall' && !n.window && lookupFunction(n.name.parts[n.name.parts.length - 1]!.value, 'aggregate') !== undefined;

const NESTED_QUERIES: ReadonlySet<string> = new Set(['SubqueryExpression', 'ExistsPredicate', 'Query']);

/** Aggregate or window calls in an expression, outside its subqueries. */
function hasAggregateOrWindow(e: Node): boolean {
  const stack: Node[] = [e];
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (NESTED_QUERIES.has(n.type)) continue;
    if (n.type === 'FunctionCall' && (n.window || isAggregateCall(n))) return true;
    mapChildren(n, (c) => {
      stack.push(c);
      return c;
    });
  }
  return false;
}

export class InstantGrouping {
  /** `fixed(e)`: every value of `e` carries one zone the tree states (zoned-translation.ts staticZone), so its values group as they are. */
  constructor(private readonly fixed: (e: Expression) => boolean, private readonly typedColumns = true) {}

  /** Whether `e` may hold zoned values of several zones: only those are grouped by instant. */
  private varies(e: Expression): boolean {
    return !surelyUnzoned(e) && !this.fixed(e);
  }

  /** The statement with its groupings, DISTINCTs and partitions read by instant. */
  rewrite(statement: Statement): Statement {
    return this.node(statement);
  }

  private node<T extends Node>(n: T): T {
    switch (n.type) {
      case 'Query':
        return this.query(n) as unknown as T;
      case 'QuerySpecification':
        return (this.specification(n)?.spec ?? mapChildren(n, (c) => this.node(c))) as unknown as T;
      case 'WindowSpecification':
        return mapChildren({ ...n, partitionBy: n.partitionBy.map((e) => this.key(e)) }, (c) => this.node(c)) as unknown as T;
      case 'FunctionCall':
        if (n.distinct && isAggregateCall(n) && fold(n.name.parts[n.name.parts.length - 1]!.value) === 'count') {
          return mapChildren({ ...n, arguments: n.arguments.map((e) => this.key(e)) }, (c) => this.node(c)) as unknown as T;
        }
        return mapChildren(n, (c) => this.node(c));
      default:
        return mapChildren(n, (c) => this.node(c));
    }
  }

  /** `e` read by its instant (unless it is surely no zoned value), its inside rewritten. */
  private key(e: Expression): Expression {
    const inner = this.node(e);
    return this.varies(e) ? callNode(instantKey(inner, this.typedColumns), [inner], e) : inner;
  }

  private query(q: Query): Query {
    const body = q.body.type === 'QuerySpecification' ? this.specification(q.body) : undefined;
    if (!body) return mapChildren(q, (c) => this.node(c));
    const orderBy = q.orderBy && { ...q.orderBy, sortItems: q.orderBy.sortItems.map((s) => ({ ...s, sortKey: body.read(s.sortKey) })) };
    return { ...q, with: q.with && this.node(q.with), body: body.spec, orderBy, offset: q.offset && this.node(q.offset), limit: q.limit && this.node(q.limit) };
  }

  /**
   * A query specification grouped by instants, and how an expression after its grouping (ORDER BY) reads
   * the groups; undefined when it groups nothing that may be zoned, or groups in a way left as it is.
   */
  private specification(s: QuerySpecification): { spec: QuerySpecification; read: (e: Expression) => Expression } | undefined {
    const items = s.select.selectItems;
    let groups: Expression[];
    if (s.groupBy) {
      if (s.groupBy.groupingElements.some((g) => g.type !== 'SimpleGroupBy')) return undefined;
      const expressions = s.groupBy.groupingElements.flatMap((g) => (g.type === 'SimpleGroupBy' ? g.expressions : []));
      // GROUP BY 2 groups by the second select item.
      const resolved = expressions.map((e) => {
        if (e.type !== 'LongLiteral') return e;
        const item = items[Number(e.value) - 1];
        return item?.type === 'SingleColumn' ? item.expression : undefined;
      });
      if (resolved.some((e) => e === undefined)) return undefined;
      groups = resolved as Expression[];
    } else if (s.select.distinct) {
      if (items.some((i) => i.type !== 'SingleColumn' || hasAggregateOrWindow(i.expression))) return undefined;
      groups = items.map((i) => (i as Extract<SelectItem, { type: 'SingleColumn' }>).expression);
    } else return undefined;
    const zoned = groups.filter((g) => this.varies(g));
    if (zoned.length === 0) return undefined;
    const read = (e: Expression): Expression => this.grouped(e, zoned);
    const groupBy = {
      type: 'GroupBy' as const, distinct: false, location: (s.groupBy ?? s.select).location,
      groupingElements: [{ type: 'SimpleGroupBy' as const, expressions: groups.map((g) => this.key(g)), location: (s.groupBy ?? s.select).location }],
    };
    const selectItems = items.map((i): SelectItem => {
      if (i.type !== 'SingleColumn') return this.node(i);
      const expression = read(i.expression);
      // A column keeps its name (CREATE TABLE AS names columns by it).
      const alias = i.alias ?? (expression !== i.expression && i.expression.type === 'Identifier' ? i.expression : undefined);
      return { ...i, expression, alias };
    });
    const spec: QuerySpecification = {
      ...s,
      select: { ...s.select, distinct: false, selectItems },
      from: s.from && this.node(s.from),
      where: s.where && this.node(s.where),
      groupBy,
      having: s.having && read(s.having),
      windows: s.windows.map((w) => this.node(w)),
    };
    return { spec, read };
  }

  /** `e` after grouping: each group expression in it (outside aggregates and subqueries) as the group's value. */
  private grouped(e: Expression, groups: readonly Expression[]): Expression {
    if (groups.some((g) => same(g, e))) {
      const inner = this.node(e);
      return callNode('vivace_group_value', [callNode(instantKey(inner, this.typedColumns), [inner], e), inner], e);
    }
    // A typed literal holds no expression: its type name (DATE '2020-01-01') is no column, whatever a group is named.
    if (isAggregateCall(e) || NESTED_QUERIES.has(e.type) || e.type === 'LambdaExpression' || e.type === 'GenericLiteral') return this.node(e);
    if (e.type === 'DereferenceExpression') return { ...e, base: this.grouped(e.base, groups) };
    return this.groupedChildren(e, groups);
  }

  /** A node's children after grouping; names and types stay as they are, windows partition by instant. */
  private groupedChildren<T extends Node>(n: T, groups: readonly Expression[]): T {
    return mapChildren(n, (c) => {
      if (NOT_EXPRESSIONS.has(c.type)) return c;
      // A subquery where the grammar wants one (IN, = ANY, EXISTS) stays one, even when it equals a group
      // expression (`GROUP BY (SELECT 1) ... HAVING x = ANY (SELECT 1)`).
      if (c.type === 'SubqueryExpression' && SUBQUERY_SLOTS.has(n.type)) return this.node(c);
      if (c.type === 'WindowSpecification') {
        const partitionBy = c.partitionBy.map((p) => (this.varies(p) ? callNode(instantKey(p, this.typedColumns), [p], p) : p));
        // OVER (w ...) names a window, not a column, whatever a group is named.
        return { ...this.groupedChildren({ ...c, partitionBy }, groups), existingWindowName: c.existingWindowName };
      }
      return EXPRESSION_PARTS.has(c.type) ? this.groupedChildren(c, groups) : this.grouped(c as Expression, groups);
    });
  }
}

/** Expressions whose subquery child must stay a subquery. */
const SUBQUERY_SLOTS: ReadonlySet<string> = new Set(['InPredicate', 'QuantifiedComparisonExpression', 'ExistsPredicate']);
/** Children that hold no expression a group could be: names, types. */
const NOT_EXPRESSIONS: ReadonlySet<string> = new Set(['QualifiedName', 'GenericDataType', 'RowDataType', 'DateTimeDataType', 'IntervalDataType', 'WindowReference']);
/** Parts of expressions that are not expressions themselves but hold some (CASE's WHEN, a window's ORDER BY). */
const EXPRESSION_PARTS: ReadonlySet<string> = new Set(['WhenClause', 'OrderBy', 'SortItem', 'WindowFrame', 'FrameBound', 'InListExpression']);
