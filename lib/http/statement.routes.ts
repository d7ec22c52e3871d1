// /v1/statement: submit SQL, page through results by token, cancel.
// Routes only translate: request -> event on the query actor, snapshot -> rendered response.
import Router from '@koa/router';
import type { Context } from 'koa';
import type { Coordinator } from '../actors/coordinator.js';
import { hasResultsReady, isPastPlanning, toQueryView, type QueryView } from '../actors/query-view.js';
import { FIRST_TOKEN, type TrackedQuery } from '../actors/tracker.machine.js';
import type { SentResponse } from '../protocol/token-cursor.js';
import { parseSession, sessionResponseHeaders } from '../protocol/session-headers.js';
import { isLastResponse, renderStatement } from '../protocol/statement-response.js';
import type { RowBatch } from '../engine/engine.types.js';
import { VivaceError } from '../protocol/vivace-error.js';
import { readTextBody } from './raw-body.js';
import { isOwnBug, logInternalError, loggerOf } from './error-middleware.js';
import type { Logger } from '../log/logger.js';
import { baseUri, headerValue, protocolFamily, sendJsonText, type ProtocolFamily } from './request-context.js';
import { refuseNulCharacters } from './statement-text.js';
import { requestUser } from './request-user.js';
import { principalOf } from './authentication.js';
import { headerValue as requestHeader } from '../protocol/header-prefix.js';
import { queryDataEncodingOf } from '../spooling/spooled-statement.js';
import { enabledEncodings, segmentLinks } from '../spooling/spooling-config.js';
import type { CoordinatorConfig } from '../config.js';
import type { AccessControl } from '../security/access-control.js';

function findQuery(coordinator: Coordinator, ctx: Context): TrackedQuery {
  const tracked = coordinator.lookup(ctx.params.queryId);
  if (!tracked) throw new VivaceError('NOT_FOUND', `Query not found: ${ctx.params.queryId}`, { httpStatus: 404 });
  return tracked;
}

/** The page a token names, if its slug is this query's (else 404 as an unknown token, changing nothing). */
function parseToken(ctx: Context, tracked: TrackedQuery): number {
  const token = tracked.slug.tokenNumber(String(ctx.params.token));
  if (token === undefined) throw new VivaceError('NOT_FOUND', `Unknown token for query ${tracked.queryId}`, { httpStatus: 404 });
  return token;
}

/** `nextToken` undefined: the last response, without nextUri (isLastResponse says when). */
function respond(ctx: Context, config: CoordinatorConfig, family: ProtocolFamily, tracked: TrackedQuery, view: QueryView, nextToken: number | undefined, page?: RowBatch): SentResponse {
  const base = baseUri(ctx);
  const { slug } = tracked;
  const stageId = view.rootStage.stageId;
  const body = renderStatement(
    view,
    {
      infoUri: `${base}/ui/query.html?${view.queryId}`,
      // As Trino: only beside a nextUri, and only while a stage can still be cancelled.
      partialCancelUri: nextToken !== undefined && view.state === 'RUNNING' ? `${base}/v1/stage/${view.queryId}.${stageId}/${slug.stage(stageId)}` : undefined,
      nextUri: nextToken !== undefined ? `${base}/v1/statement/${view.queryId}/${slug.token(nextToken)}` : undefined,
      segments: segmentLinks(config, base),
    },
    family.dialect,
    page,
  );
  const headers = view.state === 'FINISHED' && view.sessionUpdates ? sessionResponseHeaders(family.prefix, view.sessionUpdates) : NO_HEADERS;
  const sent = { body, headers };
  sendResponse(ctx, sent);
  return sent;
}

const NO_HEADERS: [string, string][] = [];

function sendResponse(ctx: Context, response: SentResponse): void {
  for (const [name, value] of response.headers) ctx.append(name, headerValue(value));
  sendJsonText(ctx, 200, response.body);
}

/** A query that ends with an INTERNAL_ERROR failed through our own bug: logged once, with its id. */
function logInternalFailure(tracked: TrackedQuery, logger: Logger): void {
  const ref = tracked.ref;
  if (!ref) return;
  const check = () => {
    const error = ref.getSnapshot().context.error;
    if (error && isOwnBug(error)) logInternalError(error.cause ?? error, { queryId: tracked.queryId }, logger);
  };
  ref.subscribe({ complete: check, error: check });
}

export function statementRoutes(router: Router, coordinator: Coordinator, access: AccessControl): void {
  const { config } = coordinator;

  router.post('/v1/statement', async (ctx) => {
    const family = protocolFamily(ctx);
    const sql = await readTextBody(ctx, config.maxBodyBytes);
    if (sql.trim() === '') throw new VivaceError('GENERIC_USER_ERROR', 'SQL statement is empty', { httpStatus: 400 });
    if (sql.length > config.maxQueryLength) {
      throw new VivaceError('QUERY_TEXT_TOO_LARGE', `Query text length (${sql.length}) exceeds the maximum length (${config.maxQueryLength})`, { httpStatus: 413 });
    }
    // Who asks, before anything of the request is kept: the principal, or whom it may impersonate.
    const user = requestUser(ctx, access);
    access.checkCanExecuteQuery(user);
    const principal = principalOf(ctx);
    const session = { ...parseSession(ctx.headers, { remoteAddress: ctx.ip, now: coordinator.now(), prefix: family.prefix }), user, ...(principal === undefined ? {} : { authenticatedUser: principal }) };
    const encoding = config.spoolingEnabled ? queryDataEncodingOf(sql, requestHeader(ctx.headers, `${family.prefix}Query-Data-Encoding`), enabledEncodings(config)) : undefined;
    if (encoding !== undefined) {
      session.queryDataEncoding = encoding;
      // Echoed with the chosen encoding, as Trino's QueuedStatementResource does.
      ctx.set(`${family.prefix}Query-Data-Encoding`, encoding);
    }
    refuseNulCharacters(sql, session);
    const { tracked, asSubmitted } = coordinator.start(sql, session);
    logInternalFailure(tracked, loggerOf(ctx));
    // Sent while the cluster starts: the query waits for its required workers (ClusterSizeMonitor), and the
    // POST with it for a bounded while, so that the first statement after `make run` answers RUNNING with
    // its columns like any other rather than an unplanned snapshot.
    // One wait, subscribed at once: a separate wait for the workers first let the query plan and run on
    // while this handler slept, and the POST then answered FINISHING (seen under load).
    const startupWaitMs = coordinator.cluster?.starting ? Math.min(config.startupStatementWaitMs, config.requiredWorkersMaxWaitMs) : 0;
    // The POST answers the planned query as it stood when planning ended (RUNNING, stages SCHEDULED).
    const planned = await coordinator.waitFor(tracked, isPastPlanning, startupWaitMs + config.longPollMs);
    // A query that failed before it was planned answers as submitted, with a nextUri: clients only
    // look for errors on the pages they poll (presto-js-client, trino-client), as with upstream's
    // always-QUEUED POST. The first GET carries the failure.
    // No updateType on the POST: Trino's (QueuedStatementResource.createQueryResults) has none; the GETs carry it.
    const posted = planned.state === 'FAILED' ? asSubmitted() : planned;
    respond(ctx, config, family, tracked, posted.updateType === undefined ? posted : { ...posted, updateType: undefined, updateCount: undefined }, FIRST_TOKEN);
  });

  router.get('/v1/statement/:queryId/:token', async (ctx) => {
    const tracked = findQuery(coordinator, ctx);
    const family = protocolFamily(ctx, tracked.session.prefix);
    const token = parseToken(ctx, tracked);
    coordinator.heartbeat(tracked);
    if (tracked.cursor.check(token) === 'next') await coordinator.waitFor(tracked, hasResultsReady, config.longPollMs);
    // Checked again after the wait: a concurrent retry of the same token may have answered meanwhile.
    switch (tracked.cursor.check(token)) {
      case 'repeat':
        sendResponse(ctx, tracked.cursor.repeatResponse!);
        return;
      case 'gone':
        throw new VivaceError('NOT_FOUND', `Token ${token} is no longer available for query ${tracked.queryId}`, { httpStatus: 410 });
      case 'unknown':
        throw new VivaceError('NOT_FOUND', `Unknown token ${token} for query ${tracked.queryId}`, { httpStatus: 404 });
    }
    // Take the page from the live actor; its snapshot stays readable even if this take finishes it. An
    // ended actor takes nothing: the page its context still holds was sent already (the query finished
    // with it, and that response linked here), so it must not go out again.
    const ref = tracked.ref;
    let view: QueryView;
    let page: RowBatch | undefined;
    if (ref?.getSnapshot().status === 'active') {
      ref.send({ type: 'results.take' });
      view = toQueryView(ref.getSnapshot());
      page = view.page;
    } else {
      view = coordinator.view(tracked);
    }
    const last = isLastResponse(view, page);
    tracked.cursor.record(token, respond(ctx, config, family, tracked, view, last ? undefined : token + 1, page), last);
  });

  // Trino clients send HEAD to the nextUri as a heartbeat while they consume rows.
  router.head('/v1/statement/:queryId/:token', (ctx) => {
    const tracked = findQuery(coordinator, ctx);
    parseToken(ctx, tracked);
    coordinator.heartbeat(tracked);
    ctx.status = 200;
  });

  router.delete('/v1/statement/:queryId/:token', (ctx) => {
    const tracked = findQuery(coordinator, ctx);
    parseToken(ctx, tracked);
    tracked.ref?.send({ type: 'query.cancel' });
    ctx.status = 204;
  });
}
