// Ending a plan in progress. An AbortController (an EventTarget) per query cost ~10 us of the main
// thread, 2% of a SELECT 1; this is a flag and at most one listener.

/** What the engine sees of a planning abort. */
export interface PlanAbort {
  readonly aborted: boolean;
  /** Why, once aborted (the query's error). */
  readonly reason: unknown;
  /** Calls `listener` once on abort (at once when already aborted); the returned function removes it. */
  onAbort(listener: () => void): () => void;
}

export class PlanAbortController implements PlanAbort {
  aborted = false;
  reason: unknown = undefined;
  private listeners: (() => void)[] = [];

  abort(reason?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listeners = this.listeners;
    this.listeners = [];
    for (const listener of listeners) listener();
  }

  onAbort(listener: () => void): () => void {
    if (this.aborted) {
      listener();
      return () => {};
    }
    this.listeners.push(listener);
    return () => {
      const at = this.listeners.indexOf(listener);
      if (at >= 0) this.listeners.splice(at, 1);
    };
  }
}
