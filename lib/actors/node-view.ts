// A node actor's snapshot reduced to plain data for /v1/node: its stats and whether it counts as failed.
// "failed" is derived from the state, as upstream isFailed(): disabled (GONE), never succeeded, over the
// failure ratio, or still warming up are all FAILED; only ALIVE is healthy.
import type { NodeStatsView } from '../protocol/node-stats.js';
import type { NodeSnapshot } from './node.machine.js';

export type { NodeStatsView };

/** The detector's three states, plus EXPIRED: gone for longer than the grace period (the actor is done). */
export type NodeState = 'ALIVE' | 'FAILED' | 'GONE' | 'EXPIRED';

export function nodeStateOf(snapshot: NodeSnapshot): NodeState {
  if (snapshot.matches('GONE')) return 'GONE';
  if (snapshot.matches('EXPIRED')) return 'EXPIRED';
  return snapshot.matches({ monitoring: 'ALIVE' }) ? 'ALIVE' : 'FAILED';
}

export function isNodeFailed(snapshot: NodeSnapshot): boolean {
  return nodeStateOf(snapshot) !== 'ALIVE';
}

/** Counters read at the node's clock now (they keep decaying between pings). */
export function nodeStatsView(snapshot: NodeSnapshot): NodeStatsView {
  const c = snapshot.context;
  const byType: Record<string, number> = {};
  for (const [type, counter] of Object.entries(c.failuresByType)) byType[type] = counter.count();
  return {
    uri: c.statusUri,
    recentRequests: c.requests.count(),
    recentFailures: c.failures.count(),
    recentSuccesses: c.successes.count(),
    recentFailuresByType: byType,
    startTime: c.startTime,
    lastRequestTime: c.lastRequestTime,
    lastResponseTime: c.lastResponseTime,
    ageMs: c.now() - c.startTime,
    lastFailure: c.lastFailure,
  };
}
