// Per-request facts every route needs: the absolute base URI for links and the header family.
import type { Context } from 'koa';
import { detectPrefix, dialectOf } from '../protocol/header-prefix.js';
import type { HeaderPrefix, ProtocolDialect } from '../protocol/types.js';

/** `scheme://host[:port]` as the client addressed us (X-Forwarded-* first, as behind a proxy). */
export function baseUri(ctx: Context): string {
  const forwardedProto = ctx.get('x-forwarded-proto').split(',')[0].trim();
  const forwardedHost = ctx.get('x-forwarded-host').split(',')[0].trim();
  const proto = forwardedProto || ctx.protocol;
  const host = forwardedHost || ctx.get('host') || `${ctx.req.socket.localAddress}:${ctx.req.socket.localPort}`;
  return `${proto}://${host}`;
}

export interface ProtocolFamily {
  prefix: HeaderPrefix;
  dialect: ProtocolDialect;
}

/** The request's header family; a request without any (a bare nextUri GET) speaks `fallback`'s. */
export function protocolFamily(ctx: Context, fallback?: HeaderPrefix): ProtocolFamily {
  const prefix = detectPrefix(ctx.headers, fallback);
  return { prefix, dialect: dialectOf(prefix) };
}

/** Write a JSON text body with exactly `application/json` (lento rejects a charset suffix). */
export function sendJsonText(ctx: Context, status: number, json: string, contentType = 'application/json'): void {
  // The header first: Koa then neither guesses a type from the body nor adds a charset.
  ctx.set('Content-Type', contentType);
  ctx.status = status;
  ctx.body = json;
}
