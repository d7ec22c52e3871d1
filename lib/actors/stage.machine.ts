// One stage of a query: its lifecycle (the protocol's stage states) and the counters rolled up into stats.
// `done` is derived from the state (see isStageDone), never stored.
import { assign, setup } from 'xstate';
import { ZERO_COUNTERS, type StageCounters } from '../protocol/states.js';
import type { SubStageTask } from '../engine/engine.types.js';

export interface StageInput {
  stageId: string;
  /** stageId of the stage consuming this one's output; undefined for the root stage "0". */
  parentStageId?: string;
  /** Splits the stage will run; the root stage of a coordinator-only query has one. */
  totalSplits?: number;
  /** Nodes the stage runs on (1 for the coordinator). */
  nodes?: number;
}

export interface StageContext extends StageCounters {
  stageId: string;
  parentStageId?: string;
  /** A distributed stage's tasks, as its engine reported them last. */
  tasks?: readonly SubStageTask[];
}

/** What a progress or finish report may set: counters, and a distributed stage's tasks. */
export type StageFigures = Partial<StageCounters> & { tasks?: readonly SubStageTask[] };

export type StageEvent =
  | { type: 'stage.schedule' }
  | { type: 'stage.start' }
  | { type: 'stage.progress'; counters: StageFigures }
  | { type: 'stage.finish'; counters?: StageFigures }
  | { type: 'stage.cancel' }
  | { type: 'stage.abort' }
  | { type: 'stage.fail' };

/** How a scheduled or running stage ends. */
const ACTIVE_ENDINGS = {
  'stage.finish': { target: 'FINISHED', actions: 'finishWithProgress' },
  'stage.cancel': { target: 'CANCELED', actions: 'dropRunningSplits' },
  'stage.abort': { target: 'ABORTED', actions: 'dropRunningSplits' },
  'stage.fail': { target: 'FAILED', actions: 'dropRunningSplits' },
} as const;

export const stageMachine = setup({
  types: {
    input: {} as StageInput,
    context: {} as StageContext,
    events: {} as StageEvent,
  },
  actions: {
    recordProgress: assign(({ event }) => ((event.type === 'stage.progress' || event.type === 'stage.finish') && event.counters) || {}),
    startSplits: assign(({ context }) => ({ queuedSplits: 0, runningSplits: context.totalSplits - context.completedSplits })),
    // One assign per transition (each assign copies the context and the snapshot).
    startWithProgress: assign(({ context, event }) => ({
      ...(event.type === 'stage.progress' ? event.counters : {}),
      queuedSplits: 0,
      runningSplits: context.totalSplits - context.completedSplits,
    })),
    finishWithProgress: assign(({ context, event }) => ({
      ...(event.type === 'stage.finish' ? event.counters : {}),
      queuedSplits: 0,
      runningSplits: 0,
      // A report of its tasks (a root of several) may be the first to tell how many.
      completedSplits: (event.type === 'stage.finish' ? event.counters?.totalSplits : undefined) ?? context.totalSplits,
    })),
    dropRunningSplits: assign({ queuedSplits: 0, runningSplits: 0 }),
  },
}).createMachine({
  id: 'stage',
  context: ({ input }) => ({
    ...ZERO_COUNTERS,
    stageId: input.stageId,
    parentStageId: input.parentStageId,
    nodes: input.nodes ?? 1,
    totalSplits: input.totalSplits ?? 1,
    queuedSplits: input.totalSplits ?? 1,
  }),
  initial: 'PLANNED',
  states: {
    // Scheduled straight away: placing tasks on nodes (Trino's SCHEDULING) takes no time here, and a state
    // passed through with `always` cost a microstep per stage.
    PLANNED: {
      on: {
        'stage.schedule': 'SCHEDULED',
        'stage.progress': { actions: 'recordProgress' },
        'stage.cancel': 'CANCELED',
        'stage.abort': 'ABORTED',
        'stage.fail': 'FAILED',
      },
    },
    SCHEDULED: {
      on: {
        'stage.start': { target: 'RUNNING', actions: 'startSplits' },
        // The first progress report means work has started.
        'stage.progress': { target: 'RUNNING', actions: 'startWithProgress' },
        ...ACTIVE_ENDINGS,
      },
    },
    RUNNING: {
      on: { 'stage.progress': { actions: 'recordProgress' }, ...ACTIVE_ENDINGS },
    },
    // The ends take no more events, yet are not xstate final states: a final child sends its query an
    // `xstate.done.actor` event the query has no use for (one event per stage per query). The stage stops
    // with its query.
    FINISHED: {},
    CANCELED: {},
    ABORTED: {},
    FAILED: {},
  },
});
