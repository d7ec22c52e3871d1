// A table of a catalog one worker holds (memory) in a FROM beside tables that split: the join planner reads
// it whole in a SINGLE fragment pinned to that worker (PlanFragment.holder) and broadcasts its rows to the
// probe side's tasks, where the join runs, as Trino replicates a small build side (AddExchanges, REPLICATED).
// No node but the holder knows its columns, so the statement names them: its layout is the columns the
// statement qualifies by its name (`m.c`) and, beside one held table, every unqualified column name that no
// splitting table of the statement has (types unknown). An unqualified name of a splitting table is that
// table's: were it the held table's too, Trino's analyzer reports it ambiguous, and so does the root, which
// plans the user's statement on the holder (staged-query.ts) before any row is returned. Its rows are never
// hashed (their types are unknown here): its joins broadcast it, it never starts the probe side, and no
// partitioned join, correlated subquery or partitioned semi-join reads its columns. An output alias is no
// column where the query reads aliases (ORDER BY), as for any table. A `*`, or an unqualified name beside
// two held tables, leaves the statement to the gathered plan (gather-planner.ts), which joins it in the root.
import { walk, type Identifier, type Node, type Statement } from '../sql/index.js';
import { fold, partsOf } from '../sql/names.js';
import { resolveTable } from '../sql/statement-gate.js';
import type { ScannedTable } from '../connectors/connector.types.js';
import type { PlannerMetadata, PlannerSession, TableLayout } from './planner.types.js';

/** The layouts made for held tables (ColumnScope asks whether a relation is one). */
const heldLayouts = new WeakSet<TableLayout>();

export const isHeldLayout = (layout: TableLayout): boolean => heldLayouts.has(layout);

const keyOf = (t: ScannedTable) => `${t.catalog}\u0000${t.schema}\u0000${t.table}`;

/** Whether identifier `n`, a child of `parent`, names something other than a column (an alias, a window, a type's field, a lambda's argument, a dereference's parts). */
export function namesNoColumn(n: Identifier, parent: Node | undefined): boolean {
  switch (parent?.type) {
    case 'SingleColumn': return parent.alias === n;
    case 'AliasedRelation': return parent.alias === n || (parent.columnNames?.includes(n) ?? false);
    case 'WindowSpecification': return parent.existingWindowName === n;
    case undefined: case 'DereferenceExpression': case 'QualifiedName': case 'WithQuery': case 'WindowDefinition': case 'WindowReference': case 'LambdaExpression':
    case 'GenericDataType': case 'RowField': case 'DescriptorField': case 'Property': case 'TableFunctionArgument': case 'JoinUsing': case 'AllColumns':
      return true;
    default: return false;
  }
}

/**
 * `metadata` with a layout for each held table `statement` names (its catalogs among `held`, or the
 * metadata's held tables when `held` is undefined): the columns the statement qualifies by its name and,
 * beside one held table, the unqualified names no splitting table of the statement has. Undefined when a
 * held table's name qualifies anything else too (another reference of that name), names no column, or the
 * statement has a `*`. `catalogs`: the held catalogs it read (PlanChoices.held).
 */
export function withHeldTables(statement: Statement, session: PlannerSession, metadata: PlannerMetadata, held: readonly string[] | undefined): { metadata: PlannerMetadata; catalogs: string[] } | undefined {
  const isHeld = (t: ScannedTable) => metadata.table(t) === undefined && (held ? held.includes(t.catalog) : metadata.held?.(t) === true);
  // Every relation's reference name (aliases, unaliased tables), and the held tables' names.
  const names = new Map<string, number>();
  const heldNames = new Map<string, ScannedTable>();
  // Unqualified names, the splitting tables' columns; a `*` (the held table's columns are unknown).
  const unqualified = new Set<string>();
  const splitting = new Set<string>();
  let star = false;
  walk(statement, (n, parent) => {
    if (n.type === 'AllColumns') star = true;
    if (n.type === 'Identifier' && !namesNoColumn(n, parent)) unqualified.add(fold(n.value));
    if (n.type === 'AliasedRelation') names.set(fold(n.alias.value), (names.get(fold(n.alias.value)) ?? 0) + 1);
    if (n.type === 'WithQuery') names.set(fold(n.name.value), (names.get(fold(n.name.value)) ?? 0) + 1);
    if (n.type !== 'Table') return;
    const parts = partsOf(n.name);
    const r = resolveTable(parts, session);
    if (parts.length > 3 || r.catalog === undefined || r.schema === undefined) return;
    const table = { catalog: r.catalog, schema: r.schema, table: r.table };
    const name = parent?.type === 'AliasedRelation' ? fold(parent.alias.value) : r.table;
    if (parent?.type !== 'AliasedRelation') names.set(name, (names.get(name) ?? 0) + 1);
    if (isHeld(table)) heldNames.set(name, table);
    else for (const c of metadata.table(table)?.columns ?? []) splitting.add(c.name);
  });
  if (heldNames.size === 0) return { metadata, catalogs: [] };
  if (star || [...heldNames.keys()].some((name) => names.get(name) !== 1)) return undefined;
  // The columns each held name qualifies.
  const columns = new Map<string, Set<string>>();
  walk(statement, (n) => {
    if (n.type !== 'DereferenceExpression' || n.base.type !== 'Identifier') return;
    const table = heldNames.get(fold(n.base.value));
    if (!table) return;
    const set = columns.get(keyOf(table)) ?? new Set<string>();
    columns.set(keyOf(table), set.add(fold(n.field.value)));
  });
  // Beside one held table, an unqualified name no splitting table has is its column (else the holder's error).
  const own = heldNames.size === 1 ? [...unqualified].filter((c) => !splitting.has(c) && !names.has(c)) : [];
  const layouts = new Map<string, TableLayout>();
  for (const table of heldNames.values()) {
    const named = [...new Set([...(columns.get(keyOf(table)) ?? []), ...own])].sort();
    if (named.length === 0) return undefined;
    const layout: TableLayout = { columns: named.map((name) => ({ name, type: 'unknown' })), splits: false };
    heldLayouts.add(layout);
    layouts.set(keyOf(table), layout);
  }
  const catalogs = [...new Set([...heldNames.values()].map((t) => t.catalog))].sort();
  return { metadata: { table: (t) => metadata.table(t) ?? layouts.get(keyOf(t)) }, catalogs };
}
