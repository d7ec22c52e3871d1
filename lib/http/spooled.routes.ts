// The coordinator's /v1/spooled paths (protocol.spooling.retrieval-mode=COORDINATOR_PROXY): a client that
// cannot reach the workers downloads and acknowledges segments here, and the bytes stream through from the
// worker the sealed id names. Open without credentials, as Trino's SegmentResource: the id is the key.
// A segment of a worker that is gone (failed, or restarted since with an empty spool) answers 410 with the
// error's JSON, one that did not answer 502: a client can tell a lost segment from an acknowledged one.
import { Readable } from 'node:stream';
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { Coordinator } from '../actors/coordinator.js';
import { VivaceError } from '../protocol/vivace-error.js';
import { openSegmentId, spoolingKeyOf, type SegmentHandle } from '../spooling/segment-id.js';
import { SPOOLED_ACK_PREFIX, SPOOLED_DOWNLOAD_PREFIX } from '../spooling/spooled-paths.js';

const STATUS_PATH = '/v1/status';

const notFound = () => new VivaceError('NOT_FOUND', 'Segment not found or expired', { httpStatus: 404 });

const lost = (handle: SegmentHandle) =>
  new VivaceError('REMOTE_HOST_GONE', `Worker ${handle.nodeId}, which held this segment of query ${handle.queryId}, is gone: the segment is lost`, { httpStatus: 410 });

/** How long the worker may take to start answering a proxied download or ack. */
const WORKER_TIMEOUT_MS = 30_000;

export function spooledRoutes(router: Router, coordinator: Coordinator): void {
  const key = spoolingKeyOf(coordinator.config);
  const lostOn = (handle: SegmentHandle) => coordinator.spooledSegmentsLostOn(handle.queryId, handle.nodeId);
  /** The segment id's handle and its worker's URL for `prefix`: 404 for an id not sealed here or expired, 410 for a worker gone. */
  const workerUrl = (ctx: Context, prefix: string): { handle: SegmentHandle; url: string } => {
    const id = String((ctx.params as Record<string, string>).id ?? '');
    const handle = key && openSegmentId(key, id);
    if (!handle || handle.expiresAt <= Date.now()) throw notFound();
    const node = coordinator.nodes().find((n) => n.nodeId === handle.nodeId);
    // The failure detector pings `{node}/v1/status`: the node's base is what comes before.
    const ping = node?.failed ? undefined : node?.stats.uri;
    if (typeof ping !== 'string' || !ping.endsWith(STATUS_PATH)) throw node?.failed || lostOn(handle) ? lost(handle) : notFound();
    return { handle, url: `${ping.slice(0, -STATUS_PATH.length)}${prefix}${id}` };
  };
  const forward = async ({ handle, url }: { handle: SegmentHandle; url: string }): Promise<Response> => {
    let res: Response;
    try {
      res = await fetch(url, { signal: AbortSignal.timeout(WORKER_TIMEOUT_MS), headers: { 'Accept-Encoding': 'identity' } });
    } catch {
      throw new VivaceError('REMOTE_HOST_GONE', `Worker ${handle.nodeId}, which holds this segment, did not answer`, { httpStatus: 502 });
    }
    if (res.status === 200) return res;
    await res.body?.cancel();
    // Its worker answers for a new process, whose spool is empty, once the coordinator saw the old one go.
    throw lostOn(handle) ? lost(handle) : notFound();
  };

  router.get(`${SPOOLED_DOWNLOAD_PREFIX}:id`, async (ctx) => {
    const res = await forward(workerUrl(ctx, SPOOLED_DOWNLOAD_PREFIX));
    if (!res.body) throw notFound();
    ctx.set('Content-Type', 'application/octet-stream');
    const length = res.headers.get('content-length');
    if (length !== null) ctx.length = Number(length);
    ctx.body = Readable.fromWeb(res.body as import('node:stream/web').ReadableStream<Uint8Array>);
  });

  router.get(`${SPOOLED_ACK_PREFIX}:id`, async (ctx) => {
    const res = await forward(workerUrl(ctx, SPOOLED_ACK_PREFIX));
    await res.body?.cancel();
    ctx.type = 'application/json';
    ctx.body = '{}';
  });
}
