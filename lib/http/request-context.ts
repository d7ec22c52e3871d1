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

/**
 * A header value Node will send (it throws on the rest, which answered 500 and lost the page): control
 * characters (a line break must not end the header) and characters beyond U+00FF go percent-encoded, as
 * their UTF-8 bytes, the way Set-Session and Added-Prepare values already travel. Plain values are
 * returned as they are.
 */
export function headerValue(value: string): string {
  let i = 0;
  while (i < value.length && isHeaderSafe(value.charCodeAt(i))) i++;
  if (i === value.length) return value;
  let out = value.slice(0, i);
  for (const ch of value.slice(i)) {
    if (ch.length === 1 && isHeaderSafe(ch.charCodeAt(0))) out += ch;
    else for (const byte of Buffer.from(ch, 'utf8')) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

function isHeaderSafe(c: number): boolean {
  return c === 0x09 || (c >= 0x20 && c !== 0x7f && c <= 0xff);
}
