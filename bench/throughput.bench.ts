// Figure b: short queries per second with N concurrent clients, each looping `SELECT 1` through the
// whole protocol; and the same loader against a bare Koa endpoint (GET / -> small JSON).
import { PrestoHttpClient, percentile, runLoad, type LoadResult } from './http-client.js';

export interface ThroughputFigures {
  operations: number;
  errors: number;
  firstError?: string;
  seconds: number;
  perSecond: number;
  /** HTTP requests per second (for queries: POST + GETs) */
  requestsPerSecond: number;
  p50: number;
  p99: number;
}

function figures(load: LoadResult, requests: number): ThroughputFigures {
  return {
    operations: load.operations,
    errors: load.errors,
    ...(load.firstError !== undefined ? { firstError: load.firstError } : {}),
    seconds: load.seconds,
    perSecond: load.operations / load.seconds,
    requestsPerSecond: requests / load.seconds,
    p50: percentile(load.latencies, 50),
    p99: percentile(load.latencies, 99),
  };
}

/** Called right before and after the measured load (after the warm-up), to read counters around it. */
export interface LoadHooks {
  started?(): void;
  ended?(): void;
}

/**
 * A server's steady state, as a long-running coordinator is in: V8 goes on optimizing the query path
 * (and the workers') for tens of seconds of queries. After 200 sequential queries the coordinator still
 * ran 100-180 TurboFan compilations every 2 s (--trace-opt), and SELECT 1's p50 through the cluster was
 * 2.46-2.51 ms against 2.00-2.01 ms after 15 s of load (coordinator CPU per query 1.9-2.0 ms against
 * 1.2-1.5 ms); at 16 clients 962-973 q/s against 1,036-1,044.
 */
export async function warmUp(url: string, clients: number, seconds: number): Promise<void> {
  const client = new PrestoHttpClient(url, clients);
  try {
    await runLoad(clients, seconds * 1000, Number.POSITIVE_INFINITY, () => client.query('SELECT 1'));
  } finally {
    client.close();
  }
}

/** `warmupSeconds`: load before the measured part (see warmUp); at least one second opens the sockets and JITs both sides. */
export async function queryThroughput(url: string, clients: number, seconds: number, maxQueries: number, hooks: LoadHooks = {}, warmupSeconds = 1): Promise<ThroughputFigures> {
  const client = new PrestoHttpClient(url, clients);
  try {
    await runLoad(clients, warmupSeconds * 1000, warmupSeconds > 1 ? Number.POSITIVE_INFINITY : clients * 20, () => client.query('SELECT 1'));
    let requests = 0;
    hooks.started?.();
    const load = await runLoad(clients, seconds * 1000, maxQueries, async () => {
      const outcome = await client.query('SELECT 1');
      requests += outcome.requests;
    });
    hooks.ended?.();
    return figures(load, requests);
  } finally {
    client.close();
  }
}

export async function plainGetThroughput(url: string, clients: number, seconds: number, maxRequests: number): Promise<ThroughputFigures> {
  const client = new PrestoHttpClient(url, clients);
  const get = async () => {
    const reply = await client.request('GET', '/');
    if (reply.status !== 200) throw new Error(`HTTP ${reply.status}`);
    JSON.parse(reply.body.toString('utf8'));
  };
  try {
    await runLoad(clients, 1000, clients * 50, get);
    const load = await runLoad(clients, seconds * 1000, maxRequests, get);
    return figures(load, load.operations);
  } finally {
    client.close();
  }
}
