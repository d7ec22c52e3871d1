// airlift Duration as the wire shows it: succinct "845.12ms" / "5.31m" strings, and parsing of the same
// form for config values ("15m") and the query_max_run_time session property.
import { VivaceError } from './vivace-error.js';

/** Units in airlift's TimeUnit order (smallest first), with their length in milliseconds. */
const UNITS: readonly (readonly [string, number])[] = [
  ['ns', 1e-6],
  ['us', 1e-3],
  ['ms', 1],
  ['s', 1_000],
  ['m', 60_000],
  ['h', 3_600_000],
  ['d', 86_400_000],
];

const PATTERN = /^\s*(\d+(?:\.\d+)?)\s*([a-z]+)\s*$/i;

/**
 * Succinct airlift Duration of `millis`: the largest unit whose value exceeds 0.9999, two decimals.
 * Negative or non-finite input (a clock step, a bug upstream) renders as zero rather than failing a response.
 */
export function formatDuration(millis: number): string {
  if (!(millis > 0) || !Number.isFinite(millis)) return '0.00s';
  let chosen = UNITS[0]!;
  for (const unit of UNITS) {
    // airlift stops at the first unit that is too large, so the loop must break, not skip.
    if (millis / unit[1] > 0.9999) chosen = unit;
    else break;
  }
  return fixed2HalfUp(millis / chosen[1]) + chosen[0];
}

/** Milliseconds of an airlift Duration string such as "15m" or "1.5h"; units are case-sensitive. */
export function parseDuration(s: string): number {
  const parsed = durationParts(s);
  if (!parsed) throw new VivaceError('INVALID_ARGUMENTS', `Invalid duration: '${s}'`);
  if (parsed.unitMillis === undefined) throw new VivaceError('INVALID_ARGUMENTS', `Unknown time unit '${parsed.unit}' in duration '${s}'`);
  return parsed.value * parsed.unitMillis;
}

/** parseDuration without its errors: undefined for anything but a Duration (the web UI reads the server's). */
export function durationMillis(s: string): number | undefined {
  const parsed = durationParts(s);
  return parsed?.unitMillis === undefined ? undefined : parsed.value * parsed.unitMillis;
}

function durationParts(s: string): { value: number; unit: string; unitMillis: number | undefined } | undefined {
  const match = PATTERN.exec(s);
  if (!match) return undefined;
  return { value: Number(match[1]), unit: match[2]!, unitMillis: UNITS.find(([name]) => name === match[2])?.[1] };
}

/**
 * Two decimals, rounding half up on the shortest decimal form of `v` (what Java's "%.2f" does), so that
 * 1.005 gives "1.01" where Number#toFixed, working on the binary value, gives "1.00".
 */
export function fixed2HalfUp(v: number): string {
  if (v < 0) return '-' + fixed2HalfUp(-v); // HALF_UP rounds away from zero on both sides
  const text = String(v);
  // Exponent forms are either below 1e-6 (rounds to 0.00) or integral from 1e21 (print every digit).
  if (text.includes('e')) return v < 1 ? '0.00' : `${BigInt(v)}.00`;
  const [whole = '0', frac = ''] = text.split('.');
  if (frac.length <= 2) return `${whole}.${frac.padEnd(2, '0')}`;
  let cents = BigInt(whole + frac.slice(0, 2));
  if (frac.charCodeAt(2) >= '5'.charCodeAt(0)) cents += 1n;
  const digits = cents.toString().padStart(3, '0');
  return `${digits.slice(0, -2)}.${digits.slice(-2)}`;
}
