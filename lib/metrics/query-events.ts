// A query's start and end as the tracker sees them, for metrics and logs, without touching a machine:
// a subscriber to the tracker's snapshots, which it is told of after every event it takes. (Inspecting
// the tracker's actor system would name the events, but costs about 5 µs per event, measured.)
import type { Coordinator } from '../actors/coordinator.js';
import type { QueryView } from '../actors/query-view.js';
import type { TrackerContext } from '../actors/tracker.machine.js';

export interface QueryEventListener {
  /** A query was registered (submitted). */
  started?(): void;
  /** A query ended (FINISHED or FAILED), with its final view. */
  ended?(view: QueryView): void;
}

/** One tracker subscription per coordinator, shared by every watcher (metrics, the query log, the UI's history). */
interface Hub {
  listeners: Set<QueryEventListener>;
  unsubscribe(): void;
}
const hubs = new WeakMap<Coordinator, Hub>();

/**
 * Calls the listeners for every query that starts or ends from now on; returns the unsubscribe.
 * Starts: only query.register adds to the tracker's map, one query per event, and no event both adds and
 * expires, so a larger map is that many new queries. Ends: history grows at its end and expires from its
 * front, so the entries after the last one reported (all of them once that one expired) are new. A query
 * expired in the very step that recorded it (query.max-history=0 with query.min-expire-age=0) is not
 * reported as ended. Every watcher of a coordinator shares one subscription to its tracker: each costs a
 * call per tracker event, two per query.
 */
export function watchQueryEvents(coordinator: Coordinator, listeners: QueryEventListener[]): () => void {
  let hub = hubs.get(coordinator);
  if (!hub) {
    const created = subscribe(coordinator, new Set());
    hubs.set(coordinator, created);
    hub = created;
  }
  const mine = [...new Set(listeners)].filter((listener) => !hub.listeners.has(listener));
  for (const listener of mine) hub.listeners.add(listener);
  const joined = hub;
  return () => {
    for (const listener of mine) joined.listeners.delete(listener);
    if (joined.listeners.size === 0 && hubs.get(coordinator) === joined) {
      hubs.delete(coordinator);
      joined.unsubscribe();
    }
  };
}

function subscribe(coordinator: Coordinator, listeners: Set<QueryEventListener>): Hub {
  const tracker = coordinator.tracker;
  const initial = tracker.getSnapshot().context;
  let knownQueries = initial.queries.size;
  let lastEnded: string | undefined = initial.history[initial.history.length - 1];
  const observe = ({ queries, history }: TrackerContext) => {
    for (let added = queries.size - knownQueries; added > 0; added--) for (const listener of listeners) listener.started?.();
    knownQueries = queries.size;
    const newest = history.length - 1;
    if (newest < 0 || history[newest] === lastEnded) return;
    let first = newest;
    while (first > 0 && history[first - 1] !== lastEnded) first--;
    for (let i = first; i <= newest; i++) {
      const final = queries.get(history[i]!)?.final;
      if (final) for (const listener of listeners) listener.ended?.(final);
    }
    lastEnded = history[newest];
  };
  const subscription = tracker.subscribe((snapshot) => observe(snapshot.context));
  return { listeners, unsubscribe: () => subscription.unsubscribe() };
}
