// Fragments while the join planner builds them (Draft), and their rendering into the plan's fragments once
// the tree is whole: ids breadth first from the root as Trino numbers them, each source read through its
// exchange table, each semi-join placeholder replaced by its source's exchange table.
import { formatSql, parseStatement, type Expression, type Node, type Query, type Relation, type Table } from '../sql/index.js';
import type { ScannedTable } from '../connectors/connector.types.js';
import { replaceTable, tableNode } from './plan-trees.js';
import { type SemiSource } from './semi-joins.js';
import { exchangeTableOf, type FragmentPartitioning, type OutputPartitioning, type PlanFragment } from './fragment.types.js';

/** A fragment while the plan is built: its SQL is rendered once every fragment has its id. */
export interface Draft {
  partitioning: FragmentPartitioning;
  scan?: { table: ScannedTable; where?: Expression; whole?: true };
  sources: Draft[];
  output: OutputPartitioning;
  /** The FROM clause's text, given each draft's exchange table name. */
  from: (exchange: (d: Draft) => string) => string;
  where: string[];
  /** The whole SQL, when it is more than SELECT symbols FROM ... WHERE ... (the last fragment, the root). */
  sql?: (exchange: (d: Draft) => string) => string;
  /** Output symbols (or partial columns). */
  columns: string[];
  /** Semi-join sources its SQL reads through placeholders (semi-joins.ts), with their drafts. */
  semis?: { source: SemiSource; draft: Draft }[];
  /** The catalog whose one worker holds its table (held-relations.ts): its task runs there. */
  holder?: string;
  /** Read in place by the probe's tasks (PlanFragment.colocated). */
  colocated?: true;
}

/** A Table node for an exchange table's text (catalog.schema.table, as exchangeName prints it). */
export function tableNodeOf(text: string, at: Node): Table {
  const [catalog, schema, table] = text.split('.');
  return tableNode({ catalog: catalog!, schema: schema!, table: table! }, at);
}

export function derivedTable(sql: string, alias: string): Relation {
  const query = parseStatement(sql) as Query;
  return {
    type: 'AliasedRelation', location: query.location, columnNames: undefined,
    alias: { type: 'Identifier', value: alias, quoted: false, location: query.location },
    relation: { type: 'TableSubquery', query, location: query.location },
  };
}

/**
 * Ids (root 0, then breadth first through the sources, as Trino numbers fragments) and each fragment's SQL.
 * A fragment several read (a WITH query's rows, derived-relations.ts) is numbered once all its readers are,
 * so each fragment comes after every consumer of it (fragment.types.ts).
 */
export function render(root: Draft): PlanFragment[] {
  const readers = new Map<Draft, number>();
  const seen = new Set<Draft>();
  const walk = [root];
  while (walk.length > 0) {
    const d = walk.pop()!;
    if (seen.has(d)) continue;
    seen.add(d);
    for (const s of d.sources) {
      readers.set(s, (readers.get(s) ?? 0) + 1);
      walk.push(s);
    }
  }
  const ids = new Map<Draft, number>();
  const queue = [root];
  while (queue.length > 0) {
    const d = queue.shift()!;
    ids.set(d, ids.size);
    for (const s of d.sources) {
      const left = readers.get(s)! - 1;
      readers.set(s, left);
      if (left === 0) queue.push(s);
    }
  }
  const exchange = (d: Draft) => {
    const t = exchangeTableOf(ids.get(d)!);
    return `${t.catalog}.${t.schema}.${t.table}`;
  };
  return [...ids.entries()].map(([d, id]) => {
    let sql = d.sql ? d.sql(exchange) : `SELECT ${d.columns.join(', ')} FROM ${d.from(exchange)}${d.where.length > 0 ? ` WHERE ${d.where.join(' AND ')}` : ''}`;
    // A semi-join's placeholder reads its source's exchange table, now that the source has its id.
    const semis = d.semis ?? [];
    if (semis.length > 0) sql = formatSql(semis.reduce((tree, x) => replaceTable(tree, x.source.placeholder, (at) => tableNodeOf(exchange(x.draft), at)), parseStatement(sql)));
    // Every fragment must be a query the parser takes back (it is the printer's own text).
    parseStatement(sql);
    return {
      id,
      partitioning: d.partitioning,
      ...(d.scan ? { scan: d.scan } : {}),
      sources: d.sources.map((s) => ({ fragmentId: ids.get(s)!, table: exchangeTableOf(ids.get(s)!) })),
      output: d.output,
      sql,
      columns: d.columns,
      ...(d.holder !== undefined ? { holder: d.holder } : {}),
      ...(d.colocated ? { colocated: true as const } : {}),
    };
  });
}

