// What a connector knows of a table's rows without reading them, in the shape of Trino's TableStatistics
// (core/trino-spi/.../statistics/TableStatistics.java, ColumnStatistics.java): every estimate may be
// unknown (Trino's Estimate.unknown(), here undefined), a column's range is in Trino's stats
// representation (a double: numbers as themselves, a date as its epoch day; StatsUtil.toStatsRepresentation).
// SHOW STATS renders it; the planner may read it to size joins.

/** One column's statistics; absent fields are unknown. */
export interface ColumnStatistics {
  /** Bytes of the column's non-null values (variable-width types only, as Trino reports it). */
  dataSize?: number;
  distinctValuesCount?: number;
  nullsFraction?: number;
  /** The least and greatest value (both or neither), in Trino's stats representation. */
  range?: { low: number; high: number };
}

export interface TableStatistics {
  /** Rows of the table (or of the partitions the predicate keeps); undefined when unknown. */
  rowCount?: number;
  /** By column name (lower case), in the table's column order; a column with nothing known may be absent. */
  columns: ReadonlyMap<string, ColumnStatistics>;
}

/** A partition as a predicate sees it: its name (`k=v/k2=w`) and its values in partition-column order (null: the default partition). */
export interface PartitionRef {
  name: string;
  values: readonly (string | null)[];
}

/** A table as a statistics provider names it, within its catalog. */
export interface StatisticsTable {
  schema: string;
  table: string;
}

/**
 * A connector's statistics: of a table, or of the partitions `keep` retains (Trino's constraint after
 * partition pruning). Undefined when the connector has no such table.
 */
export interface TableStatisticsProvider {
  statistics(table: StatisticsTable, keep?: (partition: PartitionRef) => boolean): Promise<TableStatistics | undefined>;
}
