// A FROM the join planner takes: inner joins (JOIN ... ON, comma lists, CROSS JOIN) of tables and derived
// tables, then LEFT, RIGHT and FULL OUTER joins of one relation each, in written order (`a JOIN b ON ...
// LEFT JOIN c ON ...`, `a JOIN b ON ... RIGHT JOIN c ON ...`). An outer join fixes the order of its two sides, so the inner block is ordered by
// the statistics (join-order.ts) and the outer joins follow as written; a FROM mixing them otherwise
// (an inner join after an outer one, an outer join inside a comma list) is left to the gathered plan.
// Predicates move as Trino's PredicatePushDown moves them around an outer join: an ON conjunct on the
// non-preserved side alone is pushed below the join (into its scan for LEFT, onto the rows joined so far
// for RIGHT), every other ON conjunct stays in the ON (the preserved side's own among them, and all of a
// FULL join's); a WHERE conjunct reading a side an outer join may fill with NULLs runs after the joins
// (Trino would first turn such a join inner; this planner does not).
import { formatSql, type Expression, type Identifier, type Query, type Relation, type Table } from '../sql/index.js';
import { fold } from '../sql/names.js';
import type { ScannedTable } from '../connectors/connector.types.js';
import { relationsOf, type ColumnScope, type PlanRelation, type ResolvedExpression } from './column-resolution.js';
import { derivedColumnName } from './derived-tables.js';
import { EXCHANGE_CATALOG, type OutputPartitioning } from './fragment.types.js';
import type { Draft } from './fragment-drafts.js';
import type { PlannerMetadata, PlannerSession } from './planner.types.js';

export type OuterJoinType = 'LEFT' | 'RIGHT' | 'FULL';

/** A relation of a FROM: a table, or a derived table (a subquery in FROM, planned as a sub-plan). */
type FromItem = { node: Table; alias?: Identifier } | { query: Query; alias: Identifier; columnNames: readonly Identifier[] | undefined };

/** A derived table of the FROM: its query and the names its columns are read by, in order. */
export interface DerivedRelation {
  query: Query;
  columns: readonly string[];
}

/** An outer join of the FROM, as written: the relation it joins (by position) and its ON. */
export interface WrittenOuterJoin {
  type: OuterJoinType;
  relation: number;
  on: Expression;
}

export interface FromShape {
  relations: PlanRelation[];
  /** The inner joins' ON conditions. */
  conditions: Expression[];
  outer: WrittenOuterJoin[];
  /** The derived tables, by relation position. */
  derived: Map<number, DerivedRelation>;
}

/** The FROM's relations, inner join conditions and outer joins, or undefined for a FROM of another shape. */
export function fromShape(from: Relation, session: PlannerSession, metadata: PlannerMetadata): FromShape | undefined {
  const items: FromItem[] = [];
  const conditions: Expression[] = [];
  const outer: WrittenOuterJoin[] = [];
  const item = (r: Relation): boolean => {
    if (r.type === 'Table') return items.push({ node: r }) > 0;
    if (r.type !== 'AliasedRelation') return false;
    if (r.relation.type === 'Table') return !r.columnNames && items.push({ node: r.relation, alias: r.alias }) > 0;
    return r.relation.type === 'TableSubquery' && items.push({ query: r.relation.query, alias: r.alias, columnNames: r.columnNames }) > 0;
  };
  const inner = (r: Relation): boolean => {
    if (r.type !== 'Join') return item(r);
    if (r.joinType === 'INNER') {
      if (r.criteria?.type !== 'JoinOn') return false;
      conditions.push(r.criteria.expression);
    } else if (r.joinType !== 'IMPLICIT' && r.joinType !== 'CROSS') {
      return false;
    }
    return inner(r.left) && inner(r.right);
  };
  const chain = (r: Relation): boolean => {
    if (r.type !== 'Join' || (r.joinType !== 'LEFT' && r.joinType !== 'RIGHT' && r.joinType !== 'FULL')) return inner(r);
    if (r.criteria?.type !== 'JoinOn' || !chain(r.left)) return false;
    const relation = items.length;
    if (!item(r.right)) return false;
    outer.push({ type: r.joinType, relation, on: r.criteria.expression });
    return true;
  };
  if (!chain(from)) return undefined;

  const relations: PlanRelation[] = [];
  const derived = new Map<number, DerivedRelation>();
  for (const [index, x] of items.entries()) {
    if ('node' in x) {
      const [r] = relationsOf([x], session, metadata) ?? [];
      if (!r) return undefined;
      relations.push({ ...r, index });
      continue;
    }
    const columns = derivedColumns(x.query, x.columnNames);
    if (!columns) return undefined;
    derived.set(index, { query: x.query, columns });
    // A stand-in table and layout: its columns resolve as a table's; its rows are its sub-plan's.
    const table: ScannedTable = { catalog: EXCHANGE_CATALOG, schema: 'derived', table: `d${index}` };
    relations.push({ index, table, name: fold(x.alias.value), layout: { columns: columns.map((name) => ({ name, type: 'unknown' })), splits: true } });
  }
  return { relations, conditions, outer, derived };
}

/** A derived table's column names: its column aliases, else its select items' names; undefined when one is unnamed or twice. */
function derivedColumns(query: Query, aliases: readonly Identifier[] | undefined): string[] | undefined {
  if (query.body.type !== 'QuerySpecification' || query.orderBy || query.offset || query.limit) return undefined;
  const items = query.body.select.selectItems;
  if (items.some((i) => i.type !== 'SingleColumn')) return undefined;
  if (aliases && aliases.length !== items.length) return undefined;
  const names = aliases ? aliases.map((a) => fold(a.value)) : items.map((i) => (i.type === 'SingleColumn' ? derivedColumnName(i) : undefined));
  if (names.some((n) => n === undefined) || new Set(names).size !== names.length) return undefined;
  return names as string[];
}

/** The relations an outer join may fill with NULLs (its non-preserved sides), by position. */
export function nullableRelations(outer: readonly WrittenOuterJoin[]): Set<number> {
  const nullable = new Set<number>();
  for (const o of outer) {
    if (o.type !== 'RIGHT') nullable.add(o.relation);
    if (o.type !== 'LEFT') for (let i = 0; i < o.relation; i++) nullable.add(i);
  }
  return nullable;
}

/** An outer join as planned: its equi-join keys (symbols) and the rest of its ON, resolved. */
export interface OuterJoin {
  type: OuterJoinType;
  relation: number;
  keys: { probe: string; build: string }[];
  on: ResolvedExpression[];
  /** A RIGHT join's ON conjuncts on the rows joined before it alone: they filter those rows. */
  left: ResolvedExpression[];
}

/**
 * An outer join's ON resolved: `a = b` between a column of the joined relation and one of an earlier
 * relation is a key; a conjunct on the joined relation alone is pushed into its scan when it is the
 * non-preserved side (LEFT), into `pushed`; the rest stays in the ON. Undefined when a conjunct does not
 * resolve among the relations written so far.
 */
export function outerJoinOf(o: WrittenOuterJoin, conjuncts: readonly Expression[], scope: ColumnScope, pushed: Expression[][], relationOfSymbol: (s: string) => number): OuterJoin | undefined {
  const keys: OuterJoin['keys'] = [];
  const on: ResolvedExpression[] = [];
  const left: ResolvedExpression[] = [];
  for (const c of conjuncts) {
    const r = scope.resolve(c);
    if (!r || [...r.relations].some((i) => i > o.relation)) return undefined;
    const e = r.expression;
    if (e.type === 'ComparisonExpression' && e.operator === '=' && e.left.type === 'Identifier' && e.right.type === 'Identifier') {
      const [left, right] = [relationOfSymbol(e.left.value), relationOfSymbol(e.right.value)];
      if (left === o.relation && right < o.relation) { keys.push({ probe: e.right.value, build: e.left.value }); continue; }
      if (right === o.relation && left < o.relation) { keys.push({ probe: e.left.value, build: e.right.value }); continue; }
    }
    if (o.type === 'LEFT' && r.relations.size === 1 && r.relations.has(o.relation)) pushed[o.relation]!.push(c);
    else if (o.type === 'RIGHT' && r.relations.size > 0 && !r.relations.has(o.relation)) left.push(r);
    else on.push(r);
  }
  return { type: o.type, relation: o.relation, keys, on, left };
}

/** The symbols an outer join's keys and ON read. */
export function outerSymbols(o: OuterJoin): string[] {
  return [...o.keys.flatMap((k) => [k.probe, k.build]), ...[...o.on, ...o.left].flatMap((r) => [...r.symbols])];
}

/** The join's keyword and ON text (with a leading space) for its keys, an outer join's whole ON kept. */
export function joinClause(keys: readonly { probe: string; build: string }[], outer: OuterJoin | undefined): { join: string; on: string } {
  const terms = [...keys.map((k) => `${k.probe} = ${k.build}`), ...(outer?.on ?? []).map((r) => `(${formatSql(r.expression)})`)];
  if (!outer) return terms.length > 0 ? { join: 'JOIN', on: ` ON ${terms.join(' AND ')}` } : { join: 'CROSS JOIN', on: '' };
  return { join: `${outer.type} JOIN`, on: ` ON ${terms.length > 0 ? terms.join(' AND ') : 'TRUE'}` };
}

/**
 * `A RIGHT JOIN B ON ...` as `B LEFT JOIN A ON ...`: `rows` (A, every relation joined so far, in whatever
 * fragment joined them) filtered by the ON's conjuncts on it alone and broadcast (handing on `columns`), read
 * in the tasks of B's scan (`preserved`), where each row of B is once: its unmatched rows are filled with
 * NULLs once, as one task does.
 */
export function flippedRightJoin(rows: Draft, o: OuterJoin, columns: string[], preserved: (output: OutputPartitioning) => Draft, on: string): Draft {
  for (const r of o.left) rows.where.push(`(${formatSql(r.expression)})`);
  rows.output = { kind: 'BROADCAST' };
  rows.columns = columns;
  const probe = preserved({ kind: 'SINGLE' });
  const before = probe.from;
  probe.sources.push(rows);
  probe.from = (x) => `${before(x)} LEFT JOIN ${x(rows)}${on}`;
  return probe;
}
