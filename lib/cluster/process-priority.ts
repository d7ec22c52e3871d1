// A worker's CPU priority (Unix nice). Local workers share the machine with their coordinator, which every
// client, heartbeat and page goes through: at a lower priority their statements cannot starve it, and
// the scheduler runs the coordinator as soon as it has work (make bench, b: 16 clients' SELECT 1 through
// 2 local workers at nice 10 ran 1,156-1,199 q/s against 1,028-1,043 at nice 0 in alternating runs; the
// lineitem stream took the same 8.0-8.3 s).
import { readdirSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { VivaceError } from '../protocol/vivace-error.js';

/** Local workers' nice by default: low enough that the coordinator runs first whenever both have work. */
export const DEFAULT_LOCAL_WORKERS_NICE = 10;

/** The lowest priority Unix offers. */
export const MAX_NICE = 19;

/** A nice value from text: an integer from 0 (unchanged) to 19; raising priority (negative) is refused. */
export function parseNice(text: string, what: string): number {
  // Decimal digits only: Number() would also take '0x5', '1e1' and ' '.
  const digits = text.trim();
  let decimal = digits !== '' && digits.length <= 2;
  for (const c of digits) decimal &&= c >= '0' && c <= '9';
  const value = decimal ? Number(digits) : Number.NaN;
  if (!(value >= 0 && value <= MAX_NICE)) throw new VivaceError('INVALID_ARGUMENTS', `${what} must be an integer from 0 to ${MAX_NICE}: ${JSON.stringify(text.slice(0, 100))}`);
  return value;
}

/**
 * Lowers this process to `nice` on every thread it has now; the threads started later (DuckDB's, the
 * libuv pool's) inherit it from the main thread. On Linux a priority belongs to a thread, so setting the
 * process's alone would leave V8's threads as they were. A thread already lower stays as it is: raising
 * a priority needs a privilege, and a worker started at nice 15 asked for 10 keeps 15.
 */
export function lowerOwnPriority(nice: number): void {
  if (nice === 0) return;
  let threads: number[] = [];
  try {
    threads = readdirSync('/proc/self/task').map(Number).filter((id) => Number.isSafeInteger(id) && id > 0);
  } catch {
    // no /proc (not Linux): the process's priority is all there is
  }
  if (threads.length === 0) threads = [0];
  for (const thread of threads) {
    try {
      if (getPriority(thread) < nice) setPriority(thread, nice);
    } catch {
      // the thread ended meanwhile
    }
  }
}
