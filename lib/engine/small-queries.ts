// A second DuckDB instance with one thread, for the engine's small table-free queries (a `SELECT 1`).
// DuckDB's threads setting is the instance's (GLOBAL scope only, DuckDB 1.5), and with threads=2 every
// statement wakes its background thread: the statement's task is queued and the scheduler's semaphore
// signalled, the woken thread finds the task taken (or takes it, and the libuv thread that asked waits
// for it), spins and sleeps again. For a one-row query that hand-off was most of DuckDB's cost: a worker
// answering SELECT 1 tasks sequentially (one client) used 446-503 us of CPU per task with threads=2 and
// 365-372 us with threads=1, and answered twice as many (1,421 against 636 tasks/s), at load 10-12.
// So a plan that reads no table and returned one small chunk last time (CachedQueryPlan.small) runs here,
// where nothing else is to wake; anything reading a table keeps the main instance's threads.
// The instance is set up as the main one is (sandbox options, the same functions and connection macros,
// locked afterwards) but reaches no catalog's data: a table-free statement needs none, and its only
// directory is its own spill directory.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { ConnectionPool } from './connection-pool.js';
import { lockDownEngine, SANDBOX_INSTANCE_CONFIG } from './engine-sandbox.js';

export interface SmallQueryOptions {
  /** Its own spill directory is made below this one (two instances must not share one's files). */
  tempDirectory: string;
  memoryLimit?: string;
  /** Connections: small queries beyond them at once run on the main instance. */
  connections: number;
  /** Registers the engine's scalar functions (instance-wide), before any connection runs its set-up. */
  registerFunctions: (c: DuckDBConnection) => void;
  /** The set-up of every pooled connection (the main instance's macros). */
  setup: (c: DuckDBConnection) => Promise<void>;
}

/** A connection of the small-query instance, held until `release` (idempotent). */
export interface SmallQueryLease {
  connection: DuckDBConnection;
  release: () => void;
  held: () => boolean;
}

/** The spill directory's name under the engine's temp directory. */
export const SMALL_QUERIES_DIRECTORY = 'small-queries';

export class SmallQueries {
  /** Statements run here (EnginePlanStats.smallRuns). */
  runs = 0;

  private constructor(
    private readonly instance: DuckDBInstance,
    private readonly pool: ConnectionPool,
  ) {}

  static async open(options: SmallQueryOptions): Promise<SmallQueries> {
    const temp = join(options.tempDirectory, SMALL_QUERIES_DIRECTORY);
    mkdirSync(temp, { recursive: true });
    const config: Record<string, string> = { ...SANDBOX_INSTANCE_CONFIG, temp_directory: temp, threads: '1', enable_external_file_cache: 'false' };
    if (options.memoryLimit) config.memory_limit = options.memoryLimit;
    const instance = await DuckDBInstance.create(':memory:', config);
    try {
      const registrar = await instance.connect();
      try {
        options.registerFunctions(registrar);
        const pool = new ConnectionPool(instance, options.connections, options.setup);
        await pool.fill();
        // Nothing of the instance changes after this: no directory but its spill directory, no setting.
        await lockDownEngine(registrar, [temp]);
        return new SmallQueries(instance, pool);
      } finally {
        registrar.closeSync();
      }
    } catch (err) {
      instance.closeSync();
      throw err;
    }
  }

  /** An idle connection now, or undefined when every one is busy (the statement runs on the main instance). */
  tryAcquire(): SmallQueryLease | undefined {
    const connection = this.pool.tryAcquire();
    if (!connection) return undefined;
    let held = true;
    return {
      connection,
      release: () => {
        if (!held) return;
        held = false;
        this.pool.release(connection);
      },
      held: () => held,
    };
  }

  /** Interrupts what runs, waits until its connections are back; `beforeDisconnect` destroys their prepared statements. */
  async close(beforeDisconnect: (connections: readonly DuckDBConnection[]) => void): Promise<void> {
    await this.pool.close(beforeDisconnect);
    this.instance.closeSync();
  }
}
