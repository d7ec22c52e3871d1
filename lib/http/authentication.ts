// Koa middleware: when authentication is configured, every request but the public health checks
// (Trino's @ResourceSecurity(PUBLIC) ones: GET /v1/info, /v1/info/state, /v1/info/coordinator, and
// /v1/status) needs a credential; the authenticated principal is left in ctx.state.principal.
// Only installed when authentication is on, so the default server pays nothing for it.
import type { Context, Middleware, Next } from 'koa';
import type { Authenticator } from '../security/authenticator.js';
import { errorBody } from './error-middleware.js';
import { requestScheme } from './request-context.js';
import { isOpenSpooledPath } from '../spooling/spooled-paths.js';

const PUBLIC_PATHS: ReadonlySet<string> = new Set(['/v1/info', '/v1/info/state', '/v1/info/coordinator', '/v1/status']);

/** Exact, case-sensitive paths: a variant that routes elsewhere is never mistaken for a public one. */
export function isPublicRequest(method: string, path: string): boolean {
  // Spooled segments too, as Trino's SegmentResource: clients send no credentials there, the sealed id is the key.
  return (method === 'GET' || method === 'HEAD') && (PUBLIC_PATHS.has(path) || isOpenSpooledPath(path));
}

/**
 * Whether the request is secure: its scheme is https (request-context.ts's requestScheme: the socket,
 * or with http-server.process-forwarded the proxy's X-Forwarded-Proto, as in Trino).
 */
export function isSecureRequest(ctx: Context, processForwarded: boolean): boolean {
  return requestScheme(ctx, processForwarded) === 'https';
}

/** The authenticated principal, when authentication is on (undefined otherwise and on public paths). */
export function principalOf(ctx: Context): string | undefined {
  const principal: unknown = ctx.state.principal;
  return typeof principal === 'string' ? principal : undefined;
}

/** The user a request names, for Trino's insecure authenticator (HTTP with allow-insecure-over-http). */
function namedUser(ctx: Context): string | undefined {
  return ctx.get('x-trino-original-user') || ctx.get('x-trino-user') || ctx.get('x-presto-user') || ctx.get('x-service-user') || undefined;
}

/**
 * `internalBearerChecked`: a shared secret is configured, so workers' announcements are authenticated by
 * their internal bearer (lib/cluster/discovery.ts checks it), not as users, as in Trino.
 */
export function authentication(authenticator: Authenticator, options: { processForwarded: boolean; internalBearerChecked?: boolean }): Middleware {
  return async (ctx: Context, next: Next) => {
    if (isPublicRequest(ctx.method, ctx.path)) return next();
    if (options.internalBearerChecked && ctx.path.startsWith('/v1/announcement/')) return next();
    // The web UI's login resources and assets, or a UI request its session cookie authenticated (ui-session.ts).
    if (ctx.state.uiOpen === true || principalOf(ctx) !== undefined) return next();
    const authorization = ctx.get('authorization');
    const userHeader = namedUser(ctx);
    const outcome = await authenticator.authenticate({
      ...(authorization === '' ? {} : { authorization }),
      ...(userHeader === undefined ? {} : { userHeader }),
      secure: isSecureRequest(ctx, options.processForwarded),
    });
    if ('principal' in outcome) {
      ctx.state.principal = outcome.principal;
      return next();
    }
    // One WWW-Authenticate header per configured method, as Trino sends them. The message is fixed
    // text of ours: it never repeats the Authorization header.
    for (const challenge of outcome.challenges) ctx.append('WWW-Authenticate', challenge);
    ctx.set('Content-Type', 'application/json');
    ctx.status = outcome.status;
    ctx.body = errorBody(outcome.status, outcome.status === 503 ? 'GENERIC_INSUFFICIENT_RESOURCES' : 'PERMISSION_DENIED', outcome.message);
  };
}
