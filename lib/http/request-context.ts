// Per-request facts every route needs: the absolute base URI for links and the header family.
import type { Context } from 'koa';
import type { TLSSocket } from 'node:tls';
import { detectPrefix, dialectOf } from '../protocol/header-prefix.js';
import type { HeaderPrefix, ProtocolDialect } from '../protocol/types.js';
import { sendBytePieces } from './byte-pieces.js';

/**
 * The scheme the client used: the socket's (TLS or not), unless a trusted proxy says otherwise. With
 * http-server.process-forwarded, X-Forwarded-Proto's first value wins when it is `http` or `https`, either
 * way, as in Trino (the forwarded scheme becomes the request's, and a request is secure when its scheme
 * is https). Not ctx.protocol: with app.proxy set, Koa takes the header as it is. The one test behind
 * both the URIs we send (baseUri) and whether credentials may be taken (authentication.ts).
 */
export function requestScheme(ctx: Context, processForwarded: boolean = ctx.app.proxy): 'http' | 'https' {
  if (processForwarded) {
    const header = ctx.get('x-forwarded-proto');
    const comma = header.indexOf(',');
    const forwarded = (comma < 0 ? header : header.slice(0, comma)).trim().toLowerCase();
    if (forwarded === 'http' || forwarded === 'https') return forwarded;
  }
  return (ctx.req.socket as Partial<TLSSocket>).encrypted === true ? 'https' : 'http';
}

/**
 * `scheme://host[:port]` as the client addressed us: X-Forwarded-* first when the app trusts a proxy
 * (`app.proxy`, set from http-server.process-forwarded).
 */
export function baseUri(ctx: Context): string {
  const forwardedHost = ctx.app.proxy ? ctx.get('x-forwarded-host').split(',')[0]!.trim() : '';
  const host = [forwardedHost, ctx.get('host')].find(isHostAndPort) ?? `${ctx.req.socket.localAddress}:${ctx.req.socket.localPort}`;
  return `${requestScheme(ctx)}://${host}`;
}

/** A host name, IPv4 or bracketed IPv6 address with an optional port: nothing that would bend a URI. */
function isHostAndPort(text: string): boolean {
  if (text === '' || text.length > 300) return false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const ok = (c >= 48 && c <= 58) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 45 || c === 46 || c === 91 || c === 93 || c === 95;
    if (!ok) return false;
  }
  return true;
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

/**
 * Write a body with exactly `contentType` (by default `application/json`: lento rejects a charset suffix),
 * given as text or as byte pieces (a large result page: written as they are, byte-pieces.ts).
 */
export function sendJsonText(ctx: Context, status: number, json: string | readonly Buffer[], contentType = 'application/json'): void {
  if (typeof json !== 'string') {
    sendBytePieces(ctx, status, contentType, json);
    return;
  }
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
