// Time zones as Trino names them: regions (`America/New_York`), UTC, and fixed offsets (`+02:00`), read
// off TIMESTAMP literals, AT TIME ZONE and the session. Each timestamp with time zone value carries its
// zone (zoned-timestamps.ts); these are the names it carries. Read character by character: the text is a user's.
import { canonicalRegion, timeZoneKey, zoneOffsetMinutes } from '../protocol/time-zone-keys.js';

/** A zone as Trino names it: a region (`America/New_York`, `UTC`) or a fixed offset (`+02:00`). */
export interface Zone {
  /** As rendered after a value: the region, or the offset as `+HH:MM`. */
  readonly name: string;
  /** Minutes east of UTC, for a fixed offset. */
  readonly offsetMinutes?: number;
}

const pad2 = (n: number) => String(n).padStart(2, '0');

/** The zone of a fixed offset in minutes east of UTC, named `+HH:MM` (zero is UTC); undefined beyond 14 hours. */
export function offsetZone(minutes: number): Zone | undefined {
  if (!Number.isInteger(minutes) || Math.abs(minutes) > 14 * 60) return undefined;
  if (minutes === 0) return { name: 'UTC' };
  const abs = Math.abs(minutes);
  return { name: `${minutes < 0 ? '-' : '+'}${pad2(Math.floor(abs / 60))}:${pad2(abs % 60)}`, offsetMinutes: minutes };
}

/** Prefixes Trino reads an offset after (TimeZoneKey.normalizeZoneId), longest first; Etc/GMT's sign is POSIX's (west is +). */
const OFFSET_PREFIXES = ['Etc/GMT', 'Etc/UTC', 'Etc/UT', 'GMT', 'UTC', 'UT'] as const;

/**
 * Minutes east of UTC of a zone id Trino reads as an offset after a prefix: `UTC-05:30`, `GMT+1`, `UT+05`,
 * `Etc/GMT+5` (five hours west): a sign, then H or HH, or hours and minutes around a colon. Undefined for
 * anything else (`UTC+0530` and `UTC+05:30:10` are zones Trino does not support).
 */
function prefixedOffset(text: string): number | undefined {
  const prefix = OFFSET_PREFIXES.find((p) => text.startsWith(p));
  if (!prefix) return undefined;
  const rest = text.slice(prefix.length);
  const sign = rest[0] === '+' ? 1 : rest[0] === '-' ? -1 : 0;
  const colon = rest.indexOf(':');
  const hours = colon < 0 ? rest.slice(1) : rest.slice(1, colon);
  const minutes = colon < 0 ? '0' : rest.slice(colon + 1);
  const number = (s: string) => (s.length >= 1 && s.length <= 2 && [...s].every((c) => c >= '0' && c <= '9') ? Number(s) : undefined);
  const h = number(hours);
  const m = number(minutes);
  if (sign === 0 || h === undefined || m === undefined || m > 59) return undefined;
  const total = sign * (h * 60 + m);
  return prefix === 'Etc/GMT' ? -total : total;
}

/**
 * A zone as written (`America/New_York`, `UTC`, `Z`, `+02:00`), or undefined when it is not one: region
 * names are letters, digits and `/ _ + -` only (DuckDB resolves them; an unknown one fails there).
 */
export function parseZone(text: string): Zone | undefined {
  const trimmed = text.trim();
  if (trimmed === 'Z') return { name: 'UTC' };
  const offset = zoneOffsetMinutes(trimmed) ?? prefixedOffset(trimmed);
  if (offset !== undefined) return offsetZone(offset);
  if (trimmed.length === 0 || trimmed.length > 64) return undefined;
  for (const c of trimmed) {
    const ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c === '/' || c === '_' || c === '+' || c === '-';
    if (!ok) return undefined;
  }
  return { name: trimmed };
}

/**
 * A TIMESTAMP literal's text split at its zone (`2020-01-02 03:04:05 America/New_York`, `...05+02:00`):
 * the local date and time before it, and the zone; undefined when no zone follows the time of day.
 */
export function literalParts(value: string): { local: string; zone: Zone } | undefined {
  const trimmed = value.trim();
  const space = trimmed.indexOf(' ');
  if (space < 0) return undefined;
  let i = space + 1;
  while (i < trimmed.length && ((trimmed[i]! >= '0' && trimmed[i]! <= '9') || trimmed[i] === ':' || trimmed[i] === '.')) i++;
  const rest = trimmed.slice(i);
  const zone = rest.trim() === '' ? undefined : parseZone(rest);
  return zone && { local: trimmed.slice(0, i).trim(), zone };
}

/**
 * A constant zone Trino knows (its zone keys), named as Trino renders it: UTC for its aliases (`GMT`,
 * `Etc/UTC`), a region in its canonical case; undefined for any other text.
 */
export function knownZone(text: string): Zone | undefined {
  const zone = parseZone(text);
  const key = zone && timeZoneKey(zone.name);
  if (!zone || key === undefined) return undefined;
  if (key === 0) return { name: 'UTC' };
  return zone.offsetMinutes === undefined ? { name: canonicalRegion(zone.name) ?? zone.name } : zone;
}
