// First middleware: turns every failure into a status and a JSON body `{errorName, errorCode, errorType,
// message, status}` (schemas/error.schema.json), and unmatched routes into 404s of the same shape.
import type { Context, Next } from 'koa';
import { ERROR_CODES, type ErrorName } from '../protocol/error-codes.js';
import { VivaceError } from '../protocol/vivace-error.js';

export function errorBody(status: number, errorName: ErrorName, message: string): string {
  const info = ERROR_CODES[errorName];
  return JSON.stringify({ errorName, errorCode: info.code, errorType: info.type, message, status });
}

function sendError(ctx: Context, status: number, errorName: ErrorName, message: string): void {
  ctx.status = status;
  ctx.body = errorBody(status, errorName, message);
  ctx.set('Content-Type', 'application/json');
}

export async function errorMiddleware(ctx: Context, next: Next): Promise<void> {
  try {
    await next();
    if (ctx.status === 404 && ctx.body === undefined) sendError(ctx, 404, 'NOT_FOUND', `Resource not found: ${ctx.method} ${ctx.path}`);
  } catch (err) {
    if (err instanceof VivaceError) {
      sendError(ctx, err.httpStatus ?? 400, err.errorName, err.message);
      return;
    }
    // koa / @koa/router HTTP errors (405 Method Not Allowed, 501, malformed requests)
    const status = (err as { status?: number }).status;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      const name: ErrorName = status === 405 ? 'NOT_SUPPORTED' : status === 404 ? 'NOT_FOUND' : 'GENERIC_USER_ERROR';
      sendError(ctx, status, name, (err as Error).message);
      return;
    }
    ctx.app.emit('error', err, ctx);
    sendError(ctx, 500, 'GENERIC_INTERNAL_ERROR', (err as Error)?.message ?? 'Internal error');
  }
}
