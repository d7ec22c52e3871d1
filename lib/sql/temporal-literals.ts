// What the text of a TIMESTAMP or TIME literal says about its type: the precision is its fraction digits
// (Trino: TIMESTAMP '2020-01-02 03:04:05' is timestamp(0)), and a zone after the time makes it
// `with time zone`. Read character by character: the text is the user's.

/** Fraction digits of a time or timestamp literal's text (`2020-01-02 03:04:05.123` -> 3), at most 12. */
export function fractionDigits(text: string): number {
  const point = text.lastIndexOf('.');
  if (point < 0) return 0;
  let digits = 0;
  for (let i = point + 1; i < text.length && text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57; i++) digits++;
  return Math.min(digits, 12);
}

/** Whether a timestamp literal's text carries a zone: an offset or a zone name after the time of day. */
export function hasZone(text: string): boolean {
  const trimmed = text.trim();
  const space = trimmed.indexOf(' ');
  if (space < 0) return false;
  const time = trimmed.slice(space + 1);
  for (let i = 0; i < time.length; i++) {
    const c = time[i]!;
    if (c === '+' || c === '-' || c === ' ' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')) return true;
  }
  return false;
}

/** The DuckDB timestamp type holding precision `p`: seconds, milliseconds, microseconds or nanoseconds. */
export function duckdbTimestamp(p: number): string {
  if (p === 0) return 'TIMESTAMP_S';
  if (p <= 3) return 'TIMESTAMP_MS';
  if (p <= 6) return 'TIMESTAMP';
  return 'TIMESTAMP_NS';
}
