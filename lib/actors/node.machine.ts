// One worker node as the coordinator's failure detector sees it (upstream HeartbeatFailureDetector.MonitoringTask):
// a HEAD {node}/v1/status ping every heartbeat interval, decaying counters, and ALIVE / FAILED / GONE.
// "failed" is derived from the state (node-view.ts isNodeFailed), never stored.
// The pings are sent by a HeartbeatScheduler shared by every node actor (one timer for all of them): the
// actor registers while it is monitoring and receives each outcome as one node.pinged event.
import { assign, not, setup, type ActorRefFrom, type SnapshotFrom } from 'xstate';
import { DecayCounter } from '../cluster/decay-counter.js';
import { pingFailureOf, statusUri, type PingFailure } from '../cluster/heartbeat-ping.js';
import type { HeartbeatScheduler, PingResult } from '../cluster/heartbeat-scheduler.js';

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
  /** Sends this node's pings (shared by every node of a coordinator). */
  scheduler: HeartbeatScheduler;
  heartbeatIntervalMs?: number;
  /** The node is failed while recentFailureRatio exceeds this. */
  failureThreshold?: number;
  /** Time a node stays FAILED after its ratio falls back under the threshold (not after its first success). */
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
  /** A ping ended (sent by the scheduler): record it and re-evaluate health in the same step. */
  | ({ type: 'node.pinged' } & PingResult);

type PingedEvent = Extract<NodeEvent, { type: 'node.pinged' }>;
type PingStats = Pick<NodeContext, 'requests' | 'successes' | 'failures' | 'failuresByType' | 'lastRequestTime' | 'lastResponseTime' | 'lastFailure'>;

/** recentFailures / recentRequests; 0 before the first request. Can slightly exceed 1 (see node-stats.ts). */
export function failureRatio(context: Pick<NodeContext, 'requests' | 'failures'>): number {
  const requests = context.requests.count();
  return requests > 0 ? context.failures.count() / requests : 0;
}

/**
 * The stats with one more ping recorded. Pure, so that the guard can judge health on the stats after the
 * ping and the action can store them, in one transition. The request is counted when its outcome arrives
 * (upstream counts it when sent): the same second unless the ping straddles one, and never in flight.
 */
function withPing(context: NodeContext, event: PingedEvent): PingStats {
  // The guard and the action of one transition see the same context and event object: compute once.
  const cached = recorded.get(event);
  if (cached?.context === context) return cached.stats;
  const stats = computeWithPing(context, event);
  recorded.set(event, { context, stats });
  return stats;
}

const recorded = new WeakMap<PingedEvent, { context: NodeContext; stats: PingStats }>();

function computeWithPing(context: NodeContext, event: PingedEvent): PingStats {
  // Answers can arrive out of order when a node is slow (pings go out at a fixed rate): times only move on.
  const lastRequestTime = Math.max(event.requestTime, context.lastRequestTime ?? event.requestTime);
  const stats = { requests: context.requests.plus(1), lastRequestTime, lastResponseTime: event.responseTime };
  if (!event.failed) return { ...stats, successes: context.successes.plus(1), failures: context.failures, failuresByType: context.failuresByType, lastFailure: context.lastFailure };
  const failure = pingFailureOf(event.error);
  const previous = context.failuresByType[failure.type] ?? new DecayCounter(1 / 60, context.now);
  return {
    ...stats,
    successes: context.successes,
    failures: context.failures.plus(1),
    failuresByType: { ...context.failuresByType, [failure.type]: previous.plus(1) },
    lastFailure: failure,
  };
}

/** Record the ping, and go to `target` when `over` says whether the ratio after it exceeds the threshold. */
function onPing(over: boolean, target: string) {
  const guard = over ? 'overThresholdAfterPing' : not('overThresholdAfterPing');
  return [{ guard, target, actions: 'recordPing' }, { actions: 'recordPing' }] as const;
}

export const nodeMachine = setup({
  types: {
    input: {} as NodeInput,
    context: {} as NodeContext,
    events: {} as NodeEvent,
  },
  delays: {
    warmup: ({ context }) => Math.min(MAX_TIMER_MS, context.warmupMs),
    expirationGrace: ({ context }) => Math.min(MAX_TIMER_MS, context.expirationGraceMs),
  },
  guards: {
    overThresholdAfterPing: ({ context, event }) => event.type === 'node.pinged' && failureRatio(withPing(context, event)) > context.failureThreshold,
  },
  actions: {
    recordPing: assign(({ context, event }) => (event.type === 'node.pinged' ? withPing(context, event) : {})),
    watch: ({ context, self }) =>
      context.scheduler.watch(self, {
        uri: context.statusUri,
        intervalMs: context.heartbeatIntervalMs,
        timeoutMs: context.pingTimeoutMs,
        deliver: (result) => {
          if (self.getSnapshot().status === 'active') self.send({ type: 'node.pinged', ...result });
          else context.scheduler.unwatch(self); // stopped without leaving monitoring
        },
      }),
    unwatch: ({ context, self }) => context.scheduler.unwatch(self),
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
      scheduler: input.scheduler,
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
    // Pinged every heartbeat interval. Upstream updateState/isFailed after each ping: over the threshold -> no
    // success transition; under it -> a success transition, but the node stays failed for the warm-up.
    // Never succeeded = FAILED. A new node's first success makes it ALIVE at once (STARTING): Trino's
    // default node inventory (discovery.type=announce) counts a node active as soon as it announced and
    // answers, and the airlift detector only monitors a node from its next 5 s refresh; the warm-up damps
    // a node that comes back from a failure, not one that just started (it kept `make run` from taking
    // statements for its first 5 to 8 s).
    monitoring: {
      entry: 'watch',
      exit: 'unwatch',
      on: { 'node.gone': 'GONE' },
      initial: 'FAILED',
      states: {
        FAILED: {
          initial: 'STARTING',
          states: {
            STARTING: { on: { 'node.pinged': onPing(false, '#node.monitoring.ALIVE') } },
            UNHEALTHY: { on: { 'node.pinged': onPing(false, 'WARMING_UP') } },
            WARMING_UP: {
              after: { warmup: '#node.monitoring.ALIVE' },
              on: { 'node.pinged': onPing(true, 'UNHEALTHY') },
            },
          },
        },
        ALIVE: { on: { 'node.pinged': onPing(true, 'FAILED.UNHEALTHY') } },
        // Where a node that comes back from GONE resumes (a WARMING_UP node restarts its warm-up).
        previous: { type: 'history', history: 'deep', target: 'FAILED' },
      },
    },
    // Gone from discovery: no pings, still listed (as failed) until the grace period ends.
    GONE: {
      on: { 'node.announced': '#node.monitoring.previous' },
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
