// The failure detector's ping (HEAD {node}/v1/status) and how a failed ping is named in node stats.
// Any HTTP response counts as success; only a transport error or the timeout is a failure.
import { Agent as HttpAgent, request as httpRequest, type ClientRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

/** A failed ping as node stats show it (lastFailureInfo, recentFailuresByType). */
export interface PingFailure {
  /** See pingFailureOf for the naming rule, e.g. 'ECONNREFUSED', 'TimeoutError'. */
  type: string;
  message: string;
  /** Stack frames without the leading "at ". */
  stack: string[];
}

/** Status address the failure detector pings for a node's HTTP base, as upstream: `{http}/v1/status`. */
export function statusUri(httpBase: string): string {
  let end = httpBase.length;
  while (end > 0 && httpBase.charCodeAt(end - 1) === 0x2f) end--;
  return `${httpBase.slice(0, end)}/v1/status`;
}

/**
 * How a ping reaches a node: resolves with the HTTP status of any answer, rejects on a transport error,
 * after `timeoutMs` (TimeoutError) or when `signal` aborts. pingStatus is the real one; the failure-detector
 * bench and specs pass fakes to measure or drive the detector without sockets.
 */
export type PingTransport = (uri: string, timeoutMs: number, signal?: AbortSignal) => Promise<number>;

// One keep-alive agent per scheme for every node: a ping reuses its node's idle socket instead of opening a
// connection (and undici's fetch machinery) 2 times a second per node. Pings never overlap per node, so a
// node holds at most one socket.
const agents = {
  http: new HttpAgent({ keepAlive: true, keepAliveMsecs: 10_000, scheduling: 'lifo' }),
  https: new HttpsAgent({ keepAlive: true, keepAliveMsecs: 10_000, scheduling: 'lifo' }),
};

/**
 * HEAD `uri` once; resolves with the HTTP status of any response, rejects on a network error, after
 * `timeoutMs` (TimeoutError) or when `signal` aborts (AbortError).
 */
export function pingStatus(uri: string, timeoutMs: number, signal?: AbortSignal): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    if (signal?.aborted) {
      reject(namedError('AbortError', 'This operation was aborted'));
      return;
    }
    let request: ClientRequest;
    const secure = uri.startsWith('https:');
    try {
      request = (secure ? httpsRequest : httpRequest)(uri, { method: 'HEAD', agent: secure ? agents.https : agents.http, timeout: timeoutMs });
    } catch (err) {
      reject(err); // a URI http.request refuses (bad port, bad host characters)
      return;
    }
    const onAbort = () => request.destroy(namedError('AbortError', 'This operation was aborted'));
    signal?.addEventListener('abort', onAbort, { once: true });
    // The socket timeout covers connecting and waiting for the answer: both are "no answer in time".
    request.on('timeout', () => request.destroy(namedError('TimeoutError', 'The operation was aborted due to timeout')));
    // Settled once the (empty) response has ended: by then the socket is back in the agent's pool, so the
    // next ping reuses it rather than opening another connection.
    request.on('response', (response) => {
      const answered = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve(response.statusCode ?? 0);
      };
      response.on('end', answered);
      // An answer cut off after its headers is still an answer; 'close' always comes, so the ping settles.
      response.on('close', answered);
      response.on('error', () => {});
      response.resume();
    });
    request.on('error', (err) => {
      signal?.removeEventListener('abort', onAbort);
      reject(err);
    });
    request.end();
  });
}

function namedError(name: string, message: string): Error {
  const error = new Error(message);
  error.name = name;
  return error;
}

/**
 * Name and describe why a ping failed. Like upstream, which unwraps bare RuntimeException wrappers to the
 * real cause, wrappers without a code of their own (undici's `TypeError: fetch failed`) are unwrapped
 * through `cause`. The type is then the error's system or library code when it has one ('ECONNREFUSED',
 * 'ENOTFOUND', 'ECONNRESET', 'UND_ERR_SOCKET', ...), else its name ('TimeoutError', 'AbortError', 'Error').
 */
export function pingFailureOf(error: unknown): PingFailure {
  let cause: unknown = error;
  while (isWrapper(cause)) cause = (cause as { cause: unknown }).cause;
  if (!(cause instanceof Error)) return { type: 'Error', message: String(cause), stack: [] };
  const code = (cause as { code?: unknown }).code;
  return {
    type: typeof code === 'string' && code !== '' ? code : cause.name || 'Error',
    message: cause.message,
    stack: stackFrames(cause),
  };
}

function isWrapper(error: unknown): boolean {
  if (!(error instanceof Error) || error.cause === undefined || error.cause === null) return false;
  return typeof (error as { code?: unknown }).code !== 'string';
}

function stackFrames(error: Error): string[] {
  return (error.stack ?? '')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.startsWith('at '))
    .map((line) => line.slice(3));
}
