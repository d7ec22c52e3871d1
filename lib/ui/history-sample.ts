// One second of the cluster's activity as GET /ui/api/history sends it (schemas/ui-history.schema.json):
// shared by the coordinator's ring (lib/metrics/cluster-history.ts) and the overview's chart.
export interface HistorySample {
  /** The second's start, epoch milliseconds. */
  time: number;
  started: number;
  finished: number;
  failed: number;
  /** Rows the queries that ended in this second processed (their input), as Trino's input rows. */
  processedRows: number;
  /** Rows those queries sent to their clients. */
  outputRows: number;
}
