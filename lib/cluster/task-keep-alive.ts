// The coordinator keeps the worker tasks of its live statements from looking abandoned. A worker cancels a
// task no one has asked about for two minutes (task-registry.ts, Trino's task.client.timeout), which is
// right when its coordinator died. But a statement's pages are pulled only as its client asks for them, and
// a client may pause for up to query.client.timeout (5 minutes) between requests, or spend minutes on the
// segments of one spooled response: its task was swept meanwhile and the next page failed "Unknown task".
// Trino's coordinator never lets it come to that: it polls each remote task's status continuously
// (HttpRemoteTask, ContinuousTaskStatusFetcher). Here a task that had no request for `idleMs` gets a
// status request (GET /v1/task/{taskId}/status), which the worker counts as one.
import type { WorkerClient } from './worker-client.js';

export interface KeptTask {
  /** A request reached the task now (a page, the execute call). */
  touch(): void;
  /** The statement is done with the task (exhausted, failed, cancelled, moved to another worker). */
  release(): void;
}

export interface TaskKeepAliveOptions {
  /** A status request for the task, answered with its HTTP status; its failures are the results calls' to report, not this one's. */
  status(client: WorkerClient, taskId: string): Promise<{ status: number }>;
  /** A task idle this long gets a status request (default 30 s, a quarter of the worker's two minutes). */
  idleMs?: number;
  now?: () => number;
}

interface Entry {
  client: WorkerClient;
  taskId: string;
  lastRequest: number;
  /** A status request is on its way: no second one until it settled. */
  pending: boolean;
}

export class TaskKeepAlive {
  private readonly entries = new Set<Entry>();
  private readonly idleMs: number;
  private readonly now: () => number;

  constructor(private readonly options: TaskKeepAliveOptions) {
    this.idleMs = options.idleMs ?? 30_000;
    this.now = options.now ?? Date.now;
  }

  keep(client: WorkerClient, taskId: string): KeptTask {
    const entry: Entry = { client, taskId, lastRequest: this.now(), pending: false };
    this.entries.add(entry);
    return {
      touch: () => {
        entry.lastRequest = this.now();
      },
      release: () => {
        this.entries.delete(entry);
      },
    };
  }

  /** Tasks kept now. */
  get size(): number {
    return this.entries.size;
  }

  /** Sends a status request for each task idle past `idleMs`; settles when they did (for specs). */
  sweep(): Promise<void> {
    const now = this.now();
    const sent: Promise<void>[] = [];
    for (const entry of this.entries) {
      if (entry.pending || now - entry.lastRequest < this.idleMs) continue;
      entry.pending = true;
      sent.push(
        this.options.status(entry.client, entry.taskId).then(
          (response) => {
            entry.pending = false;
            entry.lastRequest = this.now();
            // The worker no longer has it: nothing left to keep (the next page call reports why).
            if (response.status === 404) this.entries.delete(entry);
          },
          () => {
            // Tried again after another idle period; a lost worker is the failure detector's and the results call's to report.
            entry.pending = false;
            entry.lastRequest = this.now();
          },
        ),
      );
    }
    return Promise.all(sent).then(() => undefined);
  }
}
