// The request target before routing: absolute-form URLs (`GET http://host/v1/...`, sent by presto-client)
// are routed by their path, and a target that is not a clean path is a 400, never a 500.
import type { Context, Next } from 'koa';
import { VivaceError } from '../protocol/vivace-error.js';

function badTarget(message: string): VivaceError {
  return new VivaceError('GENERIC_USER_ERROR', message, { httpStatus: 400 });
}

/** `http://` or `https://`, in any case: the absolute form of a request target. */
function schemeLength(url: string): number {
  const lower = url.slice(0, 8).toLowerCase();
  if (lower.startsWith('http://')) return 7;
  if (lower.startsWith('https://')) return 8;
  return 0;
}

/** The path and query of an absolute-form target, as sent (no dot-segment normalization by URL). */
function originForm(url: string): string {
  const scheme = schemeLength(url);
  if (scheme === 0) throw badTarget('Malformed request target: expected a path or an absolute http(s) URL');
  if (!URL.canParse(url)) throw badTarget('Malformed request URL');
  let end = scheme;
  while (end < url.length && url[end] !== '/' && url[end] !== '?') end++;
  const rest = url.slice(end);
  return rest.startsWith('/') ? rest : `/${rest}`;
}

/** Throws unless every `%` escape decodes to UTF-8 text without control characters. */
function checkEscapes(text: string, part: string): string {
  let decoded: string;
  try {
    decoded = decodeURIComponent(text);
  } catch {
    throw badTarget(`Malformed percent-encoding in the request ${part}`);
  }
  for (let i = 0; i < decoded.length; i++) {
    const c = decoded.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) throw badTarget(`Control character in the request ${part}`);
  }
  return decoded;
}

/** `.` and `..` segments (also percent-encoded) are refused rather than resolved: no route has them. */
function checkSegments(path: string): void {
  if (!path.includes('/.')) return;
  for (const segment of path.split('/')) {
    if (segment === '.' || segment === '..') throw badTarget('Dot segments are not allowed in the request path');
  }
}

/**
 * Middleware: rewrites an absolute-form target to its path and refuses malformed targets with 400.
 * `OPTIONS *` (asterisk form) answers the methods the server implements.
 */
export function requestTarget(implementedMethods: readonly string[]): (ctx: Context, next: Next) => Promise<void> {
  const allow = implementedMethods.join(', ');
  return (ctx, next) => {
    const url = ctx.url;
    if (url.charCodeAt(0) !== 0x2f /* '/' */) {
      if (url === '*' && ctx.method === 'OPTIONS') {
        ctx.set('Allow', allow);
        ctx.status = 200;
        ctx.body = '';
        return Promise.resolve();
      }
      ctx.url = originForm(url);
    }
    const path = ctx.path;
    checkSegments(path.includes('%') ? checkEscapes(path, 'path') : path);
    const query = ctx.querystring;
    if (query.includes('%')) checkEscapes(query, 'query');
    return next();
  };
}
