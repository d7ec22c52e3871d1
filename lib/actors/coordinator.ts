// The coordinator as a library: one actor system (tracker -> dispatcher, queries -> stages) over an engine.
// HTTP routes and test harnesses use this API: they send events and read snapshots, nothing else.
import { createActor, type ActorOptions, type AnyActorRef } from 'xstate';
import type { Engine } from '../engine/engine.types.js';
import type { Session } from '../protocol/types.js';
import { QueryIdGenerator } from '../protocol/query-id.js';
import { defaultConfig, type CoordinatorConfig } from '../config.js';
import { renderNodeStats } from '../protocol/node-stats.js';
import { nodeMachine, type NodeActorRef } from './node.machine.js';
import { pingStatus, type PingTransport } from '../cluster/heartbeat-ping.js';
import { HeartbeatScheduler } from '../cluster/heartbeat-scheduler.js';
import { isNodeFailed, nodeStatsView } from './node-view.js';
import { onLateEngineWork, queryMachine, type QueryActorRef, type QueryLimits, type QuerySnapshot } from './query.machine.js';
import { sessionPropertyValue, validateSessionProperties } from '../protocol/session-properties.js';
import { VivaceError } from '../protocol/vivace-error.js';
import { dialectOf } from '../protocol/header-prefix.js';
import { parseDataSize } from '../protocol/data-size.js';
import { stageSnapshotsOf, toQueryView, type QueryView } from './query-view.js';
import { startIdleCollector } from './idle-collector.js';
import { selectionOf } from '../resource-groups/selection.js';
import { trackerMachine, type TrackedQuery, type TrackerActorRef, type TrackerInput } from './tracker.machine.js';
import type { QueryHistoryStore } from '../history/history-store.js';
import { watchQueryEvents } from '../metrics/query-events.js';

export interface CoordinatorOptions {
  engine: Engine;
  config?: Partial<CoordinatorConfig>;
  /** timer clock for every actor (SimulatedClock in specs) */
  clock?: ActorOptions<typeof trackerMachine>['clock'];
  /** epoch-millisecond time source matching `clock` */
  now?: () => number;
  /** The process's resident bytes (default process.memoryUsage.rss), checked against coordinator.max-resident-memory. */
  readRss?: () => number;
  /** How the failure detector pings worker nodes (default: HEAD {node}/v1/status over HTTP). */
  pingTransport?: PingTransport;
  /** Whether the cluster can take statements yet (serve's ClusterSizeMonitor); absent: it always can. */
  cluster?: ClusterStartup;
  /** Resource groups (resource-groups.config-file, read); absent: one `global` group with the query limits. */
  resourceGroups?: TrackerInput['resourceGroups'];
  /** A user's groups for the selectors' userGroup (etc/group-provider.properties); absent: none. */
  userGroups?: (user: string) => readonly string[];
  /** The durable query history (serve: `<data.directory>/history`); absent: none. */
  history?: QueryHistoryStore;
  /** Sees every event and transition of the tracker, the dispatcher, the queries and their stages (xstate inspection). */
  inspect?: ActorOptions<typeof trackerMachine>['inspect'];
}

/** The start of a cluster: over once its required workers were active (query-manager.required-workers). */
export interface ClusterStartup {
  /** True until then: /v1/info's `starting`. */
  readonly starting: boolean;
  /** Resolves true once the start is over, false if `timeoutMs` passes first. */
  whenStarted(timeoutMs: number): Promise<boolean>;
}

export interface Coordinator {
  readonly config: CoordinatorConfig;
  readonly engine: Engine;
  readonly tracker: TrackerActorRef;
  readonly startTime: number;
  /** The cluster's start, when the coordinator has one to wait for (its workers). */
  readonly cluster?: ClusterStartup;
  /** The durable history of finished queries, when kept. */
  readonly history?: QueryHistoryStore;
  now(): number;
  /** Create a query; it queues for admission at once. Returns its id. */
  submit(sql: string, session: Session): string;
  /** As submit, also giving the query's view as submitted (before admission, planning or any failure). */
  start(sql: string, session: Session): { tracked: TrackedQuery; asSubmitted: () => QueryView };
  /** A query the coordinator still knows (live or in history). */
  lookup(queryId: string): TrackedQuery | undefined;
  /** Every known query, oldest first. */
  list(): TrackedQuery[];
  /** Current view of a tracked query. */
  view(tracked: TrackedQuery): QueryView;
  /**
   * Resolve once `predicate` holds for the live query, it ends, or `timeoutMs` passes, with the query's
   * view at that moment.
   */
  waitFor(tracked: TrackedQuery, predicate: (snapshot: QuerySnapshot) => boolean, timeoutMs: number): Promise<QueryView>;
  /** Worker nodes with their heartbeat stats (the node object of /v1/node) and health. */
  nodes(): NodeHealth[];
  /**
   * A number that changes whenever what nodes() says of health could have: a node announced, forgotten,
   * expired, or judged failed or alive again. A worker list built from nodes() is current while it holds.
   */
  nodesVersion(): number;
  /** Start monitoring a worker node (announced by discovery); again for a known node refreshes it. */
  announceNode(nodeId: string, uri: string): void;
  /** The node left discovery: it is forgotten after the expiration grace. */
  forgetNode(nodeId: string): void;
  /** Spooling protocol: worker `nodeId`, gone, held segments of `queryId` (a warning in its query info). */
  spooledSegmentsLost(queryId: string, nodeId: string): void;
  /** Whether worker `nodeId` was lost with spooled segments of `queryId` (a query the coordinator still knows). */
  spooledSegmentsLostOn(queryId: string, nodeId: string): boolean;
  /** The client polled: keeps the query from being abandoned (recorded at most once a second). */
  heartbeat(tracked: TrackedQuery): void;
  /** Number of live query actors (for leak checks). */
  liveQueryCount(): number;
  stop(): Promise<void>;
}

/** The properties' defaults, decoded once rather than for every query. */
const DEFAULT_QUERY_MAX_RUN_TIME = sessionPropertyValue({ properties: {} }, 'query_max_run_time');
const DEFAULT_QUERY_MAX_PLANNING_TIME = sessionPropertyValue({ properties: {} }, 'query_max_planning_time');
const DEFAULT_QUERY_MAX_EXECUTION_TIME = sessionPropertyValue({ properties: {} }, 'query_max_execution_time');

/** The limits of one query: the coordinator's, tightened by the session's properties. */
export function queryLimits(config: CoordinatorConfig, session: Session): QueryLimits {
  validateSessionProperties(session.properties, dialectOf(session.prefix));
  const has = (name: string) => Object.hasOwn(session.properties, name);
  const limits: QueryLimits = {
    maxRunTimeMs: Math.min(config.maxRunTimeMs, has('query_max_run_time') ? sessionPropertyValue(session, 'query_max_run_time') : DEFAULT_QUERY_MAX_RUN_TIME),
    maxPlanningTimeMs: Math.min(config.maxPlanningTimeMs, has('query_max_planning_time') ? sessionPropertyValue(session, 'query_max_planning_time') : DEFAULT_QUERY_MAX_PLANNING_TIME),
    maxExecutionTimeMs: Math.min(config.maxExecutionTimeMs, has('query_max_execution_time') ? sessionPropertyValue(session, 'query_max_execution_time') : DEFAULT_QUERY_MAX_EXECUTION_TIME),
    targetResultBytes: has('target_result_size') ? sessionPropertyValue(session, 'target_result_size') : config.targetResultBytes,
    prefetchPages: config.prefetchPages,
  };
  if (has('query_max_memory')) {
    // Pages shrink so the buffered ones fit; only a row larger than its share exceeds the limit.
    limits.maxMemoryBytes = sessionPropertyValue(session, 'query_max_memory');
    limits.targetResultBytes = Math.max(1, Math.min(limits.targetResultBytes, Math.floor(limits.maxMemoryBytes / limits.prefetchPages)));
  }
  return limits;
}

/** coordinator.max-resident-memory, by default DuckDB's memory limit plus 1 GB for Node and result buffers. */
export function maxResidentMemoryBytes(config: CoordinatorConfig): number {
  return config.maxResidentMemoryBytes ?? parseDataSize(config.engineMemoryLimit) + (1 << 30);
}

export interface NodeHealth {
  nodeId: string;
  stats: Record<string, unknown>;
  failed: boolean;
}

/** Heartbeats closer together than this change nothing the 5-minute client timeout could notice. */
const HEARTBEAT_RESOLUTION_MS = 1000;

export function createCoordinator(options: CoordinatorOptions): Coordinator {
  const config = { ...defaultConfig(), ...options.config };
  const now = options.now ?? Date.now;
  const ids = new QueryIdGenerator(now);
  const clockOption = options.clock ? { clock: options.clock } : {};
  const actorOptions = { ...clockOption, ...(options.inspect ? { inspect: options.inspect } : {}) };
  const memory = { limitBytes: maxResidentMemoryBytes(config), readRss: options.readRss ?? (() => process.memoryUsage.rss()) };
  const tracker = createActor(trackerMachine, { ...actorOptions, input: { limits: config, now, memory, ...(options.resourceGroups ? { resourceGroups: options.resourceGroups } : {}) } });
  tracker.start();
  const dispatcher = tracker.getSnapshot().context.dispatcher;
  const startTime = now();

  const queries = () => tracker.getSnapshot().context.queries;
  const nodeActors = new Map<string, NodeActorRef>();
  let nodesVersion = 0;
  // One timer and one ping sender for every node actor (see heartbeat-scheduler.ts).
  const heartbeats = new HeartbeatScheduler({ ping: options.pingTransport ?? pingStatus, now, ...clockOption });
  /** A node actor started, its failed verdict and its end counted in nodesVersion. */
  const startNode = (nodeId: string, uri: string): NodeActorRef => {
    const ref = createActor(nodeMachine, { ...actorOptions, input: { nodeId, uri, now, scheduler: heartbeats } }).start();
    let failed = isNodeFailed(ref.getSnapshot());
    ref.subscribe({
      next: (snapshot) => {
        const nowFailed = isNodeFailed(snapshot);
        if (nowFailed !== failed) nodesVersion++;
        failed = nowFailed;
      },
      complete: () => nodesVersion++,
      error: () => nodesVersion++,
    });
    return ref;
  };
  let finishedQueries = 0;
  let liveQueries = 0;
  const stopIdleCollector = startIdleCollector({
    intervalMs: 500,
    minFinishedQueries: 100,
    liveQueries: () => liveQueries,
    finishedQueries: () => finishedQueries,
  });
  const view = (tracked: TrackedQuery): QueryView => tracked.final ?? toQueryView(tracked.ref!.getSnapshot());

  const start = (sql: string, session: Session): { tracked: TrackedQuery; asSubmitted: () => QueryView } => {
    const queryId = ids.next();
    let limits: QueryLimits = config;
    let invalid: VivaceError | undefined;
    try {
      limits = queryLimits(config, session);
    } catch (err) {
      invalid = VivaceError.from(err);
    }
    // Selected once: the group shown from the start and the one the dispatcher queues it in are the same.
    const selection = selectionOf(session, sql, options.userGroups);
    const resourceGroupId = dispatcher.getSnapshot().context.groups.selectedGroupId(selection.criteria);
    const query = createActor(queryMachine, {
      ...actorOptions,
      input: { queryId, sql, session, engine: options.engine, limits, now, dispatcher, group: { selection, ...(resourceGroupId ? { resourceGroupId } : {}) } },
    });
    // Before start(): the query as submitted, even if it fails at once (queue full, bad session).
    const initial = query.getSnapshot();
    const initialStages = stageSnapshotsOf(initial);
    tracker.send({ type: 'query.register', queryId, session, query });
    liveQueries++;
    const finished = () => {
      liveQueries--;
      finishedQueries++;
      // Once the response that ended the query is written: its final view, the history and their
      // listeners (query log, metrics) are not on the client's path.
      setImmediate(() => tracker.send({ type: 'query.finished', queryId }));
    };
    query.subscribe({ complete: finished, error: finished });
    onLateEngineWork(query, (lateMs) => tracker.send({ type: 'query.engineLate', queryId, lateMs }));
    query.start();
    // A bad Session header fails the query, as upstream does; the client sees it on its first poll.
    if (invalid) query.send({ type: 'query.fail', error: invalid });
    return { tracked: queries().get(queryId)!, asSubmitted: () => toQueryView(initial, initialStages) };
  };

  const coordinator: Coordinator = {
    config,
    engine: options.engine,
    tracker,
    startTime,
    ...(options.cluster ? { cluster: options.cluster } : {}),
    ...(options.history ? { history: options.history } : {}),
    now,
    submit: (sql, session) => start(sql, session).tracked.queryId,
    start,
    lookup: (queryId) => queries().get(queryId),
    list: () => [...queries().values()],
    view,
    waitFor(tracked, predicate, timeoutMs) {
      const ref: QueryActorRef | undefined = tracked.ref;
      if (!ref || tracked.final) return Promise.resolve(view(tracked));
      if (predicate(ref.getSnapshot())) return Promise.resolve(toQueryView(ref.getSnapshot()));
      return new Promise<QueryView>((resolve) => {
        const wait: { timer?: NodeJS.Timeout } = {};
        // The view is taken the moment the predicate holds: later transitions must not leak into it.
        const done = (result: QueryView) => {
          clearTimeout(wait.timer);
          subscription.unsubscribe();
          resolve(result);
        };
        const subscription = ref.subscribe({
          next: (snapshot) => {
            if (snapshot.status !== 'active' || predicate(snapshot)) done(toQueryView(snapshot));
          },
          complete: () => done(view(tracked)),
          error: () => done(view(tracked)),
        });
        wait.timer = setTimeout(() => done(view(tracked)), timeoutMs);
      });
    },
    heartbeat(tracked) {
      const ref = tracked.ref;
      if (ref && now() - ref.getSnapshot().context.times.lastHeartbeat >= HEARTBEAT_RESOLUTION_MS) ref.send({ type: 'query.heartbeat' });
    },
    nodes() {
      const health: NodeHealth[] = [];
      for (const [nodeId, ref] of nodeActors) {
        const snapshot = ref.getSnapshot();
        if (snapshot.status !== 'active') {
          nodeActors.delete(nodeId); // expired
          continue;
        }
        // Rendered when read: the worker list asks for health only, /v1/node for the stats.
        let stats: Record<string, unknown> | undefined;
        health.push({
          nodeId,
          failed: isNodeFailed(snapshot),
          get stats() {
            return (stats ??= renderNodeStats(nodeStatsView(snapshot)));
          },
        });
      }
      return health;
    },
    nodesVersion: () => nodesVersion,
    announceNode(nodeId, uri) {
      nodesVersion++; // a re-announcement may change what discovery says of the node (its memory flag)
      const known = nodeActors.get(nodeId);
      // A worker restarted on another address is monitored afresh there (its old address is dead).
      if (known && known.getSnapshot().context.uri !== uri) {
        heartbeats.unwatch(known); // stopping an actor runs no exit action
        known.stop();
      } else if (known?.getSnapshot().status === 'active') {
        known.send({ type: 'node.announced' });
        return;
      }
      nodeActors.set(nodeId, startNode(nodeId, uri));
    },
    forgetNode(nodeId) {
      nodesVersion++;
      nodeActors.get(nodeId)?.send({ type: 'node.gone' });
    },
    spooledSegmentsLost: (queryId, nodeId) => tracker.send({ type: 'query.segmentsLost', queryId, nodeId }),
    spooledSegmentsLostOn: (queryId, nodeId) => queries().get(queryId)?.segmentsLostOn?.includes(nodeId) === true,
    liveQueryCount: () => liveQueries,
    async stop() {
      for (const tracked of queries().values()) (tracked.ref as AnyActorRef | undefined)?.send({ type: 'query.cancel' });
      stopIdleCollector();
      heartbeats.stop();
      for (const ref of nodeActors.values()) ref.stop();
      tracker.stop();
      stopHistory();
      await options.history?.close();
      await options.engine.close();
    },
  };
  // Every finished query's final view goes to the history as the tracker records it.
  const stopHistory = options.history ? watchQueryEvents(coordinator, [options.history]) : () => {};
  return coordinator;
}
