// Starts a worker's HTTP server over an engine: the app, the task registry and its sweep, and the graceful
// shutdown PUT /v1/info/state "SHUTTING_DOWN" starts (stop taking tasks, let the running ones finish within
// the grace period, leave discovery, stop). The engine stays the caller's: it closes it once `onStopped` runs.
import type { Connectors } from '../connectors/connectors.js';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Engine } from '../engine/engine.types.js';
import { TaskRegistry, type TaskRegistryOptions } from './task-registry.js';
import { ServerState as WorkerState } from '../http/info.routes.js';
import { createWorkerApp } from './worker-app.js';
import type { SystemSnapshots } from './system-snapshot.js';
import type { CatalogSync } from '../connectors/dynamic-catalogs.js';
import { StageTasks } from './stage-tasks.js';
import type { TaskMemory } from './task-memory.js';
import { SegmentSpool, type SegmentSpoolOptions } from './spool/segment-spool.js';
import { TaskSpooling, type InliningPolicy } from './spool/task-spooling.js';
import type { FragmentTarget, StageEngine } from './stage-runner.js';

export interface WorkerServerOptions {
  engine: Engine;
  nodeId: string;
  environment: string;
  host: string;
  /** 0: any free port. */
  port: number;
  /** internal-communication.shared-secret: task endpoints require the bearer when set. */
  sharedSecret?: string;
  maxBodyBytes: number;
  maxQueryLength: number;
  /** shutdown.grace-period: how long running tasks may take to finish once shutdown starts. */
  gracePeriodMs: number;
  registry?: TaskRegistryOptions;
  /** How often finished and abandoned tasks are swept (default 1 s). */
  sweepIntervalMs?: number;
  system?: SystemSnapshots;
  /** catalog.management=dynamic: brings the engine's catalogs to a task's set (task.routes.ts). */
  syncCatalogs?: (sync: CatalogSync) => Promise<void>;
  /** Waits `ms` (the grace period); specs pass one they control. Settles early when `signal` aborts. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Called during a graceful shutdown once tasks are done, before the server stops (leave discovery). */
  leaveDiscovery?: () => Promise<void>;
  /** Called when a graceful shutdown has stopped the server (the command closes the engine and exits). */
  onStopped?: () => void;
  now?: () => number;
  /** Spooling protocol: the worker's spool (its directory, key, cap, TTL) and inlining limits; absent: rows always go through the coordinator. */
  spooling?: Omit<SegmentSpoolOptions, 'nodeId' | 'now'> & InliningPolicy;
  /** Stage tasks (task-protocol.ts): the node's connectors (a leaf's splits) and where their files go (inside the engine's sandbox); absent: refused. */
  stages?: { engine: StageEngine; connectors: Connectors; directory: string; compression?: FragmentTarget['compression']; taskMemory?: TaskMemory };
}

export interface RunningWorker {
  readonly url: string;
  readonly nodeId: string;
  readonly port: number;
  readonly state: WorkerState;
  readonly registry: TaskRegistry;
  /** The spool of spooled segments, when spooling is on. */
  readonly spool?: SegmentSpool;
  readonly server: Server;
  /** Cancels every task and stops listening (not graceful; the engine stays open). Idempotent. */
  close(): Promise<void>;
}

const realSleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });

export async function startWorkerServer(options: WorkerServerOptions): Promise<RunningWorker> {
  const now = options.now ?? Date.now;
  const stages = options.stages && new StageTasks({
    ...options.stages,
    nodeId: options.nodeId,
    ...(options.sharedSecret === undefined ? {} : { sharedSecret: options.sharedSecret }),
  });
  const spool = options.spooling && new SegmentSpool({ ...options.spooling, nodeId: options.nodeId, now });
  const spooling = spool && new TaskSpooling(spool, options.spooling!);
  const registry = new TaskRegistry(options.engine, { now, ...options.registry, ...(stages ? { stages } : {}) });
  const sleep = options.sleep ?? realSleep;
  const state = new WorkerState(async () => {
    // Running tasks finish, or the grace period ends, whichever comes first.
    const grace = new AbortController();
    await Promise.race([registry.whenIdle(), sleep(options.gracePeriodMs, grace.signal)]);
    grace.abort();
    await options.leaveDiscovery?.().catch(() => {});
    await close();
    options.onStopped?.();
  });
  const app = createWorkerApp({
    identity: { nodeId: options.nodeId, environment: options.environment, host: options.host, startTime: now(), now, ...(options.sharedSecret === undefined ? {} : { sharedSecret: options.sharedSecret }) },
    registry,
    state,
    maxBodyBytes: options.maxBodyBytes,
    maxQueryLength: options.maxQueryLength,
    ...(options.system ? { system: options.system } : {}),
    ...(options.syncCatalogs ? { syncCatalogs: options.syncCatalogs } : {}),
    ...(spool && spooling ? { spool, spooling } : {}),
  });
  const server = createServer(app.callback());
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const sweep = setInterval(() => {
    registry.sweep();
    spool?.sweep();
  }, options.sweepIntervalMs ?? 1000);
  sweep.unref();
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= new Promise<void>((resolve) => {
      clearInterval(sweep);
      registry.cancelAll();
      stages?.close();
      spool?.close();
      server.close(() => resolve());
      server.closeIdleConnections();
      // Requests still being answered end with their answer; a connection left open past that is cut.
      setTimeout(() => server.closeAllConnections(), 1000).unref();
    });
    return closing;
  };
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return { url: `http://${host}:${port}`, nodeId: options.nodeId, port, state, registry, server, close, ...(spool ? { spool } : {}) };
}
