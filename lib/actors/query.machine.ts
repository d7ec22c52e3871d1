// The life of one query: admission, planning, stages, result buffering and its end.
// States are the protocol's QueryState names; `done`, `queued` and `scheduled` are derived (query-view.ts).
import { assign, enqueueActions, setup, type ActorRefFrom, type AnyActorRef, type SnapshotFrom } from 'xstate';
import type { Engine, ExecutionProgress, Plan, RowBatch } from '../engine/engine.types.js';
import { PlanAbortController } from '../engine/plan-abort.js';
import { joinBatches } from '../engine/row-batch.js';
import type { OutputColumn, Session, SessionUpdates } from '../protocol/types.js';
import { VivaceError } from '../protocol/vivace-error.js';
import { formatDataSize } from '../protocol/data-size.js';
import { ResultPump, type ResultPumpEvent } from './result-pump.js';
import { stageMachine, type StageFigures, type StageInput } from './stage.machine.js';
import { selectionOf } from '../resource-groups/selection.js';

export interface QueryLimits {
  /** Wall-clock limit from creation (Presto's query.max-run-time); the tracker enforces it. */
  maxRunTimeMs: number;
  /** Limit on planning alone (Trino's query.max-planning-time); the tracker enforces it. */
  maxPlanningTimeMs?: number;
  /** Limit from the start of planning, queueing excluded (Trino's query.max-execution-time). */
  maxExecutionTimeMs?: number;
  /** Bytes of JSON rows per client page. */
  targetResultBytes: number;
  /** Pages rendered ahead of the client. */
  prefetchPages: number;
  /**
   * Result bytes the coordinator may hold for the query (Presto's query_max_memory, applied to what
   * the coordinator buffers: DuckDB's working memory has only an instance-wide limit).
   */
  maxMemoryBytes?: number;
}

export interface QueryInput {
  queryId: string;
  sql: string;
  session: Session;
  engine: Engine;
  limits: QueryLimits;
  /** Epoch-millisecond clock; specs pass SimulatedClock's. */
  now: () => number;
  /** Admission control; without one the query admits itself (standalone harness). */
  dispatcher?: AnyActorRef;
  /**
   * Its resource group as the coordinator selected it, once: the group (Trino's ResourceGroupId segments,
   * when a selector places it) and what it was selected by, which the dispatcher queues it with. A harness's
   * query without one makes its selection when it enqueues.
   */
  group?: { resourceGroupId?: string[]; selection: QuerySelection };
}

/** A query's resource-group selection criteria and query_priority (selection.ts). */
export type QuerySelection = ReturnType<typeof selectionOf>;

/** When the query reached each point (epoch milliseconds). */
export interface QueryTimes {
  createTime: number;
  /** the client's last poll */
  lastHeartbeat: number;
  planningStartTime?: number;
  executionStartTime?: number;
  endTime?: number;
}

/** What the statement returns, from its plan (and, for DML, its count once run). */
export interface QueryOutput {
  columns?: OutputColumn[];
  updateType?: string;
  updateCount?: number;
  sessionUpdates?: SessionUpdates;
}

/** Rows between the engine and the client. */
export interface QueryResults {
  /** Rendered batches waiting for the client. */
  buffer: RowBatch[];
  /** No batch will be added: the result ended (or its stage was cancelled). */
  exhausted: boolean;
  progress: ExecutionProgress;
  /** Rows and JSON bytes handed to the client so far. */
  outputRows: number;
  outputBytes: number;
}

/**
 * At most 16 top-level keys (QUERY_CONTEXT_MAX_KEYS): every assign copies the context with
 * Object.assign, and V8 turns a copy with more properties into a dictionary-mode object, which made
 * each copy ~20x slower (4-5 us instead of 0.2 us) and every later property read a hash lookup.
 * Fields that change together are grouped instead.
 */
export interface QueryContext extends QueryInput {
  stages: ActorRefFrom<typeof stageMachine>[];
  times: QueryTimes;
  plan?: Plan;
  /** Fetches the plan's batches while RUNNING (created with the plan, started on entry to RUNNING). */
  producer?: ResultPump;
  output: QueryOutput;
  results: QueryResults;
  /** The page handed out by the last `results.take`; empty when nothing was ready. */
  page?: RowBatch;
  error?: VivaceError;
}

/** See QueryContext: beyond this many keys V8 copies the context slowly. */
export const QUERY_CONTEXT_MAX_KEYS = 16;

export type QueryEvent =
  | { type: 'query.admit' }
  | { type: 'query.cancel' }
  | { type: 'query.fail'; error: VivaceError }
  | { type: 'query.heartbeat' }
  | { type: 'query.partialCancel'; stageId: string }
  | { type: 'results.take' }
  /** Sent by the query to itself when the engine's plan() settles. */
  | { type: 'plan.done'; plan: Plan }
  | { type: 'plan.failed'; error: VivaceError }
  | ResultPumpEvent;

/**
 * The abort of a plan in progress, by query actor. Kept beside the context rather than in it: the
 * context stays under QUERY_CONTEXT_MAX_KEYS, and the controller lives only while planning.
 */
const planningAborts = new WeakMap<AnyActorRef, PlanAbortController>();

/** Planning that goes on this long after its query ended is reported (the engine could not interrupt it). */
export const LATE_ENGINE_MS = 1000;
const lateEngineReports = new WeakMap<AnyActorRef, (lateMs: number) => void>();

/**
 * Calls `report` when the engine gives up the plan of `query` LATE_ENGINE_MS or more after the query
 * ended (cancelled, killed or timed out while planning), with how long after.
 */
export function onLateEngineWork(query: AnyActorRef, report: (lateMs: number) => void): void {
  lateEngineReports.set(query, report);
}

const NO_PROGRESS: ExecutionProgress = { processedRows: 0, processedBytes: 0, cpuTimeMillis: 0 };

/** How many buffered batches the next page takes: whole batches up to the target, at least one. */
export function pageBatchCount(buffer: readonly RowBatch[], targetBytes: number): number {
  let bytes = 0;
  let count = 0;
  while (count < buffer.length && (count === 0 || bytes + buffer[count].bytes <= targetBytes)) {
    bytes += buffer[count].bytes;
    count++;
  }
  return count;
}

/**
 * What the root stage has done, from the execution's progress. A root over sub-stages reads their output
 * (the rows exchanged), never a table; a root alone (one task) is the stage whose scans read the tables.
 */
function rootStageCounters(context: QueryContext): StageFigures {
  const { progress } = context.results;
  const { executionStartTime } = context.times;
  const readsTables = progress.subStages === undefined;
  return {
    // A root of several tasks (a scattered scan): its tasks, their workers and splits (one per task, as a sub-stage counts them).
    ...(progress.tasks === undefined ? {} : {
      tasks: progress.tasks, nodes: new Set(progress.tasks.map((t) => t.nodeId)).size, totalSplits: progress.tasks.length,
      completedSplits: progress.tasks.filter((t) => t.state === 'FINISHED').length,
    }),
    processedRows: progress.processedRows,
    processedBytes: progress.processedBytes,
    physicalInputRows: readsTables ? progress.processedRows : 0,
    physicalInputBytes: readsTables ? progress.processedBytes : 0,
    cpuTimeMillis: Math.round(progress.cpuTimeMillis),
    wallTimeMillis: executionStartTime === undefined ? 0 : context.now() - executionStartTime,
  };
}

/** What sub-stage `index` (1...) has done, as the engine reported it. */
function subStageCounters(context: QueryContext, index: number): StageFigures {
  const sub = context.results.progress.subStages?.[index - 1];
  if (!sub) return {};
  return {
    nodes: sub.nodes, totalSplits: sub.totalSplits, queuedSplits: sub.queuedSplits, runningSplits: sub.runningSplits, completedSplits: sub.completedSplits,
    processedRows: sub.processedRows, processedBytes: sub.processedBytes, outputRows: sub.outputRows, cpuTimeMillis: Math.round(sub.cpuTimeMillis),
    // A sub-stage is a leaf: what it took in, its scans read of the tables.
    physicalInputRows: sub.processedRows, physicalInputBytes: sub.processedBytes,
    ...(sub.wallTimeMillis === undefined ? {} : { wallTimeMillis: Math.round(sub.wallTimeMillis) }),
    ...(sub.tasks === undefined ? {} : { tasks: sub.tasks }),
  };
}

function takePage(context: QueryContext): Pick<QueryContext, 'page' | 'results'> {
  const { results } = context;
  const count = pageBatchCount(results.buffer, context.limits.targetResultBytes);
  const page = joinBatches(results.buffer.slice(0, count));
  return {
    page,
    results: {
      ...results,
      buffer: count === results.buffer.length ? [] : results.buffer.slice(count),
      outputRows: results.outputRows + (page?.rows ?? 0),
      outputBytes: results.outputBytes + (page?.bytes ?? 0),
    },
  };
}

/** The times with `key` set to now (one literal shape: a computed key made a slow object). */
function stamp(context: QueryContext, key: keyof QueryTimes): QueryTimes {
  const t = context.times;
  const now = context.now();
  return {
    createTime: t.createTime,
    lastHeartbeat: key === 'lastHeartbeat' ? now : t.lastHeartbeat,
    planningStartTime: key === 'planningStartTime' ? now : t.planningStartTime,
    executionStartTime: key === 'executionStartTime' ? now : t.executionStartTime,
    endTime: key === 'endTime' ? now : t.endTime,
  };
}

/** Spawns a stage actor of the query's machine (the `spawn` an assign is given). */
type StageSpawner = (src: 'stage', options: { id: string; input: StageInput }) => ActorRefFrom<typeof stageMachine>;

/**
 * The query's stages with those `progress` reports for the first time added: an engine that runs
 * sub-stages (a distributed query's leaf stage) reports them with its progress, and each becomes a stage
 * under the root the first time it is reported. The same array when none is new.
 */
function withSubStages(context: QueryContext, progress: ExecutionProgress | undefined, spawn: StageSpawner): QueryContext['stages'] {
  const reported = progress?.subStages ?? [];
  if (reported.length < context.stages.length) return context.stages;
  const stages = [...context.stages];
  for (let i = context.stages.length - 1; i < reported.length; i++) {
    const sub = reported[i]!;
    stages.push(spawn('stage', { id: `stage-${i + 1}`, input: { stageId: sub.stageId ?? String(i + 1), parentStageId: sub.parentStageId ?? '0', nodes: sub.nodes, totalSplits: sub.totalSplits } }));
  }
  return stages;
}

/** What an ended query lets go of. */
const END = { plan: undefined, producer: undefined } as const;

export const queryMachine = setup({
  types: {
    input: {} as QueryInput,
    context: {} as QueryContext,
    events: {} as QueryEvent,
  },
  actors: {
    stage: stageMachine,
  },
  guards: {
    exceedsMemoryLimit: ({ context, event }) => {
      if ((event.type !== 'results.batch' && event.type !== 'results.end') || !event.batch || context.limits.maxMemoryBytes === undefined) return false;
      let held = event.batch.bytes;
      for (const batch of context.results.buffer) held += batch.bytes;
      return held > context.limits.maxMemoryBytes;
    },
    takeDrainsBuffer: ({ context }) => pageBatchCount(context.results.buffer, context.limits.targetResultBytes) === context.results.buffer.length,
  },
  actions: {
    requestAdmission: enqueueActions(({ context, enqueue, self }) => {
      if (context.dispatcher) enqueue.sendTo(context.dispatcher, { type: 'dispatcher.enqueue', queryId: context.queryId, query: self, ...(context.group?.selection ?? selectionOf(context.session, context.sql)) });
      else enqueue.raise({ type: 'query.admit' });
    }),
    releaseAdmission: enqueueActions(({ context, enqueue }) => {
      if (context.dispatcher) enqueue.sendTo(context.dispatcher, { type: 'dispatcher.release', queryId: context.queryId });
    }),
    recordHeartbeat: assign(({ context }) => ({ times: stamp(context, 'lastHeartbeat') })),
    startPlanning: assign(({ context }) => ({ times: stamp(context, 'planningStartTime') })),
    // A plain promise rather than an invoked promise actor: planning is one engine call, and an actor
    // per query for it (with its abort signal and done event) was a tenth of the actor layer's cost.
    planQuery: ({ context, self }) => {
      let planned: Promise<Plan>;
      const abort = new PlanAbortController();
      planningAborts.set(self, abort);
      try {
        planned = context.engine.plan(context.sql, context.session, abort, context.queryId);
      } catch (err) {
        planned = Promise.reject(err); // an engine that throws instead of rejecting fails the query the same way
      }
      // The coordinator never waits on a plan of an ended query; when the engine took long to give it up
      // (work DuckDB cannot interrupt, such as folding a constant), whoever watches this query is told.
      const settledAfterEnd = () => {
        const { times } = self.getSnapshot().context;
        const late = times.endTime === undefined ? 0 : context.now() - times.endTime;
        if (late >= LATE_ENGINE_MS) lateEngineReports.get(self)?.(late);
        lateEngineReports.delete(self);
      };
      planned.then(
        (plan) => {
          planningAborts.delete(self);
          // Failed or cancelled while planning: nobody will execute this plan, so give its connection back.
          if (self.getSnapshot().status !== 'active') {
            plan.release();
            settledAfterEnd();
          } else self.send({ type: 'plan.done', plan });
        },
        (err: unknown) => {
          planningAborts.delete(self);
          if (self.getSnapshot().status === 'active') self.send({ type: 'plan.failed', error: VivaceError.from(err) });
          else settledAfterEnd();
        },
      );
    },
    scheduleStages: enqueueActions(({ context, enqueue }) => {
      for (const stage of context.stages) enqueue.sendTo(stage, { type: 'stage.schedule' });
    }),
    // Each results event's figures and the sub-stages they report in one assign: every assign copies the
    // context (and the snapshot), so a separate one for the sub-stages was a copy per event for nothing.
    recordProgress: assign(({ context, event, spawn }) => {
      if (event.type !== 'results.progress') return {};
      return { results: { ...context.results, progress: event.progress }, stages: withSubStages(context, event.progress, spawn) };
    }),
    bufferBatch: assign(({ context, event, spawn }) => {
      if (event.type !== 'results.batch') return {};
      return { results: { ...context.results, buffer: [...context.results.buffer, event.batch], progress: event.progress }, stages: withSubStages(context, event.progress, spawn) };
    }),
    reportStageProgress: enqueueActions(({ context, enqueue }) => {
      const root = context.stages[0];
      if (root) enqueue.sendTo(root, { type: 'stage.progress', counters: rootStageCounters(context) });
      for (const [i, stage] of context.stages.entries()) {
        if (i === 0) continue;
        enqueue.sendTo(stage, { type: 'stage.schedule' });
        enqueue.sendTo(stage, { type: 'stage.progress', counters: subStageCounters(context, i) });
      }
    }),
    startProducing: ({ context, self }) => context.producer?.start((event) => self.send(event)),
    stopProducing: ({ context }) => context.producer?.stop(),
    markProducerStopped: assign(({ context }) => ({ results: { ...context.results, exhausted: true } })),
    markExhausted: assign(({ context, event, spawn }) => {
      if (event.type !== 'results.end') return {};
      const { results } = context;
      const buffer = event.batch ? [...results.buffer, event.batch] : results.buffer;
      return {
        results: { ...results, buffer, exhausted: true, progress: event.progress },
        output: event.updateCount === undefined ? context.output : { ...context.output, updateCount: event.updateCount },
        stages: withSubStages(context, event.progress, spawn),
      };
    }),
    finishStages: enqueueActions(({ context, enqueue }) => {
      for (const [i, stage] of context.stages.entries()) {
        if (i > 0 && context.results.progress.subStages?.[i - 1]) {
          enqueue.sendTo(stage, { type: 'stage.schedule' });
          enqueue.sendTo(stage, { type: 'stage.finish', counters: subStageCounters(context, i) });
          continue;
        }
        enqueue.sendTo(stage, i === 0 ? { type: 'stage.finish', counters: rootStageCounters(context) } : { type: 'stage.finish' });
      }
    }),
    takePage: assign(({ context }) => takePage(context)),
    // The take that drains a finished result also ends the query: one assign (one context copy) for both.
    takeLastPage: assign(({ context }) => ({ ...takePage(context), times: stamp(context, 'endTime'), ...END })),
    pullMoreResults: ({ context }) => context.producer?.pull(context.limits.prefetchPages - context.results.buffer.length),
    recordFailure: assign({
      error: ({ context, event }) => {
        if (context.error) return context.error;
        if (event.type === 'query.fail') return event.error;
        if (event.type === 'results.failed' || event.type === 'plan.failed') return event.error;
        return new VivaceError('USER_CANCELED', 'Query was canceled');
      },
    }),
    failOnMemoryLimit: assign({
      error: ({ context }) =>
        new VivaceError('EXCEEDED_LOCAL_MEMORY_LIMIT', `Query exceeded per-node memory limit of ${formatDataSize(context.limits.maxMemoryBytes ?? 0)}`),
    }),
    abortStages: enqueueActions(({ context, enqueue }) => {
      const name = context.error?.errorName === 'USER_CANCELED' ? 'stage.cancel' : 'stage.abort';
      for (const stage of context.stages) enqueue.sendTo(stage, { type: name });
    }),
    cancelStage: enqueueActions(({ context, enqueue, event }) => {
      if (event.type !== 'query.partialCancel') return;
      const stage = context.stages.find((s) => s.getSnapshot().context.stageId === event.stageId);
      if (stage) enqueue.sendTo(stage, { type: 'stage.cancel' });
    }),
    // A failed query hands out no rows: neither the buffer nor the page of an earlier take.
    recordEnd: assign(({ context }) => ({ times: stamp(context, 'endTime'), results: { ...context.results, buffer: [] }, page: undefined, ...END })),
    releasePlan: ({ context }) => context.plan?.release(),
    // Ended while planning: the engine interrupts the statement it is planning (the plan is released when it settles).
    abortPlanning: ({ context, self }) => planningAborts.get(self)?.abort(context.error),
  },
}).createMachine({
  id: 'query',
  context: ({ input, spawn }) => {
    const now = input.now();
    return {
      queryId: input.queryId,
      sql: input.sql,
      session: input.session,
      engine: input.engine,
      limits: input.limits,
      now: input.now,
      dispatcher: input.dispatcher,
      group: input.group,
      stages: [spawn('stage', { id: 'stage-0', input: { stageId: '0' } })],
      times: { createTime: now, lastHeartbeat: now, planningStartTime: undefined, executionStartTime: undefined, endTime: undefined },
      output: {},
      results: { buffer: [], exhausted: false, progress: NO_PROGRESS, outputRows: 0, outputBytes: 0 },
    };
  },
  initial: 'QUEUED',
  // Flat: the ends of a live query are the root's transitions (every state but the final ones takes them),
  // not those of a compound `active` state around the live ones. Each level of nesting was one more state
  // node in every microstep's entry, exit and configuration sets, which xstate builds afresh per microstep.
  on: {
    'query.heartbeat': { actions: 'recordHeartbeat' },
    'query.cancel': { target: '.FAILED', actions: 'recordFailure' },
    'query.fail': { target: '.FAILED', actions: 'recordFailure' },
  },
  states: {
    QUEUED: {
      entry: 'requestAdmission',
      on: { 'query.admit': 'PLANNING' },
    },
    PLANNING: {
      entry: ['startPlanning', 'planQuery'],
      on: {
        // Straight to RUNNING, its stages scheduled on the way: Trino's STARTING lasts no time here (nothing
        // is placed before the first rows), and a state of its own cost a microstep per query.
        'plan.done': {
          target: 'RUNNING',
          actions: [
            assign(({ context, event }) => ({
              plan: event.plan,
              producer: new ResultPump(event.plan, context.limits.targetResultBytes, context.limits.prefetchPages),
              output: { columns: event.plan.columns, updateType: event.plan.updateType, sessionUpdates: event.plan.sessionUpdates },
              times: stamp(context, 'executionStartTime'),
            })),
            'scheduleStages',
          ],
        },
        'plan.failed': { target: 'FAILED', actions: 'recordFailure' },
      },
    },
    RUNNING: {
      entry: 'startProducing',
      exit: 'stopProducing',
      on: {
        'results.batch': [
          { guard: 'exceedsMemoryLimit', target: 'FAILED', actions: 'failOnMemoryLimit' },
          { actions: ['bufferBatch', 'reportStageProgress'] },
        ],
        'results.end': [
          { guard: 'exceedsMemoryLimit', target: 'FAILED', actions: 'failOnMemoryLimit' },
          { target: 'FINISHING', actions: ['markExhausted', 'finishStages'] },
        ],
        'results.failed': { target: 'FAILED', actions: 'recordFailure' },
        'results.progress': { actions: ['recordProgress', 'reportStageProgress'] },
        'results.take': { actions: ['takePage', 'pullMoreResults'] },
        'query.partialCancel': { target: 'FINISHING', actions: ['cancelStage', 'markProducerStopped'] },
      },
    },
    // All rows are produced; the client is still reading the buffered pages.
    FINISHING: {
      entry: 'releaseAdmission',
      on: {
        'results.take': [{ target: 'FINISHED', actions: 'takeLastPage', guard: 'takeDrainsBuffer' }, { actions: 'takePage' }],
      },
    },
    // Ended by takeLastPage (the page and the end time in one assign). As in Trino, the query is FINISHED
    // once its last rows are handed out; their response still links to one more, without rows.
    FINISHED: { type: 'final' },
    FAILED: { type: 'final', entry: ['abortPlanning', 'releaseAdmission', 'abortStages', 'releasePlan', 'recordEnd'] },
  },
});

export type QueryActorRef = ActorRefFrom<typeof queryMachine>;
export type QuerySnapshot = SnapshotFrom<typeof queryMachine>;
