// The structured JSON logger (pino): one object per line, ISO time, level as its name. Lines go to
// stderr by default (stdout carries the CLI's own output); specs inject a destination stream instead.
import { pino, type DestinationStream, type Logger } from 'pino';
import { isoTimeField } from './log-time.js';
import type { LogLevel } from './log-level.js';

export type { Logger };

export interface LoggerOptions {
  /** Default info. */
  level?: LogLevel;
  /**
   * Where lines go (default: stderr, written asynchronously in batches: a slow reader of a full pipe must
   * not hold the event loop; pino flushes what is buffered when the process exits).
   */
  destination?: DestinationStream;
}

/**
 * Lines name their fields one by one and none carries a credential; these top-level keys are censored
 * all the same, should a caller pass one. (Wildcard paths would cover nested objects too, at three times
 * the cost of a line: bench/metrics.bench.ts.)
 */
const REDACTED = ['password', 'authorization', 'accessToken', 'extraCredentials', 'token'];

export function createLogger(options: LoggerOptions = {}): Logger {
  return pino(
    {
      level: options.level ?? 'info',
      timestamp: isoTimeField, // isoTime's text, cheaper (log-time.ts)
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACTED, censor: '[redacted]' },
    },
    options.destination ?? bufferedStderr(),
  );
}

/** Lines are written once 4 KB have gathered, or after at most this long. */
const FLUSH_INTERVAL_MS = 1000;

/**
 * stderr, written in batches: an asynchronous write per line is a libuv thread-pool job per finished
 * query, competing with DuckDB's work on that pool (bench a: about 0.1 ms per SELECT 1). pino flushes
 * what is buffered when the process exits.
 */
function bufferedStderr(): DestinationStream {
  const stream = pino.destination({ dest: 2, sync: false, minLength: 4096 });
  setInterval(() => {
    try {
      stream.flush();
    } catch {
      // Not ready yet (the descriptor opens asynchronously) or already ended: the next tick or exit writes.
    }
  }, FLUSH_INTERVAL_MS).unref();
  return stream;
}

let processLogger: Logger | undefined;

/** The process's logger, for code that has no server at hand (created at the first call, level info). */
export function defaultLogger(): Logger {
  return (processLogger ??= createLogger());
}

/**
 * Sets the process's logger (`vivace serve` and `vivace worker` do, with log.level) and returns the one
 * it replaces (specs put it back; undefined: the next call of defaultLogger makes one).
 */
export function setDefaultLogger(logger: Logger | undefined): Logger | undefined {
  const previous = processLogger;
  processLogger = logger;
  return previous;
}
