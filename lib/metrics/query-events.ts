// A query's start and end as the tracker sees them, for metrics and logs, without touching a machine:
// the tracker's actor system is inspected for the snapshots that follow its query.register and
// query.finished events (the end with the final view the tracker has just recorded).
import type { Coordinator } from '../actors/coordinator.js';
import type { QueryView } from '../actors/query-view.js';
import type { TrackerEvent } from '../actors/tracker.machine.js';

export interface QueryEventListener {
  started?(queryId: string): void;
  /** A query ended (FINISHED or FAILED), with its final view. */
  ended?(view: QueryView): void;
}

/**
 * Calls the listeners for every query that starts or ends from now on; returns the unsubscribe.
 * A query whose final view expired in the very step that recorded it (query.max-history=0 with
 * query.min-expire-age=0) is not reported as ended.
 */
export function watchQueryEvents(coordinator: Coordinator, listeners: QueryEventListener[]): () => void {
  const tracker = coordinator.tracker;
  const subscription = tracker.system.inspect((inspection) => {
    if (inspection.type !== '@xstate.snapshot' || inspection.actorRef !== tracker) return;
    const event = inspection.event as TrackerEvent;
    if (event.type === 'query.register') {
      for (const listener of listeners) listener.started?.(event.queryId);
    } else if (event.type === 'query.finished') {
      const final = tracker.getSnapshot().context.queries.get(event.queryId)?.final;
      if (final) for (const listener of listeners) listener.ended?.(final);
    }
  });
  return () => subscription.unsubscribe();
}
