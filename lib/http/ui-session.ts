// Koa middleware for the web UI's requests (/ui and below), before the protocol's authentication: a valid
// Trino-UI-Token cookie names the principal, as Trino's FormWebUiAuthenticationFilter decides it; the login
// form, its page and the static assets need no credential. Everything else under /ui still accepts the
// protocol's credentials (Basic, Bearer), so clients and the pages that sign in with Basic keep working.
import type { Context, Middleware, Next } from 'koa';
import type { UiSessionTokens } from '../security/ui-session-token.js';
import { cookieValues, UI_COOKIE } from './ui-cookie.js';

/** Trino's login and logout resources, the login and disabled pages: open to anyone, exact paths. */
const OPEN_PATHS: ReadonlySet<string> = new Set([
  '/ui/login',
  '/ui/logout',
  '/ui/auth/login',
  '/ui/auth/logout',
  '/ui/auth/info',
  '/ui/login.html',
  '/ui/disabled.html',
]);

/** Whether `path` is the web UI's (`/ui` or below it): exact prefix, case-sensitive, as the router matches. */
export function isUiPath(path: string): boolean {
  return path === '/ui' || path.startsWith('/ui/');
}

/** Needs no credential: the login resources and pages, and the static assets (code and style, no data), as in Trino. */
export function isOpenUiRequest(path: string): boolean {
  if (OPEN_PATHS.has(path)) return true;
  // One segment below /ui/assets/: the asset map decides whether it exists.
  const rest = path.startsWith('/ui/assets/') ? path.slice('/ui/assets/'.length) : undefined;
  return rest !== undefined && rest !== '' && !rest.includes('/');
}

/** The user of the first of the request's UI cookies that verifies, if any. */
export function uiSessionUser(ctx: Context, tokens: UiSessionTokens): string | undefined {
  for (const value of cookieValues(ctx, UI_COOKIE)) {
    const user = tokens.verify(value);
    if (user !== undefined) return user;
  }
  return undefined;
}

/**
 * Marks what the protocol's authentication (authentication.ts) must let through: `ctx.state.uiOpen` for
 * the open requests, `ctx.state.principal` from a valid cookie. A forged, tampered or expired cookie
 * counts as none: the request then needs a credential like any other (with authentication on).
 */
export function uiSession(tokens: UiSessionTokens): Middleware {
  return (ctx: Context, next: Next) => {
    if (!isUiPath(ctx.path)) return next();
    if (isOpenUiRequest(ctx.path)) ctx.state.uiOpen = true;
    const user = uiSessionUser(ctx, tokens);
    if (user !== undefined) ctx.state.principal = user;
    return next();
  };
}
