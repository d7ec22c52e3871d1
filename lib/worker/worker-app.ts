// The worker's Koa application: TaskError middleware first, the internal bearer on task endpoints when a
// shared secret is configured (not on spooled segments' download and ack: their id is their key), then the
// status, task and spooled routes.
import Koa from 'koa';
import Router from '@koa/router';
import type { Context, Next } from 'koa';
import { INTERNAL_BEARER_HEADER } from '../cluster/task-protocol.js';
import { verifyInternalBearer } from '../cluster/cluster-auth.js';
import { workerErrors } from './worker-errors.js';
import { statusRoutes, type WorkerIdentity } from './status.routes.js';
import { taskRoutes, type TaskRouteOptions } from './task.routes.js';
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
    if (!OPEN_PATHS.has(ctx.path) && !isOpenSpooledPath(ctx.path)) {
      const token = ctx.get(INTERNAL_BEARER_HEADER);
      await verifyInternalBearer(secret, token === '' ? undefined : token);
    }
    await next();
  };
}
