// Announces a worker to the coordinator's discovery as airlift's announcer does: PUT
// {coordinator}/v1/announcement/{nodeId} with the node's services (protocol.md section 6) every 8 s, the
// internal bearer when a shared secret is set, quiet retries (1 s, doubling up to the interval) while the
// coordinator is down or refuses, and a DELETE when the worker leaves. Timers are injected for specs.
import { randomUUID } from 'node:crypto';
import { internalHeaders } from '../cluster/cluster-auth.js';
import { pingFailureOf } from '../cluster/heartbeat-ping.js';
import { vivaceVersion } from '../protocol/vivace-version.js';

/** airlift's announcement body. */
export interface Announcement {
  environment: string;
  nodeId: string;
  pool: string;
  location: string;
  services: { id: string; type: string; properties: Record<string, string> }[];
}

export interface AnnouncerOptions {
  coordinatorUrl: string;
  nodeId: string;
  environment: string;
  /** The worker's HTTP address as the coordinator should reach it. */
  httpUri: string;
  /** Whether this worker holds the memory catalog. */
  memory: boolean;
  sharedSecret?: string;
  /** Re-announce period (airlift: 80% of the 10 s max-age, 8 s). */
  intervalMs?: number;
  /** First retry after a failure; doubles up to intervalMs. */
  retryMs?: number;
  requestTimeoutMs?: number;
  timers?: { setTimeout: (fn: () => void, ms: number) => unknown; clearTimeout: (handle: never) => void };
  /** Told when announcing starts failing (once per outage) and when it works again. */
  onChange?: (ok: boolean, detail: string) => void;
}

export const ANNOUNCEMENT_PATH = '/v1/announcement';

export class Announcer {
  readonly announcement: Announcement;
  private readonly url: string;
  private timer: unknown;
  private stopped = false;
  private retryMs: number;
  private lastOk: boolean | undefined;

  constructor(private readonly options: AnnouncerOptions) {
    let end = options.coordinatorUrl.length;
    while (end > 0 && options.coordinatorUrl.charCodeAt(end - 1) === 0x2f) end--;
    const base = options.coordinatorUrl.slice(0, end);
    this.url = `${base}${ANNOUNCEMENT_PATH}/${encodeURIComponent(options.nodeId)}`;
    this.retryMs = options.retryMs ?? 1000;
    this.announcement = {
      environment: options.environment,
      nodeId: options.nodeId,
      // airlift's defaults: node.pool "general", location "/" + node id.
      pool: 'general',
      location: `/${options.nodeId}`,
      services: [
        {
          id: randomUUID(),
          type: 'trino',
          properties: { http: options.httpUri, node_version: vivaceVersion(), coordinator: 'false', memory: String(options.memory) },
        },
      ],
    };
  }

  /** Announces now and then every interval until stop(). */
  start(): void {
    void this.announceAndSchedule();
  }

  /** One announcement; true when the coordinator took it (any 2xx). */
  async announce(): Promise<boolean> {
    try {
      const response = await fetch(this.url, {
        method: 'PUT',
        headers: { 'Content-Type': 'application/json', ...(await internalHeaders(this.options.sharedSecret, this.options.nodeId)) },
        body: JSON.stringify(this.announcement),
        signal: AbortSignal.timeout(this.options.requestTimeoutMs ?? 5000),
      });
      await response.body?.cancel();
      this.report(response.ok, `HTTP ${response.status}`);
      return response.ok;
    } catch (err) {
      // Named as the failure detector names a failed ping: ECONNREFUSED, TimeoutError, ...
      this.report(false, pingFailureOf(err).type);
      return false;
    }
  }

  /** Stops announcing and leaves discovery (DELETE); a coordinator that is gone is not waited for long. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer !== undefined) (this.options.timers?.clearTimeout ?? clearTimeout)(this.timer as never);
    this.timer = undefined;
    try {
      const response = await fetch(this.url, {
        method: 'DELETE',
        headers: await internalHeaders(this.options.sharedSecret, this.options.nodeId),
        signal: AbortSignal.timeout(this.options.requestTimeoutMs ?? 5000),
      });
      await response.body?.cancel();
    } catch {
      // The coordinator forgets the node 30 s after its last announcement anyway.
    }
  }

  private async announceAndSchedule(): Promise<void> {
    if (this.stopped) return;
    const ok = await this.announce();
    if (this.stopped) return;
    const interval = this.options.intervalMs ?? 8000;
    let delay = interval;
    if (ok) this.retryMs = this.options.retryMs ?? 1000;
    else {
      delay = Math.min(this.retryMs, interval);
      this.retryMs = Math.min(this.retryMs * 2, interval);
    }
    const set = this.options.timers?.setTimeout ?? setTimeout;
    const handle = set(() => void this.announceAndSchedule(), delay);
    (handle as { unref?: () => void }).unref?.();
    this.timer = handle;
  }

  private report(ok: boolean, detail: string): void {
    if (ok === this.lastOk) return;
    this.lastOk = ok;
    this.options.onChange?.(ok, detail);
  }
}
