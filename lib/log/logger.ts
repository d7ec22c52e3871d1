// The structured JSON logger (pino): one object per line, ISO time, level as its name. Lines go to
// stderr by default (stdout carries the CLI's own output); specs inject a destination stream instead.
import { pino, type DestinationStream, type Logger } from 'pino';
import { BatchedStderr } from './batched-stderr.js';
import { isoTimeField } from './log-time.js';
import type { LogLevel } from './log-level.js';

export type { Logger };

export interface LoggerOptions {
  /** Default info. */
  level?: LogLevel;
  /**
   * Where lines go (default: stderr, written asynchronously in batches: a slow reader of a full pipe must
   * not hold the event loop, and a gone one must not hold the exit; batched-stderr.ts).
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

/** stderr in batches (batched-stderr.ts), one destination per process however many loggers write to it. */
let stderrDestination: BatchedStderr | undefined;
function bufferedStderr(): DestinationStream {
  return (stderrDestination ??= new BatchedStderr());
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
