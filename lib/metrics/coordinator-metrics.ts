// The coordinator's Prometheus registry: queries started and ended (failures by error type and name, a
// closed set), elapsed time, rows and bytes sent to clients, and gauges read at scrape time (queries
// running and queued, nodes alive and failed, recent heartbeat failures by type). A registry of its own
// per server, so that several servers can live in one process; Node's process metrics are shared.
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { TalliedHistogram, type HistogramTally } from './tallied-histogram.js';
import type { Coordinator } from '../actors/coordinator.js';
import { registerResourceGroupMetrics } from '../resource-groups/group-metrics.js';
import { queryStateOf, type QueryView } from '../actors/query-view.js';
import type { QueryEventListener } from './query-events.js';

export interface CoordinatorMetrics {
  readonly registry: Registry;
  /** Counts queries as the tracker reports them (see query-events.ts). */
  readonly queries: QueryEventListener;
  /** The exposition text: this coordinator's metrics, then the process's. */
  text(): Promise<string>;
  readonly contentType: string;
}

/** Seconds, from a SELECT 1 to the default query.max-run-time scale. */
const ELAPSED_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600];

/** Failure types are error codes or class names a worker's failure gave; past this many, 'other'. */
const MAX_FAILURE_TYPES = 32;
const FAILURE_TYPE_TEXT = /^[\w.$-]{1,64}$/;

let processRegistry: Registry | undefined;

/** Node's default metrics, registered once per process (each registration adds observers that live forever). */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

export function createCoordinatorMetrics(coordinator: Coordinator): CoordinatorMetrics {
  const registry = new Registry();
  const registers = [registry];
  // Counted in plain numbers and maps, handed to prom-client when scraped (see tallied-histogram.ts):
  // five prom-client calls per query, each validating and hashing its labels, cost more than the rest.
  const counts = { started: 0, finished: 0, rows: 0, bytes: 0 };
  const plainCounter = (name: string, help: string, count: () => number) =>
    new Counter({
      name,
      help,
      registers,
      collect() {
        this.reset();
        this.inc(count());
      },
    });
  plainCounter('vivace_queries_started_total', 'Queries submitted', () => counts.started);
  plainCounter('vivace_queries_finished_total', 'Queries that ended FINISHED', () => counts.finished);
  const failures = new Map<string, { labels: { error_type: string; error_name: string }; count: number }>();
  new Counter({
    name: 'vivace_queries_failed_total',
    help: 'Queries that ended FAILED, by error type and error name',
    labelNames: ['error_type', 'error_name'] as const,
    registers,
    collect() {
      this.reset();
      for (const { labels, count } of failures.values()) this.inc(labels, count);
    },
  });
  const elapsed = new TalliedHistogram({
    name: 'vivace_query_elapsed_seconds',
    help: 'Elapsed time of ended queries, from creation to end, by final state',
    labelNames: ['state'],
    buckets: ELAPSED_BUCKETS,
    registry,
  });
  const elapsedByState = new Map<string, HistogramTally>();
  plainCounter('vivace_output_rows_total', 'Rows sent to clients by ended queries', () => counts.rows);
  plainCounter('vivace_output_bytes_total', 'Bytes of rows sent to clients by ended queries', () => counts.bytes);

  new Gauge({
    name: 'vivace_queries_queued',
    help: 'Queries waiting for admission',
    registers,
    collect() {
      this.set(liveQueries(coordinator).queued);
    },
  });
  new Gauge({
    name: 'vivace_queries_running',
    help: 'Queries admitted and not yet ended (planning, starting, running or finishing)',
    registers,
    collect() {
      this.set(liveQueries(coordinator).running);
    },
  });
  registerResourceGroupMetrics(registers, () => coordinator.tracker.getSnapshot().context.dispatcher.getSnapshot().context.groups);
  new Gauge({
    name: 'vivace_nodes',
    help: 'Worker nodes the failure detector monitors, by health',
    labelNames: ['state'] as const,
    registers,
    collect() {
      let alive = 0;
      let failedNodes = 0;
      for (const node of coordinator.nodes()) {
        if (node.failed) failedNodes++;
        else alive++;
      }
      this.set({ state: 'alive' }, alive);
      this.set({ state: 'failed' }, failedNodes);
    },
  });
  new Gauge({
    name: 'vivace_node_heartbeat_failures_recent',
    help: 'Failed heartbeats of all nodes by failure type, as decaying one-minute counts (as /v1/node recentFailuresByType)',
    labelNames: ['type'] as const,
    registers,
    collect() {
      this.reset();
      for (const [type, count] of recentFailuresByType(coordinator)) this.set({ type }, count);
    },
  });

  const queries: QueryEventListener = {
    started: () => counts.started++,
    ended(view: QueryView) {
      const seconds = Math.max(0, (view.endTime ?? view.viewTime) - view.createTime) / 1000;
      let tally = elapsedByState.get(view.state);
      if (!tally) elapsedByState.set(view.state, (tally = elapsed.tally({ state: view.state })));
      tally.observe(seconds);
      if (view.error) {
        const { errorType, errorName } = view.error;
        const key = `${errorType}\n${errorName}`;
        const failure = failures.get(key);
        if (failure) failure.count++;
        else failures.set(key, { labels: { error_type: errorType, error_name: errorName }, count: 1 });
      } else {
        counts.finished++;
      }
      counts.rows += view.outputRows;
      counts.bytes += view.outputBytes;
    },
  };

  return {
    registry,
    queries,
    contentType: registry.contentType,
    async text() {
      return (await registry.metrics()) + (await processMetrics().metrics());
    },
  };
}

function liveQueries(coordinator: Coordinator): { queued: number; running: number } {
  let queued = 0;
  let running = 0;
  for (const tracked of coordinator.list()) {
    const snapshot = tracked.ref?.getSnapshot();
    if (!snapshot || snapshot.status !== 'active') continue;
    if (queryStateOf(snapshot) === 'QUEUED') queued++;
    else running++;
  }
  return { queued, running };
}

function recentFailuresByType(coordinator: Coordinator): Map<string, number> {
  const totals = new Map<string, number>();
  for (const node of coordinator.nodes()) {
    const byType = node.stats.recentFailuresByType;
    if (typeof byType !== 'object' || byType === null) continue;
    for (const [rawType, count] of Object.entries(byType as Record<string, unknown>)) {
      if (typeof count !== 'number') continue;
      const known = FAILURE_TYPE_TEXT.test(rawType) && (totals.has(rawType) || totals.size < MAX_FAILURE_TYPES);
      const type = known ? rawType : 'other';
      totals.set(type, (totals.get(type) ?? 0) + count);
    }
  }
  return totals;
}
