// A table of a catalog one worker holds (memory) in a FROM beside tables that split: the join planner reads
// it whole in a SINGLE fragment pinned to that worker (PlanFragment.holder) and broadcasts its rows to the
// probe side's tasks, where the join runs, as Trino replicates a small build side (AddExchanges, REPLICATED).
// No node but the holder knows its columns, so the statement names them: every column of it the query reads
// is qualified by its name (`m.c`), which gives its layout (those names, types unknown), and no column
// reference of the query is unqualified (ColumnScope refuses one beside a held relation: it might be the held
// table's). Its rows are never hashed (their types are unknown here): its joins broadcast it, it never starts
// the probe side, and no partitioned join, correlated subquery or partitioned semi-join reads its columns.
// A statement of another shape is the gathered plan's (gather-planner.ts), which joins it in the root.
import { walk, type Statement } from '../sql/index.js';
import { fold, partsOf } from '../sql/names.js';
import { resolveTable } from '../sql/statement-gate.js';
import type { ScannedTable } from '../connectors/connector.types.js';
import type { PlannerMetadata, PlannerSession, TableLayout } from './planner.types.js';

/** The layouts made for held tables (ColumnScope asks whether a relation is one). */
const heldLayouts = new WeakSet<TableLayout>();

export const isHeldLayout = (layout: TableLayout): boolean => heldLayouts.has(layout);

const keyOf = (t: ScannedTable) => `${t.catalog}\u0000${t.schema}\u0000${t.table}`;

/**
 * `metadata` with a layout for each held table `statement` names (its catalogs among `held`, or the
 * metadata's held tables when `held` is undefined): the columns the statement qualifies by its name. Undefined
 * when a held table's name qualifies anything else too (another reference of that name), or names no column.
 * `catalogs`: the held catalogs it read (PlanChoices.held).
 */
export function withHeldTables(statement: Statement, session: PlannerSession, metadata: PlannerMetadata, held: readonly string[] | undefined): { metadata: PlannerMetadata; catalogs: string[] } | undefined {
  const isHeld = (t: ScannedTable) => metadata.table(t) === undefined && (held ? held.includes(t.catalog) : metadata.held?.(t) === true);
  // Every relation's reference name (aliases, unaliased tables), and the held tables' names.
  const names = new Map<string, number>();
  const heldNames = new Map<string, ScannedTable>();
  walk(statement, (n, parent) => {
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
  });
  if (heldNames.size === 0) return { metadata, catalogs: [] };
  if ([...heldNames.keys()].some((name) => names.get(name) !== 1)) return undefined;
  // The columns each held name qualifies.
  const columns = new Map<string, Set<string>>();
  walk(statement, (n) => {
    if (n.type !== 'DereferenceExpression' || n.base.type !== 'Identifier') return;
    const table = heldNames.get(fold(n.base.value));
    if (!table) return;
    const set = columns.get(keyOf(table)) ?? new Set<string>();
    columns.set(keyOf(table), set.add(fold(n.field.value)));
  });
  const layouts = new Map<string, TableLayout>();
  for (const table of heldNames.values()) {
    const named = [...(columns.get(keyOf(table)) ?? [])].sort();
    if (named.length === 0) return undefined;
    const layout: TableLayout = { columns: named.map((name) => ({ name, type: 'unknown' })), splits: false };
    heldLayouts.add(layout);
    layouts.set(keyOf(table), layout);
  }
  const catalogs = [...new Set([...heldNames.values()].map((t) => t.catalog))].sort();
  return { metadata: { table: (t) => metadata.table(t) ?? layouts.get(keyOf(t)) }, catalogs };
}
