// The flat columns of one stored query (system.runtime.completed_queries): those of system.runtime.queries
// (lib/actors/system-tables.source.ts queryRow) and what a finished query adds: its error's message, the
// rows and bytes it returned and read, its CPU time and its peak memory.
import type { QueryView } from '../actors/query-view.js';
import { queryRow } from '../actors/system-tables.source.js';
import type { SystemCompletedQueryRow } from '../connectors/system/system-tables.js';
import { stagePeakMemory } from '../protocol/query-info.js';
import { allStages, totalCounters } from '../protocol/statement-stats.js';

export type HistoryRow = SystemCompletedQueryRow;

export function historyRow(view: QueryView): HistoryRow {
  const total = totalCounters(view);
  let peak = 0;
  for (const stage of allStages(view.rootStage)) if (stage.tasks) peak = Math.max(peak, stagePeakMemory(stage.tasks));
  return {
    ...queryRow(view),
    errorMessage: view.error?.message ?? null,
    outputRows: view.outputRows,
    outputBytes: view.outputBytes,
    physicalInputRows: total.physicalInputRows,
    physicalInputBytes: total.physicalInputBytes,
    cpuTimeMs: total.cpuTimeMillis,
    wallTimeMs: total.wallTimeMillis,
    peakMemoryBytes: peak,
  };
}
