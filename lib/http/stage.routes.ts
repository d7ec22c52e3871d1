// /v1/stage/{queryId}.{stageId}: partial cancel (the client has all the rows it wants).
import Router from '@koa/router';
import type { Coordinator } from '../actors/coordinator.js';
import { VivaceError } from '../protocol/vivace-error.js';

export function stageRoutes(router: Router, coordinator: Coordinator): void {
  router.delete('/v1/stage/:stage', (ctx) => {
    const stage = String(ctx.params.stage);
    const dot = stage.lastIndexOf('.');
    if (dot <= 0) throw new VivaceError('NOT_FOUND', `Invalid stage id: ${stage}`, { httpStatus: 404 });
    const tracked = coordinator.lookup(stage.slice(0, dot));
    tracked?.ref?.send({ type: 'query.partialCancel', stageId: stage.slice(dot + 1) });
    ctx.status = 204;
  });
}
