// Requests to the coordinator from the pages: same origin, /ui/api only (the session cookie is sent
// under /ui), and JSON errors turned into one readable message. A session that has ended (401 with
// Trino's Trino-Form-Login challenge) sends the browser to the login form, which brings it back here.
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function failure(response: Response): Promise<ApiError> {
  let message = `${response.status} ${response.statusText}`;
  try {
    const body = (await response.json()) as { errorName?: unknown; message?: unknown };
    if (typeof body.message === 'string') message = typeof body.errorName === 'string' ? `${body.errorName}: ${body.message}` : body.message;
  } catch {
    // Not JSON: the status line says enough.
  }
  return new ApiError(response.status, message);
}

function toLoginWhenSignedOut(response: Response): void {
  if (response.status === 401 && response.headers.get('WWW-Authenticate') === 'Trino-Form-Login') {
    window.location.assign(`/ui/login.html?${window.location.pathname}${window.location.search}`);
  }
}

export async function getJson<T>(path: string): Promise<T> {
  const response = await fetch(path, { credentials: 'same-origin', cache: 'no-store', headers: { Accept: 'application/json' } });
  if (!response.ok) {
    toLoginWhenSignedOut(response);
    throw await failure(response);
  }
  return (await response.json()) as T;
}

/** Cancels a query as its owner would (DELETE /ui/api/query/{id}, 204: DELETE /v1/query/{id} for the session's user). */
export async function cancelQuery(queryId: string): Promise<void> {
  const response = await fetch(`/ui/api/query/${encodeURIComponent(queryId)}`, { method: 'DELETE', credentials: 'same-origin' });
  if (!response.ok) {
    toLoginWhenSignedOut(response);
    throw await failure(response);
  }
}

/** Calls `tick` now and then every `intervalMs` after each call ends (never two at once); returns the stop. */
export function every(intervalMs: number, tick: () => Promise<boolean | void>): () => void {
  let timer: number | undefined;
  let stopped = false;
  const run = async () => {
    let more: boolean | void = true;
    try {
      more = await tick();
    } catch {
      // Each page shows its own errors; a failed refresh is tried again at the next interval.
    }
    if (!stopped && more !== false) timer = window.setTimeout(() => void run(), intervalMs);
  };
  void run();
  return () => {
    stopped = true;
    if (timer !== undefined) window.clearTimeout(timer);
  };
}
