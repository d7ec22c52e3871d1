// A worker's stage tasks (task-protocol.ts, stage-runner.ts): where a leaf writes its output and a root
// keeps the outputs it pulled, both under one directory inside the DuckDB sandbox, and the files removed
// with their task. A root pulls its inputs worker to worker, with the internal bearer, before it plans.
import { createHash } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { linkSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Engine, Plan, PlanAbort } from '../engine/engine.types.js';
import type { Session } from '../protocol/types.js';
import { PlanCache } from '../engine/plan-cache.js';
import { VivaceError } from '../protocol/vivace-error.js';
import { internalHeaders } from '../cluster/cluster-auth.js';
import { taskOutputPath, type FragmentInput, type FragmentStage, type TaskPlanRequest, type TaskStage } from '../cluster/task-protocol.js';
import { WorkerTransportError } from '../cluster/worker-client.js';
import { ExchangePuller, PullStatusError } from './exchange-pull.js';
import { bucketFile, planFragment, prepareFragments, type FragmentTarget, type StageEngine } from './stage-runner.js';
import type { Connectors } from '../connectors/connectors.js';
import { stageTrace, stageTracing } from '../cluster/stage-trace.js';
import type { TaskMemory } from './task-memory.js';

/**
 * What the files of a statement's tasks hold depends on: its text, what resolves its names and renders
 * its values (the engine's plan-cache key) and the coordinator's choices. A short digest of them.
 */
function statementTag(sql: string, session: Session, choices: unknown): string {
  return createHash('sha256').update(PlanCache.key(sql, session)).update('\u0000').update(JSON.stringify(choices ?? null)).digest('hex').slice(0, 16);
}

/** Names of files on their way out (discard): each its own, so a slot's next file is never one of them. */
let discarded = 0;

/**
 * Removes a task's file or directory without holding the event loop: it is renamed aside at once (one
 * call, so the slot's path is free for the next task) and deleted in the background. A HASH output's
 * directory removed in place took 1.2 ms of a worker's loop per task (rimraf's sync walk). Resolves once
 * it is gone (nothing waits but specs).
 */
export function discard(path: string): Promise<void> {
  const aside = `${path}.discarded-${process.pid}-${discarded++}`;
  try {
    renameSync(path, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') rmSync(path, { force: true, recursive: true });
    return Promise.resolve();
  }
  return rm(aside, { force: true, recursive: true }).catch(() => {});
}

export interface StageTaskOptions {
  engine: StageEngine;
  /** The connectors of the node's catalog set: a leaf reads its splits as its table's connector does. */
  connectors: Connectors;
  /** Where stage files go: inside the engine's sandbox (its temp directory). */
  directory: string;
  nodeId: string;
  sharedSecret?: string;
  /** Deadline of pulling one input (default 10 minutes). */
  pullTimeoutMs?: number;
  /** The exchange files' Parquet codec (exchange.compression-codec); default uncompressed. */
  compression?: FragmentTarget['compression'];
  /** query.max-memory-per-node: each task runs its SQL on a DuckDB instance of its own under it (task-memory.ts). */
  taskMemory?: TaskMemory;
}

/** Pullers kept at most (one per worker a consumer pulled from). */
const MAX_PULLERS = 64;

/** `to` as a hard link to `from` (it outlives `from`'s removal); false when the file system will not. */
function linked(from: string, to: string): boolean {
  try {
    linkSync(from, to);
    return true;
  } catch {
    return false;
  }
}

/** A finished producer's output: its one file, or the directory of its buckets' files. */
type TaskOutput = { file: string } | { directory: string; buckets: number };

/** The same stage as a fragment task: a leaf is fragment 1 of the two-stage plan, a root its fragment 0. */
export function fragmentStageOf(stage: TaskStage): FragmentStage {
  if (stage.kind === 'fragment') return stage;
  if (stage.kind === 'leaf') return { kind: 'fragment', fragmentId: 1, splits: stage.splits, inputs: [], output: { kind: 'SINGLE' } };
  return { kind: 'fragment', fragmentId: 0, inputs: [{ fragmentId: 1, tasks: stage.inputs }] };
}

/** A producer output's file for `bucket` (undefined: its one file); undefined when it has none such. */
function fileOf(output: TaskOutput, bucket: number | undefined): string | undefined {
  if ('file' in output) return bucket === undefined ? output.file : undefined;
  return bucket !== undefined && bucket >= 0 && bucket < output.buckets ? bucketFile(output.directory, bucket) : undefined;
}

export class StageTasks {
  private readonly files = new Map<string, string[]>();
  /** Each producer task's output target while it runs; its output once it finished. */
  private readonly targets = new Map<string, TaskOutput>();
  private readonly outputs = new Map<string, TaskOutput>();
  /** Tasks of fragments other than the root: they write an output. */
  private readonly leaves = new Set<string>();
  /** Each task's slot: its files are named after it, never after the task (see fileFor). */
  private readonly slots = new Map<string, number>();
  /** Each task's statement tag: what its files hold depends on the statement, so their names do too (see fileFor). */
  private readonly tags = new Map<string, string>();
  private readonly pullers = new Map<string, ExchangePuller>();
  /** Roots waiting for a leaf of this worker that still runs (an early root, staged-query.ts). */
  private readonly waiting = new Map<string, { resolve: (output: TaskOutput) => void; reject: (err: VivaceError) => void }[]>();

  constructor(private readonly options: StageTaskOptions) {
    mkdirSync(options.directory, { recursive: true });
  }

  /** The engine a stage task plans on: its `plan` plans the task's stage of the statement. */
  engineFor(taskId: string, request: TaskPlanRequest): Engine {
    return {
      plan: (sql: string, session: Session, abort?: PlanAbort) => this.plan(taskId, request, sql, session, abort),
      close: async () => {},
    };
  }

  /**
   * The Parquet file of a producer task (bucket `bucket` of a HASH output), once it finished; undefined
   * for an unknown task, the root, or a bucket it has not.
   */
  outputOf(taskId: string, bucket?: number): string | undefined {
    const output = this.outputs.get(taskId);
    return output && fileOf(output, bucket);
  }

  /** Whether the task is a producer this worker took (its output may still be coming). */
  isLeaf(taskId: string): boolean {
    return this.leaves.has(taskId);
  }

  /**
   * A task's execution ended: a leaf's output is complete (served until the task is dropped); a root
   * has read its inputs, so they go now and its slot is free for the next root, not when it is dropped.
   */
  completed(taskId: string): void {
    stageTrace('w.completed', taskId);
    if (!this.leaves.has(taskId)) {
      this.forget(taskId);
      return;
    }
    const output = this.targets.get(taskId);
    if (output !== undefined && !this.outputs.has(taskId)) this.outputs.set(taskId, output);
    for (const waiter of this.waiting.get(taskId) ?? []) {
      if (output === undefined) waiter.reject(new VivaceError('REMOTE_TASK_ERROR', `Leaf ${taskId} ended without output`));
      else waiter.resolve(output);
    }
    this.waiting.delete(taskId);
  }

  /** Removes a task's files (it was dropped, cancelled or failed); its slot is free again. */
  forget(taskId: string): void {
    for (const file of this.files.get(taskId) ?? []) void discard(file);
    this.files.delete(taskId);
    this.targets.delete(taskId);
    this.outputs.delete(taskId);
    this.leaves.delete(taskId);
    this.slots.delete(taskId);
    this.tags.delete(taskId);
    // A leaf that failed or was dropped before it ended: a root waiting for it fails (the coordinator
    // runs the query's usual path then).
    for (const waiter of this.waiting.get(taskId) ?? []) waiter.reject(new VivaceError('REMOTE_TASK_ERROR', `Leaf ${taskId} ended without output`));
    this.waiting.delete(taskId);
  }

  /** The output of a leaf that runs here still, once it ends; rejects when it fails, is dropped or `signal` aborts. */
  private outputWhenDone(taskId: string, signal: AbortSignal): Promise<TaskOutput> {
    return new Promise<TaskOutput>((resolve, reject) => {
      const onAbort = () => reject(new VivaceError('REMOTE_TASK_ERROR', `Stopped waiting for leaf ${taskId}`));
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      const list = this.waiting.get(taskId) ?? [];
      list.push({
        resolve: (output) => { signal.removeEventListener('abort', onAbort); resolve(output); },
        reject: (err) => { signal.removeEventListener('abort', onAbort); reject(err); },
      });
      this.waiting.set(taskId, list);
    });
  }

  /**
   * A task's file `name`, under the lowest slot no live task holds and its statement's tag. The same
   * statement's stages then read and write the same paths query after query, so their SQL text repeats
   * and the engine's cached plans serve them (a root's first plan of new text took 50 ms for Q1, most of
   * it preparing how its eight double columns render). The tag keeps another statement's text apart:
   * with the slot alone, two statements whose roots read the same generated column names
   * (vivace_o0, ...) from the same slot had one text, and the second ran the first's cached render of
   * other types (a DOUBLE's over a BOOLEAN: "abs(BOOLEAN)").
   */
  private fileFor(taskId: string, name: string, extension = '.parquet'): string {
    let slot = this.slots.get(taskId);
    if (slot === undefined) {
      const taken = new Set(this.slots.values());
      for (slot = 0; taken.has(slot); slot++) { /* the lowest free one */ }
      this.slots.set(taskId, slot);
    }
    const file = join(this.options.directory, `slot${slot}-${this.tags.get(taskId) ?? 'x'}-${name}${extension}`);
    // A file left by a task that never got to remove it (a crash) is no one's now.
    rmSync(file, { force: true, recursive: true });
    const list = this.files.get(taskId) ?? [];
    list.push(file);
    this.files.set(taskId, list);
    return file;
  }

  private async plan(taskId: string, request: TaskPlanRequest, sql: string, session: Session, abort?: PlanAbort): Promise<Plan> {
    const stage = fragmentStageOf(request.stage!);
    this.tags.set(taskId, statementTag(sql, session, stage.choices));
    const { engine, connectors, compression } = this.options;
    let target: FragmentTarget | undefined;
    if (stage.fragmentId !== 0) {
      this.leaves.add(taskId);
      if (stage.output?.kind === 'HASH') {
        const directory = this.fileFor(taskId, 'out', '');
        this.targets.set(taskId, { directory, buckets: stage.output.buckets });
        target = { directory, ...(compression ? { compression } : {}) };
      } else {
        const file = this.fileFor(taskId, 'out');
        this.targets.set(taskId, { file });
        target = { file, ...(compression ? { compression } : {}) };
      }
    }
    stageTrace('w.plan', taskId);
    // The statement's plan is derived while the inputs come (a consumer's local producers may still run),
    // and under query.max-memory-per-node the task's own DuckDB instance is taken and readied for the
    // statement meanwhile too (task-memory.ts): the fragment runs there.
    const [pulled, derived, readied] = await Promise.allSettled([
      this.pull(taskId, stage.inputs, abort),
      prepareFragments(engine, sql, session, { queryId: request.queryId, ...(stage.choices ? { choices: stage.choices } : {}) }, connectors, abort),
      this.options.taskMemory?.forTask(engine, { sql, session, ...(request.catalogs ? { catalogs: request.catalogs } : {}), ...(abort ? { abort } : {}) }),
    ]);
    const task = readied.status === 'fulfilled' ? readied.value : undefined;
    if (pulled.status === 'rejected' || derived.status === 'rejected' || readied.status === 'rejected') {
      task?.fail();
      throw [pulled, derived, readied].find((r) => r.status === 'rejected')!.reason;
    }
    const inputs = pulled.value;
    stageTrace('w.pulled', taskId, { files: inputs.reduce((n, i) => n + i.files.length, 0) });
    try {
      const plan = await planFragment(task?.engine ?? engine, sql, session, {
        queryId: request.queryId, fragmentId: stage.fragmentId, inputs,
        ...(stage.splits ? { splits: stage.splits } : {}), ...(stage.output ? { output: stage.output } : {}), ...(stage.choices ? { choices: stage.choices } : {}),
      }, connectors, target, abort);
      stageTrace('w.prepared', taskId);
      return task ? task.done(plan) : plan;
    } catch (err) {
      task?.fail();
      throw err;
    }
  }

  /**
   * Each input's producers' outputs (their bucket of a HASH output) as local files: a producer that ran
   * here is linked (no HTTP, no copy), any other is pulled from its worker; a producer's worker gone or
   * failing is REMOTE_TASK_ERROR.
   */
  private async pull(taskId: string, inputs: readonly FragmentInput[], abort?: PlanAbort): Promise<{ fragmentId: number; files: string[]; bucket?: number; buckets?: number }[]> {
    const controller = new AbortController();
    // Every producer's pull, or its wait for a producer still running here, listens on it: more than Node's 10 for a wide join.
    setMaxListeners(0, controller.signal);
    const removeAbort = abort?.onAbort(() => controller.abort());
    const headers = await internalHeaders(this.options.sharedSecret, this.options.nodeId);
    try {
      return await Promise.all(inputs.map(async (input) => {
        const { bucket } = input;
        const files = await Promise.all(input.tasks.map(async (producer, i) => {
          // The root of the two-stage plan keeps its inputs' old names (in0, in1...): its SQL text repeats.
          const file = this.fileFor(taskId, inputs.length === 1 && input.fragmentId === 1 && bucket === undefined ? `in${i}` : `in${input.fragmentId}-${i}`);
          // Task ids are unique in the cluster (each attempt has its own), so a finished producer of this id
          // here is that input; one still running here (an early root) is waited for.
          const output = this.outputs.get(producer.taskId) ?? (this.leaves.has(producer.taskId) ? await this.outputWhenDone(producer.taskId, controller.signal) : undefined);
          const local = output && fileOf(output, bucket);
          if (local !== undefined && linked(local, file)) return file;
          const puller = this.pullerOf(producer.uri);
          const started = stageTracing ? performance.now() : 0;
          try {
            const bytes = await puller.toFile(taskOutputPath(producer.taskId, bucket), file, { timeoutMs: this.options.pullTimeoutMs ?? 600_000, signal: controller.signal, headers });
            if (stageTracing) stageTrace('w.fetched', taskId, { from: producer.taskId, bytes, ms: Math.round(performance.now() - started) });
            return file;
          } catch (err) {
            if (abort?.aborted) throw abort.reason;
            if (err instanceof PullStatusError) throw new VivaceError('REMOTE_TASK_ERROR', `Worker ${producer.uri} answered HTTP ${err.status} for the output of ${producer.taskId}`);
            if (err instanceof WorkerTransportError) throw new VivaceError('REMOTE_TASK_ERROR', `Lost worker ${producer.uri} while pulling ${producer.taskId}: ${err.message} (${err.code})`);
            throw err;
          }
        }));
        return { fragmentId: input.fragmentId, files, ...(bucket === undefined ? {} : { bucket, buckets: input.buckets! }) };
      }));
    } catch (err) {
      controller.abort();
      throw err;
    } finally {
      removeAbort?.();
    }
  }

  /** A kept-alive puller per worker pulled from (a few: the cluster's workers), so a pull opens no connection. */
  private pullerOf(uri: string): ExchangePuller {
    let puller = this.pullers.get(uri);
    if (!puller) {
      if (this.pullers.size >= MAX_PULLERS) {
        const [oldUri, oldest] = this.pullers.entries().next().value!;
        this.pullers.delete(oldUri);
        oldest.close();
      }
      puller = new ExchangePuller(uri);
      this.pullers.set(uri, puller);
    }
    return puller;
  }

  /** Closes the pullers (the worker stops). */
  close(): void {
    for (const puller of this.pullers.values()) puller.close();
    this.pullers.clear();
  }
}
