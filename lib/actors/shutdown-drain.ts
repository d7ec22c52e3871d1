// Graceful shutdown (Trino's GracefulShutdownHandler, adapted to a coordinator that runs its queries):
// once the server stops admitting statements, the queries that were running finish, and their clients
// read every page, before the process exits. At the end of the grace period the ones still running fail
// with SERVER_SHUTTING_DOWN, and their clients get a short while to read that failure.
import { VivaceError } from '../protocol/vivace-error.js';
import type { Coordinator } from './coordinator.js';
import type { TrackedQuery } from './tracker.machine.js';

export interface DrainOptions {
  /** shutdown.grace-period */
  gracePeriodMs: number;
  /** How long the clients of queries failed at the deadline have to read their failure. */
  failureReadMs?: number;
  /** How often the queries are looked at (the drain is not on any query's path). */
  pollMs?: number;
  /** Timers, injectable for specs (sinon's fake timers replace the globals anyway). */
  setTimer?: (callback: () => void, ms: number) => unknown;
}

/** A query its client has not finished with: still running, or its final response not yet fetched. */
function awaitsClient(tracked: TrackedQuery): boolean {
  return tracked.ref !== undefined || tracked.cursor.upcoming !== undefined;
}

/**
 * Resolves once every query that awaited its client when the drain began is done with (ended and read
 * to its last response, or forgotten by the tracker), failing those still running at the deadline.
 * Finished queries whose clients had already walked away before the shutdown (ended more than
 * `clientTimeoutMs` ago and never read to the end) are not waited for.
 */
export async function drainQueries(coordinator: Coordinator, options: DrainOptions): Promise<void> {
  const setTimer = options.setTimer ?? ((callback: () => void, ms: number) => setTimeout(callback, ms).unref());
  const pollMs = options.pollMs ?? 100;
  const now = coordinator.now();
  const since = now - coordinator.config.clientTimeoutMs;
  let waiting = coordinator.list().filter((t) => awaitsClient(t) && (t.ref !== undefined || (t.final?.endTime ?? now) >= since));
  const pending = () => {
    waiting = waiting.filter((t) => coordinator.lookup(t.queryId) === t && awaitsClient(t));
    return waiting.length;
  };
  const until = (deadline: number) =>
    new Promise<void>((resolve) => {
      const check = () => (pending() === 0 || coordinator.now() >= deadline ? resolve() : setTimer(check, pollMs));
      check();
    });

  await until(now + options.gracePeriodMs);
  if (pending() === 0) return;
  const error = new VivaceError('SERVER_SHUTTING_DOWN', 'Server is shutting down. The query did not finish within the shutdown grace period');
  for (const tracked of waiting) tracked.ref?.send({ type: 'query.fail', error });
  await until(coordinator.now() + (options.failureReadMs ?? Math.min(5_000, options.gracePeriodMs)));
}
