// A query as the join planner reads it (distributed-planner.ts): its FROM's joins (outer-joins.ts) and WHERE resolved
// against the tables' layouts (column-resolution.ts) into each table's pushed-down conjuncts, the equi-join
// edges between tables, the residual conditions, the stand-alone subqueries (semi-joins.ts), and the query's
// own work above the joins rewritten over the joined rows (JOINED), its columns as symbols. A query this
// cannot read so (windows, SELECT *, set operations, a correlated subquery beside an outer join, ...) is
// undefined here.
import { formatSql, walk, type Expression, type Node, type Query, type QuerySpecification, type SelectItem, type Statement } from '../sql/index.js';
import { fold } from '../sql/names.js';
import type { ScannedTable } from '../connectors/connector.types.js';
import { ColumnScope, type PlanRelation, type ResolvedExpression } from './column-resolution.js';
import { andTerms, tableNode } from './plan-trees.js';
import { fromShape, nullableRelations, outerJoinOf, type DerivedRelation, type OuterJoin } from './outer-joins.js';
import { DerivedScope, derivedColumnName, inlineWith, mergeableDerived } from './derived-tables.js';
import { SemiJoins } from './semi-joins.js';
import { CorrelatedSubqueries } from './correlated-subqueries.js';
import { havingValues, readValues } from './correlated-values.js';
import { EXCHANGE_CATALOG } from './fragment.types.js';
import { callsGrouping, hasGroupingSets } from './grouping-sets.js';
import type { PlannerMetadata, PlannerSession } from './planner.types.js';

/** The joined rows as the query's own work reads them (a stand-in the fragments never name). */
export const JOINED: ScannedTable = { catalog: EXCHANGE_CATALOG, schema: 'exchange', table: 'joined' };

/** A WHERE's conjuncts, with those every branch of an OR shares beside it (sharedByDisjuncts). */
export function conjuncts(e: Expression | undefined): Expression[] {
  return e ? andTerms(e).flatMap((t) => [t, ...sharedByDisjuncts(t)]) : [];
}

/**
 * The conjuncts every branch of an OR has (TPC-H Q19's `p.partkey = l.partkey` in each of its three), as
 * conjuncts of their own beside the OR, as Trino's planner extracts them: (X AND A) OR (X AND B) is
 * X AND ((X AND A) OR (X AND B)), so the join finds its equi-join edge. The OR itself stays as written.
 */
function sharedByDisjuncts(e: Expression): Expression[] {
  if (e.type !== 'LogicalExpression' || e.operator !== 'OR') return [];
  const branches = e.terms.map((t) => conjuncts(t));
  const texts = branches.map((b) => new Set(b.map((c) => formatSql(c))));
  return branches[0]!.filter((c) => texts.every((t) => t.has(formatSql(c))));
}

/** The analysed query: its relations, the scope, and each part of the query resolved. */
export interface Analysis {
  query: Query;
  spec: QuerySpecification;
  relations: PlanRelation[];
  scope: ColumnScope;
  pushed: Expression[][];
  edges: { left: string; right: string; leftRelation: number; rightRelation: number }[];
  residuals: ResolvedExpression[];
  /** The query above the joins over JOINED, columns as symbols. */
  above: Query;
  /** Symbols the query above the joins reads. */
  aboveSymbols: ReadonlySet<string>;
  /** Stand-alone IN subqueries, read as broadcast sources (semi-joins.ts). */
  semis: SemiJoins;
  /** Conjuncts with a subquery correlated by an equality, evaluated co-partitioned (correlated-subqueries.ts). */
  correlated: CorrelatedSubqueries;
  /** The outer joins, in written order after the inner ones (outer-joins.ts). */
  outer: OuterJoin[];
  /** Residuals that run only after the last join (they read a side an outer join fills with NULLs). */
  late: ReadonlySet<ResolvedExpression>;
  /** The derived tables, by relation position: each a sub-plan. */
  derived: ReadonlyMap<number, DerivedRelation>;
}

/** `sub`: the query of a derived table, planned even over one table (the two-stage path takes no sub-plan). */
/** `fromMetadata`: the FROM's tables' (held tables' layouts too, held-relations.ts); subqueries read `metadata`. */
export function analyse(written: Statement, session: PlannerSession, metadata: PlannerMetadata, sub = false, subPlanned?: (query: Query) => boolean, fromMetadata = metadata): Analysis | undefined {
  // WITH queries read as if written inline at each reference (derived-tables.ts).
  const statement = written.type === 'Query' ? inlineWith(written) : undefined;
  // OFFSET m: the root's, after the tasks' partial TopN of m + n rows (partial-top-n.ts); not in a sub-plan.
  if (!statement || (statement.offset && (sub || statement.offset.rowCount.type !== 'LongLiteral'))) return undefined;
  if (statement.limit && statement.limit.type !== 'Limit') return undefined;
  if (statement.body.type !== 'QuerySpecification') return undefined;
  const spec = statement.body;
  if (!spec.from || spec.windows.length > 0 || spec.select.selectItems.some((i) => i.type !== 'SingleColumn')) return undefined;
  // The joins are the query's own, or those of a derived table merged into it (derived-tables.ts).
  const derived = mergeableDerived(spec);
  const joinSpec = derived?.inner ?? spec;
  // Its relations (tables, derived tables) and outer joins (outer-joins.ts).
  const from = joinSpec.from && fromShape(joinSpec.from, session, fromMetadata);
  if (!from) return undefined;
  const { relations, conditions } = from;
  const nullable = nullableRelations(from.outer);
  // An inner block a later RIGHT or FULL join may fill with NULLs: its ON conditions join it before that
  // join (edges, pushed conjuncts), while a WHERE conjunct reading it runs after the joins (late); a FROM
  // whose inner block is a comma list then has no edges from its WHERE, so only explicit ONs key it.
  const innerConditions = new Set(conditions.flatMap(conjuncts));
  const scope = new ColumnScope(relations);

  const pushed: Expression[][] = relations.map(() => []);
  const edges: Analysis['edges'] = [];
  const residuals: ResolvedExpression[] = [];
  /** Residuals reading a side an outer join may fill with NULLs: they run after the joins. */
  const late = new Set<ResolvedExpression>();
  const readsNullable = (r: ResolvedExpression) => [...r.relations].some((i) => nullable.has(i));
  // The outer query reads the derived table's columns as the inner items' expressions.
  let outer: Pick<ColumnScope, 'resolve'> = scope;
  if (derived) {
    const columns = new Map<string, ResolvedExpression>();
    for (const item of derived.inner.select.selectItems) {
      if (item.type !== 'SingleColumn') return undefined;
      const name = derivedColumnName(item);
      const r = scope.resolve(item.expression);
      if (!r) return undefined;
      // A name given twice is ambiguous when read: leave such a query to one task.
      if (name !== undefined) columns.set(name, columns.has(name) ? { expression: item.expression, relations: new Set([-1]), symbols: new Set() } : r);
    }
    if ([...columns.values()].some((c) => c.relations.has(-1))) return undefined;
    outer = new DerivedScope(columns, derived.name);
    for (const c of conjuncts(spec.where)) {
      const r = outer.resolve(c);
      if (!r) return undefined;
      residuals.push(r);
      if (readsNullable(r)) late.add(r);
    }
  }
  const semis = new SemiJoins(session, metadata, subPlanned);
  const correlated = new CorrelatedSubqueries(session, metadata);
  const outerJoins: OuterJoin[] = [];
  for (const o of from.outer) {
    const planned = outerJoinOf(o, conjuncts(o.on), scope, pushed, relationOfSymbol);
    if (!planned) return undefined;
    outerJoins.push(planned);
  }
  for (const written of [...innerConditions, ...conjuncts(joinSpec.where)]) {
    const c = semis.rewrite(written);
    const r = scope.resolve(c, semis.isPlaceholder);
    if (!r) {
      if (!correlated.read(c, scope)) return undefined;
      continue;
    }
    const e = r.expression;
    if (readsNullable(r) && !innerConditions.has(written)) {
      residuals.push(r);
      late.add(r);
    } else if (r.relations.size === 1) {
      pushed[[...r.relations][0]!]!.push(c);
    } else if (e.type === 'ComparisonExpression' && e.operator === '=' && e.left.type === 'Identifier' && e.right.type === 'Identifier' && r.relations.size === 2) {
      const [a, b] = [relationOfSymbol(e.left.value), relationOfSymbol(e.right.value)];
      edges.push({ left: e.left.value, right: e.right.value, leftRelation: a, rightRelation: b });
    } else {
      residuals.push(r);
    }
  }

  // One table is the two-stage path's (aggregate-stages.ts), unless a semi-join joins it to its subquery's.
  if (relations.length < 2 && semis.sources.length === 0 && correlated.conjuncts.length === 0 && from.derived.size === 0 && !sub && !selectsSubquery(spec.select) && !selectsSubquery(spec.having) && !callsGrouping(spec) && !hasGroupingSets(spec.groupBy)) return undefined;
  // A correlated subquery beside an outer join is not planned co-partitioned (the NULL-filled side's rows
  // would be hashed before the join fills them): such a query stays gathered.
  if (correlated.conjuncts.length > 0 && outerJoins.length > 0) return undefined;

  // The query above the joins: its select, GROUP BY, HAVING and ORDER BY as symbols over JOINED.
  const symbols = new Set<string>();
  const use = (r: ResolvedExpression | undefined): Expression | undefined => {
    if (!r) return undefined;
    for (const s of r.symbols) symbols.add(s);
    return r.expression;
  };
  const items: SelectItem[] = [];
  /** The value columns of the select list's correlated scalar subqueries (correlated-values.ts). */
  const values = new Set<Node>();
  for (const item of spec.select.selectItems) {
    if (item.type !== 'SingleColumn') return undefined;
    // A stand-alone subquery reads a broadcast source (scalar-values.ts); a correlated one is a value column.
    const written = semis.rewriteValue(item.expression);
    const read = derived || outerJoins.length > 0 ? undefined : readValues(written, correlated, scope, values, { skip: semis.isPlaceholder });
    const e = use(outer.resolve(written, semis.isPlaceholder)) ?? (read && use(scope.resolve(read, (n) => values.has(n) || semis.isPlaceholder(n))));
    if (!e) return undefined;
    // A plain column keeps its name as the output's (output-names.ts), now that it reads a symbol.
    const named = item.alias ?? (item.expression.type === 'Identifier' ? item.expression : item.expression.type === 'DereferenceExpression' ? item.expression.field : undefined);
    items.push({ ...item, expression: e, alias: named });
  }
  let groupBy = spec.groupBy;
  if (groupBy) {
    const elements = [];
    for (const element of groupBy.groupingElements) {
      // ROLLUP, CUBE, GROUPING SETS: each set's columns as symbols (grouping-sets.ts splits the aggregation).
      if (element.type === 'GroupingSets') {
        const sets = element.sets.map((set) => set.map((g) => use(outer.resolve(g))));
        if (sets.some((set) => set.some((e) => e === undefined))) return undefined;
        elements.push({ ...element, sets: sets as Expression[][] });
        continue;
      }
      const expressions = [];
      for (const g of element.expressions) {
        const e = use(outer.resolve(g));
        if (!e) return undefined;
        expressions.push(e);
      }
      elements.push({ ...element, expressions });
    }
    groupBy = { ...groupBy, groupingElements: elements };
  }
  // A stand-alone subquery in HAVING (TPC-H Q11) is a broadcast source as in WHERE.
  const havingRead = spec.having && semis.rewrite(spec.having);
  let having = havingRead && use(outer.resolve(havingRead, semis.isPlaceholder));
  // A correlated scalar subquery over group keys (correlated-values.ts havingValues).
  if (havingRead && !having && !derived && outerJoins.length === 0 && groupBy?.groupingElements.every((g) => g.type === 'SimpleGroupBy')) {
    const keys = new Set(groupBy.groupingElements.flatMap((g) => (g.type === 'SimpleGroupBy' ? g.expressions : [])).flatMap((e) => (e.type === 'Identifier' ? [e.value] : [])));
    const read = havingValues(havingRead, correlated, scope, values, keys, semis.isPlaceholder);
    having = read && use(scope.resolve(read, (n) => values.has(n) || semis.isPlaceholder(n)));
  }
  if (spec.having && !having) return undefined;
  // ORDER BY may name an output column by its alias (Trino resolves those first) or its ordinal.
  const aliases = new Set(spec.select.selectItems.flatMap((i) => (i.type === 'SingleColumn' && i.alias ? [fold(i.alias.value)] : [])));
  const isAlias = (n: Node) => n.type === 'Identifier' && aliases.has(fold(n.value));
  let orderBy = statement.orderBy;
  if (orderBy) {
    const sortItems = [];
    for (const s of orderBy.sortItems) {
      const e = use(outer.resolve(s.sortKey, isAlias));
      if (!e) return undefined;
      sortItems.push({ ...s, sortKey: e });
    }
    orderBy = { ...orderBy, sortItems };
  }
  const aboveSpec: QuerySpecification = { ...spec, select: { ...spec.select, selectItems: items }, from: tableNode(JOINED, spec), where: undefined, groupBy, having };
  const above: Query = { ...statement, body: aboveSpec, orderBy };
  return { query: statement, spec, relations, scope, pushed, edges, residuals, above, aboveSymbols: symbols, semis, correlated, outer: outerJoins, late, derived: from.derived };
}

/** The relation a symbol belongs to (symbolOf's shape). */
export function relationOfSymbol(symbol: string): number {
  return Number(symbol.slice('vivace_r'.length, symbol.lastIndexOf('_')));
}

/** Whether a select list or HAVING reads a subquery (a correlated one is a value column, correlated-values.ts). */
function selectsSubquery(tree: Node | undefined): boolean {
  let found = false;
  if (tree) walk(tree, (n) => {
    if (n.type === 'SubqueryExpression') found = true;
    return !found;
  });
  return found;
}
