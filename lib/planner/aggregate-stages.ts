// Splits a query over one table of a catalog whose connector cuts scans into two stages, on its tree:
// the leaf (stage 1) scans a table's splits with the query's WHERE and computes partial aggregates
// grouped by the query's keys; the root (stage 0) combines the partials (count and sum by sum, min by
// min, max by max, avg as sum / count, count_if by sum, bool_and/every, bool_or, arbitrary and any_value
// by themselves, max_by/min_by by the value at the best partial key) and applies HAVING, ORDER BY and LIMIT. count(DISTINCT x) and approx_distinct(x) make x one more leaf key
// (the leaf emits each (keys, x) once) and the root counts x, as Trino's partial aggregation over
// distinct values does; all of them must count the same x. Only what decomposes exactly is planned so:
// one table, no join, subquery, window, other DISTINCT aggregate, OFFSET or parameter (grouping sets and grouping(): grouping-sets.ts);
// anything else is undefined here (windows over one table are window-stages.ts's; joins, subqueries and
// set operations the other planners', which reuse these stages over joined rows or a branch). Both stages are printed from trees (sql-formatter.ts) and parsed again, so each is a
// plain Trino query the DuckDB printer translates like any other.
import {
  childrenOf, formatSql, mapTree, parseExpression, parseStatement, walk,
  type Expression, type FunctionCall, type Node, type Query, type QuerySpecification, type Relation, type SortItem, type Statement,
} from '../sql/index.js';
import { fold, partsOf } from '../sql/names.js';
import { resolveTable } from '../sql/statement-gate.js';
import type { Session } from '../protocol/types.js';
import { exchangeTableOf } from '../planner/fragment.types.js';
import { distinctSets, GROUP_ID, groupingName, hasGroupingSets, rootGroupBy, setExpressions } from './grouping-sets.js';

/** The table the root reads the leaves' partial rows from: fragment 1's exchange table (distributed-plan.ts). */
export const PARTIALS_TABLE = exchangeTableOf(1);

/** The catalogs whose connector splits a scan of their tables (Connectors.splittable). */
export type StageCatalogs = ReadonlySet<string>;

export interface StagePlan {
  /** The table the leaf scans (lower case), of a catalog whose connector splits it. */
  table: { catalog: string; schema: string; table: string };
  /** Trino SQL of the leaf: the table's rows filtered, grouped by the keys, partial aggregates. */
  leafSql: string;
  /** Trino SQL of the root over PARTIALS_TABLE. */
  rootSql: string;
  /**
   * Columns of the partial rows, in order: the keys g0..., by group ids the set's id and each grouping()
   * (grouping-sets.ts), the distinct aggregates' argument d0 if any, then the partial aggregates a0...
   */
  partialColumns: string[];
  /** The query's WHERE on the scanned table (a connector prunes its splits by it). */
  where?: Expression;
  /**
   * Planned by finest groups though its grouping sets are all different: the join planner's group ids
   * would finish them in a HASH stage (grouping-sets.ts; distributed-plan.ts asks it first).
   */
  setIds?: true;
}

const AGGREGATES: ReadonlySet<string> = new Set([
  'count', 'sum', 'min', 'max', 'avg', 'approx_distinct', 'bool_and', 'every', 'bool_or', 'arbitrary', 'any_value', 'count_if', 'max_by', 'min_by',
]);
/**
 * The aggregates whose final step is the same aggregate over the partials (Trino's combine function over
 * one state: BooleanAndAggregation's TriStateBooleanState, ArbitraryAggregationFunction's first value),
 * by name: bool_and (every is its alias), bool_or, arbitrary and any_value. min and max too.
 */
const SELF_COMBINED: Readonly<Record<string, string>> = {
  min: 'min', max: 'max', sum: 'sum', bool_and: 'bool_and', every: 'bool_and', bool_or: 'bool_or', arbitrary: 'arbitrary', any_value: 'any_value',
};
/** Nodes that make a query more than one table's scan, filter and aggregation. */
const REFUSED: ReadonlySet<string> = new Set([
  'SubqueryExpression', 'TableSubquery', 'ExistsPredicate', 'Join', 'Unnest', 'Lateral', 'TableFunctionInvocation',
  'Parameter', 'LambdaExpression', 'GroupingOperation', 'AllColumns', 'WindowDefinition',
  'QuantifiedComparisonExpression', 'With', 'Values', 'Union', 'Intersect', 'Except', 'Offset', 'FetchFirst',
]);

/** The leaf's grouping key columns are named vivace_g{i}. */
export const GROUP_KEY_PREFIX = 'vivace_g';
const keyName = (i: number) => `${GROUP_KEY_PREFIX}${i}`;
const partialName = (i: number) => `vivace_a${i}`;
/** The leaf's column of the distinct aggregates' argument (an extra leaf key). */
const DISTINCT_NAME = 'vivace_d0';

/** A sort item's text (the formatter prints ORDER BY only whole). */
function sortText(key: Expression, sort: SortItem): string {
  return [formatSql(key), sort.ordering ?? '', sort.nullOrdering ? `NULLS ${sort.nullOrdering}` : ''].filter((s) => s !== '').join(' ');
}

/** The aggregate a call is, when it is one this planner splits; undefined for any other function. */
function aggregateOf(node: Node): { name: string; call: FunctionCall } | undefined {
  if (node.type !== 'FunctionCall' || node.name.parts.length !== 1) return undefined;
  const name = fold(node.name.parts[0]!.value);
  return AGGREGATES.has(name) ? { name, call: node } : undefined;
}

/** Whether an aggregate's arguments hold another aggregate call. */
function nestsAggregate(call: FunctionCall): boolean {
  let nested = false;
  for (const arg of call.arguments) walk(arg, (n) => { if (aggregateOf(n)) nested = true; });
  return nested;
}

/**
 * The argument of count(DISTINCT x) or approx_distinct(x), which the leaf adds to its keys (it emits the
 * distinct (keys, x)) and the root counts; undefined for any other call.
 */
function distinctArgument(call: FunctionCall, name: string): Expression | undefined {
  if (call.filter || call.orderBy || call.window || call.nullTreatment || call.arguments.length !== 1 || nestsAggregate(call)) return undefined;
  if (name === 'count' && call.distinct) return call.arguments[0];
  // approx_distinct(x, e) sets its own error; HyperLogLog over the distinct values is the same sketch.
  if (name === 'approx_distinct' && !call.distinct) return call.arguments[0];
  return undefined;
}

/** A call named like an aggregate that is not a plain one (DISTINCT, FILTER, ORDER BY, OVER, nested). */
function plainAggregate(call: FunctionCall, name: string): boolean {
  if (name === 'approx_distinct' || call.distinct || call.filter || call.orderBy || call.window || call.nullTreatment) return false;
  const arity = name === 'max_by' || name === 'min_by' ? 2 : 1;
  if (name === 'count' ? call.arguments.length > 1 : call.arguments.length !== arity) return false;
  if (nestsAggregate(call)) return false;
  // avg's type follows its argument's: double for the tpch columns (all double, bigint, integer), but
  // decimal for a decimal literal and real for a real cast, which sum / count would not give back.
  if (name === 'avg') {
    let exact = true;
    walk(call.arguments[0]!, (n) => { if (n.type === 'DecimalLiteral' || n.type === 'Cast' || n.type === 'GenericLiteral' || n.type === 'IntervalLiteral') exact = false; });
    return exact;
  }
  return true;
}

/** The one table of a stageable catalog a FROM names (maybe aliased), resolved in the session. */
export function scannedTable(from: Relation | undefined, session: Pick<Session, 'catalog' | 'schema'>, catalogs: StageCatalogs): StagePlan['table'] | undefined {
  let relation = from;
  if (relation?.type === 'AliasedRelation') {
    if (relation.columnNames) return undefined;
    relation = relation.relation;
  }
  if (relation?.type !== 'Table' || relation.queryPeriod) return undefined;
  const resolved = resolveTable(partsOf(relation.name), { catalog: session.catalog, schema: session.schema });
  if (resolved.catalog === undefined || !catalogs.has(resolved.catalog) || resolved.schema === undefined) return undefined;
  // A hidden column ($path) or a metadata table (t$partitions) is the connector's single-task business.
  if (resolved.table.includes('$')) return undefined;
  return { catalog: resolved.catalog, schema: resolved.schema, table: resolved.table };
}

/** Whether a rewritten root expression still reads a column of the table (not a key, not a partial). */
function readsTable(expression: Expression): boolean {
  let reads = false;
  const visit = (n: Node) => {
    if (reads) return;
    if (n.type === 'Identifier') {
      // vivace_u{k}: a scalar subquery's marker (scalar-values.ts), which the final reads.
      // vivace_gid, vivace_gp{j}: a grouping set's id and grouping() (grouping-sets.ts).
      if (!/^vivace_(?:[agdu]|gp)\d+$/.test(n.value) && n.value !== GROUP_ID) reads = true;
      return;
    }
    if (n.type === 'DereferenceExpression') {
      reads = true;
      return;
    }
    // Names of functions and types, and field names, are no column references.
    if (n.type === 'FunctionCall') {
      for (const arg of n.arguments) visit(arg);
      return;
    }
    if (n.type === 'Cast') {
      visit(n.expression);
      return;
    }
    for (const child of childrenOf(n)) visit(child);
  };
  visit(expression);
  return reads;
}

/** How planStages splits grouping sets: by group ids (the final may run in a HASH stage), else by finest groups. */
export interface StageOptions {
  groupIds?: boolean;
}

/** The two stages of a statement, or undefined when it does not split this way. */
export function planStages(statement: Statement, session: Pick<Session, 'catalog' | 'schema'>, catalogs: StageCatalogs, options: StageOptions = {}): StagePlan | undefined {
  if (statement.type !== 'Query' || statement.with) return undefined;
  let refused = false;
  walk(statement, (n) => {
    // grouping() only by group ids, over grouping sets (checked below).
    if (n.type === 'GroupingOperation' && options.groupIds) return;
    if (REFUSED.has(n.type) || (n.type === 'FunctionCall' && n.window) || (n.type === 'Identifier' && fold(n.value) === 'row_number')) refused = true;
    // A hidden column ($path, $partition) is no column of the rows a leaf's splits give.
    if (n.type === 'Identifier' && n.value.startsWith('$')) refused = true;
  });
  if (refused) return undefined;
  const query: Query = statement;
  if (query.body.type !== 'QuerySpecification' || (query.limit && query.limit.type !== 'Limit')) return undefined;
  const spec: QuerySpecification = query.body;
  if (spec.select.distinct || spec.windows.length > 0) return undefined;
  const table = scannedTable(spec.from, session, catalogs);
  if (!table) return undefined;
  const items = spec.select.selectItems.map((item) => (item.type === 'SingleColumn' ? item : undefined));
  if (items.some((i) => i === undefined)) return undefined;
  const columns = items as Extract<(typeof spec.select.selectItems)[number], { type: 'SingleColumn' }>[];

  // The grouping keys, an ordinal standing for its select item's expression.
  const keys: Expression[] = [];
  if (spec.groupBy) {
    if (spec.groupBy.distinct) return undefined;
    for (const element of spec.groupBy.groupingElements) {
      // A grouping set's columns are leaf keys too; the root groups by the sets (grouping-sets.ts).
      if (element.type === 'GroupingSets') {
        const expressions = setExpressions(element);
        if (!expressions) return undefined;
        keys.push(...expressions);
        continue;
      }
      for (const e of element.expressions) {
        if (e.type === 'LongLiteral') {
          const ordinal = Number(e.value);
          const item = columns[ordinal - 1];
          if (!item) return undefined;
          keys.push(item.expression);
        } else {
          keys.push(e);
        }
      }
    }
  }
  const keyTexts = keys.map((k) => formatSql(k));
  const uniqueKeys = [...new Set(keyTexts)];
  const ordinalOf = (e: Expression) => (e.type === 'LongLiteral' ? columns[Number(e.value) - 1]!.expression : e);
  // Grouping sets by group ids (grouping-sets.ts): the leaf groups by the sets, the final by the keys and the id.
  const idsFit = hasGroupingSets(spec.groupBy) && uniqueKeys.length > 0
    && distinctSets(spec.groupBy!, (e) => uniqueKeys.indexOf(formatSql(ordinalOf(e))));
  const byIds = options.groupIds === true && idsFit;
  /** Each grouping() call's text in the leaf, by its column's position. */
  const groupings: string[] = [];

  // Each distinct aggregate once, with its partial columns and the expression combining them.
  const partials: string[] = [];
  const combined = new Map<string, Expression>();
  let unsplittable = false;
  /** The one argument every distinct aggregate counts (two different ones do not split this way). */
  let distinct: string | undefined;
  const aggregateReplacement = (n: Node): Node | undefined => {
    const agg = aggregateOf(n);
    if (!agg) return undefined;
    const counted = distinctArgument(agg.call, agg.name);
    if (counted) {
      const text = formatSql(counted);
      if (distinct !== undefined && distinct !== text) unsplittable = true;
      distinct = text;
      return parseExpression(agg.name === 'count' ? `count(DISTINCT ${DISTINCT_NAME})` : `approx_distinct(${DISTINCT_NAME})`);
    }
    if (!plainAggregate(agg.call, agg.name)) {
      unsplittable = true;
      return undefined;
    }
    const text = formatSql(agg.call);
    let combine = combined.get(text);
    if (!combine) {
      const at = partials.length;
      const arg = agg.call.arguments[0];
      if (agg.name === 'avg') {
        partials.push(`sum(${formatSql(arg!)})`, `count(${formatSql(arg!)})`);
        combine = parseExpression(`CAST(sum(${partialName(at)}) AS double) / CAST(nullif(sum(${partialName(at + 1)}), 0) AS double)`);
      } else if (agg.name === 'count' || agg.name === 'count_if') {
        partials.push(text);
        // A count is never null: with no row at all the leaves' counts are 0 (a global aggregate) or absent.
        combine = parseExpression(`coalesce(CAST(sum(${partialName(at)}) AS bigint), 0)`);
      } else if (agg.name === 'max_by' || agg.name === 'min_by') {
        // Trino's state is the (key, value) pair of the best key (minmaxby/AbstractMinMaxBy.java): here the
        // leaf's max_by(x, y) and the key it was taken at, the best y among the rows max_by reads (DuckDB's
        // max_by skips a row whose x or y is NULL); the root takes the value of the best key.
        const [x, y] = agg.call.arguments.map((e) => formatSql(e));
        partials.push(text, `${agg.name === 'max_by' ? 'max' : 'min'}(CASE WHEN (${x}) IS NOT NULL THEN ${y} END)`);
        combine = parseExpression(`${agg.name}(${partialName(at)}, ${partialName(at + 1)})`);
      } else {
        partials.push(text);
        combine = parseExpression(`${SELF_COMBINED[agg.name]!}(${partialName(at)})`);
      }
      combined.set(text, combine);
    }
    return combine;
  };
  const keyReplacement = (n: Node): Node | undefined => {
    if (n.type === 'SortItem' || n.type === 'SingleColumn' || n.type === 'QualifiedName') return undefined;
    const i = uniqueKeys.indexOf(formatSql(n));
    return i < 0 ? undefined : parseExpression(keyName(i));
  };
  const groupingReplacement = (n: Node): Node | undefined => {
    if (n.type !== 'GroupingOperation') return undefined;
    if (!byIds) {
      unsplittable = true;
      return undefined;
    }
    const text = formatSql(n);
    if (!groupings.includes(text)) groupings.push(text);
    return parseExpression(groupingName(groupings.indexOf(text)));
  };
  const toRoot = (e: Expression): Expression => mapTree(e, (n) => groupingReplacement(n) ?? keyReplacement(n) ?? aggregateReplacement(n));

  const rootItems = columns.map((c) => ({ expression: toRoot(c.expression), alias: c.alias }));
  const having = spec.having && toRoot(spec.having);
  const aliases = new Set(columns.flatMap((c) => (c.alias ? [fold(c.alias.value)] : [])));
  const sortItems = (query.orderBy?.sortItems ?? []).map((s) => {
    // An ordinal, or an output alias, names a select item of the root too.
    const key = s.sortKey;
    if (key.type === 'LongLiteral' || (key.type === 'Identifier' && aliases.has(fold(key.value)))) return { sort: s, key };
    return { sort: s, key: toRoot(key) };
  });
  if (unsplittable || partials.length + uniqueKeys.length + (distinct === undefined ? 0 : 1) === 0) return undefined;
  if (partials.length === 0 && distinct === undefined && !spec.groupBy) return undefined;
  const aliasKeys = (e: Expression) => e.type === 'Identifier' && aliases.has(fold(e.value));
  if (rootItems.some((i) => readsTable(i.expression)) || (having && readsTable(having))) return undefined;
  if (sortItems.some(({ key }) => key.type !== 'LongLiteral' && !aliasKeys(key) && readsTable(key))) return undefined;

  const from = spec.from!;
  // A distinct aggregate's argument is one more leaf key: the leaf emits each (keys, x) once.
  const leafKeys = distinct === undefined ? uniqueKeys : [...uniqueKeys, distinct];
  // By group ids: each row's set as GROUPING(every key), and each grouping() call, beside the keys.
  const idColumns = byIds ? [GROUP_ID, ...groupings.map((_, i) => groupingName(i))] : [];
  const leafSelect = [
    ...uniqueKeys.map((k, i) => `${k} AS ${keyName(i)}`),
    ...(byIds ? [`GROUPING (${uniqueKeys.join(', ')}) AS ${GROUP_ID}`, ...groupings.map((g, i) => `${g} AS ${groupingName(i)}`)] : []),
    ...(distinct === undefined ? [] : [`${distinct} AS ${DISTINCT_NAME}`]),
    ...partials.map((p, i) => `${p} AS ${partialName(i)}`),
  ];
  const leafSql = [
    `SELECT ${leafSelect.join(', ')}`,
    `FROM ${formatSql(from)}`,
    spec.where ? `WHERE ${formatSql(spec.where)}` : '',
    byIds
      // A distinct aggregate's argument joins every set (a simple element first).
      ? `GROUP BY ${distinct === undefined ? '' : `${distinct}, `}${rootGroupBy(spec.groupBy!, ordinalOf, (text) => text)}`
      : leafKeys.length > 0 ? `GROUP BY ${leafKeys.join(', ')}` : '',
  ].filter((s) => s !== '').join(' ');
  const partialsName = `${PARTIALS_TABLE.catalog}.${PARTIALS_TABLE.schema}.${PARTIALS_TABLE.table}`;
  const rootSql = [
    `SELECT ${rootItems.map((i) => `${formatSql(i.expression)}${i.alias ? ` AS ${formatSql(i.alias)}` : ''}`).join(', ')}`,
    `FROM ${partialsName}`,
    byIds
      ? `GROUP BY ${[...uniqueKeys.map((_, i) => keyName(i)), ...idColumns].join(', ')}`
      : hasGroupingSets(spec.groupBy)
      ? `GROUP BY ${rootGroupBy(spec.groupBy!, ordinalOf, (text) => keyName(uniqueKeys.indexOf(text)))}`
      : uniqueKeys.length > 0 ? `GROUP BY ${uniqueKeys.map((_, i) => keyName(i)).join(', ')}` : '',
    having ? `HAVING ${formatSql(having)}` : '',
    sortItems.length > 0 ? `ORDER BY ${sortItems.map(({ sort, key }) => sortText(key, sort)).join(', ')}` : '',
    query.limit?.type === 'Limit' ? `LIMIT ${query.limit.rowCount.type === 'LongLiteral' ? query.limit.rowCount.value : 'ALL'}` : '',
  ].filter((s) => s !== '').join(' ');
  // Both stages must be queries the parser takes back (they are the printer's own text).
  parseStatement(leafSql);
  parseStatement(rootSql);
  return {
    table,
    leafSql,
    rootSql,
    partialColumns: [...uniqueKeys.map((_, i) => keyName(i)), ...idColumns, ...(distinct === undefined ? [] : [DISTINCT_NAME]), ...partials.map((_, i) => partialName(i))],
    ...(spec.where ? { where: spec.where } : {}),
    ...(idsFit && !byIds ? { setIds: true as const } : {}),
  };
}

/** Statements' stages (null: no split) by catalog, schema and text, most recently used last. */
const stagePlans = new Map<string, StagePlan | null>();
const MAX_PLANNED = 512;
/** Longer texts are planned each time rather than kept. */
const MAX_KEPT_TEXT = 8192;

/**
 * planStages of a text in a catalog and schema, kept: every statement asks the coordinator (SELECT 1
 * too) and each stage task asks its worker, and planning parses three times and prints twice (60-700 us).
 */
export function cachedStages(sql: string, session: Pick<Session, 'catalog' | 'schema'>, catalogs: StageCatalogs): StagePlan | undefined {
  const key = sql.length <= MAX_KEPT_TEXT ? `${[...catalogs].join(',')}\u0000${session.catalog ?? '\u0001'}\u0000${session.schema ?? '\u0001'}\u0000${sql}` : undefined;
  const kept = key === undefined ? undefined : stagePlans.get(key);
  if (kept !== undefined) {
    stagePlans.delete(key!);
    stagePlans.set(key!, kept);
    return kept ?? undefined;
  }
  let stages: StagePlan | undefined;
  try {
    stages = planStages(parseStatement(sql), session, catalogs);
  } catch {
    stages = undefined;
  }
  if (key !== undefined) {
    stagePlans.set(key, stages ?? null);
    if (stagePlans.size > MAX_PLANNED) stagePlans.delete(stagePlans.keys().next().value!);
  }
  return stages;
}
