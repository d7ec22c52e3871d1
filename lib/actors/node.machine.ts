// One worker node as the coordinator's failure detector sees it (upstream HeartbeatFailureDetector.MonitoringTask):
// a HEAD {node}/v1/status ping every heartbeat interval, decaying counters, and ALIVE / FAILED / GONE.
// "failed" is derived from the state (node-view.ts isNodeFailed), never stored.
import { assign, fromPromise, not, raise, setup, type ActorRefFrom, type SnapshotFrom } from 'xstate';
import { DecayCounter } from '../cluster/decay-counter.js';
import { pingFailureOf, pingStatus, statusUri, type PingFailure } from '../cluster/heartbeat-ping.js';

/** Longest delay a Node timer can hold. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Upstream FailureDetectorConfig defaults. */
export const NODE_MONITOR_DEFAULTS = {
  heartbeatIntervalMs: 500,
  failureThreshold: 0.1,
  warmupMs: 5_000,
  expirationGraceMs: 600_000,
  pingTimeoutMs: 1_000,
} as const;

export interface NodeInput {
  nodeId: string;
  /** HTTP base of the node, e.g. http://10.0.0.7:8081; the ping goes to {uri}/v1/status. */
  uri: string;
  /** Epoch-millisecond clock; specs pass one driven by SimulatedClock. */
  now: () => number;
  heartbeatIntervalMs?: number;
  /** The node is failed while recentFailureRatio exceeds this. */
  failureThreshold?: number;
  /** Time a node stays FAILED after its ratio falls back under the threshold (and after its first ping). */
  warmupMs?: number;
  /** How long a node gone from discovery is remembered before the actor ends. */
  expirationGraceMs?: number;
  /** A ping without an answer by then is a failure ('TimeoutError'). */
  pingTimeoutMs?: number;
}

export interface NodeContext extends Required<NodeInput> {
  /** The ping URI, {uri}/v1/status: what the node object shows as `uri`. */
  statusUri: string;
  /** Epoch ms when monitoring began (the node object's `age`). */
  startTime: number;
  // Counters are replaced, never mutated (DecayCounter.plus), so each snapshot keeps its own.
  requests: DecayCounter;
  successes: DecayCounter;
  failures: DecayCounter;
  failuresByType: Readonly<Record<string, DecayCounter>>;
  lastRequestTime?: number;
  lastResponseTime?: number;
  lastFailure?: PingFailure;
}

export type NodeEvent =
  /** Discovery lists the node (again): brings a GONE node back to monitoring; a no-op otherwise. */
  | { type: 'node.announced' }
  /** Discovery no longer lists the node: stop pinging, expire after the grace period. */
  | { type: 'node.gone' }
  /** A ping result was recorded: re-evaluate health (raised by the machine itself). */
  | { type: 'node.heartbeat' };

export interface PingInput {
  uri: string;
  timeoutMs: number;
}

/** recentFailures / recentRequests; 0 before the first request. Can slightly exceed 1 (see node-stats.ts). */
export function failureRatio(context: Pick<NodeContext, 'requests' | 'failures'>): number {
  const requests = context.requests.count();
  return requests > 0 ? context.failures.count() / requests : 0;
}

export const nodeMachine = setup({
  types: {
    input: {} as NodeInput,
    context: {} as NodeContext,
    events: {} as NodeEvent,
  },
  actors: {
    // Resolves with the HTTP status of any response; rejects on a transport error or timeout.
    pingNode: fromPromise<number, PingInput>(({ input, signal }) => pingStatus(input.uri, input.timeoutMs, signal)),
  },
  delays: {
    // Fixed rate while pings answer within the interval: the next ping is due one interval after the last
    // one started. A slower ping delays the next (pings never overlap, unlike upstream's async client).
    nextPing: ({ context }) => {
      if (context.lastRequestTime === undefined) return context.heartbeatIntervalMs;
      const due = context.lastRequestTime + context.heartbeatIntervalMs - context.now();
      return Math.min(context.heartbeatIntervalMs, Math.max(0, due));
    },
    warmup: ({ context }) => Math.min(MAX_TIMER_MS, context.warmupMs),
    expirationGrace: ({ context }) => Math.min(MAX_TIMER_MS, context.expirationGraceMs),
  },
  guards: {
    overThreshold: ({ context }) => failureRatio(context) > context.failureThreshold,
  },
  actions: {
    recordRequest: assign(({ context }) => ({ requests: context.requests.plus(1), lastRequestTime: context.now() })),
    recordSuccess: assign(({ context }) => ({ successes: context.successes.plus(1), lastResponseTime: context.now() })),
    recordFailure: assign(({ context }, params: { error: unknown }) => {
      const failure = pingFailureOf(params.error);
      const previous = context.failuresByType[failure.type] ?? new DecayCounter(1 / 60, context.now);
      return {
        failures: context.failures.plus(1),
        failuresByType: { ...context.failuresByType, [failure.type]: previous.plus(1) },
        lastResponseTime: context.now(),
        lastFailure: failure,
      };
    }),
    evaluateHealth: raise({ type: 'node.heartbeat' }),
  },
}).createMachine({
  id: 'node',
  context: ({ input }) => {
    const now = input.now;
    return {
      ...NODE_MONITOR_DEFAULTS,
      ...definedOnly(input),
      nodeId: input.nodeId,
      uri: input.uri,
      now,
      statusUri: statusUri(input.uri),
      startTime: now(),
      requests: new DecayCounter(1 / 60, now),
      successes: new DecayCounter(1 / 60, now),
      failures: new DecayCounter(1 / 60, now),
      failuresByType: {},
    };
  },
  initial: 'monitoring',
  states: {
    monitoring: {
      type: 'parallel',
      on: { 'node.gone': 'GONE' },
      states: {
        heartbeat: {
          initial: 'waiting',
          states: {
            waiting: { after: { nextPing: 'pinging' } },
            pinging: {
              entry: 'recordRequest',
              invoke: {
                id: 'ping',
                src: 'pingNode',
                input: ({ context }) => ({ uri: context.statusUri, timeoutMs: context.pingTimeoutMs }),
                onDone: { target: 'waiting', actions: ['recordSuccess', 'evaluateHealth'] },
                onError: {
                  target: 'waiting',
                  actions: [{ type: 'recordFailure', params: ({ event }) => ({ error: event.error }) }, 'evaluateHealth'],
                },
              },
            },
          },
        },
        // Upstream updateState/isFailed after each ping: over the threshold -> no success transition; under it
        // -> a success transition, but the node stays failed for the warm-up. Never succeeded = FAILED.
        health: {
          initial: 'FAILED',
          states: {
            FAILED: {
              initial: 'UNHEALTHY',
              states: {
                UNHEALTHY: {
                  on: { 'node.heartbeat': { guard: not('overThreshold'), target: 'WARMING_UP' } },
                },
                WARMING_UP: {
                  after: { warmup: '#node.monitoring.health.ALIVE' },
                  on: { 'node.heartbeat': { guard: 'overThreshold', target: 'UNHEALTHY' } },
                },
              },
            },
            ALIVE: {
              on: { 'node.heartbeat': { guard: 'overThreshold', target: 'FAILED' } },
            },
            // Where a node that comes back from GONE resumes (a WARMING_UP node restarts its warm-up).
            previous: { type: 'history', history: 'deep', target: 'FAILED' },
          },
        },
      },
    },
    // Gone from discovery: no pings, still listed (as failed) until the grace period ends.
    GONE: {
      on: { 'node.announced': '#node.monitoring.health.previous' },
      after: { expirationGrace: 'EXPIRED' },
    },
    EXPIRED: { type: 'final' },
  },
});

/** Input fields that were given, so that an explicit `undefined` does not override a default. */
function definedOnly(input: NodeInput): Partial<NodeInput> {
  return Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) as Partial<NodeInput>;
}

export type NodeActorRef = ActorRefFrom<typeof nodeMachine>;
export type NodeSnapshot = SnapshotFrom<typeof nodeMachine>;
