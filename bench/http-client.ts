// A plain Presto-protocol client for the benchmarks: node:http over one keep-alive agent, POST the
// SQL, then GET nextUri until there is none. 'parse' mode JSON.parses every page (what a normal
// client does); 'raw' mode only finds nextUri in the head of the page and errors in its tail.
import http from 'node:http';

export type PageMode = 'parse' | 'raw';

export interface QueryOutcome {
  /** rows received ('raw' mode does not count them: -1) */
  rows: number;
  /** response body bytes */
  bytes: number;
  /** HTTP requests made (POST + GETs) */
  requests: number;
}

interface Reply {
  status: number;
  body: Buffer;
}

const NEXT_URI = /"nextUri":"([^"]+)"/;

export class PrestoHttpClient {
  readonly agent: http.Agent;
  private readonly host: string;
  private readonly port: number;
  private readonly origin: string;

  constructor(baseUrl: string, maxSockets: number) {
    const url = new URL(baseUrl);
    this.host = url.hostname;
    this.port = Number(url.port);
    this.origin = url.origin;
    this.agent = new http.Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets });
  }

  /** One HTTP exchange; `path` is relative to the server origin. */
  request(method: 'GET' | 'POST', path: string, body?: string, headers: http.OutgoingHttpHeaders = {}): Promise<Reply> {
    return new Promise<Reply>((resolve, reject) => {
      const req = http.request({ agent: this.agent, host: this.host, port: this.port, method, path, headers }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          size += chunk.length;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size) }));
        res.on('error', reject);
      });
      req.on('error', reject);
      if (body !== undefined) req.end(body);
      else req.end();
    });
  }

  /**
   * Run `sql` through the whole protocol. Rejects on an HTTP error or a failed query.
   * `steps`, when given, receives the milliseconds of each HTTP exchange (POST first).
   */
  async query(sql: string, mode: PageMode = 'parse', steps?: number[]): Promise<QueryOutcome> {
    let t0 = steps ? performance.now() : 0;
    let reply = await this.request('POST', '/v1/statement', sql, {
      'X-Presto-User': 'bench',
      'Content-Type': 'text/plain',
      'Content-Length': Buffer.byteLength(sql),
    });
    let rows = 0;
    let bytes = 0;
    let requests = 1;
    for (;;) {
      if (steps) steps.push(performance.now() - t0);
      if (reply.status !== 200) throw new Error(`HTTP ${reply.status}: ${reply.body.toString('utf8', 0, 500)}`);
      bytes += reply.body.length;
      let next: string | undefined;
      if (mode === 'parse') {
        const page = JSON.parse(reply.body.toString('utf8')) as { nextUri?: string; data?: unknown[]; error?: { message?: string } };
        if (page.error) throw new Error(`query failed: ${page.error.message}`);
        if (page.data) rows += page.data.length;
        next = page.nextUri;
      } else {
        // nextUri sits in the head of the page, before columns and data; the error in the tail.
        next = NEXT_URI.exec(reply.body.toString('latin1', 0, Math.min(reply.body.length, 2048)))?.[1];
        if (next === undefined && reply.body.indexOf('"error":', Math.max(0, reply.body.length - 8192)) >= 0) {
          throw new Error(`query failed: ${reply.body.toString('utf8', Math.max(0, reply.body.length - 2000))}`);
        }
        rows = -1;
      }
      if (next === undefined) return { rows, bytes, requests };
      if (steps) t0 = performance.now();
      reply = await this.request('GET', next.startsWith(this.origin) ? next.slice(this.origin.length) : new URL(next).pathname);
      requests++;
    }
  }

  close(): void {
    this.agent.destroy();
  }
}

export interface LoadResult {
  operations: number;
  errors: number;
  firstError?: string;
  seconds: number;
  /** milliseconds of each operation, in completion order */
  latencies: number[];
}

/**
 * `workers` loops each running `operation` back to back until `maxOperations` have started or
 * `durationMs` has passed, whichever comes first; resolves when every loop has stopped.
 */
export async function runLoad(workers: number, durationMs: number, maxOperations: number, operation: () => Promise<unknown>): Promise<LoadResult> {
  const latencies: number[] = [];
  let started = 0;
  let errors = 0;
  let firstError: string | undefined;
  const begin = performance.now();
  const deadline = begin + durationMs;
  const loop = async () => {
    while (started < maxOperations && performance.now() < deadline) {
      started++;
      const t0 = performance.now();
      try {
        await operation();
        latencies.push(performance.now() - t0);
      } catch (err) {
        errors++;
        firstError ??= err instanceof Error ? err.message : String(err);
        // An error loop must not spin: back off a little.
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }
  };
  await Promise.all(Array.from({ length: workers }, loop));
  return { operations: latencies.length, errors, firstError, seconds: (performance.now() - begin) / 1000, latencies };
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}
