// The failure detector's ping (HEAD {node}/v1/status) and how a failed ping is named in node stats.
// Any HTTP response counts as success; only a transport error or the timeout is a failure.

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
 * HEAD `uri` once; resolves with the HTTP status of any response, rejects on a network error, after
 * `timeoutMs` (TimeoutError) or when `signal` aborts (AbortError).
 */
export async function pingStatus(uri: string, timeoutMs: number, signal?: AbortSignal): Promise<number> {
  const timeout = AbortSignal.timeout(timeoutMs);
  const response = await fetch(uri, {
    method: 'HEAD',
    redirect: 'manual',
    signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
  });
  await response.body?.cancel(); // HEAD has no body; release the connection for keep-alive either way
  return response.status;
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
