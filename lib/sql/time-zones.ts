// Time zones of `timestamp with time zone` values. Trino keeps a zone with every such value; DuckDB's
// TIMESTAMPTZ is an instant only. The translation carries the zone where the tree states it (a literal's
// zone, AT TIME ZONE / with_timezone / at_timezone with a constant zone, the session zone of
// current_timestamp): zone-dependent work (date_trunc, fields, casts to timestamp or date) happens on the
// local time in that zone, and the value renders in it. A zone the tree does not state (a table column,
// a computed zone name) is the session's.
// Builders of DuckDB SQL text over zone names that are always quoted strings: never user text as SQL.
import { quoteString } from './sql-formatter.js';
import { zoneOffsetMinutes } from '../protocol/time-zone-keys.js';

/** A zone as Trino names it: a region (`America/New_York`, `UTC`) or a fixed offset (`+02:00`). */
export interface Zone {
  /** As rendered after a value: the region, or the offset as `+HH:MM`. */
  readonly name: string;
  /** Minutes east of UTC, for a fixed offset. */
  readonly offsetMinutes?: number;
}

const pad2 = (n: number) => String(n).padStart(2, '0');

/**
 * A zone as written (`America/New_York`, `UTC`, `Z`, `+02:00`), or undefined when it is not one: region
 * names are letters, digits and `/ _ + -` only (DuckDB resolves them; an unknown one fails there).
 */
export function parseZone(text: string): Zone | undefined {
  const trimmed = text.trim();
  if (trimmed === 'Z') return { name: 'UTC' };
  const offset = zoneOffsetMinutes(trimmed);
  if (offset !== undefined) {
    if (offset === 0) return { name: 'UTC' };
    const abs = Math.abs(offset);
    return { name: `${offset < 0 ? '-' : '+'}${pad2(Math.floor(abs / 60))}:${pad2(abs % 60)}`, offsetMinutes: offset };
  }
  if (trimmed.length === 0 || trimmed.length > 64) return undefined;
  for (const c of trimmed) {
    const ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c === '/' || c === '_' || c === '+' || c === '-';
    if (!ok) return undefined;
  }
  return { name: trimmed };
}

/** The zone of a TIMESTAMP literal's text: what follows the time of day (`... 03:04:05 America/New_York`, `...05+02:00`). */
export function literalZone(value: string): Zone | undefined {
  const trimmed = value.trim();
  const space = trimmed.indexOf(' ');
  if (space < 0) return undefined;
  let i = space + 1;
  while (i < trimmed.length && ((trimmed[i]! >= '0' && trimmed[i]! <= '9') || trimmed[i] === ':' || trimmed[i] === '.')) i++;
  const rest = trimmed.slice(i);
  return rest.trim() === '' ? undefined : parseZone(rest);
}

const interval = (minutes: number) => `INTERVAL ${quoteString(`${minutes} minutes`)}`;

/** DuckDB SQL of the local time (TIMESTAMP) in `zone` of an instant (TIMESTAMPTZ). */
export function localTime(zone: Zone, instant: string): string {
  if (zone.offsetMinutes !== undefined) return `(timezone('UTC', ${instant}) + ${interval(zone.offsetMinutes)})`;
  return `timezone(${quoteString(zone.name)}, ${instant})`;
}

/** DuckDB SQL of the instant (TIMESTAMPTZ) of a local time (TIMESTAMP) in `zone`. */
export function instantOf(zone: Zone, local: string): string {
  if (zone.offsetMinutes !== undefined) return `timezone('UTC', ${local} - ${interval(zone.offsetMinutes)})`;
  return `timezone(${quoteString(zone.name)}, ${local})`;
}

/** The zone arguments of the vivace_instant macro for the session's zone: a region, or UTC and an offset in minutes. */
export function instantArguments(session: Zone): string {
  return session.offsetMinutes === undefined ? `${quoteString(session.name)}, 0` : `'UTC', ${session.offsetMinutes}`;
}
