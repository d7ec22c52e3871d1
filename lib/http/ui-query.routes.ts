// Trino's UiQueryResource: /ui/api/query (the queries the user may see, as /v1/query lists them),
// /ui/api/query/{id} (the full query info, the body of /v1/query/{id}) and PUT .../killed, for the web
// UI's signed-in user (its cookie, ui-session.ts, or a protocol credential). Another user's query is a
// 403 unless the access rules allow; an unknown one a 410, as upstream. DELETE /ui/api/query/{id} is
// ours: the pages' cancel button, DELETE /v1/query/{id} for a user the cookie signed in. So is
// /ui/api/queryHistory, the stored history searched with the overview's filters.
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { Coordinator } from '../actors/coordinator.js';
import { renderBasicQueryInfo, renderQueryInfo } from '../protocol/query-info.js';
import { QUERY_STATES, type QueryState } from '../protocol/states.js';
import type { HistoryRow } from '../history/history-row.js';
import { matchesFilters } from '../ui/browser/query-filter.js';
import type { BasicQueryInfo } from '../ui/browser/types.js';
import type { HistoryRecord } from '../history/history-store.js';
import { VivaceError } from '../protocol/vivace-error.js';
import type { AccessControl } from '../security/access-control.js';
import { canSeeQuery } from '../security/query-visibility.js';
import { withSelf } from './query.routes.js';
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

/** A query parameter's first value, at most `max` characters. */
function parameter(ctx: Context, name: string, max: number): string {
  const raw = ctx.query[name];
  return (Array.isArray(raw) ? raw[0] ?? '' : raw ?? '').slice(0, max);
}

/**
 * The overview's filters over a stored row: the overview's own matcher (lib/ui/browser/query-filter.ts, pure)
 * over the row's fields as /v1/query names them, so a search past memory matches as the list in memory does.
 */
export function storedRowMatches(row: HistoryRow, filters: { state: string; user: string; search: string }): boolean {
  const info: BasicQueryInfo = {
    queryId: row.queryId,
    state: row.state,
    query: row.query,
    session: { user: row.user, ...(row.source === null ? {} : { source: row.source }) },
    ...(row.errorCode === null ? {} : { errorCode: { name: row.errorCode } }),
  };
  return matchesFilters(info, { ...filters, limit: 1 });
}

/** A stored query as /v1/query lists it (renderBasicQueryInfo's fields, from the info stored at its end). */
function storedBasicInfo(record: HistoryRecord, self: string): Record<string, unknown> {
  const info = withSelf(record.info, self);
  const picked: Record<string, unknown> = {};
  for (const key of ['queryId', 'session', 'state', 'scheduled', 'self', 'query', 'resourceGroupId', 'queryStats', 'updateType', 'errorType', 'errorCode', 'warnings']) {
    if (info[key] !== undefined) picked[key] = info[key];
  }
  return picked;
}

/** Set on /ui/api/queryHistory's answer when the search stopped at query.history.max-scan-size with older files unread. */
export const HISTORY_PARTIAL_HEADER = 'X-Vivace-History-Partial';

export function uiQueryRoutes(router: Router, coordinator: Coordinator, access: AccessControl): void {
  // Ours: the stored history (lib/history) searched beyond the in-memory list, newest first, with the
  // overview's filters (state, user, search) and the visibility rules of /v1/query; none without a history.
  router.get('/ui/api/queryHistory', async (ctx) => {
    const user = requestUser(ctx, access);
    const limit = Math.min(1000, Math.max(1, Number(parameter(ctx, 'limit', 8)) || 100));
    const filters = { state: parameter(ctx, 'state', 32).toUpperCase(), user: parameter(ctx, 'user', 256), search: parameter(ctx, 'search', 1024) };
    const base = baseUri(ctx);
    // Read without blocking, newest first, at most query.history.max-scan-size bytes of files: a search that
    // stopped there answers what it found and says so in a header (the body stays /v1/query's list).
    const scan = await coordinator.history?.recentRecords(limit, (owner) => canSeeQuery(access, user, owner), (row) => storedRowMatches(row, filters));
    ctx.set('Cache-Control', 'no-store');
    if (scan && !scan.complete) ctx.set(HISTORY_PARTIAL_HEADER, 'max-scan-size');
    sendJsonText(ctx, 200, JSON.stringify((scan?.rows ?? []).map((record) => storedBasicInfo(record, `${base}/v1/query/${record.queryId}`))));
  });

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

  router.get('/ui/api/query/:queryId', async (ctx) => {
    const user = requestUser(ctx, access);
    const tracked = coordinator.lookup(ctx.params.queryId);
    const stored = tracked ? undefined : await coordinator.history?.find(ctx.params.queryId);
    if (stored) {
      // Past the in-memory history (a query the stored list links to): its stored info, as /v1/query/{id}.
      if (!canSeeQuery(access, user, stored.user)) access.checkCanViewQueryOwnedBy(user, stored.user);
      ctx.set('Cache-Control', 'no-store');
      sendJsonText(ctx, 200, JSON.stringify(withSelf(stored.info, `${baseUri(ctx)}/v1/query/${ctx.params.queryId}`)));
      return;
    }
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
