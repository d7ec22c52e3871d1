// A Vivace coordinator (DuckDB engine + HTTP server) for the benchmarks. Run as a forked child it
// reports its URL over IPC and exits cleanly on a 'stop' message (so --cpu-prof profiles get written);
// startVivace() is the same thing in the calling process (the in-process variant of figure a).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCoordinator } from '../lib/actors/coordinator.js';
import { defaultConfig, type CoordinatorConfig } from '../lib/config.js';
import { createDuckDbEngine } from '../lib/engine/duckdb-engine.js';
import { startServer } from '../lib/http/server.js';

export interface RunningVivace {
  readonly url: string;
  stop(): Promise<void>;
}

export async function startVivace(overrides: Partial<CoordinatorConfig> = {}): Promise<RunningVivace> {
  const tempDirectory = mkdtempSync(join(tmpdir(), 'vivace-bench-'));
  const config: CoordinatorConfig = { ...defaultConfig(), tempDirectory, ...overrides };
  const engine = await createDuckDbEngine({
    tempDirectory: config.tempDirectory,
    // tpch data from the user's cache (figure c streams tpch.sf1.lineitem), generated once.
    dataDirectory: config.dataDirectory,
    memoryLimit: config.engineMemoryLimit,
    threads: config.engineThreads,
    maxConnections: config.maxRunningQueries,
  });
  const coordinator = createCoordinator({ engine, config });
  const server = await startServer(coordinator, { host: '127.0.0.1', port: 0 });
  return {
    url: server.url,
    async stop() {
      await server.close();
      await coordinator.stop();
      rmSync(tempDirectory, { recursive: true, force: true });
    },
  };
}

/** Messages a server child sends its parent. */
export type ChildMessage =
  | { type: 'ready'; url: string; pid: number }
  | { type: 'error'; message: string }
  /** after the collection: V8's committed heap (heapTotal) and the rest of process.memoryUsage() */
  | { type: 'gc-done'; memory: NodeJS.MemoryUsage };

async function childMain(): Promise<void> {
  const running = await startVivace();
  process.on('message', (message: unknown) => {
    const type = (message as { type?: string } | null)?.type;
    if (type === 'gc') {
      // Started with --expose-gc by the bench: a full collection so RSS reflects live memory.
      const gc = (globalThis as { gc?: () => void }).gc;
      gc?.();
      gc?.();
      process.send!({ type: 'gc-done', memory: process.memoryUsage() } satisfies ChildMessage);
    }
    if (type === 'stop') running.stop().finally(() => process.exit(0));
  });
  // Orphaned (parent died): go away rather than linger.
  process.on('disconnect', () => void running.stop().finally(() => process.exit(0)));
  process.send!({ type: 'ready', url: running.url, pid: process.pid } satisfies ChildMessage);
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.send) {
  childMain().catch((err: unknown) => {
    process.send!({ type: 'error', message: err instanceof Error ? err.stack ?? err.message : String(err) } satisfies ChildMessage);
    process.exit(1);
  });
}
