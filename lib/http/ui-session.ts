// Koa middleware for the web UI's requests (/ui and below), before the protocol's authentication: a valid
// Trino-UI-Token cookie names the principal, as Trino's FormWebUiAuthenticationFilter decides it; the login
// form, its page and the static assets need no credential. With authentication on, a request with neither
// is sent to the login form (a page: 303) or refused with Trino's `Trino-Form-Login` challenge (the API:
// 401, no Basic challenge, so a browser shows no password dialog). A request with an Authorization
// header is left to the protocol's authentication, so clients with Basic or Bearer keep working.
import type { Context, Middleware, Next } from 'koa';
import type { UiFormAuthenticator } from '../security/ui-form-authenticator.js';
import type { UiSessionTokens } from '../security/ui-session-token.js';
import { isSecureRequest } from './authentication.js';
import { errorBody } from './error-middleware.js';
import { cookieValues, UI_COOKIE } from './ui-cookie.js';
import { loginRedirect } from './ui-redirect.js';

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

/** Trino's challenge for the UI's API without a session: the page goes to its login form. */
export const FORM_LOGIN_CHALLENGE = 'Trino-Form-Login';

/** Where a page without a session goes: the login form, given the page to come back to (as Trino's buildLoginFormURI). */
function loginFormLocation(ctx: Context): string {
  return ctx.path === '/ui' || ctx.path === '/ui/' ? '/ui/login.html' : `/ui/login.html?${ctx.url}`;
}

/**
 * Marks what the protocol's authentication (authentication.ts) must let through: `ctx.state.uiOpen` for
 * the open requests, `ctx.state.principal` from a valid cookie. A forged, tampered or expired cookie
 * counts as none. Authentication off: a request without a session goes on as before (the user its
 * headers name, as /v1/query takes it).
 */
export function uiSession(tokens: UiSessionTokens, form: UiFormAuthenticator, processForwarded: boolean): Middleware {
  return (ctx: Context, next: Next) => {
    if (!isUiPath(ctx.path)) return next();
    const user = uiSessionUser(ctx, tokens);
    if (user !== undefined) ctx.state.principal = user;
    if (isOpenUiRequest(ctx.path)) {
      // Already logged in: the login page sends the user on to the page it names, as Trino's filter does.
      if (user !== undefined && ctx.path === '/ui/login.html' && (ctx.method === 'GET' || ctx.method === 'HEAD')) {
        ctx.status = 303;
        ctx.set('Location', loginRedirect(ctx.querystring));
        ctx.body = '';
        return;
      }
      ctx.state.uiOpen = true;
      return next();
    }
    const secure = isSecureRequest(ctx, processForwarded);
    if (user !== undefined || !form.usesLoginForm(secure) || ctx.get('authorization') !== '') return next();
    if (!ctx.path.startsWith('/ui/api/') && (ctx.method === 'GET' || ctx.method === 'HEAD')) {
      ctx.status = 303;
      ctx.set('Location', form.isLoginEnabled(secure) ? loginFormLocation(ctx) : '/ui/disabled.html');
      ctx.body = '';
      return;
    }
    ctx.status = 401;
    ctx.set('WWW-Authenticate', FORM_LOGIN_CHALLENGE);
    ctx.set('Content-Type', 'application/json');
    ctx.body = errorBody(401, 'PERMISSION_DENIED', 'Unauthorized');
  };
}
