// A semi-join partitioned with its probe whatever its NULL semantics: NOT IN, NOT EXISTS decorrelated
// (`x IS NULL OR x NOT IN (...)`), an IN read as more than a filter. Trino's partitioned SemiJoin replicates
// the source's NULL keys and one arbitrary row to every bucket (AddExchanges.visitSemiJoin, a
// PartitionFunctionBinding with replicateNullsAndAny), so each bucket knows whether the source is empty
// and whether it holds a NULL. Here the exchange places each row in one bucket only, so the same two
// facts come from a third input, broadcast to every bucket: the source's flags, its rows and its rows whose
// column is not NULL. For `SELECT column FROM table [WHERE ...] GROUP BY column` (no HAVING) they are
// `count(*)` and `count(column)` over the source's table and WHERE (a global aggregation in two stages over
// its splits); a source with HAVING, or whose column is an aggregate, counts its own rows instead: its two
// stages run again, each bucket of its final counting the rows it keeps, summed in one task
// (SemiFlags.counted; Trino computes the source once, here it is read twice). The bucket evaluates the
// predicate with its share of the source, which holds every source row equal to its probe rows' values
// (both hashed alike), as one task evaluates it over all of it:
//   x NOT IN (S) = CASE WHEN S is empty THEN TRUE WHEN x IS NULL THEN NULL WHEN x IN (share) THEN FALSE
//                  WHEN S holds a NULL THEN NULL ELSE TRUE END
// (x IN (share) may be NULL when the NULL key's bucket is x's: then S holds a NULL and the answer is NULL),
// and x IN (S) as its negation, so any expression reading it keeps its three-valued answer.
// A plain `x [NOT] IN (SELECT column FROM ... WHERE ...)` reads distinct values (distinctSource), which
// gives the source its two stages and a key to hash on, as Trino's semi-join reads a set.
import { formatSql, mapTree, parseExpression, walk, type Expression, type InPredicate, type Query, type SubqueryExpression } from '../sql/index.js';
import { quoteIdentifier } from '../sql/sql-formatter.js';
import type { ScannedTable } from '../connectors/connector.types.js';
import { planStages, type StagePlan } from './aggregate-stages.js';
import type { SemiSource } from './semi-joins.js';
import type { PlannerSession } from './planner.types.js';

/** The flags' columns: the source table's rows (under the source's WHERE), and those whose column is not NULL. */
export const ROWS = 'vivace_rows';
export const VALUES = 'vivace_values';

/**
 * `SELECT column FROM ... [WHERE ...]` (one column, nothing grouped, no aggregate, DISTINCT or not) as the
 * same values grouped: `... GROUP BY column`. Undefined for a query of another shape.
 */
export function distinctSource(query: Query): Query | undefined {
  if (query.with || query.orderBy || query.offset || query.limit || query.body.type !== 'QuerySpecification') return undefined;
  const spec = query.body;
  if (!spec.from || spec.groupBy || spec.having || spec.windows.length > 0 || spec.select.selectItems.length !== 1) return undefined;
  const item = spec.select.selectItems[0]!;
  if (item.type !== 'SingleColumn' || (item.expression.type !== 'Identifier' && item.expression.type !== 'DereferenceExpression')) return undefined;
  const at = item.expression;
  return {
    ...query,
    body: {
      ...spec,
      select: { ...spec.select, distinct: false },
      groupBy: { type: 'GroupBy', distinct: false, location: at.location, groupingElements: [{ type: 'SimpleGroupBy', expressions: [at], location: at.location }] },
    },
  };
}

/** The flags query of a source `SELECT column FROM ... [WHERE ...] GROUP BY column`; undefined for another shape. */
function flagsQuery(query: Query): Query | undefined {
  if (query.with || query.orderBy || query.offset || query.limit || query.body.type !== 'QuerySpecification') return undefined;
  const spec = query.body;
  const item = spec.select.selectItems[0];
  const group = spec.groupBy?.groupingElements;
  if (!spec.from || spec.having || spec.select.distinct || spec.groupBy?.distinct || spec.windows.length > 0 || spec.select.selectItems.length !== 1 || item?.type !== 'SingleColumn') return undefined;
  if (group?.length !== 1 || group[0]!.type !== 'SimpleGroupBy' || group[0]!.expressions.length !== 1 || formatSql(group[0]!.expressions[0]!) !== formatSql(item.expression)) return undefined;
  const at = item.expression;
  const counted = (alias: string, argument: Expression | undefined) => ({
    type: 'SingleColumn' as const, location: at.location, alias: { type: 'Identifier' as const, value: alias, quoted: false, location: at.location },
    expression: parseExpression(argument ? `count(${formatSql(argument)})` : 'count(*)'),
  });
  return { ...query, body: { ...spec, groupBy: undefined, select: { ...spec.select, selectItems: [counted(ROWS, undefined), counted(VALUES, at)] } } };
}

/**
 * The broadcast flags of a source: a stand-in source (its placeholder read in the bucket's SQL) and its two
 * stages. `counted`: the stages are the source's own (it has HAVING, or its column is an aggregate, so its
 * table's rows do not tell its rows): run again, each bucket of its final counting the rows it keeps, the
 * counts summed in one task (semi-stages.ts countedFlags).
 */
export interface SemiFlags {
  source: SemiSource;
  stages: StagePlan;
  counted?: true;
}

/** The placeholder of a source's flags (beside its own, semi-joins.ts placeholderOf). */
const flagsPlaceholder = (of: ScannedTable): ScannedTable => ({ ...of, table: `${of.table}_flags` });

/**
 * The conjunct `e` (over the probe's symbols, reading `source` and `symbol` alone) as its bucket reads it
 * when partitioned on `symbol`, with the flags it then needs; undefined when `e` does not read the source
 * through exactly one `symbol [NOT] IN (source)`. A source with HAVING or an aggregate counts its own rows
 * (SemiFlags.counted).
 */
export function replicatedSemi(e: Expression, symbol: string, source: SemiSource, session: PlannerSession): { expression: Expression; flags: SemiFlags } | undefined {
  const reads: InPredicate[] = [];
  let other = false;
  walk(e, (n) => {
    if (n.type === 'InPredicate' && n.valueList.type === 'SubqueryExpression') {
      if (n.value.type === 'Identifier' && n.value.value === symbol) reads.push(n);
      else other = true;
      return false;
    }
    if (n.type === 'SubqueryExpression' || n.type === 'ExistsPredicate' || n.type === 'QuantifiedComparisonExpression') other = true;
    return undefined;
  });
  if (other || reads.length !== 1 || !source.stages) return undefined;
  const query = flagsQuery(source.query);
  const stages = query && planStages(query, session, new Set([source.stages.table.catalog]));
  const placeholder = flagsPlaceholder(source.placeholder);
  const flags = [placeholder.catalog, placeholder.schema, placeholder.table].map(quoteIdentifier).join('.');
  const read = reads[0]!;
  const share = formatSql((read.valueList as SubqueryExpression).query);
  const s = quoteIdentifier(symbol);
  const [found, missing] = read.negated ? ['FALSE', 'TRUE'] : ['TRUE', 'FALSE'];
  const text = `CASE WHEN coalesce((SELECT ${ROWS} FROM ${flags}), 0) = 0 THEN ${missing} WHEN ${s} IS NULL THEN NULL WHEN ${s} IN (${share}) THEN ${found}`
    + ` WHEN coalesce((SELECT ${ROWS} - ${VALUES} FROM ${flags}), 0) > 0 THEN NULL ELSE ${missing} END`;
  const bucket = parseExpression(text);
  const expression = mapTree(e, (n) => (n === read ? bucket : undefined));
  if (!query || !stages) return { expression, flags: { source: { ...source, placeholder }, stages: source.stages, counted: true } };
  return { expression, flags: { source: { query, placeholder, tables: source.tables, splits: source.splits, stages }, stages } };
}
