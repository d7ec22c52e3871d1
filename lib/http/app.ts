// The Koa application: error middleware first, then one router per resource.
import { spooledRoutes } from './spooled.routes.js';
import Koa from 'koa';
import Router from '@koa/router';
import type { Coordinator } from '../actors/coordinator.js';
import { createAuthenticator, type Authenticator } from '../security/authenticator.js';
import { DefaultAccessControl, type AccessControl } from '../security/access-control.js';
import { allowedMethods, implementedMethods } from './allowed-methods.js';
import { announcementRoutes } from './announcement.routes.js';
import { authentication } from './authentication.js';
import { clusterRoutes } from './cluster.routes.js';
import { errorBody, errorMiddleware } from './error-middleware.js';
import type { EventLoopMonitor } from './event-loop-monitor.js';
import { infoRoutes, ServerState } from './info.routes.js';
import { defaultLogger, type Logger } from '../log/logger.js';
import { createCoordinatorMetrics, type CoordinatorMetrics } from '../metrics/coordinator-metrics.js';
import { httpMetrics } from '../metrics/http-metrics.js';
import { metricsRoutes } from './metrics.routes.js';
import { nodeRoutes } from './node.routes.js';
import { resourceGroupRoutes } from './resource-group.routes.js';
import { queryRoutes } from './query.routes.js';
import { requestTarget } from './request-target.js';
import { stageRoutes } from './stage.routes.js';
import { statementRoutes } from './statement.routes.js';
import { uiRoutes } from './ui.routes.js';
import { uiLoginRoutes } from './ui-login.routes.js';
import { uiQueryRoutes } from './ui-query.routes.js';
import { uiSession } from './ui-session.js';
import { UiFormAuthenticator } from '../security/ui-form-authenticator.js';
import { UiSessionTokens } from '../security/ui-session-token.js';

export interface AppOptions {
  nodeId: string;
  serverState?: ServerState;
  /** Event-loop figures for /v1/status (startServer always gives one). */
  eventLoop?: EventLoopMonitor;
  /** The authentication chain; by default the one the config describes (none when authentication is off). */
  authenticator?: Authenticator;
  /** Who may do what (lib/security/access-control.ts); Trino's default when absent. */
  accessControl?: AccessControl;
  /** The registry /metrics serves (startServer feeds it the queries' events); a fresh one when absent. */
  metrics?: CoordinatorMetrics;
  /** Where server errors are logged (default: the process's logger). */
  logger?: Logger;
}

export function createApp(coordinator: Coordinator, options: AppOptions): Koa {
  // X-Forwarded-* only from a proxy the operator says is there (http-server.process-forwarded, as Trino):
  // otherwise any client could point the URIs we send, and its recorded address, wherever it liked.
  const app = new Koa({ proxy: coordinator.config.processForwarded });
  const serverState = options.serverState ?? new ServerState();
  const router = new Router();
  const access = options.accessControl ?? new DefaultAccessControl();
  const config = coordinator.config;
  const authenticator = options.authenticator ?? createAuthenticator(config, { now: () => coordinator.now(), ...(options.logger ? { logger: options.logger } : {}) });
  // The web UI's sessions (Trino-UI-Token): its login form checks passwords with the same chain.
  const uiTokens = new UiSessionTokens({ sessionTimeoutMs: config.webUiSessionTimeoutMs, now: () => coordinator.now(), ...(config.webUiSharedSecret === undefined ? {} : { sharedSecret: config.webUiSharedSecret }) });
  statementRoutes(router, coordinator, access);
  spooledRoutes(router, coordinator);
  queryRoutes(router, coordinator, access);
  stageRoutes(router, coordinator);
  nodeRoutes(router, coordinator, access);
  resourceGroupRoutes(router, coordinator, access);
  infoRoutes(router, coordinator, serverState, options.nodeId, access, options.eventLoop);
  clusterRoutes(router, coordinator, serverState);
  announcementRoutes(router, coordinator, options.nodeId);
  const uiForm = new UiFormAuthenticator(config, authenticator);
  // Before uiRoutes: its /ui/:file would answer /ui/logout as a missing page.
  uiLoginRoutes(router, uiForm, uiTokens, config.processForwarded);
  uiQueryRoutes(router, coordinator, access);
  uiRoutes(router, coordinator);
  const metrics = options.metrics ?? createCoordinatorMetrics(coordinator);
  metricsRoutes(router, metrics, access);
  // Read by the error middleware (loggerOf): each server logs to its own logger.
  (app.context as { logger?: Logger }).logger = options.logger ?? defaultLogger();

  // Outermost: it sees the status the error middleware settles on.
  app.use(httpMetrics(metrics.registry, router));
  app.use(errorMiddleware);
  app.use(requestTarget(implementedMethods(router)));
  app.use(uiSession(uiTokens, uiForm, config.processForwarded));
  if (authenticator) app.use(authentication(authenticator, { processForwarded: coordinator.config.processForwarded, internalBearerChecked: coordinator.config.internalSharedSecret !== undefined }));
  // Plain functions returning next(): no extra async frame per request.
  app.use((ctx, next) => {
    if (serverState.state === 'SHUTTING_DOWN' && ctx.method === 'POST' && ctx.path === '/v1/statement') {
      ctx.status = 503;
      ctx.set('Content-Type', 'application/json');
      ctx.body = errorBody(503, 'SERVER_SHUTTING_DOWN', 'Server is shutting down');
      return;
    }
    return next();
  });
  app.use(allowedMethods(router));
  app.use(router.routes());
  // Errors are answered by errorMiddleware; keep Koa from printing user mistakes to stderr.
  app.silent = true;
  return app;
}
