// The worker's first middleware: every failure becomes a TaskError body (errorName, message,
// errorLocation when the statement has one, plus errorCode, errorType and status) with its status. A
// statement's own error is a 400 whatever its type, so the coordinator fails the query with it rather
// than blaming the worker; only the worker's own trouble (shutting down, full, a bug) is a 5xx.
import type { Context, Next } from 'koa';
import { logInternalError } from '../http/error-middleware.js';
import { defaultLogger } from '../log/logger.js';
import { ERROR_CODES, type ErrorName } from '../protocol/error-codes.js';
import { VivaceError } from '../protocol/vivace-error.js';
import type { ErrorLocation } from '../protocol/types.js';

export function taskErrorBody(status: number, errorName: ErrorName, message: string, errorLocation?: ErrorLocation): string {
  const info = ERROR_CODES[errorName];
  return JSON.stringify({ errorName, errorCode: info.code, errorType: info.type, message, status, ...(errorLocation ? { errorLocation } : {}) });
}

export function sendTaskError(ctx: Context, status: number, err: VivaceError): void {
  ctx.status = status;
  ctx.type = 'application/json';
  ctx.body = taskErrorBody(status, err.errorName, err.message, err.errorLocation);
}

/** A statement's error (no HTTP status of its own): 400. */
export function statementError(err: unknown): VivaceError {
  const error = VivaceError.from(err);
  return error.httpStatus === undefined ? new VivaceError(error.errorName, error.message, { httpStatus: 400, cause: error, ...(error.errorLocation ? { location: error.errorLocation } : {}) }) : error;
}

export async function workerErrors(ctx: Context, next: Next): Promise<void> {
  try {
    await next();
    if (ctx.status === 404 && ctx.body == null) sendTaskError(ctx, 404, new VivaceError('NOT_FOUND', `Resource not found: ${ctx.method} ${ctx.path}`));
  } catch (err) {
    if (err instanceof VivaceError) {
      sendTaskError(ctx, err.httpStatus ?? (err.errorName === 'SERVER_SHUTTING_DOWN' ? 503 : 500), err);
      if ((err.httpStatus ?? 500) >= 500 && err.errorName !== 'SERVER_SHUTTING_DOWN' && err.errorName !== 'GENERIC_INSUFFICIENT_RESOURCES') logOwnError(ctx, err);
      return;
    }
    // koa-bodyparser's and Koa's HTTP errors (malformed JSON, too large, ...).
    const status = (err as { status?: unknown }).status;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      sendTaskError(ctx, status, new VivaceError(status === 413 ? 'QUERY_TEXT_TOO_LARGE' : 'GENERIC_USER_ERROR', (err as Error).message || 'Bad request'));
      return;
    }
    logOwnError(ctx, err);
    sendTaskError(ctx, 500, VivaceError.from(err));
  }
}

/** The coordinator's internal_error line (message, stack) on the worker process's logger. */
function logOwnError(ctx: Context, err: unknown): void {
  logInternalError(err, { request: `${ctx.method} ${ctx.path}` }, defaultLogger().child({ component: 'worker' }));
}
