// /v1/node and /v1/node/failed: heartbeat health of every worker node, as `text/javascript` like upstream;
// also under /ui/api/node for the web UI's pages, whose session cookie is sent under /ui only.
import Router from '@koa/router';
import type { Coordinator } from '../actors/coordinator.js';
import type { AccessControl } from '../security/access-control.js';
import { sendJsonText } from './request-context.js';
import { requestUser } from './request-user.js';

/** Trino's node resource is management information: the system_information read right. */
export function nodeRoutes(router: Router, coordinator: Coordinator, access: AccessControl): void {
  router.get(['/v1/node', '/ui/api/node'], (ctx) => {
    access.checkCanReadSystemInformation(requestUser(ctx, access));
    sendJsonText(ctx, 200, JSON.stringify(coordinator.nodes().map((n) => n.stats)), 'text/javascript');
  });
  router.get(['/v1/node/failed', '/ui/api/node/failed'], (ctx) => {
    access.checkCanReadSystemInformation(requestUser(ctx, access));
    sendJsonText(ctx, 200, JSON.stringify(coordinator.nodes().filter((n) => n.failed).map((n) => n.stats)), 'text/javascript');
  });
}
