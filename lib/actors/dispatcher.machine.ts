// Admission control: at most `maxRunning` queries execute at once (each holds a DuckDB connection and a
// libuv thread), the rest wait in QUEUED in arrival order, and past `maxQueued` a query fails at once.
// While held (the server is short of memory) nothing is admitted; queries keep queueing until resumed.
import { assign, enqueueActions, setup, type AnyActorRef } from 'xstate';
import { VivaceError } from '../protocol/vivace-error.js';

export interface DispatcherInput {
  maxRunning: number;
  maxQueued: number;
}

export interface DispatcherContext extends DispatcherInput {
  /** ids of admitted queries that have not released yet */
  running: Set<string>;
  /** waiting queries, oldest first */
  queue: { queryId: string; query: AnyActorRef }[];
}

export type DispatcherEvent =
  | { type: 'dispatcher.enqueue'; queryId: string; query: AnyActorRef }
  | { type: 'dispatcher.release'; queryId: string }
  | { type: 'dispatcher.hold' }
  | { type: 'dispatcher.resume' };

export const dispatcherMachine = setup({
  types: {
    input: {} as DispatcherInput,
    context: {} as DispatcherContext,
    events: {} as DispatcherEvent,
  },
  guards: {
    hasCapacity: ({ context }) => context.running.size < context.maxRunning,
    queueFull: ({ context }) => context.queue.length >= context.maxQueued,
  },
  actions: {
    // The Set and array are owned by this machine alone; updating them in place keeps admission O(1)
    // with thousands of queued queries.
    admit: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'dispatcher.enqueue') return;
      context.running.add(event.queryId);
      enqueue.sendTo(event.query, { type: 'query.admit' });
    }),
    enqueue: assign(({ context, event }) => {
      if (event.type === 'dispatcher.enqueue') context.queue.push({ queryId: event.queryId, query: event.query });
      return {};
    }),
    reject: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'dispatcher.enqueue') return;
      enqueue.sendTo(event.query, {
        type: 'query.fail',
        error: new VivaceError('QUERY_QUEUE_FULL', `Too many queued queries for "global" (${context.maxQueued})`),
      });
    }),
    release: ({ context, event }) => {
      if (event.type !== 'dispatcher.release') return;
      if (!context.running.delete(event.queryId)) {
        const waiting = context.queue.findIndex((q) => q.queryId === event.queryId);
        if (waiting >= 0) context.queue.splice(waiting, 1);
      }
    },
    admitWaiting: enqueueActions(({ context, enqueue }) => {
      while (context.running.size < context.maxRunning && context.queue.length > 0) {
        const next = context.queue.shift()!;
        context.running.add(next.queryId);
        enqueue.sendTo(next.query, { type: 'query.admit' });
      }
    }),
  },
}).createMachine({
  id: 'dispatcher',
  context: ({ input }) => ({ ...input, running: new Set(), queue: [] }),
  initial: 'dispatching',
  states: {
    dispatching: {
      on: {
        'dispatcher.enqueue': [
          { guard: 'hasCapacity', actions: 'admit' },
          { guard: 'queueFull', actions: 'reject' },
          { actions: 'enqueue' },
        ],
        'dispatcher.release': { actions: ['release', 'admitWaiting'] },
        'dispatcher.hold': 'held',
      },
    },
    held: {
      on: {
        'dispatcher.enqueue': [{ guard: 'queueFull', actions: 'reject' }, { actions: 'enqueue' }],
        'dispatcher.release': { actions: 'release' },
        'dispatcher.resume': { target: 'dispatching', actions: 'admitWaiting' },
      },
    },
  },
});
