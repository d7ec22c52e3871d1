// GET /v1/cluster: prestodb's cluster summary (ClusterStatsResource), with the fields of every upstream
// version (prestodb's runningTasks and adjustedQueueSize, Trino's activeCoordinators and
// totalAvailableProcessors); Trino serves the same object at /ui/api/stats, which gateways read, and
// /ui/api/cluster (version, environment, uptime) to its web UI.
import { availableParallelism } from 'node:os';
import type Router from '@koa/router';
import type { Coordinator } from '../actors/coordinator.js';
import { heldBytes } from '../actors/memory-watch.js';
import { queryStateOf } from '../actors/query-view.js';
import type { TrackerContext } from '../actors/tracker.machine.js';
import { formatDuration } from '../protocol/duration.js';
import { totalCounters } from '../protocol/statement-stats.js';
import { vivaceVersion } from '../protocol/vivace-version.js';
import type { ServerState } from './info.routes.js';
import { sendJsonText } from './request-context.js';

/** The JSON of GET /v1/cluster; every field a number, as upstream's longs and double. */
export interface ClusterStats {
  runningQueries: number;
  blockedQueries: number;
  queuedQueries: number;
  activeCoordinators: number;
  activeWorkers: number;
  runningDrivers: number;
  runningTasks: number;
  totalAvailableProcessors: number;
  reservedMemory: number;
  totalInputRows: number;
  totalInputBytes: number;
  totalCpuTimeSecs: number;
  adjustedQueueSize: number;
}

/**
 * What finished queries consumed since the server started (upstream's QueryManagerStats counters): the
 * tracker's history only keeps the last ones, so each query is added once as it enters the history.
 * History grows at its end and expires from its front, so the entries after the last one counted (all of
 * them once that one expired) are the new ones. A query expired in the very step that recorded it (only
 * with query.max-history and query.min-expire-age both 0) is never seen.
 */
class FinishedQueryTotals {
  inputRows = 0;
  inputBytes = 0;
  cpuTimeMillis = 0;
  private lastCounted?: string;

  constructor(coordinator: Coordinator) {
    this.observe(coordinator.tracker.getSnapshot().context);
    coordinator.tracker.subscribe((snapshot) => this.observe(snapshot.context));
  }

  private observe({ history, queries }: TrackerContext): void {
    const newest = history.length - 1;
    if (newest < 0 || history[newest] === this.lastCounted) return;
    for (let i = newest; i >= 0 && history[i] !== this.lastCounted; i--) {
      const final = queries.get(history[i])?.final;
      if (!final) continue;
      const total = totalCounters(final);
      this.inputRows += total.physicalInputRows;
      this.inputBytes += total.physicalInputBytes;
      this.cpuTimeMillis += total.cpuTimeMillis;
    }
    this.lastCounted = history[newest];
  }
}

/** Upstream's loop over the queries: finished ones through `finished`, live ones as they are now. */
function clusterStats(coordinator: Coordinator, server: ServerState, finished: FinishedQueryTotals): ClusterStats {
  let runningQueries = 0;
  let blockedQueries = 0;
  let queuedQueries = 0;
  let runningDrivers = 0;
  let reservedMemory = 0;
  let inputRows = finished.inputRows;
  let inputBytes = finished.inputBytes;
  let cpuTimeMillis = finished.cpuTimeMillis;
  for (const tracked of coordinator.list()) {
    const snapshot = tracked.ref?.getSnapshot();
    if (!snapshot || snapshot.status !== 'active') continue; // done: counted in `finished`
    const state = queryStateOf(snapshot);
    const { results, limits } = snapshot.context;
    if (state === 'QUEUED') queuedQueries++;
    else if (state === 'RUNNING') {
      // Trino's "fully blocked": every page the query may buffer waits for its client, so it pulls no more rows.
      if (!results.exhausted && results.buffer.length >= limits.prefetchPages) blockedQueries++;
      else runningQueries++;
    }
    const total = totalCounters(coordinator.view(tracked));
    inputRows += total.physicalInputRows;
    inputBytes += total.physicalInputBytes;
    cpuTimeMillis += total.cpuTimeMillis;
    // As /v1/query renders them: a split of the root stage is the query's driver and its task.
    runningDrivers += total.runningSplits;
    // The bytes the query holds as far as the coordinator can tell (what its memory guard weighs).
    reservedMemory += heldBytes(snapshot.context);
  }
  const coordinatorActive = server.state === 'ACTIVE' ? 1 : 0;
  const activeAnnounced = coordinator.nodes().filter((n) => !n.failed).length;
  return {
    runningQueries,
    blockedQueries,
    queuedQueries,
    activeCoordinators: coordinatorActive,
    // Queries run on the coordinator itself (upstream's node-scheduler.include-coordinator=true, the
    // default): it counts as a worker, with every announced node its heartbeats find alive.
    activeWorkers: coordinatorActive + activeAnnounced,
    runningDrivers,
    runningTasks: runningDrivers,
    // Announced nodes do not report their processors (nor run queries): the coordinator's own.
    totalAvailableProcessors: availableParallelism(),
    reservedMemory,
    totalInputRows: inputRows,
    totalInputBytes: inputBytes,
    // Whole seconds of the summed milliseconds (upstream truncates each query's CPU time to seconds first).
    totalCpuTimeSecs: Math.floor(cpuTimeMillis / 1000),
    // prestodb's queue size adjusted across coordinators by its resource manager: a single coordinator has
    // no resource manager, and prestodb answers 0 then.
    adjustedQueueSize: 0,
  };
}

export function clusterRoutes(router: Router, coordinator: Coordinator, server: ServerState): void {
  const finished = new FinishedQueryTotals(coordinator);
  const stats = () => JSON.stringify(clusterStats(coordinator, server, finished));
  router.get('/v1/cluster', (ctx) => sendJsonText(ctx, 200, stats()));
  router.get('/ui/api/stats', (ctx) => sendJsonText(ctx, 200, stats()));
  router.get('/ui/api/cluster', (ctx) =>
    sendJsonText(
      ctx,
      200,
      JSON.stringify({
        nodeVersion: { version: vivaceVersion() },
        environment: coordinator.config.environment,
        uptime: formatDuration(coordinator.now() - coordinator.startTime),
      }),
    ),
  );
}
