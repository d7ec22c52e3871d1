// A semi-join's source that aggregates one table that splits (semi-joins.ts SemiSource.stages), in two
// stages over the table's splits: the leaf's partial rows, then the final aggregation, whose rows are
// broadcast to the fragment evaluating the predicate. Grouped, with no ORDER BY, OFFSET or LIMIT (TPC-H
// Q4's decorrelated EXISTS, Q18's IN ... GROUP BY ... HAVING), the final runs in a HASH stage on the group
// keys, hash-final.ts's bucket query (HAVING included) per bucket, as Trino's FINAL aggregation over a
// REPARTITION exchange; every consumer task reads every bucket's rows (a BROADCAST output), so a NULL key
// in any bucket is seen by every task (NOT IN's semantics). Otherwise the final runs in one SINGLE task.
// The choice follows from the stages and the query alone, so a worker makes the coordinator's.
//
// Such a source may also be partitioned with its probe, as Trino's DetermineSemiJoinDistributionType chooses
// (sql/planner/iterative/rule/DetermineSemiJoinDistributionType.java): under join_distribution_type
// PARTITIONED, or AUTOMATIC when the source may exceed join_max_broadcast_table_size. The probe's rows
// (every relation joined) are hashed on the IN's column into a HASH fragment, the source's final rows hashed
// on its one column into the same buckets, and the conjunct evaluated there. Only a WHERE conjunct that is
// `column IN (subquery)` itself is partitioned: there a NULL and a FALSE both drop the row, so a bucket that
// sees only its own share of the source (no NULL key of another bucket) answers as one task does. Trino's
// partitioned semi-join also replicates the source's NULL keys and one row to every bucket (AddExchanges
// visitSemiJoin: a PartitionFunctionBinding with replicateNullsAndAny) for NOT IN and for an IN whose
// value is read as more than a filter; so does this one's (replicated-semis.ts). A row value, or types that compare equal
// but hash apart (correlated-subqueries.ts hashAlike), stay broadcast too, as Trino replicates a ROW, ARRAY
// or MAP. The choice travels to the workers as PlanChoices.semis 'PARTITIONED', which each checks fits.
import { formatSql, parseStatement, type Expression, type Query } from '../sql/index.js';
import { fold } from '../sql/names.js';
import { GROUP_KEY_PREFIX, PARTIALS_TABLE, type StagePlan } from './aggregate-stages.js';
import { hashFinal, type HashFinal } from './hash-final.js';
import { replaceTable } from './plan-trees.js';
import { tableNodeOf, type Draft } from './fragment-drafts.js';
import type { SemiSource } from './semi-joins.js';
import type { ResolvedExpression } from './column-resolution.js';
import { hashAlike } from './correlated-subqueries.js';
import { estimatedBytes } from './join-order.js';
import type { OutputPartitioning } from './fragment.types.js';
import type { PlannerMetadata, PlannerSession } from './planner.types.js';
import { relationOfSymbol, type Analysis } from './query-analysis.js';
import { replicatedSemi } from './replicated-semis.js';

/** The final's split into buckets, when the source's final runs in a HASH stage; undefined for a SINGLE one. */
export function semiHashFinal(query: Query, stages: StagePlan): { keys: string[]; split: HashFinal } | undefined {
  if (query.orderBy || query.offset || query.limit) return undefined;
  const keys = stages.partialColumns.filter((c) => c.startsWith(GROUP_KEY_PREFIX));
  if (keys.length === 0) return undefined;
  const split = hashFinal(parseStatement(stages.rootSql) as Query);
  return split && { keys, split };
}

/** The drafts of a two-stage semi source: its leaf over the table's splits, and its final (returned), broadcast (or `output`). */
export function twoStageSemi(query: Query, stages: StagePlan, output: OutputPartitioning = { kind: 'BROADCAST' }): Draft {
  const leaf: Draft = {
    partitioning: 'SOURCE', scan: { table: stages.table, ...(stages.where ? { where: stages.where } : {}) }, sources: [], output: { kind: 'SINGLE' },
    from: () => '', where: [], columns: stages.partialColumns, sql: () => stages.leafSql,
  };
  const hashed = semiHashFinal(query, stages);
  if (hashed) {
    leaf.output = { kind: 'HASH', keys: hashed.keys };
    return {
      partitioning: 'HASH', sources: [leaf], output, from: () => '', where: [], columns: hashed.split.columns,
      sql: (x) => formatSql(replaceTable(hashed.split.bucketQuery, PARTIALS_TABLE, (at) => tableNodeOf(x(leaf), at))),
    };
  }
  return {
    partitioning: 'SINGLE', sources: [leaf], output: { kind: 'BROADCAST' }, from: () => '', where: [], columns: [],
    sql: (x) => formatSql(replaceTable(parseStatement(stages.rootSql), PARTIALS_TABLE, (at) => tableNodeOf(x(leaf), at))),
  };
}

/**
 * Whether a semi source's aggregation groups by the column its table's parts are cut on
 * (TableLayout.partitionedOn: tpch's lineitem on orderkey at sf1), with plain keys only (no grouping
 * set, which may leave that column out) and no ORDER BY, LIMIT or OFFSET over its groups: each group's
 * rows are then all in one part, so the whole query runs in its scan's tasks over whole parts, with no
 * partial and final (TPC-H Q18's `orderkey IN (SELECT orderkey FROM lineitem GROUP BY orderkey HAVING
 * sum(quantity) > 300)`, Q4's EXISTS as decorrelated), as Trino's tpch connector lets an aggregation on
 * lineitem's partitioning column run without a remote exchange.
 */
export function groupsByPartitioning(query: Query, partitionedOn: string | undefined): boolean {
  if (partitionedOn === undefined || query.orderBy || query.limit || query.offset || query.body.type !== 'QuerySpecification') return false;
  const spec = query.body;
  if (!spec.groupBy || spec.groupBy.distinct || spec.windows.length > 0) return false;
  const items = spec.select.selectItems;
  const named = (e: Expression): boolean => {
    if (e.type === 'Identifier') return fold(e.value) === partitionedOn;
    if (e.type === 'DereferenceExpression') return fold(e.field.value) === partitionedOn;
    if (e.type === 'LongLiteral') {
      const item = items[Number(e.value) - 1];
      return item?.type === 'SingleColumn' && item.expression.type !== 'LongLiteral' && named(item.expression);
    }
    return false;
  };
  const elements = spec.groupBy.groupingElements;
  return elements.every((g) => g.type === 'SimpleGroupBy') && elements.some((g) => g.type === 'SimpleGroupBy' && g.expressions.some(named));
}

/** The one-stage draft of a semi source that groupsByPartitioning: the query itself over its table's whole parts, broadcast. */
export function colocatedSemi(query: Query, stages: StagePlan): Draft {
  return {
    partitioning: 'SOURCE', scan: { table: stages.table, ...(stages.where ? { where: stages.where } : {}), whole: true }, sources: [], output: { kind: 'BROADCAST' },
    from: () => '', where: [], columns: [], sql: () => formatSql(query),
  };
}

/** A WHERE conjunct `symbol IN (source)` that may run partitioned, with its source's column and size. */
export interface PartitionableSemi {
  source: SemiSource;
  /** The conjunct as analysed (a table's pushed conjunct, or a residual), and over the joined rows' symbols. */
  written: Expression;
  expression: Expression;
  /** The probe's symbol the rows are hashed on. */
  symbol: string;
  /** The source's final column hashed on (vivace_o0). */
  column: string;
  /** The source table's bytes for its IN column (an upper bound on the source's rows), when known. */
  bytes?: number;
  /** A predicate other than `symbol IN (source)`: the source's NULLs and a row go to every bucket (replicated-semis.ts). */
  replicated?: true;
}

/**
 * The conjunct `c` (resolved as `r`) as a partitionable semi-join, or undefined. `read`: the sources it
 * reads (SemiJoins.readIn); `typeOf`: a probe symbol's type.
 */
export function partitionableSemi(c: Expression, r: ResolvedExpression, read: readonly SemiSource[], typeOf: (symbol: string) => string | undefined, metadata: PlannerMetadata): PartitionableSemi | undefined {
  const e = r.expression;
  if (r.symbols.size !== 1 || read.length !== 1) return undefined;
  const symbol = [...r.symbols][0]!;
  const source = read[0]!;
  if (!source.stages || source.sub) return undefined;
  // `symbol IN (source)` itself, or any other reading of it with the source's NULLs and a row replicated (replicated-semis.ts).
  const plain = e.type === 'InPredicate' && !e.negated && e.value.type === 'Identifier' && e.valueList.type === 'SubqueryExpression';
  const replicated = !plain && replicatedSemi(e, symbol, source);
  if (!plain && !replicated) return undefined;
  const hashed = semiHashFinal(source.query, source.stages);
  const spec = source.query.body;
  if (!hashed || hashed.split.columns.length !== 1 || spec.type !== 'QuerySpecification' || spec.select.selectItems.length !== 1) return undefined;
  // The source's one column: a column of its table, or its min, max or arbitrary value (of the column's
  // type), of a type that hashes as the probe's does.
  const item = spec.select.selectItems[0]!;
  const name = item.type === 'SingleColumn' ? columnName(item.expression) : undefined;
  const layout = metadata.table(source.stages.table);
  const column = name === undefined ? undefined : layout?.columns.find((x) => x.name === fold(name));
  const probeType = typeOf(symbol);
  if (!layout || !column || probeType === undefined || !hashAlike(probeType, column.type)) return undefined;
  const bytes = estimatedBytes(layout, new Set([column.name]));
  return { source, written: c, expression: e, symbol, column: hashed.split.columns[0]!, ...(bytes !== undefined ? { bytes } : {}), ...(replicated ? { replicated: true } : {}) };
}

/** Aggregates whose value is one of their argument's, of its type. */
const VALUE_AGGREGATES: ReadonlySet<string> = new Set(['min', 'max', 'arbitrary', 'any_value']);

/** The table column a source's select item is, or takes one value of (min, max, arbitrary); undefined otherwise. */
function columnName(e: Expression): string | undefined {
  if (e.type === 'Identifier') return e.value;
  if (e.type === 'DereferenceExpression') return e.field.value;
  if (e.type !== 'FunctionCall' || e.name.parts.length !== 1 || !VALUE_AGGREGATES.has(fold(e.name.parts[0]!.value))) return undefined;
  if (e.arguments.length !== 1 || e.distinct || e.filter || e.orderBy || e.window || e.nullTreatment) return undefined;
  const argument = e.arguments[0]!;
  return argument.type === 'Identifier' || argument.type === 'DereferenceExpression' ? columnName(argument) : undefined;
}

/** The query's WHERE conjuncts that may run as partitioned semi-joins (none beside an outer join). */
export function partitionableSemis(a: Analysis, metadata: PlannerMetadata): PartitionableSemi[] {
  if (a.outer.length > 0 || a.semis.sources.length === 0) return [];
  const typeOf = (symbol: string) => a.relations[relationOfSymbol(symbol)]?.layout.columns[Number(symbol.slice(symbol.lastIndexOf('_') + 1))]?.type;
  const found: PartitionableSemi[] = [];
  for (const c of a.pushed.flat()) {
    const r = a.scope.resolve(c, a.semis.isPlaceholder);
    const p = r && partitionableSemi(c, r, a.semis.readIn(c), typeOf, metadata);
    if (p) found.push(p);
  }
  for (const r of a.residuals) {
    const p = partitionableSemi(r.expression, r, a.semis.readIn(r.expression), typeOf, metadata);
    if (p) found.push(p);
  }
  return found;
}

/** Trino's choice for a semi-join that may be partitioned: PARTITIONED when asked, or when the source may pass the broadcast limit. */
export function partitionsSemi(p: PartitionableSemi, session: PlannerSession): boolean {
  if (session.joinDistribution === 'PARTITIONED') return true;
  return session.joinDistribution === 'AUTOMATIC' && p.bytes !== undefined && p.bytes > session.maxBroadcastBytes;
}

/**
 * `probe` (every relation joined) with the partitioned semi-joins applied: for each run of them on one
 * symbol, the rows hashed on it into a HASH fragment that reads each source's final hashed on its column,
 * where the conjuncts are evaluated. `handOn(applied)`: the symbols the plan still reads once `applied` ran.
 */
export function applyPartitionedSemis(probe: Draft, semis: readonly PartitionableSemi[], handOn: (applied: number) => string[]): Draft {
  let current = probe;
  let symbol: string | undefined;
  for (const [i, p] of semis.entries()) {
    if (p.symbol !== symbol) {
      const below = current;
      below.columns = handOn(i);
      below.output = { kind: 'HASH', keys: [p.symbol] };
      current = { partitioning: 'HASH', sources: [below], output: { kind: 'SINGLE' }, from: (x) => x(below), where: [], columns: [] };
      symbol = p.symbol;
    }
    const final = twoStageSemi(p.source.query, p.source.stages!, { kind: 'HASH', keys: [p.column], ...(p.replicated ? { replicateNullsAndAny: true as const } : {}) });
    current.sources.push(final);
    (current.semis ??= []).push({ source: p.source, draft: final });
    current.where.push(`(${formatSql(p.expression)})`);
  }
  return current;
}
