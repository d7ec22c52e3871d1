// The order a query's tables are joined in and how each join is distributed, from the connectors'
// statistics, as Trino's cost-based choices make them in spirit: the largest table is the probe side and
// stays spread over its splits; the others join it smallest first, each through an equi-join edge when
// one exists (a cross join only when none is left), and a build side is broadcast when its estimated
// size is at most join_max_broadcast_table_size (Trino's DetermineJoinDistributionType), else both sides
// are hash-partitioned on the join keys. The session's join_distribution_type forces either; a cross
// join is always broadcast. Outer joins keep their written order after the inner ones (chooseWithOuterJoins);
// a RIGHT join may broadcast the rows joined before it as the LEFT join's build side (flips).
// The choices travel to the workers, which derive the same fragments from them.
import type { PlanChoices } from './fragment.types.js';
import type { PlannerSession, TableLayout } from './planner.types.js';

/** Bytes a value of a Presto type takes in a row, for size estimates. */
export function typeWidth(type: string): number {
  const base = type.toLowerCase();
  const args = base.includes('(') ? base.slice(base.indexOf('(') + 1, base.lastIndexOf(')')).split(',').map((a) => Number(a.trim())) : [];
  const name = base.includes('(') ? base.slice(0, base.indexOf('(')).trim() : base;
  switch (name) {
    case 'boolean': case 'tinyint': return 1;
    case 'smallint': return 2;
    case 'integer': case 'real': return 4;
    case 'bigint': case 'double': case 'date': return 8;
    case 'decimal': return (args[0] ?? 38) <= 18 ? 8 : 16;
    case 'char': return Number.isFinite(args[0]) ? args[0]! : 16;
    case 'varchar': return Math.min(Number.isFinite(args[0]) ? args[0]! : 32, 32);
    default: return 16;
  }
}

/** Parquet files hold about a quarter of their rows' bytes in memory (compressed, encoded). */
const FILE_EXPANSION = 4;

/** The estimated bytes of a table's rows of `columns` (names), or undefined when nothing is known. */
export function estimatedBytes(layout: TableLayout, columns: ReadonlySet<string>): number | undefined {
  const width = layout.columns.filter((c) => columns.has(c.name)).reduce((sum, c) => sum + typeWidth(c.type), 0);
  if (layout.rows !== undefined) return layout.rows * Math.max(1, width);
  if (layout.fileBytes !== undefined) return layout.fileBytes * FILE_EXPANSION;
  return undefined;
}

/** An equi-join edge between two relations (by index). */
export interface JoinEdge {
  left: number;
  right: number;
}

/**
 * The join order and distributions for `sizes` (estimated bytes of each relation's rows, undefined when
 * unknown) and `edges`.
 */
export function chooseJoins(sizes: readonly (number | undefined)[], edges: readonly JoinEdge[], split: readonly boolean[], session: PlannerSession): PlanChoices {
  const size = (i: number) => sizes[i] ?? Number.POSITIVE_INFINITY;
  const left = sizes.map((_, i) => i);
  // The probe side starts at the largest table (the first of equals).
  let start = 0;
  for (const i of left) if (size(i) > size(start)) start = i;
  const order = [start];
  const joined = new Set([start]);
  const joins: ('BROADCAST' | 'PARTITIONED')[] = [];
  while (joined.size < sizes.length) {
    const remaining = left.filter((i) => !joined.has(i));
    const connected = remaining.filter((i) => edges.some((e) => (e.left === i && joined.has(e.right)) || (e.right === i && joined.has(e.left))));
    const pool = connected.length > 0 ? connected : remaining;
    let next = pool[0]!;
    for (const i of pool) if (size(i) < size(next)) next = i;
    const cross = connected.length === 0;
    joins.push(cross ? 'BROADCAST' : distribution(sizes[next], session));
    order.push(next);
    joined.add(next);
  }
  return { order, joins, split: [...split] };
}

function distribution(buildBytes: number | undefined, session: PlannerSession): 'BROADCAST' | 'PARTITIONED' {
  if (session.joinDistribution !== 'AUTOMATIC') return session.joinDistribution;
  return buildBytes !== undefined && buildBytes <= session.maxBroadcastBytes ? 'BROADCAST' : 'PARTITIONED';
}

/** Whether `choices` (from the coordinator) fit a query of `relations` relations. */
export function validChoices(choices: PlanChoices, relations: number, splitsElsewhere = false): boolean {
  if (choices.order.length !== relations || choices.joins.length !== relations - 1 || choices.split.length !== relations || choices.branches !== undefined) return false;
  if ((!splitsElsewhere && !choices.split.some((s) => s === true)) || choices.split.some((s) => typeof s !== 'boolean')) return false;
  const seen = new Set<number>();
  for (const i of choices.order) {
    if (!Number.isSafeInteger(i) || i < 0 || i >= relations || seen.has(i)) return false;
    seen.add(i);
  }
  return choices.joins.every((j) => j === 'BROADCAST' || j === 'PARTITIONED');
}

/**
 * The choices of a FROM whose last relations are outer joins (`outer`: their types, in written order, and
 * whether each has equi-join keys): the inner block first (chooseJoins), then each outer join as written.
 * A LEFT join may broadcast its build side as an inner join does (and must without keys); RIGHT and FULL
 * are always partitioned, as Trino's DetermineJoinDistributionType.mustPartition has it (a broadcast
 * would give an unmatched build row once per probe task).
 */
export function chooseWithOuterJoins(sizes: readonly (number | undefined)[], edges: readonly JoinEdge[], split: readonly boolean[], session: PlannerSession, outer: readonly { type: string; keyed: boolean }[]): PlanChoices {
  const block = sizes.length - outer.length;
  const inner = chooseJoins(sizes.slice(0, block), edges, split.slice(0, block), session);
  return {
    order: [...inner.order, ...outer.map((_, i) => block + i)],
    joins: [...inner.joins, ...outer.map((o, i) => (flips(o) ? (!o.keyed ? 'BROADCAST' : distribution(joinedBytes(sizes, block + i), session)) : o.type !== 'LEFT' ? 'PARTITIONED' : !o.keyed ? 'BROADCAST' : distribution(sizes[block + i], session)))],
    split: [...split],
  };
}

/** Whether `choices` keep the outer joins as written and distribute them as they must be (chooseWithOuterJoins). */
export function validOuterChoices(choices: PlanChoices, relations: number, outer: readonly { type: string; keyed: boolean }[]): boolean {
  const block = relations - outer.length;
  return outer.every((o, i) =>
    choices.order[block + i] === block + i && (block + i === 0 || (o.type === 'LEFT' ? o.keyed || choices.joins[block + i - 1] === 'BROADCAST'
      : (flips(o) && choices.joins[block + i - 1] === 'BROADCAST') || (choices.joins[block + i - 1] === 'PARTITIONED' && o.keyed))));
}

/**
 * The estimated bytes of the rows joined before position `at` (every relation before it), the build side
 * of a flipped RIGHT join: their sum, undefined when one is unknown. Joins on keys the tables' rows share
 * (foreign keys) give at most the probe's rows; Trino's estimate reads the join's own statistics.
 */
function joinedBytes(sizes: readonly (number | undefined)[], at: number): number | undefined {
  let sum = 0;
  for (const s of sizes.slice(0, at)) {
    if (s === undefined) return undefined;
    sum += s;
  }
  return sum;
}

/**
 * Whether an outer join may run as the LEFT join with its sides swapped, its build side (the rows joined
 * before it) broadcast: a RIGHT join wherever it is written, as Trino's DetermineJoinDistributionType also
 * weighs the flipped join of every join (getCostBasedJoin adds `joinNode.flipChildren()`'s distributions; a
 * RIGHT join must partition, its flip, a LEFT join, need not, and must replicate without keys).
 */
export function flips(o: { type: string }): boolean {
  return o.type === 'RIGHT';
}
