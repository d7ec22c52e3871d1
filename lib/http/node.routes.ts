// /v1/node and /v1/node/failed: heartbeat health of every worker node, as `text/javascript` like upstream.
import Router from '@koa/router';
import type { Coordinator } from '../actors/coordinator.js';
import { sendJsonText } from './request-context.js';

export function nodeRoutes(router: Router, coordinator: Coordinator): void {
  router.get('/v1/node', (ctx) => sendJsonText(ctx, 200, JSON.stringify(coordinator.nodes().map((n) => n.stats)), 'text/javascript'));
  router.get('/v1/node/failed', (ctx) =>
    sendJsonText(ctx, 200, JSON.stringify(coordinator.nodes().filter((n) => n.failed).map((n) => n.stats)), 'text/javascript'),
  );
}
