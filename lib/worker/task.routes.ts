// The task endpoints of lib/cluster/task-protocol.ts over the worker's TaskRegistry: plan (and, with
// `execute: true`, start) a statement, execute it, pull its pages by token, cancel it, list the tasks.
import { createReadStream } from 'node:fs';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { VivaceError } from '../protocol/vivace-error.js';
import { readTextBody } from '../http/raw-body.js';
import { MAX_BUCKETS, TASK_HEADERS, TASK_PATH } from '../cluster/task-protocol.js';
import { parseTaskPlanRequest, targetBytesOf, taskIdOfPath, tokenOf } from './task-request.js';
import type { TaskRegistry } from './task-registry.js';
import { DEFAULT_TARGET_BYTES, type TaskPage, type WorkerTask } from './worker-task.js';
import { statementError } from './worker-errors.js';
import type { ServerState as WorkerState } from '../http/info.routes.js';
import type { SystemSnapshots } from './system-snapshot.js';
import type { CatalogSync } from '../connectors/dynamic-catalogs.js';
import { sendJsonText } from '../http/request-context.js';
import type { TaskSpooling } from './spool/task-spooling.js';
import type { WrittenSegment } from './spool/segment-spool.js';

export interface TaskRouteOptions {
  /** Largest request body (http-server.max-request-size). */
  maxBodyBytes: number;
  /** Longest SQL text (query.max-length). */
  maxQueryLength: number;
  /** Where the rows a task brings for the system catalog go; absent: they are ignored. */
  system?: SystemSnapshots;
  /** Spooling protocol: which pages go to the worker's spool (spool/task-spooling.ts); absent: none. */
  spooling?: TaskSpooling;
  /** Brings the engine's catalogs to the set a dynamic cluster's task carries, before the task plans. */
  syncCatalogs?: (sync: CatalogSync) => Promise<void>;
}

const unknownTask = (taskId: string) => new VivaceError('NOT_FOUND', `Unknown task ${taskId}`, { httpStatus: 404 });

function taskOf(registry: TaskRegistry, ctx: Context): WorkerTask {
  const taskId = taskIdOfPath((ctx.params as Record<string, string>).taskId ?? '');
  const task = registry.get(taskId);
  if (!task) throw unknownTask(taskId);
  return task;
}

/** Runs `work` with the task counted as in flight, so the sweep never drops a task someone waits on. */
async function holding<T>(task: WorkerTask, registry: TaskRegistry, work: () => Promise<T>): Promise<T> {
  task.inFlight++;
  try {
    return await work();
  } finally {
    task.inFlight--;
    task.lastTouched = registry.now();
  }
}

export function taskRoutes(router: Router, registry: TaskRegistry, state: WorkerState, options: TaskRouteOptions): void {
  router.get(TASK_PATH, (ctx) => {
    ctx.type = 'application/json';
    ctx.body = JSON.stringify(registry.list());
  });

  router.post(`${TASK_PATH}/:taskId`, async (ctx) => {
    if (state.state !== 'ACTIVE') throw new VivaceError('SERVER_SHUTTING_DOWN', 'Worker is shutting down', { httpStatus: 503 });
    const taskId = taskIdOfPath((ctx.params as Record<string, string>).taskId ?? '');
    const text = await readTextBody(ctx, options.maxBodyBytes);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new VivaceError('INVALID_ARGUMENTS', 'Task request is not valid JSON', { httpStatus: 400 });
    }
    const request = parseTaskPlanRequest(body, options.maxQueryLength);
    if (request.system) options.system?.accept(request.system, request.session.user);
    if (request.catalogs) {
      if (!options.syncCatalogs) throw new VivaceError('CONFIGURATION_INVALID', 'This worker was not started with catalog.management=dynamic, which its coordinator uses', { httpStatus: 409 });
      await options.syncCatalogs(request.catalogs).catch((err: unknown) => Promise.reject(statementError(err)));
    }
    const task = registry.create(taskId, request);
    const response = await holding(task, registry, () => task.planResponse().catch((err: unknown) => Promise.reject(statementError(err))));
    const plan = JSON.stringify(response);
    if (request.inlineFirstPage === true && response.executing === true) {
      // One round trip for a small query: the first page rides with the plan (task-protocol.ts).
      const page = await holding(task, registry, () => task.results(0, request.targetBytes ?? DEFAULT_TARGET_BYTES)).catch(() => undefined);
      // The inlining limits hold for this page too: past them its rows are spooled and only the segment
      // rides along (Trino's OutputSpoolingController decides from a query's very first page).
      const spooling = options.spooling;
      const segment = page && spooling ? await holding(task, registry, () => spooling.segmentOf(task, page)).catch(() => null) : undefined;
      if (page && segment !== null) {
        setPageHeaders(ctx, page);
        ctx.set(TASK_HEADERS.planBytes, String(Buffer.byteLength(plan)));
        ctx.set(TASK_HEADERS.rows, String(page.batch?.rows ?? 0));
        if (segment) ctx.set(TASK_HEADERS.spooledSegment, JSON.stringify(segment));
        const rows = segment ? undefined : page.batch?.json;
        sendJsonText(ctx, 200, rows === undefined ? plan : typeof rows === 'string' ? plan + rows : [Buffer.from(plan, 'utf8'), ...rows], PAGE_TYPE);
        return;
      }
    }
    ctx.type = 'application/json';
    ctx.body = plan;
  });

  router.post(`${TASK_PATH}/:taskId/execute`, (ctx) => {
    const task = taskOf(registry, ctx);
    try {
      task.execute();
    } catch (err) {
      throw statementError(err);
    }
    ctx.status = 204;
  });

  // Trino's GET /v1/task/{taskId}/status: the coordinator asks while its client is slow to pull pages, so
  // the sweep does not take the task for abandoned (lib/cluster/task-keep-alive.ts).
  router.get(`${TASK_PATH}/:taskId/status`, async (ctx) => {
    const task = taskOf(registry, ctx);
    const info = await holding(task, registry, () => Promise.resolve(task.info()));
    ctx.type = 'application/json';
    ctx.body = JSON.stringify(info);
  });

  router.get(`${TASK_PATH}/:taskId/results/:token`, async (ctx) => {
    const task = taskOf(registry, ctx);
    const token = tokenOf((ctx.params as Record<string, string>).token ?? '');
    const spooling = options.spooling;
    const asked = targetBytesOf(ctx.query.targetBytes, DEFAULT_TARGET_BYTES);
    const targetBytes = spooling ? spooling.targetBytes(task, asked) : asked;
    const page = await holding(task, registry, () => task.results(token, targetBytes).catch((err: unknown) => Promise.reject(statementError(err))));
    const segment = spooling ? await holding(task, registry, () => spooling.segmentOf(task, page)) : undefined;
    sendPage(ctx, page, segment);
  });

  router.get(`${TASK_PATH}/:taskId/output`, (ctx) => {
    const task = taskOf(registry, ctx);
    const raw = ctx.query.bucket;
    const bucket = raw === undefined ? undefined : bucketOf(Array.isArray(raw) ? (raw[0] ?? '') : raw);
    const file = registry.stages?.outputOf(task.taskId, bucket);
    if (file === undefined) {
      const state = task.info().state;
      if (registry.stages?.isLeaf(task.taskId) && (state === 'PLANNED' || state === 'RUNNING')) throw new VivaceError('GENERIC_USER_ERROR', `Task ${task.taskId} has not finished`, { httpStatus: 409 });
      throw new VivaceError('NOT_FOUND', `Task ${task.taskId} has no output${bucket === undefined ? '' : ` of bucket ${bucket}`} (not a producer, or it failed)`, { httpStatus: 404 });
    }
    ctx.type = 'application/vnd.apache.parquet';
    // Read in 1 MiB pieces, not Node's 64 KiB: a 40 MiB file served to a puller in the same process took
    // 87 ms of CPU for both sides against 114 ms (median of 7), fewer reads, writes and loop turns.
    ctx.body = createReadStream(file, { highWaterMark: 1 << 20 });
  });

  router.delete(`${TASK_PATH}/:taskId`, (ctx) => {
    const taskId = taskIdOfPath((ctx.params as Record<string, string>).taskId ?? '');
    // Already gone is fine: a DELETE is retried after a lost answer, and the result is the same.
    registry.remove(taskId);
    ctx.status = 204;
  });
}

function setPageHeaders(ctx: Context, page: TaskPage): void {
  ctx.set(TASK_HEADERS.exhausted, page.exhausted ? 'true' : 'false');
  ctx.set(TASK_HEADERS.processedRows, String(page.progress.processedRows));
  ctx.set(TASK_HEADERS.processedBytes, String(page.progress.processedBytes));
  ctx.set(TASK_HEADERS.cpuTimeMillis, String(Math.round(page.progress.cpuTimeMillis)));
  if (page.progress.outputBytes !== undefined) ctx.set(TASK_HEADERS.outputBytes, String(page.progress.outputBytes));
  if (page.progress.peakMemoryBytes !== undefined) ctx.set(TASK_HEADERS.peakMemoryBytes, String(page.progress.peakMemoryBytes));
  if (page.updateCount !== undefined) ctx.set(TASK_HEADERS.updateCount, String(page.updateCount));
}

function sendPage(ctx: Context, page: TaskPage, segment?: WrittenSegment): void {
  setPageHeaders(ctx, page);
  if (page.batch === null) {
    ctx.status = 204;
    return;
  }
  ctx.set(TASK_HEADERS.rows, String(page.batch.rows));
  if (segment) {
    // The rows are in the spool: the coordinator hands out the segment, never the rows.
    ctx.set(TASK_HEADERS.spooledSegment, JSON.stringify(segment));
    sendJsonText(ctx, 200, '', PAGE_TYPE);
    return;
  }
  sendJsonText(ctx, 200, page.batch.json, PAGE_TYPE);
}

/** A page's rows (the plan's JSON before them, when it rides along). */
const PAGE_TYPE = 'text/plain; charset=utf-8';

/** A bucket from an output GET's query: an integer below MAX_BUCKETS (a HASH output has no more). */
function bucketOf(raw: string): number {
  const n = /^\d{1,4}$/.test(raw) ? Number(raw) : -1;
  if (n < 0 || n >= MAX_BUCKETS) throw new VivaceError('INVALID_ARGUMENTS', `bucket must be an integer from 0 to ${MAX_BUCKETS - 1}`, { httpStatus: 400 });
  return n;
}
