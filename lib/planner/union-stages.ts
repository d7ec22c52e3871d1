// The plans of the shapes beyond joins and one table's aggregation, which statement-plans.ts asks here
// first: a query whose windows partition their rows (window-stages.ts), and set operations (UNION [ALL],
// INTERSECT, EXCEPT, mixed) of query specifications. Each branch is planned on its own, as Trino plans
// each source of a UnionNode (and of the union an INTERSECT or EXCEPT is planned as):
// its windows, one table's two aggregation stages (aggregate-stages.ts), one table's scan over its splits,
// the join planner, the gathered plan, or one SINGLE fragment reading it whole; each branch's output goes
// SINGLE to the root, which unions their exchange tables and applies the query's ORDER BY and LIMIT. The
// branches' fragments run side by side (the scheduler starts every fragment whose sources are done). A
// branch whose own operation is DISTINCT keeps its distinct rows (a partial DISTINCT); the root's set
// operations do the rest. A worker is told how each branch was planned: PlanChoices.branches holds each
// branch's kind and its planner's own choices (sub-plans and correlated subqueries included).
import { isDeepStrictEqual } from 'node:util';
import {
  formatSql, mapTree, parseStatement, walk,
  type Identifier, type Node, type Query, type QueryBody, type QuerySpecification, type SelectItem, type Statement,
} from '../sql/index.js';
import { fold, partsOf } from '../sql/names.js';
import { resolveTable } from '../sql/statement-gate.js';
import type { ScannedTable } from '../connectors/connector.types.js';
import { planStages } from './aggregate-stages.js';
import { planDistributed } from './distributed-planner.js';
import { planGathered } from './gather-planner.js';
import { relationsOf } from './column-resolution.js';
import { callsAggregate, sameTable, tableNode } from './plan-trees.js';
import { expandedStar, ONE_SPLIT_CHOICES, oneSplit, planWindowed } from './window-stages.js';
import {
  EXCHANGE_CATALOG, EXCHANGE_SCHEMA, exchangeTableOf, type BranchChoices, type BranchKind, type DistributedPlan, type PlanChoices, type PlanFragment,
} from './fragment.types.js';
import type { PlannerMetadata, PlannerSession } from './planner.types.js';

/** Whether a query may be such a shape (a window, a set operation): its text is then never kept as no join. */
export function mayShape(statement: Statement): boolean {
  if (statement.type !== 'Query') return false;
  let found = false;
  walk(statement, (n) => {
    if ((n.type === 'FunctionCall' && n.window) || n.type === 'Union' || n.type === 'Intersect' || n.type === 'Except') found = true;
    return !found;
  });
  return found;
}

/** The plan of a shape this room takes, or undefined. `given`: the coordinator's choices (a worker). */
export function planShapes(statement: Statement, session: PlannerSession, metadata: PlannerMetadata, given?: PlanChoices): DistributedPlan | undefined {
  if (!mayShape(statement)) return undefined;
  return planUnion(statement, session, metadata, given) ?? planWindowed(statement, session, metadata, given);
}

/** Nodes a branch read as one SOURCE fragment over its table's splits cannot hold. */
const NOT_A_SCAN: ReadonlySet<string> = new Set([
  'SubqueryExpression', 'TableSubquery', 'ExistsPredicate', 'Join', 'Unnest', 'Lateral', 'TableFunctionInvocation', 'Parameter',
  'GroupingOperation', 'QuantifiedComparisonExpression', 'Values', 'AllColumns',
]);
/** Nodes no branch is planned with (a parameter, a table function: the one-task path's). */
const REFUSED: ReadonlySet<string> = new Set(['Parameter', 'TableFunctionInvocation', 'Unnest', 'Lateral', 'With']);

const unionName = (i: number) => `vivace_u${i}`;
/** The most fragments, plan choices (sub-plans, branches) and entries of each choices list a task request carries (lib/cluster/task-protocol.ts MAX_FRAGMENTS). */
const MAX_WIRE = 256;

/** A branch's plan with its own fragment ids (root 0) and the choices that give it back on a worker. */
interface BranchPlan {
  fragments: readonly PlanFragment[];
  choices: PlanChoices;
  tables: readonly ScannedTable[];
}

/**
 * The query specifications a body of set operations (UNION, INTERSECT, EXCEPT, any mix) combines, left to
 * right, each with whether its own operation is DISTINCT (its duplicates do not count, so it may drop them
 * early); false when a leaf is no query specification.
 */
function setBranches(body: QueryBody, distinct: boolean, out: { spec: QuerySpecification; distinct: boolean }[]): boolean {
  if (body.type === 'Union' || body.type === 'Intersect' || body.type === 'Except') return setBranches(body.left, body.distinct, out) && setBranches(body.right, body.distinct, out);
  // A parenthesized body of its own (no WITH, ORDER BY, OFFSET or LIMIT) is the same rows.
  if (body.type === 'TableSubquery') {
    const q = body.query;
    return !q.with && !q.orderBy && !q.offset && !q.limit && setBranches(q.body, distinct, out);
  }
  if (body.type !== 'QuerySpecification') return false;
  out.push({ spec: body, distinct });
  return true;
}

/** Whether a body is UNIONs alone (a TopN or LIMIT may go through it to its branches). */
const unionsOnly = (body: QueryBody): boolean => body.type === 'QuerySpecification' || (body.type === 'TableSubquery' && unionsOnly(body.query.body))
  || (body.type === 'Union' && unionsOnly(body.left) && unionsOnly(body.right));

/** The one table (maybe aliased) of a FROM, resolved, when it is in the metadata. */
function oneTable(spec: QuerySpecification, session: PlannerSession, metadata: PlannerMetadata) {
  const from = spec.from;
  const table = from?.type === 'Table' ? { node: from } : from?.type === 'AliasedRelation' && !from.columnNames && from.relation.type === 'Table' ? { node: from.relation, alias: from.alias } : undefined;
  return table && relationsOf([table], session, metadata)?.[0];
}

/** Whether a tree names a hidden column ($path) or tpch's hidden row_number (function names aside). */
function namesHidden(tree: Node): boolean {
  let hidden = false;
  const functionNames = new Set<Node>();
  walk(tree, (n) => {
    if (n.type === 'FunctionCall') functionNames.add(n.name);
    if (functionNames.has(n)) return false;
    if (n.type === 'Identifier' && (n.value.startsWith('$') || fold(n.value) === 'row_number')) hidden = true;
    return undefined;
  });
  return hidden;
}

/**
 * The fixed plans of a branch over one table's splits (their choices are always ONE_SPLIT_CHOICES), or
 * undefined. `given`: a worker's, whose coordinator found the table splits (a worker's layouts may not say so).
 */
function fixedBranch(query: Query, session: PlannerSession, metadata: PlannerMetadata, given: boolean): BranchPlan | undefined {
  const windowed = planWindowed(query, session, metadata, given ? ONE_SPLIT_CHOICES : undefined);
  if (windowed) return windowed;
  const spec = query.body as QuerySpecification;
  const relation = oneTable(spec, session, metadata);
  if (!relation || (!given && !relation.layout.splits) || namesHidden(query)) return undefined;
  const { table } = relation;
  const scan = { table, ...(spec.where ? { where: spec.where } : {}) };
  const stages = planStages(query, session, new Set([table.catalog]));
  if (stages) {
    const leaf: PlanFragment = { id: 1, partitioning: 'SOURCE', scan, sources: [], output: { kind: 'SINGLE' }, sql: stages.leafSql, columns: stages.partialColumns };
    const root: PlanFragment = { id: 0, partitioning: 'SINGLE', sources: [{ fragmentId: 1, table: exchangeTableOf(1) }], output: { kind: 'SINGLE' }, sql: stages.rootSql, columns: [] };
    return { fragments: [root, leaf], choices: ONE_SPLIT_CHOICES, tables: [table] };
  }
  // A scan, filter and projection: one SOURCE fragment over the table's splits is the branch.
  let scans = !spec.select.distinct && !spec.groupBy && !spec.having && !callsAggregate(spec.select) && spec.windows.length === 0;
  walk(query, (n) => { if (NOT_A_SCAN.has(n.type)) scans = false; });
  if (!scans) return undefined;
  return { fragments: [{ id: 0, partitioning: 'SOURCE', scan, sources: [], output: { kind: 'SINGLE' }, sql: formatSql(query), columns: [] }], choices: ONE_SPLIT_CHOICES, tables: [table] };
}

/** The tables a branch reads when every one is in the metadata (a SINGLE fragment reads it whole), else undefined. */
function wholeTables(query: Query, session: PlannerSession, metadata: PlannerMetadata): ScannedTable[] | undefined {
  const tables: ScannedTable[] = [];
  let outside = false;
  walk(query, (n) => {
    if (n.type !== 'Table') return;
    const parts = partsOf(n.name);
    const r = resolveTable(parts, session);
    if (parts.length > 3 || r.catalog === undefined || r.schema === undefined || r.table.includes('$') || n.queryPeriod) {
      outside = true;
      return;
    }
    const table = { catalog: r.catalog, schema: r.schema, table: r.table };
    if (!metadata.table(table)) outside = true;
    else if (!tables.some((t) => sameTable(t, table))) tables.push(table);
  });
  return outside || namesHidden(query) ? undefined : tables;
}

/** The SINGLE plan of a branch read whole by one task. */
const SINGLE_CHOICES: PlanChoices = { order: [], joins: [], split: [false] };

/** A branch's plan: with `given`, the one that kind and those choices give, else the planners' own. */
function planBranch(query: Query, session: PlannerSession, metadata: PlannerMetadata, given?: BranchChoices): (BranchPlan & { kind: BranchKind }) | undefined {
  const kind = given?.kind;
  // A branch over one table's splits, or read whole, has but one set of choices.
  if ((kind === 'fixed' && !oneSplit(given!.choices)) || (kind === 'single' && !isDeepStrictEqual(given!.choices, SINGLE_CHOICES))) return undefined;
  const fixed = kind === undefined || kind === 'fixed' ? fixedBranch(query, session, metadata, kind === 'fixed') : undefined;
  if (fixed) return { ...fixed, kind: 'fixed' };
  const join = kind === undefined || kind === 'join' ? planDistributed(query, session, metadata, given?.choices) : undefined;
  // A branch reading a held table (held-relations.ts) is gathered, as before the join planner took one.
  if (join && join.choices.held === undefined) return { ...join, kind: 'join' };
  const gathered = kind === undefined || kind === 'gathered' ? planGathered(query, session, metadata, given?.choices) : undefined;
  if (gathered) return { ...gathered, kind: 'gathered' };
  const tables = kind === undefined || kind === 'single' ? wholeTables(query, session, metadata) : undefined;
  if (!tables) return undefined;
  return { fragments: [{ id: 0, partitioning: 'SINGLE', sources: [], output: { kind: 'SINGLE' }, sql: formatSql(query), columns: [] }], choices: SINGLE_CHOICES, tables, kind: 'single' };
}

/**
 * The branches' choices a worker is given, or undefined when `given` is no union's of `count` branches:
 * the union's own lists are empty, its branches listed one by one.
 */
function branchChoices(given: PlanChoices, count: number): readonly BranchChoices[] | undefined {
  const own = given.order.length + given.joins.length + given.split.length + (given.semis ?? []).length + (given.correlated ?? []).length + (given.derived ?? []).length;
  return own === 0 && given.branches?.length === count ? given.branches : undefined;
}

/** Whether choices fit a task request: each list and the count of choices (sub-plans, branches) at most MAX_WIRE (task-request.ts). */
function fitsWire(choices: PlanChoices): boolean {
  let count = 0;
  const fits = (c: PlanChoices): boolean => {
    count++;
    const lists = [c.order, c.joins, c.split, c.semis ?? [], c.correlated ?? [], c.derived ?? [], c.branches ?? []];
    return count <= MAX_WIRE && lists.every((l) => l.length <= MAX_WIRE) && (c.derived ?? []).every(fits) && (c.branches ?? []).every((b) => fits(b.choices));
  };
  return fits(choices);
}

/** `sql` with each exchange table f{n} named f{ids(n)}. */
function renumbered(sql: string, ids: (n: number) => number): string {
  return formatSql(mapTree(parseStatement(sql), (n) => {
    if (n.type !== 'Table') return undefined;
    const parts = partsOf(n.name);
    if (parts.length !== 3 || parts[0] !== EXCHANGE_CATALOG || parts[1] !== EXCHANGE_SCHEMA || !/^f\d+$/.test(parts[2]!)) return undefined;
    return tableNode(exchangeTableOf(ids(Number(parts[2]!.slice(1)))), n);
  }));
}

/** The name a select item gives its column (an alias, a column's name), or undefined for an unnamed one. */
function columnName(item: Extract<SelectItem, { type: 'SingleColumn' }>): Identifier | undefined {
  if (item.alias) return item.alias;
  if (item.expression.type === 'Identifier') return item.expression;
  if (item.expression.type === 'DereferenceExpression') return item.expression.field;
  return undefined;
}

/**
 * ` ORDER BY ... LIMIT n` (or ` LIMIT n`) over a branch's output columns when the query limits its rows
 * and each sort key is an output column (by ordinal or name), as Trino pushes a partial TopN (or LIMIT)
 * through a union's sources: the first n rows of the union are among the first n of its branches.
 */
function partialTopN(query: Query, names: readonly (Identifier | undefined)[]): string {
  if (query.limit?.type !== 'Limit' || query.limit.rowCount.type !== 'LongLiteral') return '';
  const keys: string[] = [];
  for (const s of query.orderBy?.sortItems ?? []) {
    const key = s.sortKey;
    const at = key.type === 'LongLiteral' ? Number(key.value) - 1 : key.type === 'Identifier' ? names.findIndex((n) => n && fold(n.value) === fold(key.value)) : -1;
    if (at < 0 || at >= names.length) return '';
    keys.push([unionName(at), s.ordering ?? '', s.nullOrdering ? `NULLS ${s.nullOrdering}` : ''].filter((t) => t !== '').join(' '));
  }
  return `${keys.length > 0 ? ` ORDER BY ${keys.join(', ')}` : ''} LIMIT ${query.limit.rowCount.value}`;
}

/** The union's plan, or undefined when the query is no UNION of query specifications this room takes. */
export function planUnion(statement: Statement, session: PlannerSession, metadata: PlannerMetadata, given?: PlanChoices): DistributedPlan | undefined {
  if (statement.type !== 'Query' || statement.with || statement.offset) return undefined;
  const { body } = statement;
  if ((body.type !== 'Union' && body.type !== 'Intersect' && body.type !== 'Except') || (statement.limit && statement.limit.type !== 'Limit')) return undefined;
  const leaves: { spec: QuerySpecification; distinct: boolean }[] = [];
  if (!setBranches(body, body.distinct, leaves)) return undefined;
  // A branch's `*` is its table's columns (expandedStar), so each branch's width is known.
  const expanded = leaves.map((l) => expandedStar(l.spec, session, metadata));
  if (expanded.some((e) => !e)) return undefined;
  const specs = expanded as QuerySpecification[];
  let refused = false;
  walk(statement, (n) => { if (REFUSED.has(n.type)) refused = true; });
  const width = specs[0]!.select.selectItems.length;
  if (refused || specs.some((s) => s.select.selectItems.length !== width)) return undefined;
  const queries: Query[] = specs.map((body) => ({ type: 'Query', location: body.location, with: undefined, body, orderBy: undefined, offset: undefined, limit: undefined }));

  const pieces = given ? branchChoices(given, queries.length) : undefined;
  if (given && !pieces) return undefined;
  const branches = queries.map((q, i) => planBranch(q, session, metadata, pieces?.[i]));
  if (branches.some((b) => !b)) return undefined;
  const plans = branches as (BranchPlan & { kind: BranchKind })[];
  // Splitting pays only when some branch reads splits.
  if (plans.every((p) => p.kind === 'single')) return undefined;

  // Ids: the root 0, each branch's root 1..k, then the branches' other fragments in order.
  const columns = Array.from({ length: width }, (_, i) => unionName(i));
  const names = (specs[0]!.select.selectItems as Extract<SelectItem, { type: 'SingleColumn' }>[]).map(columnName);
  const topN = unionsOnly(body) ? partialTopN(statement, names) : '';
  let next = plans.length + 1;
  const fragments: PlanFragment[] = [];
  const roots: PlanFragment[] = [];
  for (const [b, plan] of plans.entries()) {
    const ids = new Map<number, number>([[0, b + 1]]);
    for (const f of plan.fragments) if (f.id !== 0) ids.set(f.id, next++);
    const id = (n: number) => ids.get(n)!;
    for (const f of plan.fragments) {
      let sql = renumbered(f.sql, id);
      const isRoot = f.id === 0;
      // The branch's output columns are vivace_u{i} (the root reads them so), its rows distinct under a DISTINCT operation.
      if (isRoot) sql = `SELECT ${leaves[b]!.distinct ? 'DISTINCT ' : ''}* FROM (${sql}) AS vivace_b(${columns.join(', ')})${topN}`;
      const fragment: PlanFragment = {
        ...f,
        id: id(f.id),
        sources: f.sources.map((s) => ({ fragmentId: id(s.fragmentId), table: exchangeTableOf(id(s.fragmentId)) })),
        ...(isRoot ? { output: { kind: 'SINGLE' as const }, columns } : {}),
        sql,
      };
      (isRoot ? roots : fragments).push(fragment);
    }
  }

  // The root: the query with each branch reading its exchange table, the first naming the union's columns.
  const branchOf = new Map<Node, number>(leaves.map((l, i) => [l.spec, i]));
  const rootTree = mapTree(statement, (n) => {
    const b = branchOf.get(n);
    if (b === undefined) return undefined;
    const select = columns.map((c, i) => `${c}${names[i] ? ` AS ${formatSql(names[i]!)}` : ''}`).join(', ');
    const from = exchangeTableOf(b + 1);
    return ((parseStatement(`SELECT ${select} FROM ${from.catalog}.${from.schema}.${from.table}`) as Query).body as QuerySpecification);
  });
  const root: PlanFragment = {
    id: 0, partitioning: 'SINGLE', sources: roots.map((r) => ({ fragmentId: r.id, table: exchangeTableOf(r.id) })), output: { kind: 'SINGLE' }, sql: formatSql(rootTree), columns: [],
  };
  const tables: ScannedTable[] = [];
  for (const t of plans.flatMap((p) => p.tables)) if (!tables.some((x) => sameTable(x, t))) tables.push(t);
  const choices: PlanChoices = { order: [], joins: [], split: [], branches: plans.map((p) => ({ kind: p.kind, choices: p.choices })) };
  const all = [root, ...roots, ...fragments];
  // A task request names at most 256 fragments and choices (task-protocol.ts MAX_FRAGMENTS).
  if (all.length > MAX_WIRE || !fitsWire(choices)) return undefined;
  return { fragments: all, choices, tables };
}

