// A timeline of a staged query's tasks for diagnosis (bench/stage-timeline.ts): with VIVACE_STAGE_TRACE
// naming a file, the coordinator and its workers (which inherit the environment) append one JSON line per
// step of each task (scheduled, posted, planned, pulled, executed, noticed), stamped with a time in
// milliseconds comparable across the processes of one machine. Unset, every call is a no-op.
import { appendFileSync } from 'node:fs';

const file = process.env.VIVACE_STAGE_TRACE;

/** Whether steps are being written (callers skip building their fields otherwise). */
export const stageTracing = file !== undefined && file !== '';

/** Appends one step of `taskId` (or of a fragment, `query.fragment`) to the trace file. */
export function stageTrace(event: string, taskId: string, extra?: Record<string, unknown>): void {
  if (!stageTracing) return;
  try {
    appendFileSync(file!, `${JSON.stringify({ t: performance.timeOrigin + performance.now(), pid: process.pid, event, taskId, ...extra })}\n`);
  } catch {
    // A diagnosis aid: a trace that cannot be written never fails a task.
  }
}
