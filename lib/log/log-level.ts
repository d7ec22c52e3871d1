// The levels `log.level` accepts (pino's names): kept apart from the logger so that config.ts can
// validate the property without loading pino.
import { VivaceError } from '../protocol/vivace-error.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** `text` as a level, case-insensitive; anything else is a configuration error naming the choices. */
export function parseLogLevel(text: string): LogLevel {
  const wanted = text.trim().toLowerCase();
  const level = LOG_LEVELS.find((l) => l === wanted);
  if (!level) throw new VivaceError('INVALID_ARGUMENTS', `log.level: unknown level ${JSON.stringify(text.slice(0, 40))} (one of ${LOG_LEVELS.join(', ')})`);
  return level;
}
