// Pulling a producer's exchange file from its worker (GET .../output, task.routes.ts) into a local file. A
// small body (most exchange files) is kept until its end and written with one synchronous call, as before:
// each step of an asynchronous file write waits for a libuv pool thread, which on a loaded machine (the
// workers run at nice 10) took a 301-byte pull 22 ms against 7 ms. A body past SMALL_BYTES is streamed to
// the file as it arrives instead of held whole: the worker client's call (lib/cluster/worker-client.ts)
// kept every chunk until the end, refused a body past 256 MB, and its joined body was then written with
// writeFileSync on the event loop (40 MiB: 296 ms against 178 ms streamed).
import { createWriteStream, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { Agent, request, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { urlToHttpOptions } from 'node:url';
import { WorkerTransportError } from '../cluster/worker-client.js';

/** Bodies up to this size are written in one synchronous call once complete; larger ones are streamed. */
export const SMALL_BYTES = 4 << 20;

/** An answer other than 200: its status (the body, a TaskError's JSON, is not kept). */
export class PullStatusError extends Error {
  constructor(readonly status: number) {
    super(`HTTP ${status}`);
    this.name = 'PullStatusError';
  }
}

export interface PullOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

/** Exchange pulls from one worker, over a keep-alive agent of their own. */
export class ExchangePuller {
  private readonly agent: Agent;
  private readonly target: ReturnType<typeof urlToHttpOptions> | undefined;
  private readonly secure: boolean;

  constructor(readonly uri: string) {
    this.secure = uri.startsWith('https:');
    try {
      this.target = urlToHttpOptions(new URL(uri));
    } catch {
      this.target = undefined;
    }
    // Pulls of one query from one worker run side by side (a wide join's inputs): a socket each.
    const agentOptions = { keepAlive: true, maxSockets: 64, maxFreeSockets: 16 };
    this.agent = this.secure ? new HttpsAgent(agentOptions) : new Agent(agentOptions);
  }

  /**
   * GETs `path` into `file` (created or replaced); resolves with the bytes written. A status other than 200
   * is a PullStatusError; no answer, a cut-off body, the deadline or `signal` is a WorkerTransportError. A
   * failed pull leaves no file behind.
   */
  async toFile(path: string, file: string, options: PullOptions): Promise<number> {
    if (!this.target) throw new WorkerTransportError(`worker URI ${JSON.stringify(this.uri.slice(0, 200))} does not parse`, 'ERR_INVALID_URL', false);
    const controller = new AbortController();
    const onAbort = () => controller.abort(new WorkerTransportError('aborted', 'AbortError', false));
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => controller.abort(new WorkerTransportError(`no answer within ${options.timeoutMs} ms`, 'TimeoutError', false)), options.timeoutMs);
    try {
      const response = await this.get(path, options.headers ?? {}, controller.signal);
      if (response.statusCode !== 200) {
        response.resume();
        throw new PullStatusError(response.statusCode ?? 0);
      }
      // The body's first SMALL_BYTES are kept; all of it when it ends within them.
      const head: Buffer[] = [];
      let bytes = 0;
      const iterator = response[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
      let next = await iterator.next();
      for (; !next.done; next = await iterator.next()) {
        head.push(next.value);
        bytes += next.value.length;
        if (bytes > SMALL_BYTES) break;
      }
      if (next.done) {
        if (!response.complete) throw new WorkerTransportError('the answer was cut off', 'ECONNRESET', false);
        writeFileSync(file, head.length === 1 ? head[0]! : Buffer.concat(head, bytes));
        return bytes;
      }
      // A large body: what came so far, then the rest as it arrives, in 1 MiB writes.
      const rest = (async function* () {
        yield* head;
        for (let more = await iterator.next(); !more.done; more = await iterator.next()) {
          bytes += more.value.length;
          yield more.value;
        }
      })();
      await pipeline(Readable.from(rest, { objectMode: false }), createWriteStream(file, { highWaterMark: 1 << 20 }), { signal: controller.signal });
      if (!response.complete) throw new WorkerTransportError('the answer was cut off', 'ECONNRESET', false);
      return bytes;
    } catch (err) {
      await rm(file, { force: true }).catch(() => {});
      if (err instanceof PullStatusError || err instanceof WorkerTransportError) throw err;
      const reason: unknown = controller.signal.reason;
      if (controller.signal.aborted && reason instanceof WorkerTransportError) throw reason;
      const { code, name, message } = err as Error & { code?: string };
      throw new WorkerTransportError(message, code ?? name, false);
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    }
  }

  private get(path: string, headers: Record<string, string>, signal: AbortSignal): Promise<IncomingMessage> {
    return new Promise<IncomingMessage>((resolve, reject) => {
      const send = this.secure ? httpsRequest : request;
      const req = send({ ...this.target, path, method: 'GET', agent: this.agent, headers, signal });
      req.once('response', resolve);
      req.once('error', (err: Error & { code?: string }) => {
        const reason: unknown = signal.reason;
        reject(signal.aborted && reason instanceof WorkerTransportError ? reason : new WorkerTransportError(err.message, err.code ?? err.name, req.reusedSocket));
      });
      req.end();
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
