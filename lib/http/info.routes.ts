// /v1/info, /v1/info/state, /v1/info/coordinator, /v1/info/nodestats and /v1/status: who this node is
// (Vivace's version, from package.json) and whether it takes work.
import { availableParallelism } from 'node:os';
import { getHeapStatistics } from 'node:v8';
import Router from '@koa/router';
import bodyParser from 'koa-bodyparser';
import type { Coordinator } from '../actors/coordinator.js';
import { formatDuration } from '../protocol/duration.js';
import { VivaceError } from '../protocol/vivace-error.js';
import { vivaceVersion } from '../protocol/vivace-version.js';
import type { EventLoopMonitor } from './event-loop-monitor.js';
import { isLoopback } from './loopback.js';
import { requestUser } from './request-user.js';
import type { AccessControl } from '../security/access-control.js';
import { sendJsonText } from './request-context.js';

export type NodeState = 'ACTIVE' | 'SHUTTING_DOWN';

/**
 * Lifecycle of this server as /v1/info/state shows it; shutdown is one-way, as upstream. `onShutdown`
 * drains the running queries and then stops the process; `stopped` settles when it has.
 */
export class ServerState {
  state: NodeState = 'ACTIVE';
  private finished: Promise<void> | undefined;
  constructor(private readonly onShutdown: () => Promise<void> | void = () => {}) {}

  shutDown(): void {
    if (this.state === 'SHUTTING_DOWN') return;
    this.state = 'SHUTTING_DOWN';
    this.finished = Promise.resolve().then(this.onShutdown);
  }

  /** Settles once the shutdown has run its course (undefined while the server is active). */
  get stopped(): Promise<void> | undefined {
    return this.finished;
  }
}

export function infoRoutes(router: Router, coordinator: Coordinator, server: ServerState, nodeId: string, access: AccessControl, eventLoop?: EventLoopMonitor): void {
  const { config } = coordinator;
  const uptime = () => formatDuration(coordinator.now() - coordinator.startTime);
  const nodeVersion = { version: vivaceVersion() };

  router.get('/v1/info', (ctx) => {
    sendJsonText(
      ctx,
      200,
      JSON.stringify({
        nodeVersion,
        environment: config.environment,
        coordinator: true,
        // Trino's `starting`: true until the coordinator can take statements (its required workers active).
        starting: coordinator.cluster?.starting ?? false,
        uptime: uptime(),
        nodeId,
        state: server.state,
      }),
    );
  });

  // 200 with an empty body on a coordinator (a worker answers 404): load balancers probe it.
  router.get('/v1/info/coordinator', (ctx) => {
    ctx.status = 200;
    ctx.body = '';
  });

  router.get('/v1/info/state', (ctx) => sendJsonText(ctx, 200, JSON.stringify(server.state)));

  // prestodb's NodeStats (ServerInfoResource), which its coordinator reads from its nodes; a Java node
  // reports no load metrics, and neither does this one.
  router.get('/v1/info/nodestats', (ctx) => sendJsonText(ctx, 200, JSON.stringify({ nodeState: server.state, loadMetrics: null })));

  router.put('/v1/info/state', bodyParser({ enableTypes: ['json'], strict: false }), (ctx) => {
    // With rules, their system_information write right; without, only a local operator may stop the
    // server (Trino's default access control lets nobody).
    if (access.kind === 'file') access.checkCanWriteSystemInformation(requestUser(ctx, access));
    else if (!isLoopback(ctx.req.socket.remoteAddress)) {
      throw new VivaceError('PERMISSION_DENIED', 'Access Denied: Cannot write system information', { httpStatus: 403 });
    }
    const wanted = (ctx.request as unknown as { body: unknown }).body;
    if (wanted === 'SHUTTING_DOWN') server.shutDown();
    else if (wanted === 'ACTIVE' && server.state === 'ACTIVE') {
      // already active: nothing to do
    } else {
      throw new VivaceError('INVALID_ARGUMENTS', `Invalid state transition to ${JSON.stringify(wanted)} from ${server.state}`, { httpStatus: 400 });
    }
    sendJsonText(ctx, 200, JSON.stringify(server.state));
  });

  // Trino's NodeStatus (less memoryInfo and CPU loads), plus the event loop's delay and stalls.
  const status = () => {
    const heap = getHeapStatistics();
    const memory = process.memoryUsage();
    return {
      nodeId,
      nodeVersion,
      environment: config.environment,
      coordinator: true,
      uptime: uptime(),
      externalAddress: config.host,
      internalAddress: config.host,
      processors: availableParallelism(),
      heapUsed: heap.used_heap_size,
      heapAvailable: heap.heap_size_limit,
      nonHeapUsed: Math.max(0, memory.rss - heap.total_heap_size),
      ...(eventLoop ? { eventLoop: eventLoop.status() } : {}),
    };
  };
  router.head('/v1/status', (ctx) => {
    ctx.status = 200;
  });
  router.get('/v1/status', (ctx) => sendJsonText(ctx, 200, JSON.stringify(status())));
}
