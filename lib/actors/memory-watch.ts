// The coordinator's guard on its own resident memory: past the limit the query that holds the most is
// failed and admission is held, so the process is never killed for memory (DuckDB's own memory_limit
// does not cover everything: constants folded while planning, Node's heap, result buffers).
import { formatDataSize } from '../protocol/data-size.js';
import { VivaceError } from '../protocol/vivace-error.js';
import type { QueryContext } from './query.machine.js';

export interface MemoryWatch {
  /** Resident bytes past which the server sheds load (coordinator.max-resident-memory). */
  limitBytes: number;
  /** Resident bytes now (process.memoryUsage.rss in the server; a fake in specs). */
  readRss: () => number;
}

/** Bytes a query holds, as far as the coordinator can tell: what its scans read (engine/scan-profile.ts) and rows it buffers for its client. */
export function heldBytes(query: Pick<QueryContext, 'results'>): number {
  let buffered = 0;
  for (const batch of query.results.buffer) buffered += batch.bytes;
  return query.results.progress.processedBytes + buffered;
}

/**
 * Of the running queries, the one to fail: the most bytes held; among equals (DuckDB does not say which
 * query owns its memory) the oldest, which has had the most time to grow.
 */
export function queryToShed<Q extends Pick<QueryContext, 'results' | 'times'>>(running: readonly Q[]): Q | undefined {
  let chosen: Q | undefined;
  let chosenBytes = -1;
  for (const q of running) {
    const bytes = heldBytes(q);
    if (bytes > chosenBytes || (bytes === chosenBytes && chosen !== undefined && q.times.createTime < chosen.times.createTime)) {
      chosen = q;
      chosenBytes = bytes;
    }
  }
  return chosen;
}

export function memoryLimitError(rss: number, limitBytes: number): VivaceError {
  return new VivaceError(
    'EXCEEDED_GLOBAL_MEMORY_LIMIT',
    `Query killed because the server's resident memory (${formatDataSize(rss)}) exceeded its limit of ${formatDataSize(limitBytes)}`,
  );
}
