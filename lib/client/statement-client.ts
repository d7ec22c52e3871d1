// A small client of the statement protocol (Trino's StatementClientV1): POST /v1/statement, follow nextUri
// to the end handing columns, rows and stats to the caller, DELETE nextUri to cancel, and apply the
// session changes of each response's headers to the ClientSession.
import { readFileSync } from 'node:fs';
import type { ClientSession } from './client-session.js';
import { httpCall, type HttpResponse } from './http-transport.js';
import { JsonNumber, parseJsonText, type JsonValue } from './json-text.js';
import type { ResultColumn } from './value-format.js';
import { isQueryData, readSegments, SegmentError, type SegmentFetcher } from './segment-reader.js';

export interface QueryStats {
  state: string;
  scheduled: boolean;
  nodes: number;
  totalSplits: number;
  queuedSplits: number;
  runningSplits: number;
  completedSplits: number;
  processedRows: number;
  processedBytes: number;
  elapsedTimeMillis: number;
  progressPercentage?: number;
}

export interface QueryError {
  message: string;
  errorName: string;
  errorType?: string;
  errorLocation?: { lineNumber: number; columnNumber: number };
}

export interface QueryStatus {
  id: string;
  infoUri?: string;
  nextUri?: string;
  columns?: ResultColumn[];
  data?: JsonValue[][];
  /** The spooling protocol's `data` object, read into `data`. */
  queryData?: JsonValue;
  stats: QueryStats;
  error?: QueryError;
  updateType?: string;
  updateCount?: number;
}

export interface QueryListener {
  /** Every response, POST first. */
  onStatus?(status: QueryStatus): void;
  /** The columns, once, before the first rows. */
  onColumns?(columns: ResultColumn[]): void;
  onRows?(rows: JsonValue[][]): void;
}

export interface QueryOutcome {
  final: QueryStatus;
  columns: ResultColumn[] | undefined;
  /** True when cancel() ended the query. */
  cancelled: boolean;
}

export type Authentication = { kind: 'none' } | { kind: 'basic'; user: string; password: string } | { kind: 'bearer'; token: string };

export interface StatementClientOptions {
  server: string;
  session: ClientSession;
  authentication?: Authentication;
  /** PEM file of certificates to trust for HTTPS. */
  truststorePath?: string;
  /**
   * The spooling protocol's encodings to ask for (X-Trino-Query-Data-Encoding on the POST), in order of
   * preference; absent: the direct protocol.
   */
  encoding?: string;
}

/** What Trino's CLI and JDBC driver ask for. */
export const DEFAULT_ENCODING = 'json+zstd,json+lz4,json';

/** A problem talking to the server (not a failed query): connection refused, 401, a non-JSON answer. */
export class ClientRequestError extends Error {}

/** 502/503/504 are retried (the server is starting or busy), as the Java client does, a few times. */
const RETRY_STATUSES = new Set([502, 503, 504]);
const MAX_RETRIES = 5;

export class StatementClient {
  private readonly server: string;
  private readonly ca: string | undefined;

  constructor(private readonly options: StatementClientOptions) {
    this.server = withoutTrailingSlashes(options.server);
    this.ca = options.truststorePath === undefined ? undefined : readFileSync(options.truststorePath, 'utf8');
  }

  get session(): ClientSession {
    return this.options.session;
  }

  /** Starts the statement; `done` settles when it ends, `cancel()` ends it early. */
  execute(sql: string, listener: QueryListener = {}): RunningQuery {
    return new RunningQuery(this, sql, listener);
  }

  /** @internal */
  async call(method: string, url: string, body: string | undefined, signal: AbortSignal): Promise<HttpResponse> {
    const headers: Record<string, string | string[]> = { ...this.session.requestHeaders() };
    // Credentials never go out in clear text, not even to a nextUri a server rewrote to http.
    const auth = new URL(url).protocol === 'https:' ? this.options.authentication : undefined;
    if (auth?.kind === 'basic') headers.authorization = `Basic ${Buffer.from(`${auth.user}:${auth.password}`, 'utf8').toString('base64')}`;
    if (auth?.kind === 'bearer') headers.authorization = `Bearer ${auth.token}`;
    if (method === 'POST' && this.options.encoding !== undefined) headers['x-trino-query-data-encoding'] = this.options.encoding;
    for (let attempt = 0; ; attempt++) {
      let res: HttpResponse;
      try {
        res = await httpCall(method, url, { headers, ...(body === undefined ? {} : { body }), ...(this.ca === undefined ? {} : { ca: this.ca }), signal });
      } catch (err) {
        if (signal.aborted) throw err;
        throw new ClientRequestError(`Error running statement: ${errorText(err)} (${new URL(url).origin})`);
      }
      if (!RETRY_STATUSES.has(res.status) || attempt >= MAX_RETRIES || method === 'DELETE') return res;
      await new Promise((r) => setTimeout(r, 100 * (attempt + 1)));
    }
  }

  /** @internal A spooled segment: no credentials go with it (its id is its key), as with Trino's clients. */
  segmentFetcher(signal: AbortSignal): SegmentFetcher {
    const options = { headers: { 'accept-encoding': 'identity' }, ...(this.ca === undefined ? {} : { ca: this.ca }), signal };
    return {
      download: async (uri) => {
        const res = await httpCall('GET', uri, options).catch((err: unknown) => Promise.reject(new ClientRequestError(`Error downloading a segment: ${errorText(err)} (${new URL(uri).origin})`)));
        if (res.status < 200 || res.status > 299) throw new ClientRequestError(`Error downloading a segment at ${uri}: HTTP ${res.status}${serverMessage(res.text)}`);
        return res.bytes;
      },
      acknowledge: (uri) => void httpCall('GET', uri, options).catch(() => undefined),
    };
  }

  /** @internal */
  statementUrl(): string {
    return `${this.server}/v1/statement`;
  }
}

export class RunningQuery {
  readonly done: Promise<QueryOutcome>;
  private readonly abort = new AbortController();
  private cancelRequested = false;
  private current: QueryStatus | undefined;

  constructor(private readonly client: StatementClient, sql: string, private readonly listener: QueryListener) {
    this.done = this.run(sql);
  }

  /** The latest response (for the progress line). */
  get status(): QueryStatus | undefined {
    return this.current;
  }

  /** Ends the query on the server: DELETE on its current nextUri (Trino's StatementClientV1.close). */
  async cancel(): Promise<void> {
    if (this.cancelRequested) return;
    this.cancelRequested = true;
    // While the POST is out the query has no id yet: its answer is awaited, then cancelled (run loop).
    if (this.current === undefined) return;
    const nextUri = this.current.nextUri;
    // `done` settles only once the DELETE is answered, so that a CLI exiting right after has cancelled.
    this.deleted = nextUri === undefined ? Promise.resolve() : this.delete(nextUri);
    this.abort.abort();
    await this.deleted;
  }

  private deleted: Promise<void> = Promise.resolve();

  private async delete(nextUri: string): Promise<void> {
    try {
      await this.client.call('DELETE', nextUri, undefined, new AbortController().signal);
    } catch {
      // The server is gone or the query already ended: nothing left to cancel.
    }
  }

  private async run(sql: string): Promise<QueryOutcome> {
    let columns: ResultColumn[] | undefined;
    let url = this.client.statementUrl();
    let method = 'POST';
    for (;;) {
      let res: HttpResponse;
      try {
        res = await this.client.call(method, url, method === 'POST' ? sql : undefined, this.abort.signal);
      } catch (err) {
        if (this.cancelRequested && this.current) {
          await this.deleted;
          return { final: this.current, columns, cancelled: true };
        }
        throw err;
      }
      const status = this.decode(res, method, url);
      if (status.queryData !== undefined) status.data = await this.readQueryData(status.queryData);
      this.current = status;
      this.client.session.applyResponseHeaders(res.headers);
      this.listener.onStatus?.(status);
      if (columns === undefined && status.columns !== undefined) {
        columns = status.columns;
        this.listener.onColumns?.(columns);
      }
      if (status.data !== undefined && status.data.length > 0) this.listener.onRows?.(status.data);
      if (this.cancelRequested) {
        await this.cancelOnServer(status);
        return { final: status, columns, cancelled: true };
      }
      if (status.nextUri === undefined) return { final: status, columns, cancelled: false };
      url = status.nextUri;
      method = 'GET';
    }
  }

  private async readQueryData(data: JsonValue): Promise<JsonValue[][]> {
    if (!isQueryData(data)) throw new ClientRequestError('The response has data of an unknown shape');
    try {
      return await readSegments(data, this.client.segmentFetcher(this.abort.signal));
    } catch (err) {
      if (err instanceof SegmentError) throw new ClientRequestError(err.message);
      throw err;
    }
  }

  private async cancelOnServer(status: QueryStatus): Promise<void> {
    await this.deleted;
    if (status.nextUri !== undefined) await this.delete(status.nextUri);
  }

  private decode(res: HttpResponse, method: string, url: string): QueryStatus {
    const where = method === 'POST' ? 'starting query' : 'fetching next';
    if (res.status !== 200) {
      throw new ClientRequestError(`Error ${where} at ${url} returned HTTP ${res.status}${serverMessage(res.text)}`);
    }
    let body: JsonValue;
    try {
      body = parseJsonText(res.text);
    } catch (err) {
      throw new ClientRequestError(`Error ${where} at ${url}: the response is not JSON (${errorText(err)})`);
    }
    return toStatus(body, url);
  }
}

function toStatus(body: JsonValue, url: string): QueryStatus {
  if (!isObject(body) || typeof body.id !== 'string') throw new ClientRequestError(`Error fetching ${url}: the response has no query id`);
  const stats = isObject(body.stats) ? body.stats : {};
  const status: QueryStatus = {
    id: body.id,
    stats: {
      state: typeof stats.state === 'string' ? stats.state : 'UNKNOWN',
      scheduled: stats.scheduled === true,
      nodes: num(stats.nodes),
      totalSplits: num(stats.totalSplits),
      queuedSplits: num(stats.queuedSplits),
      runningSplits: num(stats.runningSplits),
      completedSplits: num(stats.completedSplits),
      processedRows: num(stats.processedRows),
      processedBytes: num(stats.processedBytes),
      elapsedTimeMillis: num(stats.elapsedTimeMillis),
      ...(stats.progressPercentage instanceof JsonNumber ? { progressPercentage: num(stats.progressPercentage) } : {}),
    },
  };
  if (typeof body.infoUri === 'string') status.infoUri = body.infoUri;
  if (typeof body.nextUri === 'string') status.nextUri = body.nextUri;
  if (Array.isArray(body.columns)) status.columns = plain(body.columns) as ResultColumn[];
  if (Array.isArray(body.data)) status.data = body.data.filter(Array.isArray);
  else if (isObject(body.data)) status.queryData = body.data;
  if (isObject(body.error)) {
    const e = plain(body.error) as Record<string, unknown>;
    const loc = e.errorLocation as { lineNumber?: unknown; columnNumber?: unknown } | undefined;
    status.error = {
      message: typeof e.message === 'string' ? e.message : '',
      errorName: typeof e.errorName === 'string' ? e.errorName : 'UNKNOWN',
      ...(typeof e.errorType === 'string' ? { errorType: e.errorType } : {}),
      ...(loc && typeof loc.lineNumber === 'number' && typeof loc.columnNumber === 'number'
        ? { errorLocation: { lineNumber: loc.lineNumber, columnNumber: loc.columnNumber } }
        : {}),
    };
  }
  if (typeof body.updateType === 'string') status.updateType = body.updateType;
  if (body.updateCount instanceof JsonNumber) status.updateCount = num(body.updateCount);
  return status;
}

function withoutTrailingSlashes(url: string): string {
  let end = url.length;
  while (end > 0 && url[end - 1] === '/') end--;
  return url.slice(0, end);
}

function isObject(v: JsonValue | undefined): v is { [key: string]: JsonValue } {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof JsonNumber);
}

function num(v: JsonValue | undefined): number {
  const n = v instanceof JsonNumber ? Number(v.text) : NaN;
  return Number.isFinite(n) ? n : 0;
}

/** Numbers back to numbers, for the small metadata members. */
function plain(v: JsonValue): unknown {
  if (v instanceof JsonNumber) return Number(v.text);
  if (Array.isArray(v)) return v.map(plain);
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  return v;
}

/** ": NAME: message" from a JSON error body, or the start of a text body. */
function serverMessage(text: string): string {
  try {
    const body = JSON.parse(text) as { errorName?: unknown; message?: unknown };
    if (typeof body.message === 'string') return `: ${typeof body.errorName === 'string' ? `${body.errorName}: ` : ''}${body.message}`;
  } catch {
    // not JSON
  }
  const t = text.trim().slice(0, 200);
  return t === '' ? '' : `: ${t}`;
}

function errorText(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return typeof code === 'string' && !err.message.includes(code) ? `${err.message} (${code})` : err.message;
  }
  return String(err);
}
