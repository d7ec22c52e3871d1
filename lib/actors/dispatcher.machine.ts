// Admission control through resource groups (lib/resource-groups/resource-group-tree.ts, after Trino's
// InternalResourceGroup): a query is selected into a group, runs at once when its group and every ancestor
// can run more, waits QUEUED in its group otherwise, and past maxQueued fails QUERY_QUEUE_FULL. Without a
// resource-groups file, one group `global` holds every query with `maxRunning` and `maxQueued`: one queue
// in arrival order, as before. While held (the server is short of memory) nothing is admitted; queries keep
// queueing until resumed.
import type { ActorLogic, ActorScope, ActorSystem, AnyActorRef, Snapshot } from 'xstate';
import { VivaceError } from '../protocol/vivace-error.js';
import type { ResourceGroupsConfig } from '../resource-groups/resource-groups-config.js';
import { ResourceGroupTree, globalGroupConfig, type SelectionCriteria } from '../resource-groups/resource-group-tree.js';

export interface DispatcherInput {
  maxRunning: number;
  maxQueued: number;
  /** resource-groups.config-file, read (absent: the single `global` group) */
  resourceGroups?: ResourceGroupsConfig;
  /** the cluster's memory, for softMemoryLimit percentages */
  clusterMemoryBytes?: number;
  /** for `weighted` draws (specs pass a seeded one) */
  random?: () => number;
}

export interface DispatcherContext {
  groups: ResourceGroupTree;
  /** every admitted or queued query's actor, to tell it when it starts */
  queries: Map<string, AnyActorRef>;
}

export type DispatcherEvent =
  | { type: 'dispatcher.enqueue'; queryId: string; query: AnyActorRef; criteria?: SelectionCriteria; priority?: number }
  | { type: 'dispatcher.release'; queryId: string }
  | { type: 'dispatcher.usage'; queryId: string; memoryBytes: number; cpuMillis: number }
  | { type: 'dispatcher.quota'; seconds: number }
  | { type: 'dispatcher.configure'; resourceGroups: ResourceGroupsConfig }
  | { type: 'dispatcher.hold' }
  | { type: 'dispatcher.resume' };

/** A query with no session to select on (specs driving the dispatcher alone). */
const ANONYMOUS: SelectionCriteria = { user: '' };

/** Dispatching, or held (nothing admitted until resumed). */
export type DispatcherState = 'dispatching' | 'held';

/** The dispatcher's snapshot: XState's status fields, its state as `value` (as a machine's) and its context. */
export type DispatcherSnapshot = Snapshot<undefined> & { value: DispatcherState; context: DispatcherContext };

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnySystem = ActorSystem<any>;
type Scope = ActorScope<DispatcherSnapshot, DispatcherEvent, AnySystem>;

/** Tells `queries` (ids in the context's map) they are admitted, once the transition is over (as xstate's sendTo). */
function admit(scope: Scope, context: DispatcherContext, ids: Iterable<string>): void {
  for (const id of ids) {
    const query = context.queries.get(id)!;
    scope.defer(() => query.send({ type: 'query.admit' }));
  }
}

function enqueue(scope: Scope, context: DispatcherContext, event: Extract<DispatcherEvent, { type: 'dispatcher.enqueue' }>): void {
  let outcome;
  try {
    outcome = context.groups.submit({ queryId: event.queryId, priority: event.priority ?? 1 }, event.criteria ?? ANONYMOUS);
  } catch (err) {
    scope.defer(() => event.query.send({ type: 'query.fail', error: VivaceError.from(err) }));
    return;
  }
  if (outcome.state === 'rejected') {
    const { error } = outcome;
    scope.defer(() => event.query.send({ type: 'query.fail', error }));
    return;
  }
  context.queries.set(event.queryId, event.query);
  if (outcome.state === 'running') scope.defer(() => event.query.send({ type: 'query.admit' }));
}

/**
 * The dispatcher's transitions. The tree and map are owned by this actor alone and updated in place, so
 * the snapshot stays the same object but for a change of state (dispatching, held).
 */
function transition(snapshot: DispatcherSnapshot, event: DispatcherEvent | { type: 'xstate.stop' }, scope: Scope): DispatcherSnapshot {
  if (event.type === 'xstate.stop') return snapshot.status === 'active' ? { ...snapshot, status: 'stopped' } : snapshot;
  if (snapshot.status !== 'active') return snapshot;
  const { context } = snapshot;
  switch (event.type) {
    case 'dispatcher.enqueue':
      enqueue(scope, context, event);
      return snapshot;
    case 'dispatcher.release':
      if (context.queries.delete(event.queryId)) admit(scope, context, context.groups.finish(event.queryId));
      return snapshot;
    case 'dispatcher.usage':
      admit(scope, context, context.groups.reportUsage(event.queryId, event));
      return snapshot;
    case 'dispatcher.quota':
      admit(scope, context, context.groups.generateQuotas(event.seconds));
      return snapshot;
    case 'dispatcher.configure':
      admit(scope, context, context.groups.reconfigure(event.resourceGroups));
      return snapshot;
    case 'dispatcher.hold':
      if (snapshot.value !== 'dispatching') return snapshot;
      context.groups.pause();
      return { ...snapshot, value: 'held' };
    case 'dispatcher.resume':
      if (snapshot.value !== 'held') return snapshot;
      admit(scope, context, context.groups.resume());
      return { ...snapshot, value: 'dispatching' };
    default:
      return snapshot;
  }
}

/**
 * The dispatcher actor's logic (spawned by the tracker as `dispatcher`): a transition table rather than a
 * state machine. Two events per query (enqueue, release) made two machine microsteps, each building
 * XState's state-node sets and a cloned snapshot, about 10 KiB allocated apiece (issue 25).
 */
export const dispatcherMachine: ActorLogic<DispatcherSnapshot, DispatcherEvent, DispatcherInput, AnySystem> & { readonly id: 'dispatcher' } = {
  id: 'dispatcher',
  transition,
  getInitialSnapshot: (_scope, input) => ({
    status: 'active',
    output: undefined,
    error: undefined,
    value: 'dispatching',
    context: {
      groups: new ResourceGroupTree(input.resourceGroups ?? globalGroupConfig(input.maxRunning, input.maxQueued), {
        ...(input.clusterMemoryBytes === undefined ? {} : { clusterMemoryBytes: input.clusterMemoryBytes }),
        ...(input.random ? { random: input.random } : {}),
      }),
      queries: new Map(),
    },
  }),
  getPersistedSnapshot: (snapshot) => snapshot,
};
