// A region's offsets from the tz database (through Intl, the same ICU data DuckDB reads), for the
// local time of a TIMESTAMP literal with a zone: Trino reads it at the first of the offsets valid at that
// local time (java.time getValidOffsets: the earlier instant in an overlap) and refuses a local time no
// offset gives (a gap: `Invalid TIMESTAMP due to daylight savings transition`).
import type { Zone } from './time-zones.js';

const formats = new Map<string, Intl.DateTimeFormat>();

/** Intl's format of a region (undefined when Intl does not know it). */
function formatOf(region: string): Intl.DateTimeFormat | undefined {
  let format = formats.get(region);
  if (!format) {
    try {
      format = new Intl.DateTimeFormat('en-US', {
        timeZone: region, hourCycle: 'h23', era: 'short', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric',
      });
    } catch {
      return undefined;
    }
    // Regions are Trino's zone keys (a few hundred names): the map stays small.
    formats.set(region, format);
  }
  return format;
}

/** JavaScript's Date covers 8.64e15 ms either side of 1970. */
const MAX_SECONDS = 8.64e12;

/** Seconds east of UTC of `region` at `instant` (seconds since 1970 UTC), or undefined beyond Date's range. */
function offsetAt(format: Intl.DateTimeFormat, instant: number): number | undefined {
  if (Math.abs(instant) > MAX_SECONDS - 2 * 86_400) return undefined;
  const parts: Record<string, string> = {};
  for (const p of format.formatToParts(new Date(instant * 1000))) parts[p.type] = p.value;
  const year = parts.era === 'BC' || parts.era === 'B' ? 1 - Number(parts.year) : Number(parts.year);
  const wall = new Date(0);
  wall.setUTCFullYear(year, Number(parts.month) - 1, Number(parts.day));
  wall.setUTCHours(Number(parts.hour), Number(parts.minute), Number(parts.second), 0);
  return Math.round(wall.getTime() / 1000) - instant;
}

/** Per region and UTC day, its offset when the same all day (null when it changes that day). */
const dayOffsets = new Map<string, number | null>();
const MAX_DAYS = 20_000;

/**
 * offsetAt through dayOffsets: a statement's literals mostly fall on few days (measured: 10,000 zoned
 * literals took 0.9 s of formatToParts, 5-6 calls each). A day whose two ends share an offset is taken
 * to keep it all day (no zone goes to another offset and back within one day).
 */
function cachedOffsetAt(region: string, format: Intl.DateTimeFormat, instant: number): number | undefined {
  const day = Math.floor(instant / 86_400);
  const key = `${day} ${region}`;
  let offset = dayOffsets.get(key);
  if (offset === undefined) {
    const start = offsetAt(format, day * 86_400);
    offset = start !== undefined && start === offsetAt(format, day * 86_400 + 86_399) ? start : null;
    if (dayOffsets.size >= MAX_DAYS) dayOffsets.clear();
    dayOffsets.set(key, offset);
  }
  return offset ?? offsetAt(format, instant);
}

/**
 * The instant (seconds since 1970 UTC) of local time `local` (seconds since 1970 as if in UTC) in `zone`:
 * in an overlap the earlier one; `gap` when the local time does not exist there; undefined when the
 * zone's rules are out of reach (beyond Date's range, a region Intl does not know).
 */
export function instantOf(local: number, zone: Zone): number | 'gap' | undefined {
  if (zone.name === 'UTC') return local;
  if (zone.offsetMinutes !== undefined) return local - zone.offsetMinutes * 60;
  const format = formatOf(zone.name);
  if (!format) return undefined;
  // Offsets in effect about then: a transition moves the wall clock by less than a day.
  const candidates = new Set<number>();
  for (const probe of [local, local - 86_400, local + 86_400]) {
    const offset = cachedOffsetAt(zone.name, format, probe);
    if (offset === undefined) return undefined;
    candidates.add(offset);
  }
  // An offset is valid when the instant it gives shows that local time; the largest is the earlier instant.
  let best: number | undefined;
  for (const offset of candidates) if (cachedOffsetAt(zone.name, format, local - offset) === offset && (best === undefined || offset > best)) best = offset;
  return best === undefined ? 'gap' : local - best;
}
