// GET /metrics: the Prometheus exposition text. Management information, as Trino's /metrics (its
// OpenMetrics resource): behind authentication when it is on, and the system_information read right.
import type Router from '@koa/router';
import type { CoordinatorMetrics } from '../metrics/coordinator-metrics.js';
import type { AccessControl } from '../security/access-control.js';
import { sendJsonText } from './request-context.js';
import { requestUser } from './request-user.js';

export function metricsRoutes(router: Router, metrics: CoordinatorMetrics, access: AccessControl): void {
  router.get('/metrics', async (ctx) => {
    access.checkCanReadSystemInformation(requestUser(ctx, access));
    sendJsonText(ctx, 200, await metrics.text(), metrics.contentType);
  });
}
