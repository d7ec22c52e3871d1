// The plan of a query naming tables that the other planners leave (statement-plans.ts asks here last):
// windows over joins, SELECT * over joins, a correlated subquery with no equality to the outer rows or
// beside an outer join (correlated-subqueries.ts, query-analysis.ts), a FROM mixing inner and outer joins
// other than inner ones first (outer-joins.ts), a WITH the join planner does not inline (derived-tables.ts),
// TPC-H Q22 unless customer splits, a set operation's branch none of those take (union-stages.ts), and a
// table one worker holds whose columns the statement does not all qualify (held-relations.ts).
// Inner and outer joins, stand-alone and equality-correlated subqueries, grouped derived tables and WITH
// are the join planner's (distributed-planner.ts); windows over one table window-stages.ts's; set
// operations union-stages.ts's. Not taken here either (one task): a recursive WITH, a parameter, a table
// function, column aliases on a table, hidden columns, `TABLE t` as a query. Over tables every worker
// reads alike, each table it names is read in a fragment of its own, over its splits on every worker,
// keeping only the columns the statement could name, and the root runs the statement with each table
// standing for its fragment's rows (Trino gathers a source stage into a SINGLE stage the same way when a
// plan cannot be split further). Correct for any such query: a table's rows are the same rows wherever
// they are read, and every reference keeps its alias.
import {
  mapTree, walk,
  type AliasedRelation, type Expression, type Node, type Relation, type Statement, type Table,
} from '../sql/index.js';
import { formatSql } from '../sql/sql-formatter.js';
import { quoteIdentifier } from '../sql/sql-formatter.js';
import { fold, partsOf } from '../sql/names.js';
import { resolveTable } from '../sql/statement-gate.js';
import type { ScannedTable } from '../connectors/connector.types.js';
import { ColumnScope, type PlanRelation } from './column-resolution.js';
import { andTerms, tableNode, tableText } from './plan-trees.js';
import { exchangeTableOf, type DistributedPlan, type PlanChoices, type PlanFragment } from './fragment.types.js';
import type { PlannerMetadata, PlannerSession, TableLayout } from './planner.types.js';

const keyOf = (t: ScannedTable) => `${t.catalog}\u0000${t.schema}\u0000${t.table}`;

/** Nodes a gathered plan cannot stand tables in for. */
const REFUSED: ReadonlySet<string> = new Set(['Parameter', 'TableFunctionInvocation', 'QueryPeriod']);

/**
 * The gathered plan of `statement`, or undefined when it reads no table that splits, names a table
 * outside the metadata (system, a view; a CTE is fine), or uses `TABLE t` as a query. A table of a
 * catalog one worker holds (metadata.held: memory) is read whole in a SINGLE fragment pinned to that
 * worker (`holder`), its output BROADCAST to its consumer: the small side gathered beside the splits.
 * With `given` (a worker), its split flags decide which tables are read over splits.
 */
export function planGathered(statement: Statement, session: PlannerSession, metadata: PlannerMetadata, given?: PlanChoices): DistributedPlan | undefined {
  if (statement.type !== 'Query') return undefined;
  const ctes = new Set<string>();
  let refused = false;
  const tables: { node: Table; table: ScannedTable; name: string }[] = [];
  walk(statement, (n, parent) => {
    if (REFUSED.has(n.type) || (n.type === 'With' && n.recursive)) refused = true;
    // Column aliases of a table name all its columns, in order: a fragment keeps only some.
    if (n.type === 'AliasedRelation' && n.columnNames && n.relation.type === 'Table') refused = true;
    if (n.type === 'WithQuery') ctes.add(fold(n.name.value));
    if (n.type === 'Identifier') {
      // Hidden columns ($path, tpch's row_number) are no columns of a fragment's rows.
      const name = fold(n.value);
      if (name.startsWith('$') || name === 'row_number') refused = true;
    }
    if (n.type === 'Table') {
      const parts = partsOf(n.name);
      if (parts.length === 1 && ctes.has(parts[0]!)) return;
      // `TABLE t` as a query body (not a relation) has no alias to keep.
      if (!parent || (parent.type !== 'AliasedRelation' && parent.type !== 'Join' && parent.type !== 'QuerySpecification')) refused = true;
      const r = resolveTable(parts, session);
      if (parts.length > 3 || r.catalog === undefined || r.schema === undefined) refused = true;
      else tables.push({ node: n, table: { catalog: r.catalog, schema: r.schema, table: r.table }, name: parent?.type === 'AliasedRelation' ? fold(parent.alias.value) : r.table });
    }
  });
  if (refused || tables.length === 0) return undefined;
  // CTE names are collected as the walk meets them: a table named like a later CTE is checked again.
  const read = tables.filter((t) => !(partsOf(t.node.name).length === 1 && ctes.has(partsOf(t.node.name)[0]!)));

  // Catalogs one worker holds (memory): their tables are read whole in a fragment pinned to that worker.
  const held = new Set(given ? (given.held ?? []) : read.filter((r) => metadata.table(r.table) === undefined && metadata.held?.(r.table) === true).map((r) => r.table.catalog));
  const layouts = new Map<string, TableLayout>();
  for (const { table } of read) {
    if (layouts.has(keyOf(table)) || held.has(table.catalog)) continue;
    const layout = metadata.table(table);
    if (!layout || layout.columns.length === 0) return undefined;
    layouts.set(keyOf(table), layout);
  }
  const pushed = pushedConjuncts(statement, read, layouts);
  const whole = starredTables(statement, read);
  const named = namedColumns(statement, read);

  // One fragment per table and pushed WHERE (references alike share it).
  const entries: { key: string; table: ScannedTable; layout: TableLayout | undefined; alias: string; where: Expression[]; star: boolean; names: Set<string> }[] = [];
  const entryOf = new Map<Table, number>();
  for (const r of read) {
    const where = pushed.get(r.node) ?? [];
    const alias = where.length > 0 ? r.name : '';
    const star = whole.has(r.node);
    const key = `${keyOf(r.table)}\u0000${alias}\u0000${star}\u0000${where.map((w) => formatSql(w)).join('\u0000')}`;
    let at = entries.findIndex((e) => e.key === key);
    if (at < 0) at = entries.push({ key, table: r.table, layout: layouts.get(keyOf(r.table)), alias, where, star, names: new Set() }) - 1;
    // References alike share a fragment: it keeps what any of them names.
    for (const n of named.get(r.node) ?? []) entries[at]!.names.add(n);
    entryOf.set(r.node, at);
  }
  const split = given ? given.split : entries.map((e) => e.layout?.splits === true);
  if (split.length !== entries.length || !split.some((s) => s === true) || entries.some((e, i) => !e.layout && split[i])) return undefined;
  // A gathered plan orders and joins nothing, and has no sub-plans or branches.
  if (given && (given.order.length > 0 || given.joins.length > 0 || Object.keys(given).some((k) => k !== 'order' && k !== 'joins' && k !== 'split' && k !== 'held'))) return undefined;

  const sources: PlanFragment[] = entries.map((e, i) => {
    // A held table (its catalog on one worker): read whole there, its rows copied to the consumer.
    if (!e.layout) return { id: i + 1, partitioning: 'SINGLE', holder: e.table.catalog, sources: [], output: { kind: 'BROADCAST' }, sql: `SELECT * FROM ${tableText(e.table)}`, columns: [] };
    // Every column the statement could name of it (namedColumns: a superset).
    const layout = e.layout;
    const kept = e.star ? layout.columns : layout.columns.filter((c) => e.names.has(c.name));
    const columns = (kept.length > 0 ? kept : layout.columns.slice(0, 1)).map((c) => c.name);
    const where = e.where.length === 0 ? undefined : e.where.length === 1 ? e.where[0]! : { type: 'LogicalExpression' as const, operator: 'AND' as const, terms: e.where, location: e.where[0]!.location };
    const from = `${tableText(e.table)}${e.alias ? ` AS ${quoteIdentifier(e.alias)}` : ''}`;
    return {
      id: i + 1,
      partitioning: split[i] ? 'SOURCE' : 'SINGLE',
      ...(split[i] ? { scan: { table: e.table, ...(where ? { where } : {}) } } : {}),
      sources: [],
      output: { kind: 'SINGLE' },
      sql: `SELECT ${columns.map(quoteIdentifier).join(', ')} FROM ${from}${where ? ` WHERE ${formatSql(where)}` : ''}`,
      columns,
    };
  });

  const stand = (n: Table, at: Node): Table => tableNode(exchangeTableOf(entryOf.get(n)! + 1), at);
  const isRead = (n: Node): n is Table => n.type === 'Table' && read.some((r) => r.node === n);
  const rootTree = mapTree(statement, (n) => {
    if (n.type === 'AliasedRelation' && isRead(n.relation)) return { ...n, relation: stand(n.relation, n) };
    if (isRead(n)) {
      // An unaliased table keeps its name as the alias its columns are qualified by.
      const parts = n.name.parts;
      const aliased: AliasedRelation = { type: 'AliasedRelation', location: n.location, relation: stand(n, n), alias: parts[parts.length - 1]!, columnNames: undefined };
      return aliased;
    }
    return undefined;
  });
  const root: PlanFragment = { id: 0, partitioning: 'SINGLE', sources: sources.map((s) => ({ fragmentId: s.id, table: exchangeTableOf(s.id) })), output: { kind: 'SINGLE' }, sql: formatSql(rootTree), columns: [] };
  return { fragments: [root, ...sources], choices: { order: [], joins: [], split, ...(held.size > 0 ? { held: [...held].sort() } : {}) }, tables: [...new Map(read.map((r) => [keyOf(r.table), r.table])).values()] };
}

/**
 * The WHERE conjuncts of each query specification that read only one of its tables, by that table's node:
 * they filter its rows before they are gathered. Only where the FROM is inner joins of tables (a filter on
 * an outer join's null-supplying side must run after the join) and a conjunct resolves in that FROM alone
 * (no subquery, no outer query's column, no ambiguous name).
 */
function pushedConjuncts(statement: Statement, read: readonly { node: Table; table: ScannedTable; name: string }[], layouts: ReadonlyMap<string, TableLayout>): Map<Table, Expression[]> {
  const pushed = new Map<Table, Expression[]>();
  walk(statement, (n) => {
    if (n.type !== 'QuerySpecification' || !n.from || !n.where) return;
    const all: Table[] = [];
    if (!innerTables(n.from, all)) return;
    const relations: PlanRelation[] = [];
    const tables: Table[] = [];
    // Held tables' names: their columns are not known here, so only a conjunct whose every column is
    // qualified by another table's name goes down (an unqualified one might be the held table's).
    const heldNames = new Set<string>();
    for (const node of all) {
      const r = read.find((x) => x.node === node);
      if (!r) return;
      const layout = layouts.get(keyOf(r.table));
      if (!layout) {
        heldNames.add(r.name);
        continue;
      }
      relations.push({ index: relations.length, table: r.table, name: r.name, layout });
      tables.push(node);
    }
    if (relations.some((r) => heldNames.has(r.name))) return;
    const scope = new ColumnScope(relations);
    const names = new Set(relations.map((r) => r.name));
    for (const c of andTerms(n.where)) {
      if (heldNames.size > 0 && !qualifiedOnly(c, names)) continue;
      const resolved = scope.resolve(c);
      if (!resolved || resolved.relations.size !== 1) continue;
      const node = tables[[...resolved.relations][0]!]!;
      pushed.set(node, [...(pushed.get(node) ?? []), c]);
    }
  });
  return pushed;
}

/** Nodes whose Identifier names no column. */
const NAMES_OF_NO_COLUMN: ReadonlySet<string> = new Set(['QualifiedName', 'GenericLiteral', 'GenericDataType', 'RowField']);

/**
 * Whether every column `expression` reads is qualified by one of `names` (no subquery, no unqualified
 * name): function, literal and type names are the only other names it may hold.
 */
function qualifiedOnly(expression: Expression, names: ReadonlySet<string>): boolean {
  let ok = true;
  walk(expression, (n, parent) => {
    if (n.type === 'Query') ok = false;
    else if (n.type === 'Identifier') {
      const qualifier = parent?.type === 'DereferenceExpression' && parent.base === n && names.has(fold(n.value));
      const field = parent?.type === 'DereferenceExpression' && parent.field === n && parent.base.type === 'Identifier' && names.has(fold(parent.base.value));
      // Names that are no column: a function's, a literal's or a type's.
      if (!qualifier && !field && !NAMES_OF_NO_COLUMN.has(parent?.type ?? '')) ok = false;
    }
    return ok;
  });
  return ok;
}

/** The tables of a FROM of inner joins (their ON conditions stay where they are), or false for any other FROM. */
function innerTables(relation: Relation, tables: Table[]): boolean {
  if (relation.type === 'Join') {
    if (relation.joinType !== 'INNER' && relation.joinType !== 'IMPLICIT' && relation.joinType !== 'CROSS') return false;
    return innerTables(relation.left, tables) && innerTables(relation.right, tables);
  }
  if (relation.type === 'AliasedRelation') return !relation.columnNames && relation.relation.type === 'Table' && innerTables(relation.relation, tables);
  if (relation.type === 'Table') {
    tables.push(relation);
    return true;
  }
  return false;
}

/**
 * The tables a `*` or `t.*` reads every column of: those of its query specification's FROM (all, or the one
 * named). The select list of an EXISTS subquery reads nothing.
 */
function starredTables(statement: Statement, read: readonly { node: Table; name: string }[]): Set<Table> {
  const starred = new Set<Table>();
  const existential = new Set<Node>();
  walk(statement, (n) => {
    if (n.type === 'ExistsPredicate') existential.add(n.subquery.query.body);
    if (n.type !== 'QuerySpecification' || !n.from || existential.has(n)) return;
    const targets = n.select.selectItems.flatMap((i) => (i.type === 'AllColumns' ? [i.target] : []));
    if (targets.length === 0) return;
    const tables: Table[] = [];
    fromTables(n.from, tables);
    for (const t of tables) {
      const name = read.find((r) => r.node === t)?.name;
      if (targets.some((target) => target === undefined || (target.type === 'Identifier' && fold(target.value) === name) || target.type !== 'Identifier')) starred.add(t);
    }
  });
  return starred;
}

/** The tables a FROM reads directly (through joins and aliases, not into subqueries). */
function fromTables(relation: Relation, tables: Table[]): void {
  if (relation.type === 'Join') {
    fromTables(relation.left, tables);
    fromTables(relation.right, tables);
  } else if (relation.type === 'AliasedRelation') {
    fromTables(relation.relation, tables);
  } else if (relation.type === 'Table') {
    tables.push(relation);
  }
}

/**
 * The names each table reference's columns may be read by: the unqualified identifiers in its query
 * specification (with its query's ORDER BY and every subquery inside, which may correlate), and the fields
 * qualified by its own name there. A superset (any identifier of a column's name counts), never less:
 * another table's `s.comment` does not keep this one's comment.
 */
function namedColumns(statement: Statement, read: readonly { node: Table; name: string }[]): Map<Table, Set<string>> {
  const named = new Map<Table, Set<string>>();
  const bodies = new Map<Node, Node>();
  walk(statement, (n) => {
    if (n.type === 'Query') bodies.set(n.body, n);
  });
  walk(statement, (n) => {
    if (n.type !== 'QuerySpecification' || !n.from) return;
    const tables: Table[] = [];
    fromTables(n.from, tables);
    const unqualified = new Set<string>();
    const qualified = new Map<string, Set<string>>();
    walk(bodies.get(n) ?? n, (x) => {
      if (x.type === 'DereferenceExpression' && x.base.type === 'Identifier') {
        const q = fold(x.base.value);
        qualified.set(q, (qualified.get(q) ?? new Set()).add(fold(x.field.value)));
        // A row column's field access names the column by its base: keep that name too.
        unqualified.add(q);
        return false;
      }
      if (x.type === 'Identifier') unqualified.add(fold(x.value));
      return undefined;
    });
    for (const t of tables) {
      const name = read.find((r) => r.node === t)?.name;
      if (name === undefined) continue;
      named.set(t, new Set([...unqualified, ...(qualified.get(name) ?? [])]));
    }
  });
  return named;
}
