// The web UI: its pages and assets (lib/ui) from an in-memory map of exact paths, and GET /ui/api/history,
// the chart's per-second activity. Pages read /ui/api/query and /ui/api/node (ui-query.routes.ts,
// node.routes.ts) as the logged-in user (ui-session.ts), so the visibility rules of /v1/query and
// /v1/node hold for what a page shows.
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { Coordinator } from '../actors/coordinator.js';
import { ClusterHistory } from '../metrics/cluster-history.js';
import { watchQueryEvents } from '../metrics/query-events.js';
import { VivaceError } from '../protocol/vivace-error.js';
import { uiAssets } from '../ui/ui-assets.js';
import { sendJsonText } from './request-context.js';

/**
 * Scripts and sheets from this origin only, no inline script or style, no plugins, no framing; the pages
 * fetch JSON from this origin only.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

function securityHeaders(ctx: Context): void {
  ctx.set('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Referrer-Policy', 'no-referrer');
}

async function serveAsset(ctx: Context): Promise<void> {
  const path = ctx.path;
  if (path === '/ui') {
    // The pages link their assets relatively: they must be loaded from /ui/.
    ctx.status = 302;
    ctx.set('Location', '/ui/');
    ctx.body = '';
    return;
  }
  let assets;
  try {
    assets = await uiAssets();
  } catch (err) {
    throw new VivaceError('SERVER_STARTING_UP', `The web UI is not available: ${(err as Error).message}`, { httpStatus: 503, cause: err });
  }
  const asset = assets.get(path);
  if (!asset) throw new VivaceError('NOT_FOUND', `Resource not found: ${ctx.method} ${path}`, { httpStatus: 404 });
  securityHeaders(ctx);
  ctx.set('Content-Type', asset.contentType);
  ctx.set('Cache-Control', asset.immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
  ctx.set('ETag', asset.etag);
  ctx.status = 200;
  if (ctx.fresh) {
    ctx.status = 304;
    return;
  }
  ctx.body = asset.body;
}

export function uiRoutes(router: Router, coordinator: Coordinator): void {
  const history = new ClusterHistory(() => coordinator.now());
  watchQueryEvents(coordinator, [history]);
  router.get('/ui/api/history', (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    sendJsonText(ctx, 200, JSON.stringify({ intervalSeconds: 1, samples: history.samples() }));
  });
  // Exact paths only (the map decides); /ui/ itself is matched by '/ui' as the router ignores a final slash.
  router.get(['/ui', '/ui/:file', '/ui/assets/:file'], serveAsset);
}
