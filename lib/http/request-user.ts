// The user a request acts as, as Trino decides it: the authenticated principal, or the user the request
// names (X-Trino-User, X-Presto-User, X-Service-User) when the access control lets the principal
// impersonate that user. Without authentication the named user is taken at its word, as in Trino.
import type { Context } from 'koa';
import { headerValue } from '../protocol/header-prefix.js';
import { DEFAULT_USER } from '../protocol/session-headers.js';
import type { AccessControl } from '../security/access-control.js';
import { principalOf } from './authentication.js';
import { protocolFamily } from './request-context.js';

/** The user `ctx` acts as; throws PERMISSION_DENIED (403) for an impersonation no rule allows. */
export function requestUser(ctx: Context, access: AccessControl): string {
  const known: unknown = ctx.state.user;
  if (typeof known === 'string') return known;
  const named = headerValue(ctx.headers, `${protocolFamily(ctx).prefix}User`);
  const principal = principalOf(ctx);
  let user: string;
  if (principal === undefined) user = named ?? DEFAULT_USER;
  else {
    if (named !== undefined && named !== principal) access.checkCanImpersonateUser(principal, named);
    user = named ?? principal;
  }
  ctx.state.user = user;
  return user;
}
