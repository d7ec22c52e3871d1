// A stage task's memory limit and its peak (issue 22 §3: `query.max-memory-per-node` is DuckDB's limit for
// that task, and /v1/query/{id} reports each task's peak). DuckDB bounds memory per instance only (its
// buffer manager's memory_limit), so a task under a limit of its own runs its SQL on a DuckDB instance of
// its own: a task engine, taken from a pool for the task's life and given back when it ends, whose
// memory_limit is the task's. Nothing else runs there, so the instance's buffer memory is the task's.
//
// What DuckDB counts (its buffer manager, `duckdb_memory()`'s tags): the blocks of hash tables, aggregate
// states, sorts, collections of rows (COLUMN_DATA), Parquet reads and writes, and allocations made through
// the buffer manager's allocator (ALLOCATOR); past the limit it evicts unpinned blocks, spills temporary
// ones to its temp directory, or fails with "Out of Memory" (EXCEEDED_LOCAL_MEMORY_LIMIT). What it does not
// count (DuckDB's docs, "Limits": the limit "only applies to the buffer manager"): memory its operators take
// from the system allocator outside the buffer manager, and everything Node holds: the rendered pages of a
// root task, and the bodies of the exchange files a task pulls from other workers (stage-tasks.ts).
//
// A task engine has the tpch data (DuckDB's database `tpch`), the worker's lake catalogs of its
// configuration files and, in a dynamic cluster, the catalogs of the task's catalog set (CREATE CATALOG's,
// opened before the task plans there), but no memory catalog (memory queries are never staged).
//
// The peak: the largest `duckdb_memory()` total sampled on the task's instance while it ran (every
// SAMPLE_MS, and once as it starts and ends), on a bare connection of the engine's (DuckDbEngine.memoryInUse). DuckDB's profile metric SYSTEM_PEAK_BUFFER_MEMORY is not used:
// it is kept per connection and never reset (a task engine's connection serves one task after another),
// and it reads the counter without DuckDB's per-thread caches at each operator call, while reservations
// are still being evicted for: measured on 1.5.6, a join under a 100MB limit reported 181.1 MB there while
// `duckdb_memory()` sampled every 5 ms never passed 100.1 MB. A sample can miss a peak between two samples.
//
// DuckDB checks its limit against that uncached counter, whose drift from the flushed one DuckDB bounds at
// 2 MiB (64 per-thread caches of 32 KiB, buffer_pool.hpp MEMORY_USAGE_CACHE_COUNT/THRESHOLD): the task's
// instance gets the task's limit less that drift, so the flushed figure reported stays within the task's.
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { VivaceError } from '../protocol/vivace-error.js';
import { createDuckDbEngine } from '../engine/duckdb-engine.js';
import type { Execution, ExecutionProgress, Plan, PlanAbort, RowBatch } from '../engine/engine.types.js';
import type { Session } from '../protocol/types.js';
import type { StageEngine } from './stage-runner.js';
import type { HiveCatalogConfig } from '../connectors/catalog.types.js';
import type { CatalogSync } from '../connectors/dynamic-catalogs.js';

/** DuckDB's bound on its memory counter's drift (64 caches of 32 KiB each, buffer_pool.hpp). */
export const DUCKDB_COUNTER_DRIFT_BYTES = 64 * (32 << 10);
/** How often a running task's instance is sampled (each sample is one small statement on it). */
export const SAMPLE_MS = 10;
/**
 * Idle task engines a worker keeps. Each costs ~150 ms of CPU to make (its macros on its one pooled
 * connection, the tpch views; ~280 ms with a second pooled connection for the sampler, before) and ~8 MB of
 * memory idle (8 made in a row at sf1's cache, then: 295-356 ms each, RSS 170 -> 228 MB).
 * A worker of a 2-worker cluster runs 5 or more stage tasks of one query at once (Q21 and Q9 at sf1): with
 * 4 kept, every such query made the ones past 4 again. The pool never grows past the most tasks that ran at
 * once, so this bounds what a burst leaves behind.
 */
export const MAX_IDLE_TASK_ENGINES = 16;

/** A task engine: a DuckDB engine of its own, its memory_limit the task's. */
export interface TaskEngine extends StageEngine {
  /** Brings its hive catalogs to a dynamic cluster's set (DuckDbEngine.syncCatalogs). */
  syncCatalogs(sync: CatalogSync): Promise<void>;
  /** The buffer memory its instance holds now (DuckDbEngine.memoryInUse). */
  memoryInUse(): Promise<number>;
  close(): Promise<void>;
}

/** The statement a task engine is readied for (forTask). */
export interface TaskStatement {
  sql: string;
  session: Session;
  /** catalog.management=dynamic: the task's catalog set (TaskPlanRequest.catalogs). */
  catalogs?: CatalogSync;
  abort?: PlanAbort;
}

export interface TaskMemoryOptions {
  /** query.max-memory-per-node: each stage task's limit. */
  limitBytes: number;
  /** Creates a task engine whose DuckDB memory_limit is `memoryLimit` (a data size DuckDB reads). */
  create: (memoryLimit: string) => Promise<TaskEngine>;
  sampleMs?: number;
}

/** The DuckDB memory_limit of a task's instance: the task's limit less DuckDB's counter drift. */
export function instanceLimitOf(limitBytes: number): string {
  if (limitBytes <= DUCKDB_COUNTER_DRIFT_BYTES) {
    throw new VivaceError('CONFIGURATION_INVALID', `query.max-memory-per-node must be more than ${DUCKDB_COUNTER_DRIFT_BYTES}B (DuckDB's memory counter may drift that far): ${limitBytes}B`);
  }
  return `${limitBytes - DUCKDB_COUNTER_DRIFT_BYTES}B`;
}

/** Each stage task's engine and peak, under query.max-memory-per-node. */
export class TaskMemory {
  private readonly idle: TaskEngine[] = [];
  private readonly busy = new Set<TaskEngine>();
  private closed = false;
  readonly instanceLimit: string;

  constructor(private readonly options: TaskMemoryOptions) {
    this.instanceLimit = instanceLimitOf(options.limitBytes);
  }

  get limitBytes(): number {
    return this.options.limitBytes;
  }

  /** Engines made so far and not closed (specs). */
  get engines(): number {
    return this.idle.length + this.busy.size;
  }

  private async acquire(): Promise<TaskEngine> {
    if (this.closed) throw new VivaceError('SERVER_SHUTTING_DOWN', 'The worker is stopping');
    const engine = this.idle.pop() ?? await this.options.create(this.instanceLimit);
    this.busy.add(engine);
    return engine;
  }

  private giveBack(engine: TaskEngine): void {
    if (!this.busy.delete(engine)) return;
    if (this.closed || this.idle.length >= MAX_IDLE_TASK_ENGINES) void engine.close().catch(() => {});
    else this.idle.push(engine);
  }

  /**
   * A task's engine: `worker` plans the user's statement (no rows run there), a task engine of its own runs
   * the task's SQL. `done` wraps the task's plan: its execution reports the sampled peak, and the task
   * engine goes back when the execution ends, fails or is cancelled, or the plan is released unexecuted.
   *
   * `statement`: what the task engine is brought up to before the task plans there, once: a dynamic
   * cluster's catalog set (CREATE CATALOG's catalogs made after the worker started), and the user's statement
   * planned on it for what planning brings (the views of the statement's tpch schema, generated maybe after
   * this pooled instance was made; the mirror of a lake table the statement reads by name, written to since).
   * A statement the task engine cannot plan (a memory table) fails later only if a fragment reads it there.
   */
  async forTask(worker: StageEngine, statement?: TaskStatement): Promise<{ engine: StageEngine; done: (plan: Plan) => Plan; fail: () => void }> {
    const own = await this.acquire();
    if (statement) {
      try {
        if (statement.catalogs) await own.syncCatalogs(statement.catalogs);
        await own.plan(statement.sql, statement.session, statement.abort).then((p) => p.release(), () => {});
      } catch (err) {
        this.giveBack(own);
        throw err;
      }
    }
    let given = false;
    const giveBack = () => {
      if (given) return;
      given = true;
      this.giveBack(own);
    };
    const engine: StageEngine = {
      // The user's statement as a user's (access rules, the statement's columns): the worker's alone.
      plan: (sql, session, abort) => worker.plan(sql, session, abort),
      close: async () => {},
      planOwnSql: (sql, session, abort) => own.planOwnSql(sql, session, abort),
      readsGuarded: (user, table) => worker.readsGuarded(user, table),
      ...(worker.parquetFooter ? { parquetFooter: (path: string) => worker.parquetFooter!(path) } : {}),
    };
    const sampleMs = this.options.sampleMs ?? SAMPLE_MS;
    const done = (plan: Plan): Plan => {
      let executed = false;
      return {
        ...plan,
        execute: () => {
          executed = true;
          return new SampledExecution(plan.execute(), own, sampleMs, giveBack);
        },
        release: () => {
          plan.release();
          if (!executed) giveBack();
        },
      };
    };
    return { engine, done, fail: giveBack };
  }

  /** Closes every task engine (the worker stops); one still running closes when its task gives it back. */
  async close(): Promise<void> {
    this.closed = true;
    const idle = this.idle.splice(0);
    await Promise.all(idle.map((e) => e.close().catch(() => {})));
  }
}

/** A task's execution on its engine, sampling the engine's buffer memory while it runs. */
class SampledExecution implements Execution {
  private peak = 0;
  private timer?: NodeJS.Timeout;
  private sampling?: Promise<void>;
  private ended = false;

  constructor(private readonly running: Execution, private readonly engine: TaskEngine, sampleMs: number, private readonly onEnd: () => void) {
    this.timer = setInterval(() => this.sample(), sampleMs);
    this.timer.unref();
  }

  get exhausted(): boolean | undefined {
    return this.running.exhausted;
  }

  get updateCount(): number | undefined {
    return this.running.updateCount;
  }

  /** One sample, unless one is still running (a busy instance answers late). */
  private sample(): void {
    if (this.sampling || this.ended) return;
    this.sampling = this.engine.memoryInUse()
      .then((bytes) => { this.peak = Math.max(this.peak, bytes); }, () => {})
      .finally(() => { this.sampling = undefined; });
  }

  private async end(): Promise<void> {
    if (this.ended) return;
    clearInterval(this.timer);
    await this.sampling;
    // The last look, before the task engine goes back: what the statement still holds at its end.
    this.sampling = this.engine.memoryInUse().then((bytes) => { this.peak = Math.max(this.peak, bytes); }, () => {});
    await this.sampling;
    this.sampling = undefined;
    this.ended = true;
    this.onEnd();
  }

  async next(targetBytes: number): Promise<RowBatch | null> {
    let batch: RowBatch | null;
    try {
      const next = this.running.next(targetBytes);
      // A look as the statement gets going (a leaf's whole COPY runs in its first call).
      this.sample();
      batch = await next;
    } catch (err) {
      await this.end();
      throw err;
    }
    // A root's last page comes with `exhausted` set: nothing calls next() after it (worker-task.ts).
    if (batch === null || this.running.exhausted === true) await this.end();
    return batch;
  }

  cancel(): void {
    this.running.cancel();
    clearInterval(this.timer);
    void this.end();
  }

  progress(): ExecutionProgress {
    const progress = this.running.progress();
    // The task's own peak (its instance's), in place of DuckDB's profile figure.
    return { ...progress, peakMemoryBytes: this.peak };
  }
}

/** Task engines made in this process: each spills into a directory of its own. */
let made = 0;

/**
 * The TaskMemory of a worker with query.max-memory-per-node set (undefined without: its tasks share the
 * worker's instance, as before). A task engine is a DuckDB engine with no catalog of its own: it reads the
 * task's splits and exchange files by path, so its sandbox allows `directories` (the worker's temp
 * directory, which holds the stage files, the tpch directory, the lake roots); it spills under
 * `<tempDirectory>/tasks/e<n>`.
 */
export function taskMemoryOf(options: { limitBytes?: number; tempDirectory: string; threads?: number; directories: readonly string[]; tpchDirectory?: string; hive?: readonly HiveCatalogConfig[]; dynamicRoots?: readonly string[]; sampleMs?: number }): TaskMemory | undefined {
  if (options.limitBytes === undefined) return undefined;
  return new TaskMemory({
    limitBytes: options.limitBytes,
    ...(options.sampleMs === undefined ? {} : { sampleMs: options.sampleMs }),
    create: async (memoryLimit) => {
      const tempDirectory = join(options.tempDirectory, 'tasks', `e${made++}`);
      mkdirSync(tempDirectory, { recursive: true });
      // catalog.dynamic-roots too: a catalog CREATE CATALOG made lies under one (TaskStatement.catalogs).
      const roots = [...options.directories, ...(options.dynamicRoots ?? [])].filter((d) => existsSync(d));
      const engine = await createDuckDbEngine({
        // Its errors name the task's limit (Trino's "Query exceeded per-node memory limit of ..."), not DuckDB's.
        // One pooled connection: a task's statements plan and run one after another; the sampler reads on a
        // bare connection of its own (memoryInUse), not a second pooled one with its macros (~150 ms of CPU).
        tempDirectory, memoryLimit, memoryLimitName: `${options.limitBytes}B`, maxConnections: 1, memory: false,
        // The tpch data as DuckDB's database `tpch` (the fragments' SQL names it so whatever users call the
        // catalog): an unsplit table is read through its views.
        tpch: options.tpchDirectory === undefined ? false : { directory: options.tpchDirectory, log: () => {} },
        ...(options.threads ? { threads: options.threads } : {}),
        // The worker's lake catalogs (an unsplit lake table is read by its catalog's name, as on the worker).
        ...(options.hive && options.hive.length > 0 ? { hive: options.hive } : {}),
        ...(roots.length > 0 ? { dynamicRoots: roots } : {}),
      });
      return {
        plan: (sql, session, abort) => engine.plan(sql, session, abort),
        planOwnSql: (sql, session, abort) => engine.planOwnSql(sql, session, abort),
        readsGuarded: () => false,
        syncCatalogs: (sync) => engine.syncCatalogs(sync),
        memoryInUse: () => engine.memoryInUse(),
        close: async () => {
          await engine.close();
          rmSync(tempDirectory, { recursive: true, force: true });
        },
      };
    },
  });
}
