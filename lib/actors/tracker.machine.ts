// The query tracker: registers query actors, keeps each finished query as its final view (bounded
// history), and fails queries whose client went away or that ran past their time limit (checked every
// trackerInterval, as Presto's QueryTracker does: one periodic sweep instead of a timer per query).
// Query actors are not its children: xstate memoizes transition candidates per event type, and a child's
// `xstate.done.actor.<queryId>` is a new type per query, which would grow that cache without bound.
import { createActor, type ActorLogic, type ActorRefFrom, type ActorScope, type ActorSystem, type EventObject, type Snapshot } from 'xstate';
import type { Session } from '../protocol/types.js';
import { TokenCursor } from '../protocol/token-cursor.js';
import { ResultSlug } from '../protocol/result-slug.js';
import { VivaceError } from '../protocol/vivace-error.js';
import { formatDuration } from '../protocol/duration.js';
import type { CoordinatorConfig } from '../config.js';
import { dispatcherMachine, type DispatcherInput } from './dispatcher.machine.js';
import { groupUsageEvents } from '../resource-groups/group-usage.js';
import type { QueryActorRef, QueryContext, QueryLimits } from './query.machine.js';
import { toQueryView, type QueryView } from './query-view.js';
import type { QueryWarning } from '../protocol/query-view.types.js';
import { memoryLimitError, queryToShed, type MemoryWatch } from './memory-watch.js';

/** The tracker's share of the coordinator configuration (documented in config.ts). */
export type TrackerLimits = QueryLimits &
  Pick<CoordinatorConfig, 'maxRunningQueries' | 'maxQueuedQueries' | 'maxHistory' | 'minExpireAgeMs' | 'maxHistoryHard' | 'clientTimeoutMs' | 'trackerIntervalMs'>;

export interface TrackedQuery {
  queryId: string;
  session: Session;
  cursor: TokenCursor;
  /** signs the query's result and partial-cancel addresses, so only its client can use them */
  slug: ResultSlug;
  /** the live actor; undefined once finished */
  ref?: QueryActorRef;
  /** final view once finished */
  final?: QueryView;
  /** Warnings that came while the query was live, for its final view. */
  pendingWarnings?: QueryWarning[];
  /** Workers lost with spooled segments of this query (spooling protocol). */
  segmentsLostOn?: string[];
}

export interface TrackerInput {
  limits: TrackerLimits;
  now: () => number;
  /** Sheds load past a resident-memory limit; absent: not watched. */
  memory?: MemoryWatch;
  /** The dispatcher's resource groups (absent: the single `global` group of maxRunningQueries and maxQueuedQueries). */
  resourceGroups?: Pick<DispatcherInput, 'resourceGroups' | 'clusterMemoryBytes' | 'random'>;
}

export interface TrackerContext extends TrackerInput {
  dispatcher: ActorRefFrom<typeof dispatcherMachine>;
  /** every query the coordinator knows, live and finished (insertion order = creation order) */
  queries: Map<string, TrackedQuery>;
  /** finished query ids, oldest end first */
  history: string[];
  /** admission is held because resident memory is past its limit */
  memoryHeld: boolean;
}

export type TrackerEvent =
  | { type: 'query.register'; queryId: string; session: Session; query: QueryActorRef }
  | { type: 'query.finished'; queryId: string }
  /** The engine gave up the plan of an ended query `lateMs` after its end (work it could not interrupt). */
  | { type: 'query.engineLate'; queryId: string; lateMs: number }
  /** Worker `nodeId`, holding spooled segments of the query, is gone (and those segments with it). */
  | { type: 'query.segmentsLost'; queryId: string; nodeId: string };

export const FIRST_TOKEN = 1;

/** The project's warning for engine work that outlived its query (Trino's own warning codes are below 100). */
export const ENGINE_WORK_AFTER_END = { code: 1001, name: 'ENGINE_WORK_AFTER_END' } as const;

/** The project's warning for spooled segments lost with their worker (Trino's segments live in object storage and have none). */
export const SPOOLED_SEGMENTS_LOST = { code: 1002, name: 'SPOOLED_SEGMENTS_LOST' } as const;

/** Drops the oldest finished queries beyond max-history once older than min-expire-age (or beyond the hard cap). */
function expireHistory(context: TrackerContext): void {
  const { maxHistory, maxHistoryHard, minExpireAgeMs } = context.limits;
  const now = context.now();
  let drop = 0;
  while (context.history.length - drop > maxHistory) {
    const oldest = context.queries.get(context.history[drop]);
    const endTime = oldest?.final?.endTime;
    const young = endTime !== undefined && now - endTime < minExpireAgeMs;
    // A client that has not fetched its final response yet (the last rows always link to it) would get
    // 404 for it: such a query stays past the hard limit, up to twice it (abandoned clients stay bounded).
    const awaited = oldest?.cursor.upcoming !== undefined;
    if (awaited && context.history.length - drop <= 2 * maxHistoryHard) break;
    if (young && context.history.length - drop <= maxHistoryHard) break;
    drop++;
  }
  // shift() moves the start of the array in V8 instead of copying it; slice+splice copied the history on every finish.
  for (let i = 0; i < drop; i++) context.queries.delete(context.history.shift()!);
}

/** The tracker's snapshot: XState's status fields, its one state as `value` (as a machine's) and its context. */
export type TrackerSnapshot = Snapshot<undefined> & { value: 'tracking'; context: TrackerContext };

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnySystem = ActorSystem<any>;
type Scope = ActorScope<TrackerSnapshot, TrackerEvent, AnySystem>;

/** The periodic sweep the tracker schedules to itself (on the system's clock: specs pass a SimulatedClock). */
const SWEEP = { type: 'tracker.sweep' } as const;

/** Sends `event` to `target` once the transition is over, as xstate's sendTo. */
function sendLater<E extends EventObject>(scope: Scope, target: { send(event: E): void }, event: E): void {
  scope.defer(() => target.send(event));
}

// The Map and the history array are owned by this actor and updated in place (creation and lookup stay
// O(1)): the snapshot stays the same object, and its observers are told after every event.
function registerQuery(context: TrackerContext, event: Extract<TrackerEvent, { type: 'query.register' }>): void {
  context.queries.set(event.queryId, { queryId: event.queryId, session: event.session, cursor: new TokenCursor(FIRST_TOKEN), slug: new ResultSlug(), ref: event.query });
}

function recordFinalView(context: TrackerContext, event: Extract<TrackerEvent, { type: 'query.finished' }>): void {
  const tracked = context.queries.get(event.queryId);
  if (!tracked?.ref) return;
  tracked.final = toQueryView(tracked.ref.getSnapshot());
  tracked.final.page = undefined;
  if (tracked.pendingWarnings) (tracked.final.warnings ??= []).push(...tracked.pendingWarnings);
  tracked.pendingWarnings = undefined;
  tracked.ref = undefined;
  context.history.push(event.queryId);
  expireHistory(context);
}

function recordLateEngine(context: TrackerContext, event: Extract<TrackerEvent, { type: 'query.engineLate' }>): void {
  const final = context.queries.get(event.queryId)?.final;
  if (!final) return;
  const seconds = (event.lateMs / 1000).toFixed(1);
  (final.warnings ??= []).push({
    warningCode: ENGINE_WORK_AFTER_END,
    message: `The engine went on planning this query for ${seconds} s after it ended: DuckDB could not interrupt that work (the coordinator did not wait for it)`,
  });
}

function recordLostSegments(context: TrackerContext, event: Extract<TrackerEvent, { type: 'query.segmentsLost' }>): void {
  const tracked = context.queries.get(event.queryId);
  if (!tracked) return;
  (tracked.segmentsLostOn ??= []).push(event.nodeId);
  const warning = {
    warningCode: SPOOLED_SEGMENTS_LOST,
    message: `Worker ${event.nodeId} is gone, and with it the spooled segments of this query it held: downloading one of them fails`,
  };
  if (tracked.final) (tracked.final.warnings ??= []).push(warning);
  else (tracked.pendingWarnings ??= []).push(warning);
}

/** Queries past a time limit, or whose client stopped polling, fail. */
function failStuckQueries(scope: Scope, context: TrackerContext): void {
  const now = context.now();
  for (const tracked of context.queries.values()) {
    if (!tracked.ref) continue;
    const c = tracked.ref.getSnapshot().context;
    const exceeded = exceededTimeLimit(c, now);
    if (exceeded) {
      sendLater(scope, tracked.ref, { type: 'query.fail', error: new VivaceError('EXCEEDED_TIME_LIMIT', exceeded) });
    } else if (now - c.times.lastHeartbeat > context.limits.clientTimeoutMs) {
      sendLater(scope, tracked.ref, {
        type: 'query.fail',
        error: new VivaceError(
          'ABANDONED_QUERY',
          `Query ${c.queryId} was abandoned by the client, as it may have exited or stopped checking for query results. Query results have not been accessed since ${new Date(c.times.lastHeartbeat).toISOString()}: currentTime ${new Date(now).toISOString()}`,
        ),
      });
    }
  }
}

/** Holds admission past the resident-memory limit and fails one query per sweep at most: memory takes a moment to go back once a query's work stops. */
function enforceMemoryLimit(scope: Scope, context: TrackerContext): void {
  if (!context.memory) return;
  const rss = context.memory.readRss();
  const over = rss > context.memory.limitBytes;
  if (over !== context.memoryHeld) {
    context.memoryHeld = over;
    sendLater(scope, context.dispatcher, { type: over ? 'dispatcher.hold' : 'dispatcher.resume' });
  }
  if (!over) return;
  const running: QueryActorRef[] = [];
  for (const tracked of context.queries.values()) {
    const state = tracked.ref?.getSnapshot();
    if (state?.status === 'active' && !state.matches('QUEUED')) running.push(tracked.ref!);
  }
  const shed = queryToShed(running.map((ref) => ({ ref, ...ref.getSnapshot().context })));
  if (shed) sendLater(scope, shed.ref, { type: 'query.fail', error: memoryLimitError(rss, context.memory.limitBytes) });
}

/** The resource groups' view of the running queries' memory and CPU, and their CPU quota's regeneration. */
function reportGroupUsage(scope: Scope, context: TrackerContext): void {
  const running = [];
  for (const tracked of context.queries.values()) {
    const snapshot = tracked.ref?.getSnapshot();
    if (snapshot?.status === 'active' && !snapshot.matches('QUEUED')) running.push({ queryId: tracked.queryId, progress: snapshot.context.results.progress });
  }
  for (const event of groupUsageEvents(running, context.limits.trackerIntervalMs)) sendLater(scope, context.dispatcher, event);
}

function scheduleSweep(scope: Scope, context: TrackerContext): void {
  scope.system.scheduler.schedule(scope.self, scope.self, SWEEP, context.limits.trackerIntervalMs, SWEEP.type);
}

function transition(snapshot: TrackerSnapshot, event: TrackerEvent | typeof SWEEP | { type: 'xstate.stop' }, scope: Scope): TrackerSnapshot {
  if (event.type === 'xstate.stop') {
    if (snapshot.status !== 'active') return snapshot;
    scope.stopChild(snapshot.context.dispatcher);
    return { ...snapshot, status: 'stopped' };
  }
  if (snapshot.status !== 'active') return snapshot;
  const { context } = snapshot;
  switch (event.type) {
    case 'query.register':
      registerQuery(context, event);
      break;
    case 'query.finished':
      recordFinalView(context, event);
      break;
    case 'query.engineLate':
      recordLateEngine(context, event);
      break;
    case 'query.segmentsLost':
      recordLostSegments(context, event);
      break;
    case SWEEP.type:
      scheduleSweep(scope, context);
      failStuckQueries(scope, context);
      enforceMemoryLimit(scope, context);
      expireHistory(context);
      reportGroupUsage(scope, context);
      break;
  }
  return snapshot;
}

/**
 * The tracker actor's logic: a transition table rather than a state machine (it has one state). Two events
 * per query (register, finished) made two machine microsteps, each building XState's state-node sets and
 * a cloned snapshot, about 10 KiB allocated apiece (issue 25). It spawns the dispatcher as its child
 * (system id `dispatcher`) and sweeps every trackerInterval on the system's clock, as its `after` did.
 */
export const trackerMachine: ActorLogic<TrackerSnapshot, TrackerEvent, TrackerInput, AnySystem> & { readonly id: 'tracker' } = {
  id: 'tracker',
  transition,
  getInitialSnapshot: (scope, input) => ({
    status: 'active',
    output: undefined,
    error: undefined,
    value: 'tracking',
    context: {
      ...input,
      dispatcher: createActor(dispatcherMachine, {
        parent: scope.self,
        id: 'dispatcher',
        systemId: 'dispatcher',
        input: { maxRunning: input.limits.maxRunningQueries, maxQueued: input.limits.maxQueuedQueries, ...input.resourceGroups },
      }),
      queries: new Map(),
      history: [],
      memoryHeld: false,
    },
  }),
  start: (snapshot, scope) => {
    snapshot.context.dispatcher.start();
    scheduleSweep(scope, snapshot.context);
  },
  getPersistedSnapshot: (snapshot) => snapshot,
};

export type TrackerActorRef = ActorRefFrom<typeof trackerMachine>;

/** Trino's message for the first time limit `query` is past, if any: run time, planning time, execution time. */
export function exceededTimeLimit(query: Pick<QueryContext, 'times' | 'limits'>, now: number): string | undefined {
  const { times, limits } = query;
  if (now - times.createTime >= limits.maxRunTimeMs) return `Query exceeded maximum time limit of ${formatDuration(limits.maxRunTimeMs)}`;
  if (times.planningStartTime === undefined) return undefined;
  const planning = times.executionStartTime === undefined && times.endTime === undefined;
  if (planning && limits.maxPlanningTimeMs !== undefined && now - times.planningStartTime >= limits.maxPlanningTimeMs) {
    return `Query exceeded the maximum planning time limit of ${formatDuration(limits.maxPlanningTimeMs)}`;
  }
  if (limits.maxExecutionTimeMs !== undefined && now - times.planningStartTime >= limits.maxExecutionTimeMs) {
    return `Query exceeded the maximum execution time limit of ${formatDuration(limits.maxExecutionTimeMs)}`;
  }
  return undefined;
}
