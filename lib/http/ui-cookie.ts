// The web UI's session cookie: Trino's name (Trino-UI-Token) and attributes (Path=/ui, HttpOnly, Secure
// over HTTPS), plus SameSite=Lax, which Trino does not set: another site's form or script cannot ride on
// it. The Cookie header is split by hand (RFC 6265 section 4.2), no regular expression over it.
import type { Context } from 'koa';

export const UI_COOKIE = 'Trino-UI-Token';
const ATTRIBUTES = 'Path=/ui; HttpOnly; SameSite=Lax';

/** Every value the request's Cookie header(s) give `name`, in order (a browser may send several). */
export function cookieValues(ctx: Context, name: string): string[] {
  const header = ctx.get('cookie');
  const values: string[] = [];
  if (header === '') return values;
  for (const pair of header.split(';')) {
    const eq = pair.indexOf('=');
    if (eq < 0 || pair.slice(0, eq).trim() !== name) continue;
    let value = pair.slice(eq + 1).trim();
    // A quoted value (cookie-value = DQUOTE *cookie-octet DQUOTE) is the same value.
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    values.push(value);
  }
  return values;
}

/** Sets the session cookie; a session cookie for the browser, the token inside carries the expiry. */
export function setUiCookie(ctx: Context, token: string, secure: boolean): void {
  ctx.append('Set-Cookie', `${UI_COOKIE}=${token}; ${ATTRIBUTES}${secure ? '; Secure' : ''}`);
}

/** Ends the session in the browser, as Trino's logout does (value `delete`, Max-Age=0). */
export function deleteUiCookie(ctx: Context, secure: boolean): void {
  ctx.append('Set-Cookie', `${UI_COOKIE}=delete; ${ATTRIBUTES}; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT${secure ? '; Secure' : ''}`);
}
