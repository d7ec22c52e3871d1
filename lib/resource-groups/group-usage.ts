// What the tracker's periodic sweep tells the dispatcher's resource groups (Trino refreshes group usage and
// generates CPU quota on a timer too): each running query's memory and CPU as its workers reported them, and
// the seconds of quota that passed. Memory is the peak the workers reported (the root's, and each sub-stage's
// summed over its workers): known once a task ended, so a group's softMemoryLimit binds on what its queries
// were seen to hold.
import type { ExecutionProgress } from '../engine/engine.types.js';
import { stagePeakMemory } from '../protocol/query-info.js';
import type { DispatcherEvent } from '../actors/dispatcher.machine.js';

export interface RunningQueryProgress {
  queryId: string;
  progress: ExecutionProgress;
}

export function groupUsageEvents(running: Iterable<RunningQueryProgress>, elapsedMs: number): DispatcherEvent[] {
  const events: DispatcherEvent[] = [];
  for (const { queryId, progress } of running) {
    let memoryBytes = progress.peakMemoryBytes ?? 0;
    for (const stage of progress.subStages ?? []) memoryBytes += stagePeakMemory(stage.tasks ?? []);
    let cpuMillis = progress.cpuTimeMillis;
    for (const stage of progress.subStages ?? []) cpuMillis += stage.cpuTimeMillis;
    events.push({ type: 'dispatcher.usage', queryId, memoryBytes, cpuMillis });
  }
  events.push({ type: 'dispatcher.quota', seconds: elapsedMs / 1000 });
  return events;
}
