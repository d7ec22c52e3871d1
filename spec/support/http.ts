// A real coordinator + HTTP server on a free loopback port, and a small client that validates bodies.
import { createCoordinator, type Coordinator, type CoordinatorOptions } from '../../lib/actors/coordinator.js';
import { startServer, type RunningServer } from '../../lib/http/server.js';
import { validateResponse } from './schema-validator.js';
import type { SystemTablesBinding } from '../../lib/connectors/system/system-tables.js';
import { createSystemTablesSource } from '../../lib/actors/system-tables.source.js';
import type { AccessControl } from '../../lib/security/access-control.js';
import { canSeeQuery } from '../../lib/security/query-visibility.js';
import { createLogger, type Logger } from '../../lib/log/logger.js';
import { parseLogLevel } from '../../lib/log/log-level.js';

export interface TestServer {
  coordinator: Coordinator;
  server: RunningServer;
  url: string;
  stop(): Promise<void>;
}

/** `system`: the binding the engine was created with; it is bound to this coordinator once the server listens. */
let testLogger: Logger | undefined;

/**
 * `logger`: where the server's lines go; by default stderr at error level (VIVACE_TEST_LOG_LEVEL to see
 * more), so that a spec run is not a log of every query.
 */
export async function startTestServer(options: CoordinatorOptions & { system?: SystemTablesBinding; accessControl?: AccessControl; logger?: Logger }): Promise<TestServer> {
  const { system, accessControl, logger, ...coordinatorOptions } = options;
  const coordinator = createCoordinator({ ...coordinatorOptions, config: { trackerIntervalMs: 60_000, ...options.config } });
  const serverLogger = logger ?? (testLogger ??= createLogger({ level: parseLogLevel(process.env.VIVACE_TEST_LOG_LEVEL ?? 'error') }));
  const server = await startServer(coordinator, { host: '127.0.0.1', port: 0, logger: serverLogger, ...(accessControl ? { accessControl } : {}) });
  const visibility = accessControl && { canViewQueryOwnedBy: (viewer: string, owner: string) => canSeeQuery(accessControl, viewer, owner) };
  system?.bind(createSystemTablesSource(coordinator, { nodeId: server.nodeId, uri: server.url }, visibility));
  return {
    coordinator,
    server,
    url: server.url,
    async stop() {
      await server.close();
      await coordinator.stop();
    },
  };
}

export interface JsonResponse {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

export async function request(method: string, url: string, init: { body?: string; headers?: Record<string, string> } = {}): Promise<JsonResponse> {
  const res = await fetch(url, { method, body: init.body, headers: init.headers });
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, text, body };
}

/** Pick the schema a statement response must satisfy from its shape, and validate it. */
export function validateStatement(body: any, initial: boolean): void {
  if (body?.stats?.state === 'FAILED') validateResponse('statement-failed', body);
  else if (initial) validateResponse('statement-initial', body);
  else if (body?.nextUri === undefined) validateResponse('statement-final', body);
  else validateResponse('statement-progress', body);
}

/** POST a statement and follow nextUri to the end, validating every response. */
export async function runStatement(
  url: string,
  sql: string,
  headers: Record<string, string> = {},
): Promise<{ responses: any[]; raw: JsonResponse[]; rows: unknown[][]; final: any }> {
  const first = await request('POST', `${url}/v1/statement`, { body: sql, headers });
  if (first.status !== 200) throw new Error(`POST answered ${first.status}: ${first.text}`);
  validateStatement(first.body, true);
  const raw = [first];
  let current = first.body;
  while (current.nextUri) {
    const next = await request('GET', current.nextUri);
    if (next.status !== 200) throw new Error(`GET ${current.nextUri} answered ${next.status}: ${next.text}`);
    validateStatement(next.body, false);
    current = next.body;
    raw.push(next);
  }
  const responses = raw.map((r) => r.body);
  const rows = responses.flatMap((r) => (r.data ?? []) as unknown[][]);
  return { responses, raw, rows, final: current };
}

/**
 * Follows a statement's nextUri from `uri` to its end, GETting every token twice: the second answer must be
 * byte for byte the first (a retried GET after a lost answer). Returns the first answers, validated.
 */
export async function pagesFetchedTwice(uri: string | undefined): Promise<JsonResponse[]> {
  const pages: JsonResponse[] = [];
  while (uri) {
    const a = await request('GET', uri);
    const b = await request('GET', uri);
    if (a.status !== 200 || b.status !== 200) throw new Error(`GET ${uri} answered ${a.status} then ${b.status}`);
    if (b.text !== a.text) throw new Error(`GET ${uri} twice gave two different answers`);
    validateStatement(a.body, false);
    pages.push(a);
    uri = a.body.nextUri;
  }
  return pages;
}
