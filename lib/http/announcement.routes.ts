// PUT/DELETE /v1/announcement/{nodeId}: airlift's dynamic announcement resource, how workers join
// (lib/cluster/discovery.ts keeps the entries). 202 on PUT, 204 on DELETE, as airlift answers.
import Router from '@koa/router';
import type { Context } from 'koa';
import type { Coordinator } from '../actors/coordinator.js';
import { verifyInternalBearer } from '../cluster/cluster-auth.js';
import { Discovery, discoveryOf } from '../cluster/discovery.js';
import { INTERNAL_BEARER_HEADER } from '../cluster/task-protocol.js';
import { readTextBody } from './raw-body.js';

/** An announcement is a few hundred bytes; anything far larger is not one. */
const MAX_ANNOUNCEMENT_BYTES = 64 * 1024;

/** The coordinator's discovery: the one a spec or main attached, else one on the real clock. */
export function coordinatorDiscovery(coordinator: Coordinator, selfNodeId?: string): Discovery {
  return discoveryOf(coordinator, () => {
    const secret = coordinator.config.internalSharedSecret;
    return new Discovery({
      nodes: coordinator,
      environment: coordinator.config.environment,
      ...(selfNodeId === undefined ? {} : { selfNodeId }),
      ...(secret ? { authorize: (bearer: string | undefined) => verifyInternalBearer(secret, bearer) } : {}),
    });
  });
}

const bearerOf = (ctx: Context): string | undefined => ctx.get(INTERNAL_BEARER_HEADER) || undefined;

export function announcementRoutes(router: Router, coordinator: Coordinator, selfNodeId?: string): void {
  const discovery = () => coordinatorDiscovery(coordinator, selfNodeId);
  router.put('/v1/announcement/:nodeId', async (ctx) => {
    const text = await readTextBody(ctx, MAX_ANNOUNCEMENT_BYTES);
    await discovery().announce(ctx.params.nodeId!, text, bearerOf(ctx));
    ctx.body = ''; // airlift answers 202 with no body (Koa would write "Accepted")
    ctx.status = 202;
  });
  router.delete('/v1/announcement/:nodeId', async (ctx) => {
    await discovery().remove(ctx.params.nodeId!, bearerOf(ctx));
    ctx.status = 204;
  });
}
