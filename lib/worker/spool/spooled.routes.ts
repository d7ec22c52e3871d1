// A worker's spooled segments over HTTP, at Trino's paths: GET /v1/spooled/download/{id} (the bytes),
// GET /v1/spooled/ack/{id} (the client has them: they go; idempotent). Both are open, as Trino's: the sealed id is the
// whole protection (segment-id.ts), and anything it does not name answers 404 alike. DELETE
// /v1/spooled/queries/{queryId} (internal, with the bearer) drops a cancelled query's segments.
import { createReadStream } from 'node:fs';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { VivaceError } from '../../protocol/vivace-error.js';
import { sendBytePieces } from '../../http/byte-pieces.js';
import type { SegmentSpool } from './segment-spool.js';
import { SPOOLED_ACK_PREFIX, SPOOLED_DOWNLOAD_PREFIX } from '../../spooling/spooled-paths.js';


const READ_CHUNK_BYTES = 1 << 20;

const notFound = () => new VivaceError('NOT_FOUND', 'Segment not found or expired', { httpStatus: 404 });

const idOf = (ctx: Context): string => String((ctx.params as Record<string, string>).id ?? '');

export function spooledRoutes(router: Router, spool: SegmentSpool): void {
  router.get(`${SPOOLED_DOWNLOAD_PREFIX}:id`, async (ctx) => {
    const file = await spool.open(idOf(ctx));
    if (!file) throw notFound();
    if (file.memory) {
      // Held in memory (not acknowledged yet): the rendered buffers themselves, in one gathered write (a
      // stream of them would wait for a drain after each piece of the page).
      sendBytePieces(ctx, 200, 'application/octet-stream', file.memory);
      return;
    }
    // Large reads: a segment is megabytes, and each read costs a turn of the loop and a thread-pool trip.
    const stream = createReadStream(file.path, { highWaterMark: READ_CHUNK_BYTES });
    // Acknowledged (or swept) between the lookup and the read: the same 404.
    await new Promise<void>((resolve, reject) => {
      stream.once('open', () => resolve());
      stream.once('error', () => reject(notFound()));
    });
    ctx.set('Content-Type', 'application/octet-stream');
    ctx.length = file.bytes;
    ctx.body = stream;
  });

  router.get(`${SPOOLED_ACK_PREFIX}:id`, (ctx) => {
    if (!spool.acknowledge(idOf(ctx))) throw notFound();
    // A body: trino-python-client takes an empty 200 for a transient failure and sends the ack again.
    ctx.type = 'application/json';
    ctx.body = '{}';
  });

  router.delete('/v1/spooled/queries/:queryId', (ctx) => {
    spool.dropQuery(String((ctx.params as Record<string, string>).queryId ?? ''));
    ctx.status = 204;
  });
}
