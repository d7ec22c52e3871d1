// One stage of a query: its lifecycle (the protocol's stage states) and the counters rolled up into stats.
// `done` is derived from the state (see isStageDone), never stored.
//
// An XState actor, spawned by its query and stopped with it, whose logic is a transition table rather than
// a state machine: a stage has flat states and one assign per event, and XState's machine logic built its
// state-node sets, entry and exit sets and a cloned snapshot for every event (issue 25: the stage machine
// was 47 of the 170 KiB the actor layer allocated per SELECT 1). The states, events and snapshot fields
// read (`value`, `context`, `status`) are the machine's.
import type { ActorLogic, ActorSystem, Snapshot } from 'xstate';
import { ZERO_COUNTERS, type StageCounters, type StageState } from '../protocol/states.js';
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

/** The stage states a stage passes through (SCHEDULING takes no time here: placing tasks is immediate). */
export type StageMachineState = Exclude<StageState, 'SCHEDULING'>;

/** A stage's snapshot: XState's status fields, its state as `value` (as a machine's) and its context. */
export type StageSnapshot = Snapshot<undefined> & { value: StageMachineState; context: StageContext };

/** XState's stop event, which a stopped actor's logic is given last. */
const XSTATE_STOP = 'xstate.stop';

/** The snapshot in `value` with `context`. */
function next(value: StageMachineState, context: StageContext): StageSnapshot {
  return { status: 'active', output: undefined, error: undefined, value, context };
}

/** What a scheduled or running stage does on one of its endings (finish, cancel, abort, fail); undefined for other events. */
function ending(snapshot: StageSnapshot, event: StageEvent): StageSnapshot | undefined {
  const c = snapshot.context;
  switch (event.type) {
    case 'stage.finish':
      // One copy of the context with the report's figures and the end's split counts (as xstate's assign did).
      return next('FINISHED', { ...c, ...event.counters, queuedSplits: 0, runningSplits: 0, completedSplits: c.totalSplits });
    case 'stage.cancel':
      return next('CANCELED', { ...c, queuedSplits: 0, runningSplits: 0 });
    case 'stage.abort':
      return next('ABORTED', { ...c, queuedSplits: 0, runningSplits: 0 });
    case 'stage.fail':
      return next('FAILED', { ...c, queuedSplits: 0, runningSplits: 0 });
    default:
      return undefined;
  }
}

/** The stage's transitions; an event a state does not take leaves the snapshot as it is. */
function transition(snapshot: StageSnapshot, event: StageEvent | { type: typeof XSTATE_STOP }): StageSnapshot {
  if (event.type === XSTATE_STOP) return snapshot.status === 'active' ? { ...snapshot, status: 'stopped' } : snapshot;
  if (snapshot.status !== 'active') return snapshot;
  const c = snapshot.context;
  switch (snapshot.value) {
    case 'PLANNED':
      switch (event.type) {
        case 'stage.schedule':
          return next('SCHEDULED', c);
        case 'stage.progress':
          return next('PLANNED', { ...c, ...event.counters });
        case 'stage.cancel':
          return next('CANCELED', c);
        case 'stage.abort':
          return next('ABORTED', c);
        case 'stage.fail':
          return next('FAILED', c);
        default:
          return snapshot;
      }
    case 'SCHEDULED':
      // The first progress report means work has started.
      if (event.type === 'stage.start') return next('RUNNING', { ...c, queuedSplits: 0, runningSplits: c.totalSplits - c.completedSplits });
      if (event.type === 'stage.progress') return next('RUNNING', { ...c, ...event.counters, queuedSplits: 0, runningSplits: c.totalSplits - c.completedSplits });
      return ending(snapshot, event) ?? snapshot;
    case 'RUNNING':
      if (event.type === 'stage.progress') return next('RUNNING', { ...c, ...event.counters });
      return ending(snapshot, event) ?? snapshot;
    // The ends take no more events, and are not done snapshots: a done child sends its query an
    // `xstate.done.actor` event the query has no use for. The stage stops with its query.
    default:
      return snapshot;
  }
}

/** XState's own default for an actor logic's system, named here so that the query machine's declared type can name it too. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnySystem = ActorSystem<any>;

/** The stage actor's logic (`stage` in the query machine's actors; createActor(stageMachine, { input }) alone). */
export const stageMachine: ActorLogic<StageSnapshot, StageEvent, StageInput, AnySystem> & { readonly id: 'stage' } = {
  id: 'stage',
  transition,
  getInitialSnapshot: (_scope, input) => ({
    status: 'active',
    output: undefined,
    error: undefined,
    value: 'PLANNED',
    context: {
      ...ZERO_COUNTERS,
      stageId: input.stageId,
      parentStageId: input.parentStageId,
      nodes: input.nodes ?? 1,
      totalSplits: input.totalSplits ?? 1,
      queuedSplits: input.totalSplits ?? 1,
    },
  }),
  getPersistedSnapshot: (snapshot) => snapshot,
};
