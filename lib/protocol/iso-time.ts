// Epoch milliseconds as ISO 8601 in the process's time zone, exactly as luxon's
// DateTime.fromMillis(millis).toISO() writes them ("2026-11-29T10:07:08.123+01:00"), without building a
// luxon DateTime for each: a finished query's history record and QueryInfo carry four such times, and luxon
// took a quarter of writing that record. Offsets that are not whole minutes (local mean time before
// 1900) and years outside 0-9999 are left to luxon.
import { DateTime } from 'luxon';

const pad2 = (n: number): string => (n < 10 ? `0${n}` : String(n));

function pad3(n: number): string {
  if (n >= 100) return String(n);
  return n >= 10 ? `0${n}` : `00${n}`;
}

export function isoTime(millis: number): string {
  const offset = -new Date(millis).getTimezoneOffset();
  // The local time's fields, read as UTC from the shifted instant (luxon's way: the offset in whole minutes).
  const local = new Date(millis + offset * 60_000);
  const year = local.getUTCFullYear();
  if (!Number.isInteger(millis) || !Number.isInteger(offset) || !(year >= 1000 && year <= 9999)) return DateTime.fromMillis(millis).toISO()!;
  const abs = Math.abs(offset);
  return `${year}-${pad2(local.getUTCMonth() + 1)}-${pad2(local.getUTCDate())}T${pad2(local.getUTCHours())}:${pad2(local.getUTCMinutes())}:${pad2(local.getUTCSeconds())}.${pad3(local.getUTCMilliseconds())}${offset < 0 ? '-' : '+'}${pad2(Math.floor(abs / 60))}:${pad2(abs % 60)}`;
}
