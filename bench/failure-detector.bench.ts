// Figure g: the failure detector watching a simulated cluster of 1,000 worker nodes (issue 10 §5). A real
// coordinator (createCoordinator over a trivial engine, with its HTTP server) pings every node; the bench
// measures the coordinator's CPU share of one core over a steady window, its event-loop p99 delay, how long
// a node that stops answering takes to show as failed in nodes(), and GET /v1/node with every node listed.
//
// Variants, in this process one after the other:
//   idle  no nodes at all: the baseline CPU of the same coordinator and server
//   fake  pings through an in-process transport (the cost of the actors, timers and counters alone)
//   http  real HEAD pings to light status endpoints in a child process (bench/status-child.ts), a few
//         ports each serving many nodes by path (http://127.0.0.1:P/n{i}/v1/status)
//
// Standalone: npx tsx bench/failure-detector.bench.ts [nodes]   (BENCH_STATUS_PORTS=N: status ports, default 4)
import { fork } from 'node:child_process';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { createCoordinator, type Coordinator } from '../lib/actors/coordinator.js';
import { DecayCounter } from '../lib/cluster/decay-counter.js';
import { pingStatus, type PingTransport } from '../lib/cluster/heartbeat-ping.js';
import type { Engine } from '../lib/engine/engine.types.js';
import { startServer } from '../lib/http/server.js';
import { loaderArgs, siblingScript } from './sibling-script.js';
import type { StatusChildCommand, StatusChildReady } from './status-child.js';

export interface DetectorFigures {
  variant: 'idle' | 'fake' | 'http';
  nodes: number;
  /** Coordinator CPU (user + system) over the steady window, as a share of one core (0.25 = 25%). */
  cpuShare: number;
  /** Event-loop delay p99 over the steady window, ms. */
  loopP99Ms: number;
  /** Seconds from the first ping to every node ALIVE (5 s warm-up after the first success). */
  aliveAfterSeconds?: number;
  /** Pings answered per second over the steady window (every node twice a second: 2 x nodes). */
  pingsPerSecond?: number;
  /** Seconds from the failure of FAILED_NODES nodes to each of them failed in nodes(): [first, last]. */
  detectionSeconds?: [number, number];
  /**
   * What the decay math gives for nodes of that age (seconds watched before the failure), pinged on time from
   * the moment of the failure: the rest of `detectionSeconds` is the detector's lag (ping phase, up to one
   * interval, plus the 100 ms poll, plus any scheduling delay).
   */
  expectedSeconds?: number;
  /** The decay math for a node watched long enough for steady counters (10 minutes): ~6.3 s. */
  steadyExpectedSeconds?: number;
  /** http only: as detectionSeconds for other nodes that hang (every ping times out after 1 s). */
  hangDetectionSeconds?: [number, number];
  /** The 1 s ping timeout plus the decay math for the age of the hanging nodes. */
  hangExpectedSeconds?: number;
  /** GET /v1/node with every node listed: median and max ms over a few requests, and the body size. */
  nodeListMs?: { p50: number; max: number; bytes: number };
}

const FAILED_NODES = 10;
const STEADY_SECONDS = 5;
/** Ports serving the status endpoints; BENCH_STATUS_PORTS=1000 gives every node its own (and its own socket). */
const STATUS_SERVERS = Math.max(1, Math.min(2_000, Number(process.env.BENCH_STATUS_PORTS ?? '4') || 4));
/** Give up waiting for warm-up or detection after this long (the bench must end by itself). */
const WAIT_LIMIT_MS = 15_000;

/** Plans nothing: the detector bench runs no statements. */
const idleEngine: Engine = {
  plan: () => Promise.reject(new Error('the failure-detector bench runs no statements')),
  close: () => Promise.resolve(),
};

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Seconds of failed pings (one every 500 ms from the failure on) a node watched for `ageSeconds` with every
 * ping answered needs before its failure ratio exceeds 0.1: the detection time without any lag.
 */
export function expectedDetectionSeconds(ageSeconds: number): number {
  let clock = 0;
  const now = () => clock;
  const requests = new DecayCounter(1 / 60, now);
  const failures = new DecayCounter(1 / 60, now);
  for (; clock < ageSeconds * 1000; clock += 500) requests.add(1);
  const failedAt = clock;
  for (;;) {
    requests.add(1);
    failures.add(1);
    if (failures.count() / requests.count() > 0.1) return (clock - failedAt) / 1000;
    clock += 500;
  }
}

/** CPU share and loop p99 while the coordinator does nothing but watch its nodes. */
async function steadyWindow(seconds: number): Promise<{ cpuShare: number; loopP99Ms: number }> {
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const cpu = process.cpuUsage();
  const start = performance.now();
  await sleep(seconds * 1000);
  const used = process.cpuUsage(cpu);
  const wallUs = (performance.now() - start) * 1000;
  loop.disable();
  return { cpuShare: (used.user + used.system) / wallUs, loopP99Ms: loop.percentile(99) / 1e6 };
}

/** Poll nodes() every 100 ms until `done` holds for it; seconds waited, or undefined after the limit. */
async function waitFor(coordinator: Coordinator, done: (failed: Map<string, boolean>) => boolean): Promise<number | undefined> {
  const start = performance.now();
  while (performance.now() - start < WAIT_LIMIT_MS) {
    const failed = new Map(coordinator.nodes().map((n) => [n.nodeId, n.failed]));
    if (done(failed)) return (performance.now() - start) / 1000;
    await sleep(100);
  }
  return undefined;
}

/** Break `victims` and wait for each to be failed in nodes(); [first, last] seconds. Nobody else may fail. */
async function detect(coordinator: Coordinator, ids: string[], victims: number[], breakThem: () => void, variant: string): Promise<[number, number]> {
  const alreadyFailed = coordinator.nodes().filter((n) => n.failed).length;
  const seen = new Map<number, number>();
  const start = performance.now();
  breakThem();
  await waitFor(coordinator, (failed) => {
    for (const v of victims) if (!seen.has(v) && failed.get(ids[v]!) === true) seen.set(v, (performance.now() - start) / 1000);
    return seen.size === victims.length;
  });
  if (seen.size < victims.length) throw new Error(`${variant}: ${victims.length - seen.size} failed nodes not detected within ${WAIT_LIMIT_MS} ms`);
  const failedNow = coordinator.nodes().filter((n) => n.failed).length;
  if (failedNow !== alreadyFailed + victims.length) throw new Error(`${variant}: ${failedNow} nodes failed, expected ${alreadyFailed + victims.length}`);
  return [Math.min(...seen.values()), Math.max(...seen.values())];
}

interface Cluster {
  /** Node i's announced HTTP base. */
  uri(i: number): string;
  transport?: PingTransport;
  fail(nodes: number[]): void;
  /** Make these nodes stop answering without closing anything (only the http cluster can). */
  hang?(nodes: number[]): void;
  stop(): Promise<void>;
}

/** Pings answered or failed so far, counted around the cluster's transport. */
const pings = { count: 0 };

function counted(transport: PingTransport): PingTransport {
  return (uri, timeoutMs, signal) => {
    pings.count++;
    return transport(uri, timeoutMs, signal);
  };
}

function fakeCluster(): Cluster {
  const failed = new Set<string>();
  const refused = () => Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
  return {
    uri: (i) => `http://fake-node-${i}:8080`,
    transport: counted((uri) => (failed.has(uri) ? Promise.reject(refused()) : Promise.resolve(200))),
    fail(nodes) {
      for (const i of nodes) failed.add(`http://fake-node-${i}:8080/v1/status`);
    },
    stop: () => Promise.resolve(),
  };
}

async function httpCluster(): Promise<Cluster> {
  const child = fork(siblingScript('status-child.ts'), [String(STATUS_SERVERS)], { execArgv: [...loaderArgs], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const bases = await new Promise<string[]>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('status child did not start within 30 s')), 30_000);
    child.once('exit', (code) => reject(new Error(`status child exited early with code ${code}`)));
    child.once('message', (raw: unknown) => {
      clearTimeout(timer);
      resolve((raw as StatusChildReady).bases);
    });
  });
  return {
    uri: (i) => `${bases[i % bases.length]}/n${i}`,
    transport: counted(pingStatus),
    fail: (nodes) => child.send({ type: 'fail', nodes } satisfies StatusChildCommand),
    hang: (nodes) => child.send({ type: 'hang', nodes } satisfies StatusChildCommand),
    async stop() {
      if (child.connected) child.send({ type: 'stop' } satisfies StatusChildCommand);
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

async function nodeListTiming(url: string, requests: number): Promise<{ p50: number; max: number; bytes: number }> {
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < requests; i++) {
    const start = performance.now();
    const response = await fetch(`${url}/v1/node`, { headers: { 'X-Trino-User': 'bench' } });
    const body = await response.text();
    times.push(performance.now() - start);
    if (response.status !== 200) throw new Error(`GET /v1/node answered ${response.status}: ${body.slice(0, 200)}`);
    bytes = Buffer.byteLength(body);
  }
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(times.length / 2)]!, max: times.at(-1)!, bytes };
}

export async function detectorVariant(variant: DetectorFigures['variant'], nodes: number): Promise<DetectorFigures> {
  const cluster = variant === 'http' ? await httpCluster() : fakeCluster();
  const coordinator = createCoordinator({ engine: idleEngine, ...(cluster.transport ? { pingTransport: cluster.transport } : {}) });
  const announcedAt = performance.now();
  // The stall monitor runs (a real coordinator has it) but its warnings would drown the figures.
  const server = await startServer(coordinator, { host: '127.0.0.1', port: 0, stallThresholdMs: 60_000 });
  try {
    const ids = Array.from({ length: nodes }, (_, i) => `node-${i}`);
    // Spread over one heartbeat interval, as workers announcing on their own clocks are: all 1,000 in the same
    // millisecond would ping in lockstep, a burst of 1,000 requests every 500 ms.
    for (let batch = 0; batch < 50; batch++) {
      for (let i = batch; i < nodes; i += 50) coordinator.announceNode(ids[i]!, cluster.uri(i));
      await sleep(10);
    }
    const figures: DetectorFigures = { variant, nodes, cpuShare: 0, loopP99Ms: 0 };
    if (nodes > 0) {
      figures.aliveAfterSeconds = await waitFor(coordinator, (failed) => ids.every((id) => failed.get(id) === false));
      if (figures.aliveAfterSeconds === undefined) throw new Error(`${variant}: not every node ALIVE after ${WAIT_LIMIT_MS} ms`);
    }
    const pingsBefore = pings.count;
    Object.assign(figures, await steadyWindow(STEADY_SECONDS));
    if (nodes > 0) figures.pingsPerSecond = (pings.count - pingsBefore) / STEADY_SECONDS;
    if (nodes > 0) {
      figures.nodeListMs = await nodeListTiming(server.url, 20);
      // Spread over the cluster, the status servers and the ping phases (+ k: another announcement batch).
      const victims = Array.from({ length: Math.min(FAILED_NODES, nodes) }, (_, k) => (Math.floor((k * nodes) / FAILED_NODES) + k) % nodes);
      figures.expectedSeconds = expectedDetectionSeconds((performance.now() - announcedAt) / 1000);
      figures.steadyExpectedSeconds = expectedDetectionSeconds(600);
      figures.detectionSeconds = await detect(coordinator, ids, victims, () => cluster.fail(victims), variant);
      if (cluster.hang) {
        const hung = victims.map((v) => (v + 25) % nodes);
        figures.hangExpectedSeconds = 1 + expectedDetectionSeconds((performance.now() - announcedAt) / 1000);
        figures.hangDetectionSeconds = await detect(coordinator, ids, hung, () => cluster.hang!(hung), variant);
      }
    }
    return figures;
  } finally {
    await server.close();
    await coordinator.stop();
    await cluster.stop();
  }
}

/** Every variant, in order; `log` gets one line per variant as it ends. */
export async function runFailureDetectorBench(nodes: number, log: (line: string) => void): Promise<DetectorFigures[]> {
  const results: DetectorFigures[] = [];
  for (const [variant, count] of [['idle', 0], ['fake', nodes], ['http', nodes]] as const) {
    const figures = await detectorVariant(variant, count);
    log(describe(figures));
    results.push(figures);
  }
  return results;
}

export function describe(f: DetectorFigures): string {
  const parts = [`${f.variant} (${f.nodes} nodes): CPU ${(f.cpuShare * 100).toFixed(1)}% of a core, loop p99 ${f.loopP99Ms.toFixed(1)} ms`];
  if (f.aliveAfterSeconds !== undefined) parts.push(`all ALIVE after ${f.aliveAfterSeconds.toFixed(1)} s`);
  if (f.pingsPerSecond !== undefined) parts.push(`${Math.round(f.pingsPerSecond)} pings/s`);
  if (f.detectionSeconds) {
    parts.push(`failure detected after ${f.detectionSeconds[0].toFixed(2)}-${f.detectionSeconds[1].toFixed(2)} s`
      + ` (decay math for nodes this young: ${f.expectedSeconds?.toFixed(2)} s; after 10 minutes: ${f.steadyExpectedSeconds?.toFixed(2)} s)`);
  }
  if (f.hangDetectionSeconds) {
    parts.push(`hanging node detected after ${f.hangDetectionSeconds[0].toFixed(2)}-${f.hangDetectionSeconds[1].toFixed(2)} s (timeout + decay math: ${f.hangExpectedSeconds?.toFixed(2)} s)`);
  }
  if (f.nodeListMs) parts.push(`GET /v1/node p50 ${f.nodeListMs.p50.toFixed(1)} ms (max ${f.nodeListMs.max.toFixed(1)}, ${(f.nodeListMs.bytes / 1e6).toFixed(2)} MB)`);
  return parts.join('; ');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = performance.now();
  await runFailureDetectorBench(Number(process.argv[2] ?? '1000'), (line) => process.stdout.write(`${line}\n`));
  process.stdout.write(`(${((performance.now() - started) / 1000).toFixed(1)} s)\n`);
}
