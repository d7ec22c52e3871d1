// The Koa application: error middleware first, then one router per resource.
import Koa from 'koa';
import Router from '@koa/router';
import type { Coordinator } from '../actors/coordinator.js';
import { errorBody, errorMiddleware } from './error-middleware.js';
import { infoRoutes, ServerState } from './info.routes.js';
import { nodeRoutes } from './node.routes.js';
import { queryRoutes } from './query.routes.js';
import { stageRoutes } from './stage.routes.js';
import { statementRoutes } from './statement.routes.js';

export interface AppOptions {
  nodeId: string;
  serverState?: ServerState;
}

export function createApp(coordinator: Coordinator, options: AppOptions): Koa {
  const app = new Koa({ proxy: true });
  const serverState = options.serverState ?? new ServerState();
  app.use(errorMiddleware);
  // A request line in absolute form (`DELETE http://host:port/v1/...`, sent by presto-client) is routed
  // by its path like any other.
  // Plain functions returning next(): no extra async frame per request.
  app.use((ctx, next) => {
    if (/^https?:\/\//i.test(ctx.url)) {
      const url = new URL(ctx.url);
      ctx.url = url.pathname + url.search;
    }
    return next();
  });
  app.use((ctx, next) => {
    if (serverState.state === 'SHUTTING_DOWN' && ctx.method === 'POST' && ctx.path === '/v1/statement') {
      ctx.status = 503;
      ctx.set('Content-Type', 'application/json');
      ctx.body = errorBody(503, 'SERVER_SHUTTING_DOWN', 'Server is shutting down');
      return;
    }
    return next();
  });
  const router = new Router();
  statementRoutes(router, coordinator);
  queryRoutes(router, coordinator);
  stageRoutes(router, coordinator);
  nodeRoutes(router, coordinator);
  infoRoutes(router, coordinator, serverState, options.nodeId);
  app.use(router.routes());
  app.use(router.allowedMethods({ throw: true }));
  // Errors are answered by errorMiddleware; keep Koa from printing user mistakes to stderr.
  app.silent = true;
  return app;
}
