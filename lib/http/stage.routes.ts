// /v1/stage/{queryId}.{stageId}/{slug}: partial cancel (the client has all the rows it wants). The slug
// comes from the query's partialCancelUri, so only its client can cut its result short.
import Router from '@koa/router';
import type { Coordinator } from '../actors/coordinator.js';
import { VivaceError } from '../protocol/vivace-error.js';

export function stageRoutes(router: Router, coordinator: Coordinator): void {
  router.delete('/v1/stage/:stage/:slug', (ctx) => {
    const stage = String(ctx.params.stage);
    const dot = stage.lastIndexOf('.');
    const tracked = dot > 0 ? coordinator.lookup(stage.slice(0, dot)) : undefined;
    const stageId = stage.slice(dot + 1);
    if (!tracked?.slug.isStage(stageId, String(ctx.params.slug))) throw new VivaceError('NOT_FOUND', `Stage not found: ${stage}`, { httpStatus: 404 });
    tracked.ref?.send({ type: 'query.partialCancel', stageId });
    ctx.status = 204;
  });
}
