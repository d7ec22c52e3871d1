// Trino's HTTP event listener (plugin/trino-http-event-listener): with `event-listener.name=http` in
// etc/event-listener.properties, every finished query is POSTed as a QueryCompletedEvent JSON document to
// `http-event-listener.connect-ingest-uri` when `http-event-listener.log-completed=true`. A send failed by a
// server error (5xx, 408, 429) or a broken connection is retried `connect-retry-count` times after
// retryDelay * backoffBase^attempt, capped at connect-max-delay, as upstream. Ours: events wait in a
// bounded queue (the oldest is dropped past it), one POST at a time, so a query never waits for a receiver.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { QueryView } from '../actors/query-view.js';
import { parsePropertiesText } from '../connectors/properties-text.js';
import { parseDuration } from '../protocol/duration.js';
import { ERROR_CODES, type ErrorName } from '../protocol/error-codes.js';
import { VivaceError } from '../protocol/vivace-error.js';
import { historyRow } from './history-row.js';

export interface HttpEventListenerSettings {
  ingestUri: string;
  logCompleted: boolean;
  /** `Name: value` headers (connect-http-headers) */
  headers: Record<string, string>;
  retryCount: number;
  retryDelayMs: number;
  backoffBase: number;
  maxDelayMs: number;
  /** ours: events waiting to be sent at most, besides the one being sent (http-event-listener.max-queued-events, default 1000) */
  maxQueued: number;
}

/** etc/event-listener.properties beside the config file (or in etc/ beside it), when there is one. */
export function eventListenerPropertiesPath(configFile: string | undefined): string | undefined {
  if (configFile === undefined) return undefined;
  const beside = dirname(resolve(configFile));
  return [join(beside, 'event-listener.properties'), join(beside, 'etc', 'event-listener.properties')].find((path) => existsSync(path));
}

const invalid = (message: string) => new VivaceError('CONFIGURATION_INVALID', message);

/** The settings of an event-listener.properties text; undefined when it names no listener of ours. */
export function parseEventListenerProperties(text: string, file = 'event-listener.properties'): HttpEventListenerSettings | undefined {
  const values = new Map(parsePropertiesText(text).map((e) => [e.key, e.value.trim()]));
  const name = values.get('event-listener.name');
  if (name !== 'http') {
    if (name !== undefined) throw invalid(`${file}: event-listener.name=${name} is not supported (supported: http)`);
    return undefined;
  }
  const ingestUri = values.get('http-event-listener.connect-ingest-uri');
  if (!ingestUri) throw invalid(`${file}: http-event-listener.connect-ingest-uri is required`);
  let parsed: URL;
  try {
    parsed = new URL(ingestUri);
  } catch {
    throw invalid(`${file}: http-event-listener.connect-ingest-uri is not a URI: ${ingestUri}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw invalid(`${file}: http-event-listener.connect-ingest-uri must be http or https: ${ingestUri}`);
  const number = (key: string, fallback: number, min: number) => {
    const raw = values.get(key);
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!Number.isFinite(n) || n < min) throw invalid(`${file}: ${key} must be a number of at least ${min}: ${raw}`);
    return n;
  };
  const headers: Record<string, string> = {};
  for (const header of (values.get('http-event-listener.connect-http-headers') ?? '').split(',')) {
    if (header.trim() === '') continue;
    const colon = header.indexOf(':');
    if (colon <= 0) throw invalid(`${file}: http-event-listener.connect-http-headers: not a 'Name: value' header: ${header.trim()}`);
    headers[header.slice(0, colon).trim()] = header.slice(colon + 1).trim();
  }
  const duration = (key: string, fallback: number) => (values.has(key) ? parseDuration(values.get(key)!) : fallback);
  return {
    ingestUri,
    logCompleted: values.get('http-event-listener.log-completed')?.toLowerCase() === 'true',
    headers,
    retryCount: Math.trunc(number('http-event-listener.connect-retry-count', 0, 0)),
    retryDelayMs: duration('http-event-listener.connect-retry-delay', 1000),
    backoffBase: number('http-event-listener.connect-backoff-base', 2, 1),
    maxDelayMs: duration('http-event-listener.connect-max-delay', 60_000),
    maxQueued: Math.trunc(number('http-event-listener.max-queued-events', 1000, 1)),
  };
}

export function readEventListenerProperties(path: string): HttpEventListenerSettings | undefined {
  return parseEventListenerProperties(readFileSync(path, 'utf8'), path);
}

const iso = (millis: number | undefined) => (millis === undefined ? null : new Date(millis).toISOString());
/** java.time.Duration as Jackson writes it with dates as text: ISO-8601 seconds. */
const seconds = (millis: number) => `PT${Math.round(millis) / 1000}S`;

/** Trino's QueryCompletedEvent for a finished query (the fields this coordinator knows). */
export function queryCompletedEvent(view: QueryView, server: { environment: string; serverVersion: string; serverAddress: string; uri: string }): Record<string, unknown> {
  const row = historyRow(view);
  const s = view.session;
  const error = view.error;
  return {
    metadata: {
      queryId: view.queryId,
      transactionId: s.transactionId ?? null,
      query: view.sql,
      updateType: view.updateType ?? null,
      preparedQuery: null,
      queryState: view.state,
      uri: `${server.uri}/v1/query/${view.queryId}`,
      tables: [],
      routines: [],
      plan: null,
      payload: null,
    },
    statistics: {
      cpuTime: seconds(row.cpuTimeMs),
      wallTime: seconds(Math.max(0, (view.endTime ?? view.viewTime) - view.createTime)),
      queuedTime: seconds(row.queuedTimeMs),
      analysisTime: seconds(row.analysisTimeMs),
      planningTime: seconds(row.planningTimeMs),
      peakUserMemoryBytes: row.peakMemoryBytes,
      peakTotalNonRevocableMemoryBytes: row.peakMemoryBytes,
      peakTaskUserMemory: row.peakMemoryBytes,
      physicalInputBytes: row.physicalInputBytes,
      physicalInputRows: row.physicalInputRows,
      totalBytes: row.physicalInputBytes,
      totalRows: row.physicalInputRows,
      outputBytes: row.outputBytes,
      outputRows: row.outputRows,
      writtenBytes: 0,
      writtenRows: 0,
      completedSplits: 0,
      complete: true,
    },
    context: {
      user: s.user,
      principal: s.user,
      groups: [],
      remoteClientAddress: s.remoteUserAddress,
      userAgent: s.userAgent ?? null,
      clientInfo: s.clientInfo ?? null,
      clientTags: s.clientTags,
      source: s.source ?? null,
      catalog: s.catalog ?? null,
      schema: s.schema ?? null,
      resourceGroupId: view.resourceGroupId ?? null,
      sessionProperties: s.properties,
      serverAddress: server.serverAddress,
      serverVersion: server.serverVersion,
      environment: server.environment,
      retryPolicy: 'NONE',
    },
    ioMetadata: { inputs: [], output: null },
    failureInfo: error
      ? {
          errorCode: { code: ERROR_CODES[error.errorName as ErrorName]?.code ?? error.errorCode, name: error.errorName, type: error.errorType },
          failureType: error.failureInfo?.type ?? null,
          failureMessage: error.message,
          failureTask: null,
          failureHost: null,
          failuresJson: JSON.stringify(error.failureInfo ?? null),
        }
      : null,
    warnings: (view.warnings ?? []).map((w) => ({ warningCode: w.warningCode, message: w.message })),
    createTime: iso(view.createTime),
    executionStartTime: iso(view.executionStartTime ?? view.createTime),
    endTime: iso(view.endTime ?? view.viewTime),
  };
}

/** How one POST went: delivered, worth retrying (server error, broken connection), or refused for good. */
type Outcome = 'sent' | 'retry' | 'refused';

export interface HttpEventListenerOptions {
  settings: HttpEventListenerSettings;
  server: { environment: string; serverVersion: string; serverAddress: string; uri: string };
  /** Told of every event given up (refused, out of retries, or dropped from a full queue). */
  onDropped?: (queryId: string, reason: string) => void;
}

export class HttpEventListener {
  private readonly queue: { queryId: string; body: string }[] = [];
  private sending = false;
  private closed = false;
  private timer: NodeJS.Timeout | undefined;
  /** Events delivered, for specs and metrics. */
  delivered = 0;

  constructor(private readonly options: HttpEventListenerOptions) {}

  /** The query event listener's end: queued at once, sent later. */
  ended(view: QueryView): void {
    if (this.closed || !this.options.settings.logCompleted) return;
    if (this.queue.length >= this.options.settings.maxQueued) {
      const dropped = this.queue.shift()!;
      this.options.onDropped?.(dropped.queryId, `more than ${this.options.settings.maxQueued} events waiting`);
    }
    this.queue.push({ queryId: view.queryId, body: JSON.stringify(queryCompletedEvent(view, this.options.server)) });
    if (!this.sending) void this.drain();
  }

  get queued(): number {
    return this.queue.length;
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.queue.length = 0;
  }

  private async drain(): Promise<void> {
    this.sending = true;
    try {
      while (!this.closed && this.queue.length > 0) {
        // Out of the queue while it is sent: the queue holds the events waiting (maxQueued of them at most).
        const event = this.queue.shift()!;
        const { retryCount, retryDelayMs, backoffBase, maxDelayMs } = this.options.settings;
        let outcome: Outcome = 'retry';
        for (let attempt = 0; !this.closed; attempt++) {
          outcome = await this.post(event.body);
          if (outcome !== 'retry' || attempt >= retryCount) break;
          await new Promise<void>((done) => {
            this.timer = setTimeout(done, Math.min(maxDelayMs, retryDelayMs * backoffBase ** attempt));
            this.timer.unref();
          });
        }
        if (outcome === 'sent') this.delivered++;
        else if (!this.closed) this.options.onDropped?.(event.queryId, outcome === 'refused' ? 'the receiver refused it' : `still failing after ${retryCount} retries`);
      }
    } finally {
      this.sending = false;
    }
  }

  private async post(body: string): Promise<Outcome> {
    try {
      const res = await fetch(this.options.settings.ingestUri, {
        method: 'POST',
        headers: { ...this.options.settings.headers, 'Content-Type': 'application/json' },
        body,
        signal: AbortSignal.timeout(30_000),
      });
      await res.arrayBuffer().catch(() => undefined);
      if (res.status >= 200 && res.status < 300) return 'sent';
      return res.status >= 500 || res.status === 408 || res.status === 429 ? 'retry' : 'refused';
    } catch {
      return 'retry';
    }
  }
}
