// Sends a body given as pieces of bytes (a result page as the engine or a worker's socket delivered it)
// without joining them: one corked write of every piece, so the pieces leave in one writev and no
// page-sized buffer is allocated and copied for the response (each one also pushed V8 towards a full GC).
import type { Context } from 'koa';

export function sendBytePieces(ctx: Context, status: number, contentType: string, pieces: readonly Buffer[]): void {
  let length = 0;
  for (const piece of pieces) length += piece.length;
  // Headers through Koa, then the body straight to the response: Koa's respond() takes one body only.
  ctx.set('Content-Type', contentType);
  ctx.status = status;
  ctx.length = length;
  ctx.respond = false;
  const res = ctx.res;
  res.cork();
  for (const piece of pieces) res.write(piece);
  res.end();
  res.uncork();
}
