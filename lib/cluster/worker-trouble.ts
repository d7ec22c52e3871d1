// How a call to a worker failed, as the coordinator decides whether to try another worker: the worker
// was lost, or is draining or full; anything else is the statement's own error and goes to the client.
import { VivaceError } from '../protocol/vivace-error.js';
import { WorkerTransportError } from './worker-client.js';

/** The worker, not the statement, failed: no answer, reset, refused, failed by the detector, or an answer no statement's error gives. */
export function lostWorker(err: unknown): boolean {
  if (err instanceof WorkerTransportError) return err.code !== 'AbortError';
  return err instanceof VivaceError && err.errorName === 'REMOTE_TASK_ERROR';
}

/** The worker takes no new task now: draining (graceful shutdown) or past its task cap. */
export function busyWorker(err: unknown): boolean {
  return err instanceof VivaceError && (err.errorName === 'SERVER_SHUTTING_DOWN' || err.errorName === 'GENERIC_INSUFFICIENT_RESOURCES');
}
