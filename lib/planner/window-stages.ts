// A query over one table that splits whose window functions all partition their rows (Trino's window
// over a REPARTITION exchange on the PARTITION BY keys): the scan fragment (SOURCE) reads the table's
// splits with the query's WHERE and only the columns the query names, its rows hashed on the partition
// keys the windows share; a HASH fragment runs the query's select list (windows and all) over its bucket,
// which holds every row of each of its partitions, with a partial TopN under ORDER BY ... LIMIT; the root
// gathers the buckets' rows and applies ORDER BY and LIMIT. Rows keep the table's column names (and the
// table's alias) from scan to bucket, so the select list reads in the bucket as it reads over the table.
// Under GROUP BY the rows are hashed on the shared partition keys that are group keys too, so each
// bucket holds its groups whole: the leaves compute partial aggregates when the aggregation splits as one
// table's does (aggregate-stages.ts; partialGroups), else they hand on the rows and the bucket groups them;
// either way the bucket finishes its groups before its windows. What does not fit (a window without
// PARTITION BY, windows with no key in common, or none among the group keys, named windows, a global
// aggregation, grouping sets, DISTINCT, a `*` over no one table, subqueries other than window-scalars.ts's
// stand-alone ones in an ungrouped select list, several tables) is undefined here.
import {
  formatSql, mapTree, parseStatement, walk,
  type Expression, type Identifier, type Node, type Query, type QuerySpecification, type Relation, type SelectItem, type SortItem, type Statement, type Table,
} from '../sql/index.js';
import { isExpression, quoteIdentifier } from '../sql/sql-formatter.js';
import { fold, partsOf } from '../sql/names.js';
import { lookupFunctions } from '../sql/function-catalog.js';
import { relationsOf } from './column-resolution.js';
import { replaceTable, tableNode, tableText } from './plan-trees.js';
import { GROUP_KEY_PREFIX, PARTIALS_TABLE, planStages } from './aggregate-stages.js';
import type { ScannedTable } from '../connectors/connector.types.js';
import { exchangeTableOf, type DistributedPlan, type PlanChoices, type PlanFragment } from './fragment.types.js';
import type { PlannerMetadata, PlannerSession } from './planner.types.js';
import { windowScalars, withScalarValues } from './window-scalars.js';

/** Nodes that make a query more than one table's scan, filter and windows. */
const REFUSED: ReadonlySet<string> = new Set([
  'SubqueryExpression', 'TableSubquery', 'ExistsPredicate', 'Join', 'Unnest', 'Lateral', 'TableFunctionInvocation', 'Parameter',
  'GroupingOperation', 'AllColumns', 'QuantifiedComparisonExpression', 'With', 'Values', 'Union', 'Intersect', 'Except', 'Offset', 'FetchFirst',
]);

/** The choices of a plan over one relation read over its splits (a worker is given them back). */
export const ONE_SPLIT_CHOICES: PlanChoices = { order: [], joins: [], split: [true] };

/** Whether `given` is ONE_SPLIT_CHOICES (a worker's copy of the coordinator's). */
export const oneSplit = (given: PlanChoices): boolean =>
  given.order.length === 0 && given.joins.length === 0 && given.split.length === 1 && given.split[0] === true && (given.semis ?? []).length === 0
  && (given.correlated ?? []).length === 0 && (given.derived ?? []).length === 0 && given.branches === undefined;

const outputName = (i: number) => `vivace_o${i}`;
const sortName = (j: number) => `vivace_s${j}`;
const keyName = (i: number) => `vivace_p${i}`;

/** The one table of a FROM (maybe aliased, without column aliases), with the name its columns are qualified by. */
function singleTable(from: Relation | undefined): { node: Table; alias?: Identifier } | undefined {
  if (from?.type === 'Table') return { node: from };
  if (from?.type === 'AliasedRelation' && !from.columnNames && from.relation.type === 'Table') return { node: from.relation, alias: from.alias };
  return undefined;
}

/**
 * `spec` with each `*` (or `t.*` of its one table) as that table's columns in order, as the one task
 * names them (the layout's columns are what `*` reads, gather-planner.ts too); undefined when a `*`
 * cannot be so read (several tables, column aliases, a table outside the metadata). `spec` itself when it has none.
 */
export function expandedStar(spec: QuerySpecification, session: PlannerSession, metadata: PlannerMetadata): QuerySpecification | undefined {
  if (!spec.select.selectItems.some((i) => i.type === 'AllColumns')) return spec;
  const from = singleTable(spec.from);
  const layout = from && relationsOf([from], session, metadata)?.[0]?.layout;
  if (!from || !layout) return undefined;
  const qualifier = from.alias ? fold(from.alias.value) : partsOf(from.node.name).at(-1)!;
  const selectItems: SelectItem[] = [];
  for (const item of spec.select.selectItems) {
    if (item.type === 'SingleColumn') {
      selectItems.push(item);
      continue;
    }
    if (item.aliases.length > 0 || (item.target && !(item.target.type === 'Identifier' && fold(item.target.value) === qualifier))) return undefined;
    for (const c of layout.columns) {
      selectItems.push({ type: 'SingleColumn', location: item.location, alias: undefined, expression: { type: 'Identifier', value: c.name, quoted: true, location: item.location } });
    }
  }
  return { ...spec, select: { ...spec.select, selectItems } };
}

/** Whether a call aggregates without OVER (a global aggregation the windows would run over). */
const aggregatesAlone = (n: Node): boolean =>
  n.type === 'FunctionCall' && !n.window && lookupFunctions(n.name.parts[n.name.parts.length - 1]!.value).some((f) => f.kind === 'aggregate');

/**
 * The partition keys every window of `nodes` has (by text, in the first window's order), or undefined
 * when there is no window, a window names another (OVER w, or w's base), or the windows share no key.
 */
function sharedPartitionKeys(nodes: readonly Node[], textOf: (e: Expression) => string): Expression[] | undefined {
  let shared: Expression[] | undefined;
  let refused = false;
  for (const root of nodes) {
    walk(root, (n) => {
      if (n.type !== 'FunctionCall' || !n.window) return;
      const w = n.window;
      if (w.type !== 'WindowSpecification' || w.existingWindowName || w.partitionBy.length === 0) {
        refused = true;
        return;
      }
      const texts = new Set(w.partitionBy.map(textOf));
      shared = (shared ?? [...w.partitionBy]).filter((e) => texts.has(textOf(e)));
    });
  }
  if (refused || !shared || shared.length === 0) return undefined;
  return [...new Map(shared.map((e) => [textOf(e), e])).values()];
}

/** A select item's or sort key's name in the output, when it has one the ORDER BY may name. */
const itemName = (item: Extract<SelectItem, { type: 'SingleColumn' }>): string | undefined =>
  item.alias ? fold(item.alias.value) : item.expression.type === 'Identifier' ? fold(item.expression.value) : undefined;

/**
 * The windowed plan of `statement`, or undefined when it is no such query. `given`: the coordinator's
 * choices (a worker), which must be ONE_SPLIT_CHOICES.
 */
export function planWindowed(statement: Statement, session: PlannerSession, metadata: PlannerMetadata, given?: PlanChoices): DistributedPlan | undefined {
  if (statement.type !== 'Query' || statement.with || statement.offset || (statement.limit && statement.limit.type !== 'Limit')) return undefined;
  if (given && !oneSplit(given)) return undefined;
  if (statement.body.type !== 'QuerySpecification') return undefined;
  const expanded = expandedStar(statement.body, session, metadata);
  if (!expanded) return undefined;
  // Stand-alone scalar subqueries in the select list, each in stages of its own, its row broadcast to the buckets (window-scalars.ts).
  const scalars = expanded.groupBy ? undefined : windowScalars(expanded, session, metadata, given);
  const spec = scalars?.spec ?? expanded;
  const query: Query = { ...statement, body: spec };
  if (spec.select.distinct || spec.windows.length > 0) return undefined;
  const grouping = spec.groupBy?.groupingElements ?? [];
  if (spec.groupBy?.distinct || grouping.some((g) => g.type !== 'SimpleGroupBy')) return undefined;
  const from = singleTable(spec.from);
  if (!from) return undefined;
  let refused = false;
  const named = new Set<string>();
  const functionNames = new Set<Node>();
  /** Visits a tree: refuses what this plan does not take, and collects the names it may read columns by. */
  const visit = (n: Node): boolean | undefined => {
    if (REFUSED.has(n.type) || (!spec.groupBy && aggregatesAlone(n))) refused = true;
    // A function's name is no column (row_number() is no reference to tpch's hidden row_number).
    if (n.type === 'FunctionCall') functionNames.add(n.name);
    if (functionNames.has(n)) return false;
    // A name of three parts or more (catalog.schema.table.column) is not read as the alias's column.
    if (n.type === 'DereferenceExpression' && n.base.type !== 'Identifier') refused = true;
    if (n.type === 'Identifier') {
      const name = fold(n.value);
      if (name.startsWith('$') || name === 'row_number') refused = true;
      named.add(name);
    }
    return undefined;
  };
  // The WHERE runs in the scan: the columns only it reads stay there.
  if (spec.where) walk(spec.where, visit);
  named.clear();
  for (const tree of [spec.select, spec.groupBy, spec.having, query.orderBy]) if (tree) walk(tree, visit);
  if (refused) return undefined;
  const items = spec.select.selectItems as readonly Extract<SelectItem, { type: 'SingleColumn' }>[];
  const qualifier = from.alias ? fold(from.alias.value) : partsOf(from.node.name).at(-1)!;
  /** The column a key is (c, or q.c), else undefined. */
  const columnOf = (key: Expression): string | undefined => (key.type === 'Identifier' ? fold(key.value)
    : key.type === 'DereferenceExpression' && key.base.type === 'Identifier' && fold(key.base.value) === qualifier ? fold(key.field.value) : undefined);
  const textOf = (e: Expression) => columnOf(e) ?? formatSql(e);
  const shared = sharedPartitionKeys([...items, ...(query.orderBy ? [query.orderBy] : [])], textOf);
  // Grouped, the rows are hashed on partition keys that are group keys too: a group's rows, and a
  // window's partition of groups, are then each in one bucket, which aggregates them and runs the windows.
  const groupKeys = new Set(grouping.flatMap((g) => (g.type === 'SimpleGroupBy' ? g.expressions : [])).map((e) => {
    const item = e.type === 'LongLiteral' ? items[Number(e.value) - 1] : undefined;
    return textOf(item ? item.expression : e);
  }));
  const keys = spec.groupBy ? shared?.filter((k) => groupKeys.has(textOf(k))) : shared;
  if (!keys || keys.length === 0) return undefined;
  const relations = relationsOf([from], session, metadata);
  const relation = relations?.[0];
  if (!relation || (given === undefined && !relation.layout.splits)) return undefined;

  // The scan: the named columns (a superset), and each partition key that is no plain column computed.
  const kept = relation.layout.columns.filter((c) => named.has(c.name)).map((c) => c.name);
  const columns = kept.length > 0 ? kept : [relation.layout.columns[0]!.name];
  const hashKeys: string[] = [];
  const computed: string[] = [];
  for (const key of keys) {
    const column = columnOf(key);
    if (column !== undefined && columns.includes(column)) {
      hashKeys.push(column);
    } else {
      hashKeys.push(keyName(computed.length));
      computed.push(`${formatSql(key)} AS ${keyName(computed.length)}`);
    }
  }
  const alias = quoteIdentifier(qualifier);
  const scanSql = `SELECT ${[...columns.map(quoteIdentifier), ...computed].join(', ')} FROM ${tableText(relation.table)} AS ${alias}${spec.where ? ` WHERE ${formatSql(spec.where)}` : ''}`;
  const groupText = grouping.flatMap((g) => (g.type === 'SimpleGroupBy' ? g.expressions : [])).map((e) => formatSql(e)).join(', ');
  const scanExchange = exchangeTableOf(2);
  // The bucket reads the scanned rows (and groups them itself), or, when the aggregation splits, the
  // final aggregation of the leaves' partials (partialGroups): then each expression reads the groups' columns.
  const grouped = spec.groupBy ? partialGroups(query, spec, items, keys, textOf, relation.table, session) : undefined;
  const rewrite = grouped?.rewrite ?? ((e: Expression) => e);
  const bucketFrom = grouped ? grouped.from : `${tableText(scanExchange)} AS ${alias}`;
  const clauses = grouped ? grouped.clauses : `${spec.groupBy ? ` GROUP BY ${groupText}` : ''}${spec.having ? ` HAVING ${formatSql(spec.having)}` : ''}`;

  // The bucket: the select list over the scanned rows, each output named vivace_o{i}, each sort key that
  // is no output computed as vivace_s{j}; the root reads those names.
  const outputs = items.map((item, i) => `${formatSql(scalars ? withScalarValues(item.expression, scalars, 3) : rewrite(item.expression))} AS ${outputName(i)}`);
  const names = items.map(itemName);
  const extra: string[] = [];
  const rootSort: string[] = [];
  /** The output column a sort key names (an ordinal, an output's name), -1 for none, undefined past the list. */
  const outputOf = (key: Expression): number | undefined => {
    const at = key.type === 'LongLiteral' ? Number(key.value) - 1 : key.type === 'Identifier' ? names.indexOf(fold(key.value)) : -1;
    return at < items.length ? at : undefined;
  };
  for (const s of query.orderBy?.sortItems ?? []) {
    const key = s.sortKey;
    const column = outputOf(key);
    if (column === undefined) return undefined;
    let name: string;
    if (column >= 0) {
      name = outputName(column);
    } else {
      // An expression over output names is the root's business: read it so only when it names none.
      let namesOutput = false;
      walk(key, (n) => {
        if (n.type !== 'Identifier') return;
        const name = fold(n.value);
        const item = items[names.indexOf(name)];
        if (item && !(item.expression.type === 'Identifier' && fold(item.expression.value) === name)) namesOutput = true;
      });
      if (namesOutput || key.type === 'LongLiteral') return undefined;
      name = sortName(extra.length);
      extra.push(`${formatSql(rewrite(key))} AS ${name}`);
    }
    rootSort.push(sortText(name, s));
  }
  const bucketColumns = [...items.map((_, i) => outputName(i)), ...extra.map((_, j) => sortName(j))];
  const bucketInner = `SELECT ${[...outputs, ...extra].join(', ')} FROM ${bucketFrom}${clauses}`;
  if (grouped?.failed()) return undefined;
  const limit = query.limit?.type === 'Limit' && query.limit.rowCount.type === 'LongLiteral' ? ` LIMIT ${query.limit.rowCount.value}` : query.limit ? undefined : '';
  if (limit === undefined) return undefined;
  const orderText = rootSort.length > 0 ? ` ORDER BY ${rootSort.join(', ')}` : '';
  // Under a LIMIT each bucket keeps its first rows in the query's order (Trino's partial TopN).
  const bucketSql = limit ? `SELECT ${bucketColumns.join(', ')} FROM (${bucketInner}) AS vivace_w${orderText}${limit}` : bucketInner;
  const rootSql = `SELECT ${items.map((_, i) => outputName(i)).join(', ')} FROM ${tableText(exchangeTableOf(1))}${orderText}${limit}`;

  const scan: PlanFragment = {
    id: 2, partitioning: 'SOURCE',
    scan: { table: relation.table, ...(spec.where ? { where: spec.where } : {}) },
    sources: [], output: { kind: 'HASH', keys: grouped?.hashKeys ?? hashKeys }, sql: grouped?.leafSql ?? scanSql, columns: grouped?.leafColumns ?? [...columns, ...computed.map((_, i) => keyName(i))],
  };
  const bucket: PlanFragment = {
    id: 1, partitioning: 'HASH', sources: [{ fragmentId: 2, table: scanExchange }, ...(scalars?.sources(3) ?? [])], output: { kind: 'SINGLE' }, sql: bucketSql, columns: bucketColumns,
  };
  const root: PlanFragment = { id: 0, partitioning: 'SINGLE', sources: [{ fragmentId: 1, table: exchangeTableOf(1) }], output: { kind: 'SINGLE' }, sql: rootSql, columns: [] };
  return { fragments: [root, bucket, scan, ...(scalars?.fragments(3) ?? [])], choices: ONE_SPLIT_CHOICES, tables: [relation.table, ...(scalars?.tables ?? [])] };
}

/** The columns of the groups the final aggregation gives a bucket: the group keys, then the aggregates. */
const coreName = (i: number) => `vivace_c${i}`;

/**
 * The grouped query's aggregation split as one table's is (aggregate-stages.ts): the leaf (over the scan's
 * splits) computes partials per group, hashed on the group keys that are the windows' partition keys, and
 * the bucket finishes each of its groups (the final aggregation over its partials) before the windows,
 * reading each group key and aggregate as a column vivace_c{i} of the groups; HAVING filters the groups.
 * Undefined when the aggregation does not split so; `failed` says whether some expression still read a
 * column of the table (no group key as written) after `rewrite`.
 */
function partialGroups(query: Query, spec: QuerySpecification, items: readonly Extract<SelectItem, { type: 'SingleColumn' }>[], keys: readonly Expression[], textOf: (e: Expression) => string, table: ScannedTable, session: PlannerSession) {
  const groups: Expression[] = [];
  for (const g of spec.groupBy!.groupingElements) {
    for (const e of g.type === 'SimpleGroupBy' ? g.expressions : []) {
      const item = e.type === 'LongLiteral' ? items[Number(e.value) - 1] : undefined;
      const expression = item ? item.expression : e;
      if (!groups.some((x) => formatSql(x) === formatSql(expression))) groups.push(expression);
    }
  }
  const aggregates: Expression[] = [];
  for (const tree of [...items.map((i) => i.expression), ...(spec.having ? [spec.having] : []), ...(query.orderBy?.sortItems ?? []).map((x) => x.sortKey)]) {
    walk(tree, (n) => {
      if (aggregatesAlone(n) && !aggregates.some((a) => formatSql(a) === formatSql(n as Expression))) aggregates.push(n as Expression);
    });
  }
  const core = `SELECT ${[...groups, ...aggregates].map((e) => formatSql(e)).join(', ')} FROM ${formatSql(spec.from!)}${spec.where ? ` WHERE ${formatSql(spec.where)}` : ''} GROUP BY ${groups.map((e) => formatSql(e)).join(', ')}`;
  const stages = planStages(parseStatement(core), session, new Set([table.catalog]));
  if (!stages) return undefined;
  // planStages keys the groups in their order (its texts are these, once each): vivace_g{i} is groups[i].
  const keyAt = keys.map((k) => groups.findIndex((g) => textOf(g) === textOf(k)));
  if (keyAt.some((i) => i < 0)) return undefined;
  const hashKeys = keyAt.map((i) => `${GROUP_KEY_PREFIX}${i}`);
  const width = groups.length + aggregates.length;
  const finalSql = formatSql(replaceTable(parseStatement(stages.rootSql), PARTIALS_TABLE, (at) => tableNode(exchangeTableOf(2), at)));
  const groupTexts = groups.map(textOf);
  const aggregateTexts = aggregates.map((a) => formatSql(a));
  let failed = false;
  const rewrite = (e: Expression): Expression => {
    const functionNames = new Set<Node>();
    const out = mapTree(e, (n) => {
      if (n.type === 'QualifiedName' || n.type === 'WindowReference') return n;
      if (n.type === 'FunctionCall') functionNames.add(n.name);
      if (!isExpression(n)) return undefined;
      const a = aggregatesAlone(n) ? aggregateTexts.indexOf(formatSql(n)) : -1;
      const g = a < 0 ? groupTexts.indexOf(textOf(n)) : -1;
      const at = a >= 0 ? groups.length + a : g;
      return at >= 0 ? { type: 'Identifier', value: coreName(at), quoted: false, location: n.location } : undefined;
    });
    walk(out, (n) => {
      if (n.type === 'FunctionCall') functionNames.add(n.name);
      if (functionNames.has(n)) return false;
      if (n.type === 'Identifier' && !/^vivace_c\d+$/.test(n.value)) failed = true;
      return undefined;
    });
    return out;
  };
  return {
    leafSql: stages.leafSql,
    leafColumns: stages.partialColumns,
    hashKeys,
    from: `(${finalSql}) AS vivace_core(${Array.from({ length: width }, (_, i) => coreName(i)).join(', ')})`,
    clauses: spec.having ? ` WHERE ${formatSql(rewrite(spec.having))}` : '',
    rewrite,
    failed: () => failed,
  };
}

/** A sort item over a column name, with its ordering. */
function sortText(name: string, sort: SortItem): string {
  return [name, sort.ordering ?? '', sort.nullOrdering ? `NULLS ${sort.nullOrdering}` : ''].filter((s) => s !== '').join(' ');
}

