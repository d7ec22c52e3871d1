// The worker's Koa application: TaskError middleware first, the internal bearer on task endpoints when a
// shared secret is configured (not on spooled segments' download and ack: their id is their key), then the
// status, task and spooled routes. The server's listener (workerRequestListener) answers the task POST, a
// short query's only exchange, without Koa, the same way.
import Koa from 'koa';
import Router from '@koa/router';
import type { Context, Next } from 'koa';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { INTERNAL_BEARER_HEADER, TASK_PATH } from '../cluster/task-protocol.js';
import { verifyInternalBearer } from '../cluster/cluster-auth.js';
import { readTextBody } from '../http/raw-body.js';
import { taskErrorBody, taskFailure, workerErrors } from './worker-errors.js';
import { statusRoutes, type WorkerIdentity } from './status.routes.js';
import { checkAccepting, planTask, taskRoutes, type TaskRouteOptions } from './task.routes.js';
import { taskIdOfPath } from './task-request.js';
import type { TaskRegistry } from './task-registry.js';
import type { SegmentSpool } from './spool/segment-spool.js';
import { spooledRoutes } from './spool/spooled.routes.js';
import { isOpenSpooledPath } from '../spooling/spooled-paths.js';
import type { ServerState as WorkerState } from '../http/info.routes.js';

export interface WorkerAppOptions extends TaskRouteOptions {
  identity: WorkerIdentity;
  /** Spooling protocol: the worker's spool, served at Trino's /v1/spooled paths; absent: none. */
  spool?: SegmentSpool;
  registry: TaskRegistry;
  state: WorkerState;
}

export function createWorkerApp(options: WorkerAppOptions): Koa {
  const app = new Koa();
  const router = new Router({ sensitive: true, strict: true });
  statusRoutes(router, options.identity, options.state, options.registry);
  taskRoutes(router, options.registry, options.state, options);
  if (options.spool) spooledRoutes(router, options.spool);
  app.use(workerErrors);
  const secret = options.identity.sharedSecret;
  if (secret !== undefined) app.use(requireBearer(secret));
  app.use(router.routes());
  app.use(router.allowedMethods({ throw: true }));
  // Errors are answered by workerErrors; keep Koa from printing a client's mistakes.
  app.silent = true;
  return app;
}

/** Open without the bearer: what the failure detector and load balancers probe (PUT /v1/info/state checks its own). */
const OPEN_PATHS: ReadonlySet<string> = new Set(['/v1/status', '/v1/info', '/v1/info/coordinator', '/v1/info/state']);

/** Everything but the status endpoints takes a valid internal bearer (401 otherwise): deny by default. */
function requireBearer(secret: string) {
  return async (ctx: Context, next: Next): Promise<void> => {
    if (!OPEN_PATHS.has(ctx.path) && !isOpenSpooledPath(ctx.path)) await checkBearer(secret, ctx.get(INTERNAL_BEARER_HEADER));
    await next();
  };
}

const checkBearer = (secret: string, token: string) => verifyInternalBearer(secret, token === '' ? undefined : token);

/**
 * The worker server's listener: the Koa app, but for POST /v1/task/{taskId} (every statement's plan, and
 * a short query's only exchange), answered straight on Node's request and response with what the app
 * would do: the bearer, the worker's state, the task id's and the body's checks, the route's work
 * (planTask) and its errors' bodies (taskFailure), the same status, headers and bytes. Koa's context,
 * router and middleware chain were a tenth of the worker's main thread per `SELECT 1` (its profile under
 * figure b's load). A path the router might read otherwise (a query string, an encoded or unusual
 * character, a trailing slash) goes through Koa.
 */
export function workerRequestListener(options: WorkerAppOptions): RequestListener {
  const viaKoa = createWorkerApp(options).callback();
  const secret = options.identity.sharedSecret;
  const planDirectly = async (req: IncomingMessage, res: ServerResponse, rawTaskId: string) => {
    try {
      if (secret !== undefined) await checkBearer(secret, headerText(req, INTERNAL_BEARER_HEADER));
      checkAccepting(options.state);
      const taskId = taskIdOfPath(rawTaskId);
      // What readTextBody reads of a Koa context: the request and its Content-Length (as ctx.get gives it).
      const text = await readTextBody({ req, get: (name: string) => headerText(req, name) } as Pick<Context, 'req' | 'get'> as Context, options.maxBodyBytes);
      const answer = await planTask(options.registry, options, taskId, text);
      send(res, 200, answer.headers, answer.type, answer.body);
    } catch (err) {
      const { status, error } = taskFailure(err, `POST ${req.url ?? ''}`);
      send(res, status, [], 'application/json; charset=utf-8', taskErrorBody(status, error.errorName, error.message, error.errorLocation));
    }
  };
  return (req, res) => {
    const taskId = req.method === 'POST' ? directTaskId(req.url) : undefined;
    if (taskId === undefined) void viaKoa(req, res);
    // send() failing on the error's answer too leaves nothing to answer with: the connection goes.
    else planDirectly(req, res, taskId).catch(() => res.destroy());
  };
}

const TASK_PREFIX = `${TASK_PATH}/`;

/** The task id of `/v1/task/{taskId}` when it is plain (letters, digits, `.`, `_`, `-`): the router reads such a path the same. */
function directTaskId(url: string | undefined): string | undefined {
  if (url === undefined || !url.startsWith(TASK_PREFIX) || url.length === TASK_PREFIX.length) return undefined;
  for (let i = TASK_PREFIX.length; i < url.length; i++) {
    const c = url.charCodeAt(i);
    const plain = (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x2e || c === 0x5f || c === 0x2d;
    if (!plain) return undefined;
  }
  return url.slice(TASK_PREFIX.length);
}

/** A request header as Koa's ctx.get reads it: its value, '' when absent. */
function headerText(req: IncomingMessage, name: string): string {
  const value = req.headers[name.toLowerCase()];
  return (Array.isArray(value) ? value.join(', ') : value) ?? '';
}

/** Status, headers (in order), Content-Type, Content-Length and body, as Koa sends a string or sendBytePieces its pieces. */
function send(res: ServerResponse, status: number, headers: readonly [string, string][], type: string, body: string | readonly Buffer[]): void {
  res.statusCode = status;
  for (const [name, value] of headers) res.setHeader(name, value);
  res.setHeader('Content-Type', type);
  if (typeof body === 'string') {
    res.setHeader('Content-Length', String(Buffer.byteLength(body)));
    res.end(body);
    return;
  }
  let length = 0;
  for (const piece of body) length += piece.length;
  res.setHeader('Content-Length', String(length));
  res.cork();
  for (const piece of body) res.write(piece);
  res.end();
  res.uncork();
}
