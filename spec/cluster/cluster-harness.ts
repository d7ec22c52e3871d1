// In-process cluster pieces for the coordinator-side specs: real workers (lib/worker's server over a real
// DuckDB engine, on 127.0.0.1 and a free port) and a RemoteEngine that sees them through a worker list
// the spec controls (alive or not), as discovery and the failure detector would report them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDuckDbEngine, type DuckDbEngine } from '../../lib/engine/duckdb-engine.js';
import { SystemTablesBinding } from '../../lib/connectors/system/system-tables.js';
import type { Engine, RowBatch } from '../../lib/engine/engine.types.js';
import { RemoteEngine, type RemoteEngineOptions, type WorkerNode } from '../../lib/cluster/remote-engine.js';
import type { Session } from '../../lib/protocol/types.js';
import { SystemSnapshots } from '../../lib/worker/system-snapshot.js';
import { startWorkerServer, type RunningWorker } from '../../lib/worker/worker-server.js';
import type { TaskRegistryOptions } from '../../lib/worker/task-registry.js';
import { batchText } from '../../lib/engine/row-batch.js';
import { connectorsOf, type Connectors } from '../../lib/connectors/connectors.js';
import type { ConnectorOptions } from '../../lib/connectors/connector.types.js';

export interface TestWorker {
  nodeId: string;
  url: string;
  memory: boolean;
  worker: RunningWorker;
  engine: DuckDbEngine;
  /** Every statement this worker planned, in order (to see where the coordinator sent what). */
  planned: string[];
  /** Stops answering at once: every open connection is cut, the port closes (as a killed process). */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

/** A directory of the spec's own, removed when it is done. */
export function temporaryDirectory(prefix: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** `tpchDirectory`: generated data shared between workers (generate it once, then start the others). */
/** `stages`: the worker runs fragment tasks too (over its tpch cache), as serve's workers do. */
export async function startTestWorker(nodeId: string, options: { memory?: boolean; sharedSecret?: string; tpchDirectory?: string; stages?: boolean; registry?: TaskRegistryOptions } = {}): Promise<TestWorker> {
  const dir = mkdtempSync(join(tmpdir(), 'vivace-cluster-spec-'));
  const snapshots = new SystemSnapshots();
  const system = new SystemTablesBinding();
  system.bind(snapshots);
  const engine = await createDuckDbEngine({ tempDirectory: dir, memoryLimit: '1GB', threads: 1, maxConnections: 4, tpch: { directory: options.tpchDirectory ?? join(dir, 'tpch'), log: () => {} }, system });
  const planned: string[] = [];
  const counting: Engine = {
    plan: (sql, s, abort) => {
      planned.push(sql);
      return engine.plan(sql, s, abort);
    },
    close: () => engine.close(),
  };
  const worker = await startWorkerServer({
    engine: counting, nodeId, environment: 'vivace', host: '127.0.0.1', port: 0, system: snapshots,
    maxBodyBytes: 4 << 20, maxQueryLength: 1_000_000, gracePeriodMs: 1_000,
    ...(options.sharedSecret === undefined ? {} : { sharedSecret: options.sharedSecret }),
    ...(options.registry === undefined ? {} : { registry: options.registry }),
    ...(options.stages ? { stages: { engine, connectors: connectorsOf([{ name: 'tpch', connector: 'tpch', directory: options.tpchDirectory ?? join(dir, 'tpch') }]), directory: join(dir, 'stages') } } : {}),
  });
  return testWorkerOf({ nodeId, memory: options.memory === true, worker, engine, planned, dir });
}

/** A started worker server as a TestWorker: kill cuts it off, stop also closes its engine and removes `dir`. */
export function testWorkerOf(parts: { nodeId: string; memory: boolean; worker: RunningWorker; engine: DuckDbEngine; planned: string[]; dir: string }): TestWorker {
  const { worker, engine, dir } = parts;
  let stopped = false;
  const kill = async () => {
    worker.server.closeAllConnections();
    await worker.close();
  };
  return {
    nodeId: parts.nodeId, url: worker.url, memory: parts.memory, worker, engine, planned: parts.planned, kill,
    async stop() {
      if (stopped) return;
      stopped = true;
      await kill();
      await engine.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A worker list the spec edits: nodes are alive unless marked dead. */
export class WorkerList {
  readonly dead = new Set<string>();
  constructor(public workers: TestWorker[]) {}
  list = (): WorkerNode[] => this.workers.map((w) => ({ nodeId: w.nodeId, uri: w.url, memory: w.memory, alive: !this.dead.has(w.nodeId) }));
}

/** The built-in set's connectors without the lake: tpch over `tpchDirectory` (its name `tpchName`), memory, system. */
export function builtInConnectors(tpchDirectory = join(tmpdir(), 'vivace-no-tpch'), options: ConnectorOptions = {}, tpchName = 'tpch'): Connectors {
  return connectorsOf([{ name: tpchName, connector: 'tpch', directory: tpchDirectory }, { name: 'memory', connector: 'memory' }, { name: 'system', connector: 'system' }], options);
}

export function remoteEngine(workers: WorkerList | (() => WorkerNode[]), options: Partial<RemoteEngineOptions> = {}): RemoteEngine {
  return new RemoteEngine({ workers: typeof workers === 'function' ? workers : workers.list, nodeId: () => 'coordinator-spec', connectors: builtInConnectors(), ...options });
}

export function session(overrides: Partial<Session> = {}): Session {
  return { prefix: 'X-Trino-', user: 'alice', catalog: 'memory', schema: 'default', clientTags: [], properties: {}, preparedStatements: {}, remoteUserAddress: '127.0.0.1', startTime: Date.now(), ...overrides };
}

export interface Result {
  columns: unknown[];
  updateType?: string;
  rows: unknown[][];
  batches: number;
  updateCount?: number;
}

/** Plans, executes and drains a statement the way the query actor does. */
export async function runOn(engine: Engine, sql: string, s: Session = session(), targetBytes = 1 << 20): Promise<Result> {
  const plan = await engine.plan(sql, s);
  const execution = plan.execute();
  const batches: RowBatch[] = [];
  for (;;) {
    const batch = await execution.next(targetBytes);
    if (batch) batches.push(batch);
    if (batch === null || execution.exhausted === true) break;
  }
  return {
    columns: plan.columns,
    ...(plan.updateType === undefined ? {} : { updateType: plan.updateType }),
    rows: batches.flatMap((b) => (b.rows === 0 ? [] : (JSON.parse(`[${batchText(b)}]`) as unknown[][]))),
    batches: batches.length,
    ...(execution.updateCount === undefined ? {} : { updateCount: execution.updateCount }),
  };
}
