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
  /**
   * Whether one worker holds the table's catalog (memory) and so reads it, whole, for a plan that reads
   * it beside tables that split (its rows gathered from that worker). Absent: no such catalog.
   */
  held?(table: ScannedTable): boolean;
}

/** The session as the planner reads it (its catalog and schema resolve names; Trino's join properties). */
export interface PlannerSession {
  catalog?: string;
  schema?: string;
  /** join_distribution_type */
  joinDistribution: 'AUTOMATIC' | 'BROADCAST' | 'PARTITIONED';
  /** join_max_broadcast_table_size, bytes */
  maxBroadcastBytes: number;
  /** enable_dynamic_filtering (absent: Trino's default, true): dynamic-filters.ts */
  dynamicFiltering?: boolean;
}
