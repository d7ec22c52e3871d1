// Koa middleware counting every request by route pattern, method and status, with its latency: the
// pattern the router matched ('/v1/statement/executing/:queryId/:slug/:token'), never the raw path, so
// ids and tokens never become label values. It runs first, so the status is the one the error
// middleware settled on. Latency is the time until the response is ready to send (not its transfer).
import type Router from '@koa/router';
import type { Context, Next } from 'koa';
import { Counter, type Registry } from 'prom-client';
import { TalliedHistogram, type HistogramTally } from './tallied-histogram.js';

/** Requests no route took (404, 405, or refused before routing, such as a 401). */
export const UNMATCHED_ROUTE = 'unmatched';

const METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH']);

/** Seconds: a SELECT 1 page takes about a millisecond, a long poll up to protocol.v1.max-wait. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** One route and method: its request count per status, and its latencies. */
interface RouteTally {
  labels: { route: string; method: string };
  byStatus: Map<number, number>;
  latency: HistogramTally;
}

export function httpMetrics(registry: Registry, router: Router): (ctx: Context, next: Next) => Promise<void> {
  // Requests and latencies are counted in a plain map and handed to prom-client when scraped: its
  // Counter.inc and Histogram.observe hash and validate the labels on every call.
  const tallies = new Map<string, Map<string, RouteTally>>();
  /** The same tallies in the order they were first seen, the order prom-client listed them in. */
  const inOrder: RouteTally[] = [];
  new Counter({
    name: 'vivace_http_requests_total',
    help: 'HTTP requests answered, by route pattern, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const { labels, byStatus } of inOrder) {
        for (const [status, count] of byStatus) this.inc({ ...labels, status: String(status) }, count);
      }
    },
  });
  const latency = new TalliedHistogram({
    name: 'vivace_http_request_duration_seconds',
    help: 'Time from a request to its response being ready, by route pattern and method',
    labelNames: ['route', 'method'],
    buckets: LATENCY_BUCKETS,
    registry,
  });
  const routeOf = (ctx: Context): string => {
    const matched = (ctx as { _matchedRoute?: string | RegExp })._matchedRoute;
    if (matched !== undefined) return String(matched);
    // Refused before routing (authentication, request target): the route it was meant for, if any.
    // ctx.path throws for a target that does not parse (answered 400 by requestTarget).
    try {
      const layer = router.match(ctx.path, ctx.method).pathAndMethod.find((l) => l.methods.length > 0); // a route, not a router.use()
      return layer ? String(layer.path) : UNMATCHED_ROUTE;
    } catch {
      return UNMATCHED_ROUTE;
    }
  };
  const record = (ctx: Context, started: number) => {
    const route = routeOf(ctx);
    const method = METHODS.has(ctx.method) ? ctx.method : 'OTHER';
    // By route, then method: no key string built per request.
    let byMethod = tallies.get(route);
    if (!byMethod) tallies.set(route, (byMethod = new Map()));
    let tally = byMethod.get(method);
    if (!tally) {
      const labels = { route, method };
      byMethod.set(method, (tally = { labels, byStatus: new Map(), latency: latency.tally(labels) }));
      inOrder.push(tally);
    }
    tally.byStatus.set(ctx.status, (tally.byStatus.get(ctx.status) ?? 0) + 1);
    tally.latency.observe((performance.now() - started) / 1000);
  };
  return (ctx, next) => {
    const started = performance.now();
    return next().then(
      () => record(ctx, started),
      (err: unknown) => {
        record(ctx, started);
        throw err;
      },
    );
  };
}
