// The node object of GET /v1/node and /v1/node/failed (the seed's Node object, Trino's
// HeartbeatFailureDetector.Stats with ISO 8601 times), rendered from plain data.
import { isoTime as iso } from './iso-time.js';
import { formatDuration } from './duration.js';

/** One node's failure-detector statistics, already read off its counters (numbers are decayed counts). */
export interface NodeStatsView {
  /** The ping URI, `{node http}/v1/status`. */
  uri: string;
  recentRequests: number;
  recentFailures: number;
  recentSuccesses: number;
  /** Exception type name -> decayed count; empty when the node never failed. */
  recentFailuresByType: Record<string, number>;
  /** Epoch ms when monitoring began. */
  startTime: number;
  /** Epoch ms of the last ping sent; undefined before the first. */
  lastRequestTime?: number;
  /** Epoch ms of the last ping answered or failed; undefined before the first. */
  lastResponseTime?: number;
  /** Milliseconds since monitoring began. */
  ageMs: number;
  /** The most recent failed ping; undefined when the node never failed. */
  lastFailure?: { type: string; message: string; stack: string[] };
}


/**
 * The node object. Upstream omits the two times before the first ping; the seed's object always has them, so
 * until then they show the time monitoring began. The ratio is failures / requests (0 without requests) and
 * is capped at 1: a failure counted in a later second than its request would otherwise push it just over.
 */
export function renderNodeStats(n: NodeStatsView): Record<string, unknown> {
  const body: Record<string, unknown> = {
    uri: n.uri,
    recentRequests: n.recentRequests,
    recentFailures: n.recentFailures,
    recentSuccesses: n.recentSuccesses,
    recentFailureRatio: n.recentRequests > 0 ? Math.min(1, n.recentFailures / n.recentRequests) : 0,
    lastRequestTime: iso(n.lastRequestTime ?? n.startTime),
    lastResponseTime: iso(n.lastResponseTime ?? n.startTime),
    age: formatDuration(n.ageMs),
    recentFailuresByType: { ...n.recentFailuresByType },
  };
  if (n.lastFailure) {
    body.lastFailureInfo = {
      message: n.lastFailure.message,
      stack: [...n.lastFailure.stack],
      suppressed: [],
      type: n.lastFailure.type,
    };
  }
  return body;
}
