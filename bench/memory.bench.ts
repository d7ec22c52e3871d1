// Figure d: resident memory of a fresh server child after N finished queries, minus its RSS at start
// (read from /proc/<pid>/status by this process, so the measure itself allocates nothing there).
import { startChild } from './children.js';
import { PrestoHttpClient, runLoad } from './http-client.js';

export interface MemoryFigures {
  queries: number;
  errors: number;
  rssStart: number;
  rssAfterWarmup: number;
  rssEnd: number;
  /** after a forced full GC in the server */
  rssEndAfterGc: number;
  rssStartAfterGc: number;
  heapUsedStart: number;
  heapUsedEnd: number;
  heapUsedEndAfterGc: number;
  /** V8's committed heap (heapTotal) after the forced GCs at start and end: the rest of RSS is native */
  heapTotalStartAfterGc: number;
  heapTotalEndAfterGc: number;
  seconds: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function heapUsed(client: PrestoHttpClient): Promise<number> {
  const reply = await client.request('GET', '/v1/status');
  return Number((JSON.parse(reply.body.toString('utf8')) as { heapUsed?: number }).heapUsed ?? NaN);
}

export async function memoryGrowth(queries: number, clients: number, maxSeconds: number, settleMs: number): Promise<MemoryFigures> {
  const server = await startChild('server-child.ts');
  const client = new PrestoHttpClient(server.url, clients);
  try {
    await sleep(settleMs);
    const rssStart = server.rss();
    const heapTotalStartAfterGc = (await server.gc()).heapTotal;
    const rssStartAfterGc = server.rss();
    const heapUsedStart = await heapUsed(client);
    await runLoad(clients, 30_000, 200, () => client.query('SELECT 1'));
    await sleep(settleMs);
    const rssAfterWarmup = server.rss();
    const load = await runLoad(clients, maxSeconds * 1000, queries, () => client.query('SELECT 1'));
    await sleep(settleMs);
    const rssEnd = server.rss();
    const heapUsedEnd = await heapUsed(client);
    const heapTotalEndAfterGc = (await server.gc()).heapTotal;
    await sleep(200);
    const rssEndAfterGc = server.rss();
    const heapUsedEndAfterGc = await heapUsed(client);
    return {
      queries: load.operations, errors: load.errors, rssStart, rssStartAfterGc, rssAfterWarmup, rssEnd, rssEndAfterGc,
      heapUsedStart, heapUsedEnd, heapUsedEndAfterGc, heapTotalStartAfterGc, heapTotalEndAfterGc, seconds: load.seconds,
    };
  } finally {
    client.close();
    await server.stop();
  }
}
