// Trino's UiQueryResource: /ui/api/query (the queries the user may see, as /v1/query lists them),
// /ui/api/query/{id} (the full query info, the body of /v1/query/{id}) and PUT .../killed, for the web
// UI's signed-in user (its cookie, ui-session.ts, or a protocol credential). Another user's query is a
// 403 unless the access rules allow; an unknown one a 410, as upstream. DELETE /ui/api/query/{id} is
// ours: the pages' cancel button, DELETE /v1/query/{id} for a user the cookie signed in.
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { Coordinator } from '../actors/coordinator.js';
import { renderBasicQueryInfo, renderQueryInfo } from '../protocol/query-info.js';
import { QUERY_STATES, type QueryState } from '../protocol/states.js';
import { VivaceError } from '../protocol/vivace-error.js';
import type { AccessControl } from '../security/access-control.js';
import { canSeeQuery } from '../security/query-visibility.js';
import { readTextBody } from './raw-body.js';
import { baseUri, sendJsonText } from './request-context.js';
import { requestUser } from './request-user.js';

/** Trino's `state` parameter: one state name, any case (QueryState.valueOf of its upper case). */
function stateParameter(ctx: Context): QueryState | undefined {
  const raw = ctx.query.state;
  if (raw === undefined) return undefined;
  const state = (Array.isArray(raw) ? raw[0]! : raw).toUpperCase();
  if (!(QUERY_STATES as readonly string[]).includes(state)) throw new VivaceError('INVALID_ARGUMENTS', `Unknown query state: ${state}`, { httpStatus: 400 });
  return state as QueryState;
}

export function uiQueryRoutes(router: Router, coordinator: Coordinator, access: AccessControl): void {
  router.get('/ui/api/query', (ctx) => {
    const state = stateParameter(ctx);
    const user = requestUser(ctx, access);
    const base = baseUri(ctx);
    const infos = access
      .filterQueriesOwnedBy(user, coordinator.list(), (tracked) => tracked.session.user)
      .map((tracked) => coordinator.view(tracked))
      .filter((view) => state === undefined || view.state === state)
      .map((view) => renderBasicQueryInfo(view, `${base}/v1/query/${view.queryId}`));
    ctx.set('Cache-Control', 'no-store');
    sendJsonText(ctx, 200, JSON.stringify(infos));
  });

  router.get('/ui/api/query/:queryId', (ctx) => {
    const user = requestUser(ctx, access);
    const tracked = coordinator.lookup(ctx.params.queryId);
    if (!tracked) throw new VivaceError('NOT_FOUND', `Query not found: ${ctx.params.queryId}`, { httpStatus: 410 });
    // Not visible: the view check throws Trino's denial (403).
    if (!canSeeQuery(access, user, tracked.session.user)) access.checkCanViewQueryOwnedBy(user, tracked.session.user);
    const view = coordinator.view(tracked);
    ctx.set('Cache-Control', 'no-store');
    sendJsonText(ctx, 200, JSON.stringify(renderQueryInfo(view, `${baseUri(ctx)}/v1/query/${view.queryId}`)));
  });

  /** The query `ctx` may kill (else 403), or a 410. */
  const killable = (ctx: Context) => {
    const tracked = coordinator.lookup(ctx.params.queryId!);
    if (!tracked) throw new VivaceError('NOT_FOUND', `Query not found: ${ctx.params.queryId}`, { httpStatus: 410 });
    access.checkCanKillQueryOwnedBy(requestUser(ctx, access), tracked.session.user);
    return tracked;
  };

  router.delete('/ui/api/query/:queryId', (ctx) => {
    killable(ctx).ref?.send({ type: 'query.cancel' });
    ctx.status = 204;
  });

  router.put('/ui/api/query/:queryId/killed', async (ctx) => {
    const tracked = killable(ctx);
    const message = (await readTextBody(ctx, 64 * 1024)).trim();
    // Already done: 409, as Trino (checked before killing, so racy there too).
    if (!tracked.ref || coordinator.view(tracked).done) throw new VivaceError('GENERIC_USER_ERROR', `Query ${tracked.queryId} is already done`, { httpStatus: 409 });
    const error = new VivaceError('ADMINISTRATIVELY_KILLED', message ? `Query killed. Message: ${message}` : 'Query killed. No message provided.');
    tracked.ref.send({ type: 'query.fail', error });
    ctx.status = 202;
  });
}
