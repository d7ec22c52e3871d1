// What metrics and logs add to a request and to a query, measured in-process (not part of `make bench`):
//   npx tsx bench/metrics.bench.ts
// 1. the HTTP metrics middleware around a handler that does nothing, against a bare pass-through;
// 2. the end of a query: its counters and histogram, and its info log line (to a discarding destination);
// 3. how query events are seen: an inspector of the actor system against a snapshot subscriber, on a
//    trivial machine; then the tracker notifications per real SELECT 1 through HTTP.
import Router from '@koa/router';
import { createActor, setup } from 'xstate';
import type { Context } from 'koa';
import { Registry } from 'prom-client';
import { createCoordinator } from '../lib/actors/coordinator.js';
import type { QueryView } from '../lib/actors/query-view.js';
import { startServer } from '../lib/http/server.js';
import { createLogger } from '../lib/log/logger.js';
import { queryLog } from '../lib/log/query-log.js';
import { createCoordinatorMetrics } from '../lib/metrics/coordinator-metrics.js';
import { httpMetrics } from '../lib/metrics/http-metrics.js';
import { createTestEngine } from '../spec/support/duckdb.js';

const nsPerOp = async (n: number, op: () => unknown): Promise<number> => {
  for (let i = 0; i < n / 10; i++) await op(); // warm-up
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await op();
  return Number(process.hrtime.bigint() - start) / n;
};

async function middlewareCost(): Promise<void> {
  const router = new Router();
  router.get('/v1/statement/executing/:queryId/:slug/:token', () => undefined);
  const middleware = httpMetrics(new Registry(), router);
  const ctx = { method: 'GET', status: 200, path: '/v1/statement/executing/q/s/1', _matchedRoute: '/v1/statement/executing/:queryId/:slug/:token' } as unknown as Context;
  const next = () => Promise.resolve();
  const bare = (c: Context, n: () => Promise<void>) => n();
  const N = 300_000;
  const base = await nsPerOp(N, () => bare(ctx, next));
  const measured = await nsPerOp(N, () => middleware(ctx, next));
  console.log(`http middleware: ${measured.toFixed(0)} ns/request (bare pass-through ${base.toFixed(0)} ns): +${((measured - base) / 1000).toFixed(2)} µs`);
}

async function queryEndCost(): Promise<void> {
  const engine = await createTestEngine(1);
  const coordinator = createCoordinator({ engine });
  const metrics = createCoordinatorMetrics(coordinator);
  const log = queryLog(createLogger({ level: 'info', destination: { write: () => undefined } }));
  const view = {
    queryId: '20240101_000000_00000_aaaaa', state: 'FINISHED', session: { user: 'alice', source: 'cli' }, createTime: 0, endTime: 2, viewTime: 2,
    outputRows: 1, outputBytes: 20, sql: 'SELECT 1',
  } as unknown as QueryView;
  const N = 100_000;
  const counters = await nsPerOp(N, () => metrics.queries.ended!(view));
  const line = await nsPerOp(N, () => log.ended!(view));
  console.log(`query end: metrics ${(counters / 1000).toFixed(2)} µs, info log line ${(line / 1000).toFixed(2)} µs`);
  await coordinator.stop();
}

function observerCost(): void {
  const machine = setup({ types: { events: {} as { type: 'tick' } } }).createMachine({ initial: 'a', states: { a: { on: { tick: { actions: () => undefined } } } } });
  const perSend = (attach: (actor: ReturnType<typeof createActor<typeof machine>>) => void): number => {
    const actor = createActor(machine).start();
    attach(actor);
    for (let i = 0; i < 100_000; i++) actor.send({ type: 'tick' });
    const start = process.hrtime.bigint();
    for (let i = 0; i < 1_000_000; i++) actor.send({ type: 'tick' });
    actor.stop();
    return Number(process.hrtime.bigint() - start) / 1_000_000;
  };
  const bare = perSend(() => undefined);
  const subscribed = perSend((actor) => actor.subscribe(() => undefined));
  const inspected = perSend((actor) => actor.system.inspect(() => undefined));
  console.log(`an event sent: ${bare.toFixed(0)} ns bare, ${subscribed.toFixed(0)} ns with a snapshot subscriber, ${inspected.toFixed(0)} ns with a system inspector`);
}

async function trackerNotifications(): Promise<void> {
  const coordinator = createCoordinator({ engine: await createTestEngine(2) });
  const server = await startServer(coordinator, { host: '127.0.0.1', port: 0, logger: createLogger({ destination: { write: () => undefined } }) });
  let notifications = 0;
  const subscription = coordinator.tracker.subscribe(() => void notifications++);
  const N = 500;
  const times: number[] = [];
  for (let i = 0; i < N; i++) {
    const started = performance.now();
    let body = (await (await fetch(`${server.url}/v1/statement`, { method: 'POST', body: 'SELECT 1', headers: { 'X-Trino-User': 'bench' } })).json()) as { nextUri?: string };
    while (body.nextUri) body = (await (await fetch(body.nextUri)).json()) as { nextUri?: string };
    times.push(performance.now() - started);
  }
  subscription.unsubscribe();
  times.sort((a, b) => a - b);
  console.log(`tracker: ${(notifications / N).toFixed(1)} snapshot notifications per SELECT 1; SELECT 1 through fetch with metrics and logs on: p50 ${times[N >> 1]!.toFixed(2)} ms`);
  await server.close();
  await coordinator.stop();
}

await middlewareCost();
await queryEndCost();
observerCost();
await trackerNotifications();
