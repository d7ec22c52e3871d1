// /v1/query: the operator's view of every live and remembered query, plus cancel and kill.
import Router from '@koa/router';
import type { Context } from 'koa';
import type { TrackedQuery } from '../actors/tracker.machine.js';
import type { Coordinator } from '../actors/coordinator.js';
import { renderBasicQueryInfo, renderQueryInfo } from '../protocol/query-info.js';
import { QUERY_STATES, type QueryState } from '../protocol/states.js';
import { VivaceError } from '../protocol/vivace-error.js';
import { readTextBody } from './raw-body.js';
import { baseUri, sendJsonText } from './request-context.js';
import { requestUser } from './request-user.js';
import type { AccessControl } from '../security/access-control.js';
import { canSeeQuery } from '../security/query-visibility.js';
import type { QueryView } from '../actors/query-view.js';

function stateFilter(raw: string | string[] | undefined): Set<QueryState> | undefined {
  if (raw === undefined) return undefined;
  const wanted = (Array.isArray(raw) ? raw : [raw]).flatMap((v) => v.split(',')).map((v) => v.trim().toUpperCase());
  for (const state of wanted) {
    if (!(QUERY_STATES as readonly string[]).includes(state)) {
      throw new VivaceError('INVALID_ARGUMENTS', `Unknown query state: ${state}`, { httpStatus: 400 });
    }
  }
  return new Set(wanted as QueryState[]);
}

/** A stored QueryInfo with its `self` where renderQueryInfo puts it (after `scheduled`). */
export function withSelf(info: Record<string, unknown>, self: string): Record<string, unknown> {
  const { queryId, session, state, scheduled, ...rest } = info;
  return { queryId, session, state, scheduled, self, ...rest };
}

export function queryRoutes(router: Router, coordinator: Coordinator, access: AccessControl): void {
  /** The view of a query `ctx`'s user may see, else Trino's "Access Denied: Cannot view query". */
  const visibleOwner = (ctx: Context, owner: string) => {
    const user = requestUser(ctx, access);
    // Not visible: the view check throws Trino's denial.
    if (!canSeeQuery(access, user, owner)) access.checkCanViewQueryOwnedBy(user, owner);
  };
  const visible = (ctx: Context, view: QueryView) => {
    visibleOwner(ctx, view.session.user);
    return view;
  };
  const storedQueryInfo = async (queryId: string) => {
    const record = await coordinator.history?.find(queryId);
    return record && { owner: record.user, body: (self: string) => withSelf(record.info, self) };
  };
  const killable = (ctx: Context, tracked: TrackedQuery) => access.checkCanKillQueryOwnedBy(requestUser(ctx, access), tracked.session.user);

  const find = (queryId: string) => {
    const tracked = coordinator.lookup(queryId);
    if (!tracked) throw new VivaceError('NOT_FOUND', `Query not found: ${queryId}`, { httpStatus: 410 });
    return tracked;
  };

  router.get('/v1/query', (ctx) => {
    const states = stateFilter(ctx.query.state);
    const base = baseUri(ctx);
    const user = requestUser(ctx, access);
    // Visibility first (one decision per owner), so no view is built for a query the user may not see.
    const infos = access
      .filterQueriesOwnedBy(user, coordinator.list(), (tracked) => tracked.session.user)
      .map((tracked) => coordinator.view(tracked))
      .filter((view) => !states || states.has(view.state))
      .map((view) => renderBasicQueryInfo(view, `${base}/v1/query/${view.queryId}`));
    sendJsonText(ctx, 200, JSON.stringify(infos));
  });

  router.get('/v1/query/:queryId', async (ctx) => {
    // Past memory, the history's files are read without blocking (bounded by query.history.max-scan-size).
    const stored = coordinator.lookup(ctx.params.queryId) ? undefined : await storedQueryInfo(ctx.params.queryId);
    if (stored) {
      // Past the in-memory history: the info stored at its end, under the same rule as a live query.
      visibleOwner(ctx, stored.owner);
      sendJsonText(ctx, 200, JSON.stringify(stored.body(`${baseUri(ctx)}/v1/query/${ctx.params.queryId}`)));
      return;
    }
    const view = visible(ctx, coordinator.view(find(ctx.params.queryId)));
    sendJsonText(ctx, 200, JSON.stringify(renderQueryInfo(view, `${baseUri(ctx)}/v1/query/${view.queryId}`)));
  });

  router.delete('/v1/query/:queryId', (ctx) => {
    const tracked = coordinator.lookup(ctx.params.queryId);
    if (tracked) killable(ctx, tracked);
    tracked?.ref?.send({ type: 'query.cancel' });
    ctx.status = 204;
  });

  router.put('/v1/query/:queryId/killed', async (ctx) => {
    const tracked = find(ctx.params.queryId);
    killable(ctx, tracked);
    const message = (await readTextBody(ctx, 64 * 1024)).trim();
    if (!tracked.ref || coordinator.view(tracked).done) {
      throw new VivaceError('GENERIC_USER_ERROR', `Query ${tracked.queryId} is already done`, { httpStatus: 409 });
    }
    const error = new VivaceError('ADMINISTRATIVELY_KILLED', message ? `Query killed. Message: ${message}` : 'Query killed. No message provided.');
    tracked.ref.send({ type: 'query.fail', error });
    ctx.status = 202;
  });

}
