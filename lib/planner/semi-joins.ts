// `x [NOT] IN (subquery)` where the subquery stands alone (it reads only its own tables: no outer column,
// no subquery of its own) becomes a semi-join with a replicated filtering source, as Trino plans it: the
// subquery runs once, in fragments of its own, its rows are broadcast to the fragment that evaluates the
// predicate, and the predicate reads them there through an exchange table. A stand-alone scalar subquery
// is read the same way (its one row broadcast), and [NOT] EXISTS correlated by one equality is first
// decorrelated into the IN it means. The predicate keeps its SQL (NOT IN's NULL semantics, a scalar
// subquery's one-row check included): only where the subquery's rows come from changes.
import { mapTree, walk, type Expression, type Identifier, type Node, type Query, type Table } from '../sql/index.js';
import { partsOf } from '../sql/names.js';
import type { ScannedTable } from '../connectors/connector.types.js';
import { ColumnScope, relationsOf, type PlanRelation } from './column-resolution.js';
import { andTerms, innerJoinTables, sameTable, tableNode } from './plan-trees.js';
import { planStages, type StagePlan } from './aggregate-stages.js';
import { EXCHANGE_CATALOG, EXCHANGE_SCHEMA } from './fragment.types.js';
import type { PlannerMetadata, PlannerSession } from './planner.types.js';
import { distinctSource } from './replicated-semis.js';

/** A subquery turned into a broadcast source: the table standing for its rows until fragment ids are known. */
export interface SemiSource {
  query: Query;
  placeholder: ScannedTable;
  /** The tables it reads (the plan's access check covers them). */
  tables: readonly ScannedTable[];
  /** Its two stages, when it is an aggregation over one table (aggregate-stages.ts). */
  stages?: StagePlan;
  /** Whether its one table splits on this node (the coordinator runs it in two stages then). */
  splits: boolean;
  /** Planned as a query of its own (a subquery over derived tables, or with a subquery correlated inside it: TPC-H Q20's): its tables are its plan's. */
  sub?: boolean;
}

const placeholderOf = (n: number): ScannedTable => ({ catalog: EXCHANGE_CATALOG, schema: EXCHANGE_SCHEMA, table: `vivace_semi${n}` });

/** `SELECT * FROM <table>` as a tree (the subquery that reads the broadcast rows). */
function selectAll(table: ScannedTable, at: Node): Query {
  const from = tableNode(table, at);
  return {
    type: 'Query', location: at.location, with: undefined, orderBy: undefined, offset: undefined, limit: undefined,
    body: {
      type: 'QuerySpecification', location: at.location, from, where: undefined, groupBy: undefined, having: undefined, windows: [],
      select: { type: 'Select', location: at.location, distinct: false, selectItems: [{ type: 'AllColumns', location: at.location, target: undefined, aliases: [] }] },
    },
  };
}

/** Nodes that make a subquery more than a query over its own tables. */
export const OPEN: ReadonlySet<string> = new Set(['SubqueryExpression', 'ExistsPredicate', 'QuantifiedComparisonExpression', 'Lateral', 'Parameter', 'LambdaExpression', 'TableFunctionInvocation']);

/**
 * The relations `query` reads when it stands alone: one query specification over tables of the metadata
 * (inner joins), every column of its select list, WHERE, ON, GROUP BY and HAVING resolved among them;
 * undefined otherwise.
 */
export function standsAlone(query: Query, session: PlannerSession, metadata: PlannerMetadata): readonly PlanRelation[] | undefined {
  if (query.with || query.body.type !== 'QuerySpecification' || !query.body.from) return undefined;
  const spec = query.body;
  let open = false;
  walk(spec, (n) => {
    if (OPEN.has(n.type) || (n.type === 'FunctionCall' && n.window)) open = true;
  });
  if (open || spec.windows.length > 0) return undefined;
  const conditions: Expression[] = [];
  const scope = scopeOf(spec, session, metadata, conditions);
  if (!scope) return undefined;
  const expressions: Expression[] = [
    ...spec.select.selectItems.flatMap((i) => (i.type === 'SingleColumn' ? [i.expression] : [])),
    ...conditions,
    ...(spec.where ? [spec.where] : []),
    ...(spec.having ? [spec.having] : []),
    ...(spec.groupBy?.groupingElements ?? []).flatMap((g) => (g.type === 'SimpleGroupBy' ? g.expressions.filter((e) => e.type !== 'LongLiteral') : [])),
  ];
  if (spec.select.selectItems.some((i) => i.type !== 'SingleColumn') || spec.groupBy?.groupingElements.some((g) => g.type !== 'SimpleGroupBy')) return undefined;
  return expressions.every((e) => scope.resolve(e) !== undefined) ? scope.relations : undefined;
}

/** A column scope over a query specification's FROM of tables (inner joins; their ON conditions into `conditions`), or undefined. */
function scopeOf(spec: Extract<Query['body'], { type: 'QuerySpecification' }>, session: PlannerSession, metadata: PlannerMetadata, conditions: Expression[] = []): ColumnScope | undefined {
  const tables: { node: Table; alias?: Identifier }[] = [];
  if (!spec.from || !innerJoinTables(spec.from, tables, conditions)) return undefined;
  const relations = relationsOf(tables, session, metadata);
  if (!relations) return undefined;
  return new ColumnScope(relations);
}

/** Whether any column reference in `e` resolves in `scope` (then it is no pure outer expression). */
function readsAny(e: Expression, scope: ColumnScope): boolean {
  let reads = false;
  walk(e, (n) => {
    if (reads) return false;
    if (n.type === 'QualifiedName' || n.type === 'GenericLiteral') return false;
    if ((n.type === 'Identifier' || n.type === 'DereferenceExpression') && scope.resolve(n)) reads = true;
    if (n.type === 'DereferenceExpression') return false;
    return undefined;
  });
  return reads;
}

/** Collects a query's stand-alone subqueries (of IN, EXISTS decorrelated, scalar) as broadcast sources (planDistributed). */
export class SemiJoins {
  readonly sources: SemiSource[] = [];
  private readonly stand = new Set<Node>();

  /** `subPlanned`: whether a subquery that reads more than tables (a derived table) has a plan of its own. */
  constructor(private readonly session: PlannerSession, private readonly metadata: PlannerMetadata, private readonly subPlanned?: (query: Query) => boolean) {}

  /** `c` with each stand-alone subquery in it reading its placeholder instead (EXISTS first decorrelated); `c` when none. */
  rewrite(c: Expression): Expression {
    if (c.type === 'ExistsPredicate') {
      const asIn = this.asIn(c, false);
      return asIn ? this.rewrite(asIn) : c;
    }
    if (c.type === 'NotExpression' && c.value.type === 'ExistsPredicate') {
      const asIn = this.asIn(c.value, true);
      return asIn ? this.rewrite(asIn) : c;
    }
    return this.rewriteValue(c);
  }

  /**
   * `c` with each stand-alone subquery of IN, or scalar, reading its placeholder; an EXISTS stays as written
   * (its IN is the same filter, but not the same value: NULL where EXISTS is false). For a select item.
   */
  rewriteValue(c: Expression): Expression {
    // Every stand-alone subquery in it (of IN, or a scalar one): read from its placeholder.
    // `x [NOT] IN (SELECT column FROM ...)` reads the column's distinct values (replicated-semis.ts distinctSource).
    return mapTree(c, (n) => {
      if (n.type === 'InPredicate' && n.valueList.type === 'SubqueryExpression' && !this.stand.has(n.valueList)) {
        const grouped = distinctSource(n.valueList.query);
        const read = grouped && this.source({ ...n.valueList, query: grouped });
        if (read) return { ...n, value: this.rewrite(n.value), valueList: read };
      }
      return n.type === 'SubqueryExpression' && !this.stand.has(n) ? this.source(n) : undefined;
    });
  }

  /** A stand-alone subquery as a source, read through its placeholder; undefined when it is not one. */
  private source(n: Extract<Expression, { type: 'SubqueryExpression' }>): Extract<Expression, { type: 'SubqueryExpression' }> | undefined {
    const relations = standsAlone(n.query, this.session, this.metadata);
    if (!relations && !this.subPlanned?.(n.query)) return undefined;
    const placeholder = placeholderOf(this.sources.length);
    if (!relations) {
      this.sources.push({ query: n.query, placeholder, tables: [], splits: false, sub: true });
      return this.read(n, placeholder);
    }
    const tables = relations.map((r) => r.table);
    // The two stages the subquery would take (whatever this node's size thresholds: a worker follows the
    // coordinator's choice), and whether its table splits here (the coordinator's choice).
    const stages = tables.length === 1 ? planStages(n.query, this.session, new Set([tables[0]!.catalog])) : undefined;
    const splits = relations.length === 1 && relations[0]!.layout.splits;
    this.sources.push({ query: n.query, placeholder, tables, splits, ...(stages ? { stages } : {}) });
    return this.read(n, placeholder);
  }

  /** The subquery reading its placeholder. */
  private read(n: Extract<Expression, { type: 'SubqueryExpression' }>, placeholder: ScannedTable): Extract<Expression, { type: 'SubqueryExpression' }> {
    const read = { ...n, query: selectAll(placeholder, n) };
    this.stand.add(read);
    return read;
  }

  /**
   * [NOT] EXISTS (SELECT ... FROM tables WHERE inner.c = <outer expression> AND <its own conjuncts>), the
   * subquery reaching out only through that one equality, as the IN it means (Trino decorrelates it into a
   * semi-join likewise): `outer IN (SELECT inner.c FROM tables WHERE own GROUP BY inner.c)`. NOT EXISTS keeps
   * its meaning for NULLs: `outer IS NULL OR outer NOT IN (... WHERE inner.c IS NOT NULL ...)`. Undefined
   * when the subquery is of another shape.
   */
  private asIn(e: Extract<Expression, { type: 'ExistsPredicate' }>, negated: boolean): Expression | undefined {
    const q = e.subquery.query;
    if (q.with || q.orderBy || q.offset || q.limit || q.body.type !== 'QuerySpecification') return undefined;
    const spec = q.body;
    if (!spec.from || spec.groupBy || spec.having || spec.select.distinct || spec.windows.length > 0 || !spec.where) return undefined;
    const scope = scopeOf(spec, this.session, this.metadata);
    if (!scope) return undefined;
    const conjuncts = andTerms(spec.where);
    let correlation: { inner: Expression; outer: Expression } | undefined;
    const own: Expression[] = [];
    for (const c of conjuncts) {
      if (scope.resolve(c)) {
        own.push(c);
        continue;
      }
      if (correlation || c.type !== 'ComparisonExpression' || c.operator !== '=') return undefined;
      const [inner, outer] = scope.resolve(c.left) ? [c.left, c.right] : [c.right, c.left];
      // The inner side a column of its own tables, the outer side no column of theirs at all.
      if (!(inner.type === 'Identifier' || inner.type === 'DereferenceExpression') || !scope.resolve(inner) || readsAny(outer, scope)) return undefined;
      correlation = { inner, outer };
    }
    if (!correlation) return undefined;
    const at = e;
    const where = [...own, ...(negated ? [{ type: 'IsNullPredicate' as const, value: correlation.inner, negated: true, location: at.location }] : [])];
    const query: Query = {
      ...q,
      body: {
        ...spec,
        select: { ...spec.select, selectItems: [{ type: 'SingleColumn', expression: correlation.inner, alias: undefined, location: at.location }] },
        where: where.length === 0 ? undefined : where.length === 1 ? where[0] : { type: 'LogicalExpression', operator: 'AND', terms: where, location: at.location },
        groupBy: { type: 'GroupBy', distinct: false, location: at.location, groupingElements: [{ type: 'SimpleGroupBy', expressions: [correlation.inner], location: at.location }] },
      },
    };
    const inPredicate: Expression = { type: 'InPredicate', value: correlation.outer, negated, location: at.location, valueList: { type: 'SubqueryExpression', query, location: at.location } };
    if (!negated) return inPredicate;
    return { type: 'LogicalExpression', operator: 'OR', location: at.location, terms: [{ type: 'IsNullPredicate', value: correlation.outer, negated: false, location: at.location }, inPredicate] };
  }

  /** Whether a node is a rewritten subquery (column resolution leaves it as it is). */
  readonly isPlaceholder = (n: Node): boolean => this.stand.has(n);

  /** The sources an expression reads. */
  readIn(e: Expression): SemiSource[] {
    const found: SemiSource[] = [];
    walk(e, (n) => {
      if (n.type !== 'Table') return;
      const parts = partsOf(n.name);
      const source = parts.length === 3 ? this.sources.find((s) => sameTable(s.placeholder, { catalog: parts[0]!, schema: parts[1]!, table: parts[2]! })) : undefined;
      if (source && !found.includes(source)) found.push(source);
    });
    return found;
  }
}
