// First middleware: turns every failure into a status and a JSON body `{errorName, errorCode, errorType,
// message, status}` (schemas/error.schema.json), and unmatched routes into 404s of the same shape.
// A client's mistake is a 4xx; a 5xx is our own bug (or shutdown) and is logged once.
import type { Context, Next } from 'koa';
import { ERROR_CODES, type ErrorName } from '../protocol/error-codes.js';
import { VivaceError } from '../protocol/vivace-error.js';
import { defaultLogger, type Logger } from '../log/logger.js';

export function errorBody(status: number, errorName: ErrorName, message: string): string {
  const info = ERROR_CODES[errorName];
  return JSON.stringify({ errorName, errorCode: info.code, errorType: info.type, message, status });
}

function sendError(ctx: Context, status: number, errorName: ErrorName, message: string): void {
  ctx.status = status;
  ctx.body = errorBody(status, errorName, message);
  ctx.set('Content-Type', 'application/json');
}

/** One log line at error level for a failure that is our own bug, with the query it concerns when known. */
export function logInternalError(err: unknown, context: { queryId?: string; request?: string }, logger: Logger = defaultLogger()): void {
  const error = err instanceof Error ? err : new Error(String(err));
  logger.error({
    event: 'internal_error',
    ...(context.queryId === undefined ? {} : { queryId: context.queryId }),
    ...(context.request === undefined ? {} : { request: context.request }),
    errorName: error instanceof VivaceError ? error.errorName : 'GENERIC_INTERNAL_ERROR',
    message: error.message,
    stack: (error.stack ?? '').split('\n').map((l) => l.trim()).filter((l) => l.startsWith('at ')).slice(0, 12),
  });
}

/** The logger of the app serving `ctx` (createApp sets it), else the process's. */
export function loggerOf(ctx: Context): Logger {
  return (ctx as { logger?: Logger }).logger ?? defaultLogger();
}

/** Internal error names that are a state of this server rather than a bug: 503, not logged. */
const UNAVAILABLE: ReadonlySet<ErrorName> = new Set(['SERVER_SHUTTING_DOWN', 'SERVER_STARTING_UP']);

/**
 * Internal error names that tell of the cluster's state, not of a bug here: no worker alive, a worker
 * lost mid-task (each already logged by the node's health line, and named in the query's error).
 */
const CLUSTER_STATES: ReadonlySet<ErrorName> = new Set(['NO_NODES_AVAILABLE', 'REMOTE_TASK_ERROR', 'REMOTE_HOST_GONE']);

/** An error that is our own bug: it is logged, once. */
export function isOwnBug(err: VivaceError): boolean {
  return ERROR_CODES[err.errorName].type === 'INTERNAL_ERROR' && !UNAVAILABLE.has(err.errorName) && !CLUSTER_STATES.has(err.errorName);
}

/** The status of a VivaceError that names none: user errors are the client's (400), the rest ours. */
function statusOf(err: VivaceError): number {
  if (err.httpStatus !== undefined) return err.httpStatus;
  if (err.errorName === 'PERMISSION_DENIED') return 403; // Trino's "Access Denied: ..." (lib/security/access-control.ts)
  if (UNAVAILABLE.has(err.errorName)) return 503;
  switch (ERROR_CODES[err.errorName].type) {
    case 'USER_ERROR':
      return 400;
    case 'INSUFFICIENT_RESOURCES':
      return 503;
    default:
      return 500;
  }
}

/** The query a request is about (its route parameter), for the log. */
function queryIdOf(ctx: Context): string | undefined {
  const params = (ctx as { params?: Record<string, string> }).params;
  return params?.queryId ?? params?.stage?.split('.')[0];
}

function answerInternal(ctx: Context, err: unknown, status = 500): void {
  logInternalError(err, { queryId: queryIdOf(ctx), request: `${ctx.method} ${ctx.path}` }, loggerOf(ctx));
  if (ctx.headerSent || !ctx.writable) return; // nothing more can be said on this response
  const message = err instanceof Error && err.message ? err.message : 'Internal error';
  sendError(ctx, status, err instanceof VivaceError ? err.errorName : 'GENERIC_INTERNAL_ERROR', message);
}

export async function errorMiddleware(ctx: Context, next: Next): Promise<void> {
  try {
    await next();
    if (ctx.status === 404 && ctx.body == null) sendError(ctx, 404, 'NOT_FOUND', `Resource not found: ${ctx.method} ${ctx.path}`);
  } catch (err) {
    if (err instanceof VivaceError) {
      const status = statusOf(err);
      if (status >= 500 && status !== 501 && status !== 503) answerInternal(ctx, err, status);
      else sendError(ctx, status, err.errorName, err.message);
      return;
    }
    // koa / koa-bodyparser HTTP errors (400 malformed JSON, 413, 415, ...)
    const status = (err as { status?: unknown }).status;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      const name: ErrorName = status === 405 ? 'NOT_SUPPORTED' : status === 404 ? 'NOT_FOUND' : 'GENERIC_USER_ERROR';
      sendError(ctx, status, name, (err as Error).message || 'Bad request');
      return;
    }
    answerInternal(ctx, err);
  }
}
