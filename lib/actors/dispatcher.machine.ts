// Admission control through resource groups (lib/resource-groups/resource-group-tree.ts, after Trino's
// InternalResourceGroup): a query is selected into a group, runs at once when its group and every ancestor
// can run more, waits QUEUED in its group otherwise, and past maxQueued fails QUERY_QUEUE_FULL. Without a
// resource-groups file, one group `global` holds every query with `maxRunning` and `maxQueued`: one queue
// in arrival order, as before. While held (the server is short of memory) nothing is admitted; queries keep
// queueing until resumed.
import { enqueueActions, setup, type AnyActorRef } from 'xstate';
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

export const dispatcherMachine = setup({
  types: {
    input: {} as DispatcherInput,
    context: {} as DispatcherContext,
    events: {} as DispatcherEvent,
  },
  actions: {
    // The tree and map are owned by this machine alone and updated in place.
    enqueue: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'dispatcher.enqueue') return;
      let outcome;
      try {
        outcome = context.groups.submit({ queryId: event.queryId, priority: event.priority ?? 1 }, event.criteria ?? ANONYMOUS);
      } catch (err) {
        enqueue.sendTo(event.query, { type: 'query.fail', error: VivaceError.from(err) });
        return;
      }
      if (outcome.state === 'rejected') {
        enqueue.sendTo(event.query, { type: 'query.fail', error: outcome.error });
        return;
      }
      context.queries.set(event.queryId, event.query);
      if (outcome.state === 'running') enqueue.sendTo(event.query, { type: 'query.admit' });
    }),
    release: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'dispatcher.release' || !context.queries.delete(event.queryId)) return;
      for (const id of context.groups.finish(event.queryId)) enqueue.sendTo(context.queries.get(id)!, { type: 'query.admit' });
    }),
    usage: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'dispatcher.usage') return;
      for (const id of context.groups.reportUsage(event.queryId, event)) enqueue.sendTo(context.queries.get(id)!, { type: 'query.admit' });
    }),
    quota: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'dispatcher.quota') return;
      for (const id of context.groups.generateQuotas(event.seconds)) enqueue.sendTo(context.queries.get(id)!, { type: 'query.admit' });
    }),
    configure: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'dispatcher.configure') return;
      for (const id of context.groups.reconfigure(event.resourceGroups)) enqueue.sendTo(context.queries.get(id)!, { type: 'query.admit' });
    }),
    hold: ({ context }) => context.groups.pause(),
    resume: enqueueActions(({ context, enqueue }) => {
      for (const id of context.groups.resume()) enqueue.sendTo(context.queries.get(id)!, { type: 'query.admit' });
    }),
  },
}).createMachine({
  id: 'dispatcher',
  context: ({ input }) => ({
    groups: new ResourceGroupTree(input.resourceGroups ?? globalGroupConfig(input.maxRunning, input.maxQueued), {
      ...(input.clusterMemoryBytes === undefined ? {} : { clusterMemoryBytes: input.clusterMemoryBytes }),
      ...(input.random ? { random: input.random } : {}),
    }),
    queries: new Map(),
  }),
  initial: 'dispatching',
  on: {
    'dispatcher.enqueue': { actions: 'enqueue' },
    'dispatcher.release': { actions: 'release' },
    'dispatcher.usage': { actions: 'usage' },
    'dispatcher.quota': { actions: 'quota' },
    'dispatcher.configure': { actions: 'configure' },
  },
  states: {
    dispatching: {
      on: { 'dispatcher.hold': { target: 'held', actions: 'hold' } },
    },
    held: {
      on: { 'dispatcher.resume': { target: 'dispatching', actions: 'resume' } },
    },
  },
});
