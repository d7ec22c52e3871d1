// HTTP to one worker over a keep-alive agent of its own (node:http: fewer layers than fetch on the
// per-query hot path). Every call has a deadline and can be aborted; a body larger than the cap is
// refused rather than buffered, so a worker answering garbage cannot exhaust the coordinator.
import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { urlToHttpOptions } from 'node:url';

/** A worker's answer, its body as the socket delivered it. */
export class WorkerResponse {
  private joined: Buffer | undefined;
  readonly size: number;

  constructor(
    readonly status: number,
    readonly headers: IncomingHttpHeaders,
    /** The body's pieces in order. A results page is forwarded as them, never joined or decoded. */
    readonly chunks: readonly Buffer[],
  ) {
    let size = 0;
    for (const chunk of chunks) size += chunk.length;
    this.size = size;
  }

  /** The whole body in one buffer (joined on first use). */
  get body(): Buffer {
    this.joined ??= this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.size);
    return this.joined;
  }

  /** The body's first `bytes` bytes in one buffer, and the rest as pieces (no copy of the rest). */
  split(bytes: number): { head: Buffer; rest: Buffer[] } {
    const head: Buffer[] = [];
    const rest: Buffer[] = [];
    let left = bytes;
    for (const chunk of this.chunks) {
      if (left >= chunk.length) head.push(chunk);
      else if (left > 0) {
        head.push(chunk.subarray(0, left));
        rest.push(chunk.subarray(left));
      } else rest.push(chunk);
      left = Math.max(0, left - chunk.length);
    }
    return { head: head.length === 1 ? head[0]! : Buffer.concat(head), rest };
  }
}

/** The request never got an answer: refused, reset, timed out or aborted. */
export class WorkerTransportError extends Error {
  constructor(
    message: string,
    /** 'ECONNREFUSED', 'ECONNRESET', 'TimeoutError', 'AbortError', ... */
    readonly code: string,
    /** the request went out on a kept-alive socket (a reset there may be the server closing it idle) */
    readonly reusedSocket: boolean,
  ) {
    super(message);
    this.name = 'WorkerTransportError';
  }
}

export interface CallOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

/** A results page is about 1 MB; a single huge row can exceed it, garbage should not pass far beyond. */
export const MAX_RESPONSE_BYTES = 256 * 1024 * 1024;

export class WorkerClient {
  private readonly agent: HttpAgent;
  /** When the engine last chose this worker for a statement (its own counter; 0: never). */
  pickedAt = 0;
  private readonly secure: boolean;
  private readonly inflight = new Set<(reason: WorkerTransportError) => void>();
  /** The URI as request options, parsed once (a URL string per request cost ~15 us of parsing); undefined if it does not parse. */
  private readonly target: ReturnType<typeof urlToHttpOptions> | undefined;

  constructor(
    readonly nodeId: string,
    /** http(s)://host:port */
    readonly uri: string,
  ) {
    this.secure = uri.startsWith('https:');
    try {
      this.target = urlToHttpOptions(new URL(uri));
    } catch {
      this.target = undefined;
    }
    const agentOptions = { keepAlive: true, maxSockets: 64, maxFreeSockets: 16, scheduling: 'lifo' as const };
    this.agent = this.secure ? new HttpsAgent(agentOptions) : new HttpAgent(agentOptions);
  }

  call(method: string, path: string, body: string | undefined, options: CallOptions): Promise<WorkerResponse> {
    return new Promise<WorkerResponse>((resolve, reject) => {
      let settled = false;
      const finish = (err: Error | undefined, response?: WorkerResponse) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        this.inflight.delete(fail);
        if (err) {
          req.destroy();
          reject(err);
        } else resolve(response!);
      };
      const fail = (err: WorkerTransportError) => finish(err);
      const transportError = (message: string, code: string) => new WorkerTransportError(message, code, req.reusedSocket);
      const send = this.secure ? httpsRequest : httpRequest;
      if (!this.target) throw new WorkerTransportError(`worker URI ${JSON.stringify(this.uri.slice(0, 200))} does not parse`, 'ERR_INVALID_URL', false);
      const req = send({
        ...this.target,
        path,
        method,
        agent: this.agent,
        headers: {
          ...options.headers,
          ...(body === undefined ? {} : { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) }),
        },
      });
      const timer = setTimeout(() => fail(transportError(`no answer within ${options.timeoutMs} ms`, 'TimeoutError')), options.timeoutMs);
      const onAbort = () => fail(transportError('aborted', 'AbortError'));
      if (options.signal?.aborted) {
        queueMicrotask(onAbort);
      } else options.signal?.addEventListener('abort', onAbort, { once: true });
      this.inflight.add(fail);
      req.on('error', (err: Error & { code?: string }) => fail(transportError(err.message, err.code ?? err.name)));
      req.on('response', (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_RESPONSE_BYTES) fail(transportError(`answer larger than ${MAX_RESPONSE_BYTES} bytes`, 'ResponseTooLarge'));
          else chunks.push(chunk);
        });
        res.on('error', (err: Error & { code?: string }) => fail(transportError(err.message, err.code ?? err.name)));
        res.on('end', () => {
          if (!res.complete) fail(transportError('the answer was cut off', 'ECONNRESET'));
          else finish(undefined, new WorkerResponse(res.statusCode ?? 0, res.headers, chunks));
        });
      });
      req.end(body);
    });
  }

  /** Fails every request in flight (the failure detector gave up on this worker). */
  abortAll(message: string): void {
    for (const fail of [...this.inflight]) fail(new WorkerTransportError(message, 'NodeFailed', false));
  }

  get busy(): boolean {
    return this.inflight.size > 0;
  }

  /** Requests sent and not answered yet: the worker's load as the coordinator sees it. */
  get callsInFlight(): number {
    return this.inflight.size;
  }

  close(): void {
    this.abortAll('the coordinator is closing');
    this.agent.destroy();
  }
}
