// A worker's /v1/status, /v1/info, /v1/info/coordinator and /v1/info/state: who this node is and whether
// it takes tasks. Open to everyone (the failure detector pings /v1/status), except changing the state:
// that takes the internal bearer or a request from this machine (the local supervisor).
import { availableParallelism } from 'node:os';
import { getHeapStatistics } from 'node:v8';
import type Router from '@koa/router';
import bodyParser from 'koa-bodyparser';
import { formatDuration } from '../protocol/duration.js';
import { VivaceError } from '../protocol/vivace-error.js';
import { vivaceVersion } from '../protocol/vivace-version.js';
import { isLoopback } from '../http/loopback.js';
import { INTERNAL_BEARER_HEADER } from '../cluster/task-protocol.js';
import { verifyInternalBearer } from '../cluster/cluster-auth.js';
import type { TaskRegistry } from './task-registry.js';
import type { ServerState as WorkerState } from '../http/info.routes.js';

export interface WorkerIdentity {
  nodeId: string;
  environment: string;
  /** The address the worker announces (NodeStatus externalAddress/internalAddress). */
  host: string;
  startTime: number;
  now: () => number;
  sharedSecret?: string;
}

const json = (ctx: { set(k: string, v: string): void; status: number; body: unknown }, status: number, body: unknown) => {
  ctx.set('Content-Type', 'application/json');
  ctx.status = status;
  ctx.body = JSON.stringify(body);
};

export function statusRoutes(router: Router, who: WorkerIdentity, state: WorkerState, registry: TaskRegistry): void {
  const nodeVersion = { version: vivaceVersion() };
  const uptime = () => formatDuration(who.now() - who.startTime);

  router.head('/v1/status', (ctx) => {
    ctx.status = 200;
    // A stated length lets the coordinator's pings reuse one connection: Node's client closes after a HEAD
    // answer that gives neither length nor chunking (nodejs/node#28438), a new TCP connection per ping.
    ctx.length = 0;
  });
  router.get('/v1/status', (ctx) => {
    const heap = getHeapStatistics();
    const memory = process.memoryUsage();
    json(ctx, 200, {
      nodeId: who.nodeId,
      nodeVersion,
      environment: who.environment,
      coordinator: false,
      uptime: uptime(),
      externalAddress: who.host,
      internalAddress: who.host,
      processors: availableParallelism(),
      heapUsed: heap.used_heap_size,
      heapAvailable: heap.heap_size_limit,
      nonHeapUsed: Math.max(0, memory.rss - heap.total_heap_size),
      state: state.state,
      tasks: { active: registry.activeCount, finished: registry.finishedCount },
    });
  });
  router.get('/v1/info', (ctx) => {
    json(ctx, 200, { nodeVersion, environment: who.environment, coordinator: false, starting: false, uptime: uptime(), nodeId: who.nodeId, state: state.state });
  });
  // A worker is not the coordinator: load balancers probing this path must look elsewhere.
  router.get('/v1/info/coordinator', (ctx) => {
    ctx.status = 404;
    ctx.body = '';
  });
  router.get('/v1/info/state', (ctx) => json(ctx, 200, state.state));
  router.put('/v1/info/state', bodyParser({ enableTypes: ['json'], strict: false, jsonLimit: '1kb' }), async (ctx) => {
    const bearer = ctx.get(INTERNAL_BEARER_HEADER);
    if (!isLoopback(ctx.req.socket.remoteAddress)) {
      if (who.sharedSecret === undefined) throw new VivaceError('PERMISSION_DENIED', 'Access Denied: Cannot write system information', { httpStatus: 403 });
      await verifyInternalBearer(who.sharedSecret, bearer === '' ? undefined : bearer);
    }
    const wanted = (ctx.request as unknown as { body: unknown }).body;
    if (wanted === 'SHUTTING_DOWN') state.shutDown();
    else if (!(wanted === 'ACTIVE' && state.state === 'ACTIVE')) {
      throw new VivaceError('INVALID_ARGUMENTS', `Invalid state transition to ${JSON.stringify(wanted)} from ${state.state}`, { httpStatus: 400 });
    }
    json(ctx, 200, state.state);
  });
}
