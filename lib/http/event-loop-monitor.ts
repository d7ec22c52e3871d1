// Watches the event loop: its delay since start (perf_hooks.monitorEventLoopDelay) and over the last
// minute, for /v1/status, and every stall over a threshold logged as one line (warn) naming the
// statements that were in flight; their SQL goes to a second line at debug only. Its timers are
// unref'd: they never keep the process alive.
import { createHistogram, monitorEventLoopDelay, type RecordableHistogram } from 'node:perf_hooks';
import { defaultLogger, type Logger } from '../log/logger.js';

/** Timer lateness in milliseconds: how long a due callback waited for the loop. */
export interface DelayFigures {
  samples: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  meanMs: number;
}

export interface StatementInFlight {
  queryId: string;
  state: string;
  user: string;
  query: string;
}

export interface StallRecord {
  at: string;
  delayMs: number;
  queryIds: string[];
}

export interface EventLoopStatus {
  delay: { sinceStart: DelayFigures; lastMinute: DelayFigures };
  stalls: { thresholdMs: number; count: number; last?: StallRecord };
}

export interface EventLoopMonitorOptions {
  /** The statements running or planning during the last `windowMs` (the stall and the tick before it). */
  statementsDuring: (windowMs: number) => StatementInFlight[];
  /** A stall is a timer lateness over this (default 100 ms). */
  stallThresholdMs?: number;
  /** Period of the stall detector's timer (default 20 ms): a stall of d ms shows as a lateness of d - 20 to d. */
  checkIntervalMs?: number;
  /** Sampling period of monitorEventLoopDelay (default 10 ms). */
  resolutionMs?: number;
  /** Where a stall's lines go (default: the process's logger). */
  logger?: Logger;
}

export interface EventLoopMonitor {
  status(): EventLoopStatus;
  stop(): void;
}

const BUCKET_MS = 10_000;
const BUCKETS = 6; // the last minute as six 10-second buckets
const QUERY_TEXT_LIMIT = 1000;

const round = (ms: number) => Math.round(ms * 1000) / 1000;

/** Figures of a histogram of nanoseconds (ELD) or microseconds, minus the sampling period they include. */
function figures(h: { count: number; min: number; max: number; mean: number; percentile(p: number): number }, unitMs: number, periodMs: number): DelayFigures {
  if (h.count === 0) return { samples: 0, p50Ms: 0, p99Ms: 0, maxMs: 0, meanMs: 0 };
  const late = (value: number) => round(Math.max(0, value * unitMs - periodMs));
  return { samples: h.count, p50Ms: late(h.percentile(50)), p99Ms: late(h.percentile(99)), maxMs: late(h.max), meanMs: late(h.mean) };
}

export function startEventLoopMonitor(options: EventLoopMonitorOptions): EventLoopMonitor {
  const thresholdMs = options.stallThresholdMs ?? 100;
  const intervalMs = options.checkIntervalMs ?? 20;
  const resolutionMs = options.resolutionMs ?? 10;
  const logger = options.logger ?? defaultLogger();
  // The global clock (not perf_hooks' binding), so that a spec can drive it with fake timers.
  const clock = () => globalThis.performance.now();

  const sinceStart = monitorEventLoopDelay({ resolution: resolutionMs });
  sinceStart.enable();

  // The detector's own lateness, in microseconds, per 10-second bucket: the last minute slides by bucket.
  const buckets: RecordableHistogram[] = [createHistogram()];
  let bucketStart = clock();
  let stallCount = 0;
  let lastStall: StallRecord | undefined;
  // monitorEventLoopDelay records nothing before its first sample: a stall in the first moments after
  // start would be missing from its max, so the detector's worst lateness counts too.
  let worstLatenessMs = 0;

  let last = clock();
  const tick = () => {
    const now = clock();
    const lateness = Math.max(0, now - last - intervalMs);
    last = now;
    if (now - bucketStart >= BUCKET_MS) {
      buckets.push(createHistogram());
      if (buckets.length > BUCKETS) buckets.shift();
      bucketStart = now;
    }
    buckets[buckets.length - 1]!.record(Math.max(1, Math.round(lateness * 1000)));
    if (lateness > worstLatenessMs) worstLatenessMs = lateness;
    if (lateness > thresholdMs) reportStall(lateness);
  };

  const reportStall = (lateness: number) => {
    stallCount++;
    let statements: StatementInFlight[];
    try {
      statements = options.statementsDuring(lateness + intervalMs);
    } catch {
      statements = []; // the report must not fail for want of names
    }
    const at = new Date().toISOString();
    const delayMs = round(lateness);
    lastStall = { at, delayMs, queryIds: statements.map((s) => s.queryId) };
    logger.warn({
      event: 'event_loop_stall',
      at,
      delayMs,
      thresholdMs,
      statements: statements.map((s) => ({ queryId: s.queryId, state: s.state, user: s.user })),
    });
    if (statements.length > 0 && logger.isLevelEnabled('debug')) {
      logger.debug({
        event: 'event_loop_stall_queries',
        at,
        statements: statements.map((s) => ({ queryId: s.queryId, query: s.query.length > QUERY_TEXT_LIMIT ? `${s.query.slice(0, QUERY_TEXT_LIMIT)}...` : s.query })),
      });
    }
  };

  const timer = setInterval(tick, intervalMs);
  timer.unref();

  return {
    status() {
      const lastMinute = createHistogram();
      for (const bucket of buckets) lastMinute.add(bucket);
      const total = figures(sinceStart, 1e-6, resolutionMs);
      return {
        delay: {
          sinceStart: { ...total, maxMs: Math.max(total.maxMs, round(worstLatenessMs)) },
          lastMinute: figures(lastMinute, 1e-3, 0),
        },
        stalls: { thresholdMs, count: stallCount, ...(lastStall ? { last: lastStall } : {}) },
      };
    },
    stop() {
      clearInterval(timer);
      sinceStart.disable();
    },
  };
}
