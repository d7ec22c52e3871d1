// Pulling a producer's exchange file from its worker (GET .../output, task.routes.ts) straight into a local
// file: the body is streamed to disk as it arrives, never held whole in memory. The worker client's call
// (lib/cluster/worker-client.ts) keeps a body's chunks until it ends, refuses one past 256 MB, and the pull
// then wrote the joined body with writeFileSync on the event loop: at sf1, Q21's 6 MB broadcast of orders
// took the consumer's loop 10-30 ms for the copy and the write alone, and a file past 256 MB failed.
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { Agent, request, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { pipeline } from 'node:stream/promises';
import { urlToHttpOptions } from 'node:url';
import { WorkerTransportError } from '../cluster/worker-client.js';

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
      let bytes = 0;
      response.on('data', (chunk: Buffer) => { bytes += chunk.length; });
      // 1 MiB writes: the file system takes an exchange file in a few calls instead of one per 64 KiB chunk.
      await pipeline(response, createWriteStream(file, { highWaterMark: 1 << 20 }), { signal: controller.signal });
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
