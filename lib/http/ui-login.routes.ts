// The web UI's login, as Trino's: POST /ui/auth/login with JSON (today's UI: 204 and the cookie, 403
// refused) and the older form POST /ui/login (303 to redirectPath, back to /ui/login.html?<redirectPath> when refused,
// to /ui/disabled.html when login is off); either path takes either body. GET /ui/auth/info says how to
// log in and who is; /ui/logout and /ui/auth/logout delete the cookie. Credentials: ui-form-authenticator.ts.
import type Router from '@koa/router';
import type { Context } from 'koa';
import { VivaceError } from '../protocol/vivace-error.js';
import type { UiFormAuthenticator } from '../security/ui-form-authenticator.js';
import type { UiSessionTokens } from '../security/ui-session-token.js';
import { isSecureRequest, principalOf } from './authentication.js';
import { readTextBody } from './raw-body.js';
import { sendJsonText } from './request-context.js';
import { deleteUiCookie, setUiCookie } from './ui-cookie.js';
import { loginRedirect, UI_HOME } from './ui-redirect.js';

const LOGIN_FORM = '/ui/login.html';
const DISABLED_PAGE = '/ui/disabled.html';
/** A login form is a few hundred bytes. */
const MAX_BODY_BYTES = 16 * 1024;

interface LoginFields {
  username?: string;
  password?: string;
  redirectPath?: string;
}

/** The body's fields: JSON (an object of strings or nulls) or a URL-encoded form; else a 4xx. */
async function loginFields(ctx: Context): Promise<{ fields: LoginFields; json: boolean }> {
  const type = ctx.request.type; // the media type, lower-cased, without parameters
  const json = type === 'application/json';
  if (!json && type !== 'application/x-www-form-urlencoded') {
    throw new VivaceError('INVALID_ARGUMENTS', 'Login needs a JSON body or a form (application/json or application/x-www-form-urlencoded)', { httpStatus: 415 });
  }
  const text = await readTextBody(ctx, MAX_BODY_BYTES);
  const fields: LoginFields = {};
  if (!json) {
    // URLSearchParams: a linear scan; a repeated field keeps its first value.
    const form = new URLSearchParams(text);
    for (const name of ['username', 'password', 'redirectPath'] as const) {
      const value = form.get(name);
      if (value !== null) fields[name] = value;
    }
    return { fields, json };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new VivaceError('INVALID_ARGUMENTS', 'Login body is not valid JSON', { httpStatus: 400 });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new VivaceError('INVALID_ARGUMENTS', 'Login body must be a JSON object', { httpStatus: 400 });
  }
  for (const name of ['username', 'password', 'redirectPath'] as const) {
    const value = (parsed as Record<string, unknown>)[name];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string') throw new VivaceError('INVALID_ARGUMENTS', `Login field ${name} must be a string`, { httpStatus: 400 });
    fields[name] = value;
  }
  return { fields, json };
}

function seeOther(ctx: Context, location: string): void {
  ctx.status = 303;
  ctx.set('Location', location);
  ctx.body = '';
}

export function uiLoginRoutes(router: Router, form: UiFormAuthenticator, tokens: UiSessionTokens, processForwarded: boolean): void {
  const secure = (ctx: Context) => isSecureRequest(ctx, processForwarded);

  const login = async (ctx: Context) => {
    ctx.set('Cache-Control', 'no-store');
    const { fields, json } = await loginFields(ctx);
    const denied = () => {
      // Back to the form, which keeps the page to come back to (checked like the redirect itself) and,
      // told by the fragment (never sent to a server), says the login failed.
      const back = loginRedirect(fields.redirectPath);
      if (!json) return seeOther(ctx, form.isLoginEnabled(secure(ctx)) ? `${back === UI_HOME ? LOGIN_FORM : `${LOGIN_FORM}?${back}`}#failed` : DISABLED_PAGE);
      throw new VivaceError('PERMISSION_DENIED', 'Access Denied: Invalid credentials', { httpStatus: 403 });
    };
    if (!form.isLoginEnabled(secure(ctx))) return denied();
    const outcome = await form.check(fields.username, fields.password, secure(ctx));
    if ('overloaded' in outcome) throw new VivaceError('GENERIC_INSUFFICIENT_RESOURCES', outcome.overloaded, { httpStatus: 503 });
    if ('refused' in outcome) return denied();
    setUiCookie(ctx, tokens.issue(outcome.user).token, secure(ctx));
    if (json) {
      ctx.status = 204;
      return;
    }
    seeOther(ctx, loginRedirect(fields.redirectPath));
  };
  router.post(['/ui/auth/login', '/ui/login'], login);

  router.get('/ui/auth/logout', (ctx) => {
    deleteUiCookie(ctx, secure(ctx));
    ctx.set('Cache-Control', 'no-store');
    ctx.status = 204;
  });
  router.get('/ui/logout', (ctx) => {
    deleteUiCookie(ctx, secure(ctx));
    seeOther(ctx, form.isLoginEnabled(secure(ctx)) ? LOGIN_FORM : DISABLED_PAGE);
  });

  router.get('/ui/auth/info', (ctx) => {
    // Only a cookie's user counts here (ui-session.ts); an open path sees no other credential.
    const username = principalOf(ctx);
    const info = {
      authType: form.authenticationOn ? 'form' : 'insecure',
      passwordAllowed: form.isPasswordAllowed(secure(ctx)),
      authenticated: username !== undefined,
      ...(username === undefined ? {} : { username }),
    };
    ctx.set('Cache-Control', 'no-store');
    sendJsonText(ctx, 200, JSON.stringify(info));
  });
}
