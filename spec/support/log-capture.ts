// A logger whose lines a spec reads back as objects: pino writes to an in-memory destination.
import { createLogger, type Logger } from '../../lib/log/logger.js';
import type { LogLevel } from '../../lib/log/log-level.js';

export type LogLine = Record<string, any>;

export interface CapturedLog {
  logger: Logger;
  /** Every line written so far, parsed. */
  lines(): LogLine[];
  /** The chunks pino wrote, as written (one line each). */
  chunks(): string[];
  /** The first line, written already or to come, that `predicate` accepts. */
  waitFor(predicate: (line: LogLine) => boolean): Promise<LogLine>;
}

export function captureLog(level: LogLevel = 'info'): CapturedLog {
  const chunks: string[] = [];
  const parsed: LogLine[] = [];
  const waiting = new Set<(line: LogLine) => void>();
  const write = (chunk: string) => {
    chunks.push(chunk);
    for (const text of chunk.split('\n')) {
      if (text === '') continue;
      const line = JSON.parse(text) as LogLine;
      parsed.push(line);
      for (const waiter of [...waiting]) waiter(line);
    }
  };
  const logger = createLogger({ level, destination: { write } });
  return {
    logger,
    lines: () => [...parsed],
    chunks: () => [...chunks],
    waitFor: (predicate) =>
      new Promise((resolve) => {
        const found = parsed.find(predicate);
        if (found) return resolve(found);
        const waiter = (line: LogLine) => {
          if (!predicate(line)) return;
          waiting.delete(waiter);
          resolve(line);
        };
        waiting.add(waiter);
      }),
  };
}
