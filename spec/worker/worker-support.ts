// A real worker (real DuckDB engine, real HTTP server on 127.0.0.1, a free port) and a small task client
// that validates every JSON body against its schema.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDuckDbEngine, type DuckDbEngine } from '../../lib/engine/duckdb-engine.js';
import { startWorkerServer, type RunningWorker, type WorkerServerOptions } from '../../lib/worker/worker-server.js';
import { taskExecutePath, taskPath, taskResultsPath, TASK_HEADERS, type TaskPlanRequest } from '../../lib/cluster/task-protocol.js';
import type { Session } from '../../lib/protocol/types.js';
import { expectValid } from '../support/schema-validator.js';
import { SystemTablesBinding } from '../../lib/connectors/system/system-tables.js';
import { SystemSnapshots } from '../../lib/worker/system-snapshot.js';

export interface TestWorker {
  worker: RunningWorker;
  engine: DuckDbEngine;
  url: string;
  stop(): Promise<void>;
}

export async function startTestWorker(options: Partial<WorkerServerOptions> & { maxConnections?: number } = {}): Promise<TestWorker> {
  const dir = mkdtempSync(join(tmpdir(), 'vivace-worker-spec-'));
  // The worker's system catalog serves what tasks bring (never the coordinator's actors).
  const system = new SystemSnapshots();
  const binding = new SystemTablesBinding();
  binding.bind(system);
  const engine = await createDuckDbEngine({ tempDirectory: dir, memoryLimit: '1GB', threads: 2, maxConnections: options.maxConnections ?? 4, tpch: { directory: join(dir, 'tpch') }, system: binding });
  const worker = await startWorkerServer({
    engine, nodeId: 'worker-spec', environment: 'test', host: '127.0.0.1', port: 0, system,
    maxBodyBytes: 1 << 20, maxQueryLength: 100_000, gracePeriodMs: 60_000, ...options,
  });
  return {
    worker, engine, url: worker.url,
    async stop() {
      await worker.close();
      await engine.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function session(overrides: Partial<Session> = {}): Session {
  return { prefix: 'X-Trino-', user: 'alice', catalog: 'memory', schema: 'default', clientTags: [], properties: {}, preparedStatements: {}, remoteUserAddress: '127.0.0.1', startTime: Date.now(), ...overrides };
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

export async function call(method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(url, {
    method,
    headers: { ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text && res.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  // Every error answer is a TaskError.
  if (res.status >= 400) expectValid('task-error', parsed);
  return { status: res.status, headers: res.headers, text, body: parsed };
}

/** POST a task; a 200 body is validated as a TaskPlanResponse. */
export async function planTask(url: string, taskId: string, sql: string, extra: Partial<TaskPlanRequest> = {}, headers: Record<string, string> = {}): Promise<Answer> {
  const answer = await call('POST', url + taskPath(taskId), { queryId: 'q1', sql, session: session(), ...extra }, headers);
  if (answer.status === 200) expectValid('task-plan-response', answer.body);
  return answer;
}

export const execute = (url: string, taskId: string, headers: Record<string, string> = {}) => call('POST', url + taskExecutePath(taskId), undefined, headers);
export const results = (url: string, taskId: string, token: number, targetBytes = 1 << 20, headers: Record<string, string> = {}) =>
  call('GET', url + taskResultsPath(taskId, token, targetBytes), undefined, headers);

/** A page's rows, parsed from its bracket-less body. */
export const rowsOf = (answer: Answer): unknown[][] => (answer.status === 200 && answer.text !== '' ? (JSON.parse(`[${answer.text}]`) as unknown[][]) : []);
export const exhausted = (answer: Answer) => answer.headers.get(TASK_HEADERS.exhausted) === 'true';

/** Pulls every page from `token` on; returns the rows and the number of pages. */
export async function readAll(url: string, taskId: string, targetBytes = 1 << 20, from = 0): Promise<{ rows: unknown[][]; pages: Answer[] }> {
  const rows: unknown[][] = [];
  const pages: Answer[] = [];
  for (let token = from; ; token++) {
    const page = await results(url, taskId, token, targetBytes);
    if (page.status === 204) return { rows, pages };
    if (page.status !== 200) throw new Error(`results ${token}: ${page.status} ${page.text}`);
    pages.push(page);
    rows.push(...rowsOf(page));
  }
}
