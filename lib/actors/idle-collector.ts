// Returns memory after a burst of queries: once no query has been live for a whole interval and enough
// queries finished since the last collection, run a full GC. V8 leaves a burst's garbage in the old
// generation until the next allocation pressure, which on an idle coordinator never comes.
// Needs `--expose-gc` (bin/vivace passes it); without it this does nothing.

export interface IdleCollectorOptions {
  intervalMs: number;
  /** finished queries since the last collection that make one worthwhile */
  minFinishedQueries: number;
  liveQueries: () => number;
  finishedQueries: () => number;
}

export function startIdleCollector(options: IdleCollectorOptions): () => void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (typeof gc !== 'function') return () => {};
  let collectedAt = options.finishedQueries();
  let idleTicks = 0;
  const timer = setInterval(() => {
    idleTicks = options.liveQueries() === 0 ? idleTicks + 1 : 0;
    const finished = options.finishedQueries();
    if (idleTicks >= 2 && finished - collectedAt >= options.minFinishedQueries) {
      collectedAt = finished;
      // The second pass releases what the first freed (finalizers, emptied pages) back to the system.
      gc();
      gc();
    }
  }, options.intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
