// airlift DataSize: the JSON form ("1536B", always bytes, as airlift >= 1.5 / Trino writes it) and parsing
// of "1.5GB"-style strings for configuration.
import { VivaceError } from './vivace-error.js';

/** airlift's units: powers of 1024, case-sensitive ("kB" but "MB"). */
const UNITS: Readonly<Record<string, number>> = {
  B: 1,
  kB: 1024,
  MB: 1024 ** 2,
  GB: 1024 ** 3,
  TB: 1024 ** 4,
  PB: 1024 ** 5,
};

const PATTERN = /^\s*(\d+(?:\.\d+)?)\s*([a-z]+)\s*$/i;

/** Whole bytes with a B suffix; negative or non-finite counts (a bookkeeping bug) render as "0B" rather than fail. */
export function formatDataSize(bytes: number): string {
  if (!(bytes > 0) || !Number.isFinite(bytes)) return '0B';
  // toFixed(0) instead of String(): no exponent form below 1e21.
  return `${Math.round(bytes).toFixed(0)}B`;
}

/** Bytes of a DataSize string; fractional bytes are truncated, as airlift's toBytes() does. */
export function parseDataSize(s: string): number {
  const match = PATTERN.exec(s);
  if (!match) throw new VivaceError('INVALID_ARGUMENTS', `Invalid data size: '${s}'`);
  const factor = Object.hasOwn(UNITS, match[2]!) ? UNITS[match[2]!] : undefined;
  if (factor === undefined) throw new VivaceError('INVALID_ARGUMENTS', `Unknown unit '${match[2]}' in data size '${s}'`);
  return Math.floor(Number(match[1]) * factor);
}
