// The plan of a query the join planner does not take (subqueries, outer joins, derived tables, windows,
// set operations) over tables every worker reads alike: each table it names is read in a fragment of its
// own, over its splits on every worker, keeping only the columns the statement could name, and the root
// runs the statement with each table standing for its fragment's rows (Trino gathers a source stage into
// a SINGLE stage the same way when a plan cannot be split further). Correct for any such query: a table's
// rows are the same rows wherever they are read, and every reference keeps its alias.
import {
  mapTree, walk,
  type AliasedRelation, type Node, type Statement, type Table,
} from '../sql/index.js';
import { formatSql } from '../sql/sql-formatter.js';
import { quoteIdentifier } from '../sql/sql-formatter.js';
import { fold, partsOf } from '../sql/names.js';
import { resolveTable } from '../sql/statement-gate.js';
import type { ScannedTable } from '../connectors/connector.types.js';
import { exchangeTableOf, type DistributedPlan, type PlanChoices, type PlanFragment } from './fragment.types.js';
import type { PlannerMetadata, PlannerSession, TableLayout } from './planner.types.js';

const keyOf = (t: ScannedTable) => `${t.catalog}\u0000${t.schema}\u0000${t.table}`;
const tableText = (t: ScannedTable) => [t.catalog, t.schema, t.table].map(quoteIdentifier).join('.');

/** Nodes a gathered plan cannot stand tables in for. */
const REFUSED: ReadonlySet<string> = new Set(['Parameter', 'TableFunctionInvocation', 'QueryPeriod']);

/**
 * The gathered plan of `statement`, or undefined when it reads no table that splits, names a table
 * outside the metadata (memory, system, a view, a CTE is fine), or uses `TABLE t` as a query.
 * With `given` (a worker), its split flags decide which tables are read over splits.
 */
export function planGathered(statement: Statement, session: PlannerSession, metadata: PlannerMetadata, given?: PlanChoices): DistributedPlan | undefined {
  if (statement.type !== 'Query') return undefined;
  const ctes = new Set<string>();
  const names = new Set<string>();
  let refused = false;
  let star = false;
  const tables: { node: Table; table: ScannedTable }[] = [];
  walk(statement, (n, parent) => {
    if (REFUSED.has(n.type) || (n.type === 'With' && n.recursive)) refused = true;
    // Column aliases of a table name all its columns, in order: a fragment keeps only some.
    if (n.type === 'AliasedRelation' && n.columnNames && n.relation.type === 'Table') refused = true;
    if (n.type === 'WithQuery') ctes.add(fold(n.name.value));
    if (n.type === 'AllColumns') star = true;
    if (n.type === 'Identifier') {
      // Hidden columns ($path, tpch's row_number) are no columns of a fragment's rows.
      const name = fold(n.value);
      if (name.startsWith('$') || name === 'row_number') refused = true;
      names.add(name);
    }
    if (n.type === 'Table') {
      const parts = partsOf(n.name);
      if (parts.length === 1 && ctes.has(parts[0]!)) return;
      // `TABLE t` as a query body (not a relation) has no alias to keep.
      if (!parent || (parent.type !== 'AliasedRelation' && parent.type !== 'Join' && parent.type !== 'QuerySpecification')) refused = true;
      const r = resolveTable(parts, session);
      if (parts.length > 3 || r.catalog === undefined || r.schema === undefined) refused = true;
      else tables.push({ node: n, table: { catalog: r.catalog, schema: r.schema, table: r.table } });
    }
  });
  if (refused || tables.length === 0) return undefined;
  // CTE names are collected as the walk meets them: a table named like a later CTE is checked again.
  const read = tables.filter((t) => !(partsOf(t.node.name).length === 1 && ctes.has(partsOf(t.node.name)[0]!)));

  const distinct = new Map<string, { table: ScannedTable; layout: TableLayout }>();
  for (const { table } of read) {
    if (distinct.has(keyOf(table))) continue;
    const layout = metadata.table(table);
    if (!layout || layout.columns.length === 0) return undefined;
    distinct.set(keyOf(table), { table, layout });
  }
  const entries = [...distinct.values()];
  const split = given ? given.split : entries.map((e) => e.layout.splits);
  if (split.length !== entries.length || !split.some((s) => s === true)) return undefined;
  if (given && (given.order.length > 0 || given.joins.length > 0)) return undefined;
  const idOf = new Map(entries.map((e, i) => [keyOf(e.table), i + 1]));

  const sources: PlanFragment[] = entries.map((e, i) => {
    // Every column the statement could name (a superset: any identifier of that name anywhere).
    const kept = star ? e.layout.columns : e.layout.columns.filter((c) => names.has(c.name));
    const columns = (kept.length > 0 ? kept : e.layout.columns.slice(0, 1)).map((c) => c.name);
    return {
      id: i + 1,
      partitioning: split[i] ? 'SOURCE' : 'SINGLE',
      ...(split[i] ? { scan: { table: e.table } } : {}),
      sources: [],
      output: { kind: 'SINGLE' },
      sql: `SELECT ${columns.map(quoteIdentifier).join(', ')} FROM ${tableText(e.table)}`,
      columns,
    };
  });

  const stand = (n: Table, at: Node): Table => {
    const t = exchangeTableOf(idOf.get(keyOf(read.find((r) => r.node === n)!.table))!);
    const id = (value: string) => ({ type: 'Identifier' as const, value, quoted: true, location: at.location });
    return { type: 'Table', location: at.location, queryPeriod: undefined, name: { type: 'QualifiedName', location: at.location, parts: [id(t.catalog), id(t.schema), id(t.table)] } };
  };
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
  return { fragments: [root, ...sources], choices: { order: [], joins: [], split }, tables: entries.map((e) => e.table) };
}
