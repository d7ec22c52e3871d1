// A worker's stage tasks (task-protocol.ts, stage-runner.ts): where a leaf writes its output and a root
// keeps the outputs it pulled, both under one directory inside the DuckDB sandbox, and the files removed
// with their task. A root pulls its inputs worker to worker, with the internal bearer, before it plans.
import { linkSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Engine, Plan, PlanAbort } from '../engine/engine.types.js';
import type { Session } from '../protocol/types.js';
import { VivaceError } from '../protocol/vivace-error.js';
import { internalHeaders } from '../cluster/cluster-auth.js';
import { taskOutputPath, type StageInput, type TaskPlanRequest } from '../cluster/task-protocol.js';
import { WorkerClient, WorkerTransportError } from '../cluster/worker-client.js';
import { planLeaf, planRoot, type StageEngine } from './stage-runner.js';
import type { Connectors } from '../connectors/connectors.js';

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
}

/** Pull clients kept at most (one per worker a root pulled from). */
const MAX_CLIENTS = 64;

/** `to` as a hard link to `from` (it outlives `from`'s removal); false when the file system will not. */
function linked(from: string, to: string): boolean {
  try {
    linkSync(from, to);
    return true;
  } catch {
    return false;
  }
}

export class StageTasks {
  private readonly files = new Map<string, string[]>();
  private readonly outputs = new Map<string, string>();
  private readonly leaves = new Set<string>();
  /** Each task's slot: its files are named after it, never after the task (see fileFor). */
  private readonly slots = new Map<string, number>();
  private readonly clients = new Map<string, WorkerClient>();
  /** Roots waiting for a leaf of this worker that still runs (an early root, staged-query.ts). */
  private readonly waiting = new Map<string, { resolve: (file: string) => void; reject: (err: VivaceError) => void }[]>();

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

  /** The Parquet file of a leaf task, once it finished; undefined for an unknown task or another kind. */
  outputOf(taskId: string): string | undefined {
    return this.outputs.get(taskId);
  }

  /** Whether the task is a leaf this worker took (its output may still be coming). */
  isLeaf(taskId: string): boolean {
    return this.leaves.has(taskId);
  }

  /**
   * A task's execution ended: a leaf's output is complete (served until the task is dropped); a root
   * has read its inputs, so they go now and its slot is free for the next root, not when it is dropped.
   */
  completed(taskId: string): void {
    if (!this.leaves.has(taskId)) {
      this.forget(taskId);
      return;
    }
    const file = this.files.get(taskId)?.[0];
    if (file !== undefined && !this.outputs.has(taskId)) this.outputs.set(taskId, file);
    for (const waiter of this.waiting.get(taskId) ?? []) {
      if (file === undefined) waiter.reject(new VivaceError('REMOTE_TASK_ERROR', `Leaf ${taskId} ended without output`));
      else waiter.resolve(file);
    }
    this.waiting.delete(taskId);
  }

  /** Removes a task's files (it was dropped, cancelled or failed); its slot is free again. */
  forget(taskId: string): void {
    for (const file of this.files.get(taskId) ?? []) rmSync(file, { force: true });
    this.files.delete(taskId);
    this.outputs.delete(taskId);
    this.leaves.delete(taskId);
    this.slots.delete(taskId);
    // A leaf that failed or was dropped before it ended: a root waiting for it fails (the coordinator
    // runs the query's usual path then).
    for (const waiter of this.waiting.get(taskId) ?? []) waiter.reject(new VivaceError('REMOTE_TASK_ERROR', `Leaf ${taskId} ended without output`));
    this.waiting.delete(taskId);
  }

  /** The output of a leaf that runs here still, once it ends; rejects when it fails, is dropped or `signal` aborts. */
  private outputWhenDone(taskId: string, signal: AbortSignal): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      const onAbort = () => reject(new VivaceError('REMOTE_TASK_ERROR', `Stopped waiting for leaf ${taskId}`));
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      const list = this.waiting.get(taskId) ?? [];
      list.push({
        resolve: (file) => { signal.removeEventListener('abort', onAbort); resolve(file); },
        reject: (err) => { signal.removeEventListener('abort', onAbort); reject(err); },
      });
      this.waiting.set(taskId, list);
    });
  }

  /**
   * A task's file `name`, under the lowest slot no live task holds. The same statement's stages then
   * read and write the same paths query after query, so their SQL text repeats and the engine's cached
   * plans serve them (a root's first plan of new text took 50 ms for Q1, most of it preparing how its
   * eight double columns render).
   */
  private fileFor(taskId: string, name: string): string {
    let slot = this.slots.get(taskId);
    if (slot === undefined) {
      const taken = new Set(this.slots.values());
      for (slot = 0; taken.has(slot); slot++) { /* the lowest free one */ }
      this.slots.set(taskId, slot);
    }
    const file = join(this.options.directory, `slot${slot}-${name}.parquet`);
    // A file left by a task that never got to remove it (a crash) is no one's now.
    rmSync(file, { force: true });
    const list = this.files.get(taskId) ?? [];
    list.push(file);
    this.files.set(taskId, list);
    return file;
  }

  private async plan(taskId: string, request: TaskPlanRequest, sql: string, session: Session, abort?: PlanAbort): Promise<Plan> {
    const stage = request.stage!;
    const { engine, connectors } = this.options;
    if (stage.kind === 'leaf') {
      this.leaves.add(taskId);
      return planLeaf(engine, sql, session, stage.splits, connectors, this.fileFor(taskId, 'out'), abort);
    }
    const files = await this.pull(taskId, stage.inputs, abort);
    return planRoot(engine, sql, session, files, connectors, abort);
  }

  /**
   * Each input's output as a local file: a leaf that ran here is linked (no HTTP, no copy), any other is
   * pulled from its worker; a leaf's worker gone or failing is REMOTE_TASK_ERROR.
   */
  private async pull(taskId: string, inputs: readonly StageInput[], abort?: PlanAbort): Promise<string[]> {
    const controller = new AbortController();
    const removeAbort = abort?.onAbort(() => controller.abort());
    const headers = await internalHeaders(this.options.sharedSecret, this.options.nodeId);
    try {
      return await Promise.all(inputs.map(async (input, i) => {
        const file = this.fileFor(taskId, `in${i}`);
        // Task ids are unique in the cluster (each attempt has its own), so a finished leaf of this id here is
        // that input; one still running here (an early root) is waited for.
        const local = this.outputs.get(input.taskId) ?? (this.leaves.has(input.taskId) ? await this.outputWhenDone(input.taskId, controller.signal) : undefined);
        if (local !== undefined && linked(local, file)) return file;
        const client = this.clientOf(input.uri);
        try {
          const response = await client.call('GET', taskOutputPath(input.taskId), undefined, { timeoutMs: this.options.pullTimeoutMs ?? 600_000, signal: controller.signal, headers });
          if (response.status !== 200) {
            throw new VivaceError('REMOTE_TASK_ERROR', `Worker ${input.uri} answered HTTP ${response.status} for the output of ${input.taskId}`);
          }
          writeFileSync(file, response.body);
          return file;
        } catch (err) {
          if (abort?.aborted) throw abort.reason;
          if (err instanceof WorkerTransportError) throw new VivaceError('REMOTE_TASK_ERROR', `Lost worker ${input.uri} while pulling ${input.taskId}: ${err.message} (${err.code})`);
          throw err;
        }
      }));
    } catch (err) {
      controller.abort();
      throw err;
    } finally {
      removeAbort?.();
    }
  }

  /** A kept-alive client per worker pulled from (a few: the cluster's workers), so a pull opens no connection. */
  private clientOf(uri: string): WorkerClient {
    let client = this.clients.get(uri);
    if (!client) {
      if (this.clients.size >= MAX_CLIENTS) {
        const [oldUri, oldest] = this.clients.entries().next().value!;
        this.clients.delete(oldUri);
        oldest.close();
      }
      client = new WorkerClient('leaf', uri);
      this.clients.set(uri, client);
    }
    return client;
  }

  /** Closes the pull clients (the worker stops). */
  close(): void {
    for (const client of this.clients.values()) client.close();
    this.clients.clear();
  }
}
