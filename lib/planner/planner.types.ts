// What the planner asks of the catalogs (through the connectors, never by a catalog's name) and of the
// session: a table's columns and size, and the join distribution settings.
import type { ScannedTable, TableLayout } from '../connectors/connector.types.js';

export type { TableLayout };

export interface PlannerMetadata {
  /**
   * A table every worker reads alike (tpch, a lake table): its layout; undefined for any other table (a
   * memory table held by one worker, a system table, a view, a name that does not resolve).
   */
  table(table: ScannedTable): TableLayout | undefined;
}

/** The session as the planner reads it (its catalog and schema resolve names; Trino's join properties). */
export interface PlannerSession {
  catalog?: string;
  schema?: string;
  /** join_distribution_type */
  joinDistribution: 'AUTOMATIC' | 'BROADCAST' | 'PARTITIONED';
  /** join_max_broadcast_table_size, bytes */
  maxBroadcastBytes: number;
}
