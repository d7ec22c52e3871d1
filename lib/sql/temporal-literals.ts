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

/** Whether a TIME literal's text carries an offset after the time of day (`01:02:03+02:00`, `01:02:03 -05`). */
export function hasTimeZone(text: string): boolean {
  const trimmed = text.trim();
  for (let i = 1; i < trimmed.length; i++) if (trimmed[i] === '+' || trimmed[i] === '-') return true;
  return false;
}

/** The DuckDB timestamp type holding precision `p`: seconds, milliseconds, microseconds or nanoseconds. */
export function duckdbTimestamp(p: number): string {
  if (p === 0) return 'TIMESTAMP_S';
  if (p <= 3) return 'TIMESTAMP_MS';
  if (p <= 6) return 'TIMESTAMP';
  return 'TIMESTAMP_NS';
}

/** Digits at `from`..`from + count` as a number, or undefined when any is not a digit. */
function digitsAt(text: string, from: number, count: number): number | undefined {
  let value = 0;
  for (let i = from; i < from + count; i++) {
    const c = text.charCodeAt(i);
    if (!(c >= 48 && c <= 57)) return undefined;
    value = value * 10 + (c - 48);
  }
  return value;
}

const daysIn = (year: number, month: number) => [31, year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;

/**
 * Whether a DATE literal's text is a calendar date (`2020-02-29`; Trino: `'2020-13-01' is not a valid DATE
 * literal`). Years of 1 to 6 digits with an optional sign; month and day of 1 or 2 digits.
 */
export function isValidDate(text: string): boolean {
  const s = text.trim();
  let i = s[0] === '+' || s[0] === '-' ? 1 : 0;
  const parts: number[] = [];
  for (let part = 0; part < 3; part++) {
    const start = i;
    while (i < s.length && s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57) i++;
    const length = i - start;
    if (length === 0 || length > (part === 0 ? 6 : 2)) return false;
    parts.push(digitsAt(s, start, length)!);
    if (part < 2) {
      if (s[i] !== '-') return false;
      i++;
    }
  }
  if (i !== s.length) return false;
  const [year, month, day] = parts as [number, number, number];
  return month >= 1 && month <= 12 && day >= 1 && day <= daysIn(year, month);
}

/**
 * Whether a TIMESTAMP literal's text is a date, optionally followed by a time of day `H:MM[:SS[.f...]]`
 * in range (and anything after it: a zone, checked by the engine).
 */
export function isValidTimestamp(text: string): boolean {
  const s = text.trim();
  const space = s.indexOf(' ');
  const t = s.indexOf('T');
  const split = space < 0 ? (t < 0 ? -1 : t) : space;
  if (split < 0) return isValidDate(s);
  if (!isValidDate(s.slice(0, split))) return false;
  const time = s.slice(split + 1).trim();
  let i = 0;
  const field = (max: number): boolean => {
    const start = i;
    while (i < time.length && time.charCodeAt(i) >= 48 && time.charCodeAt(i) <= 57) i++;
    return i - start >= 1 && i - start <= 2 && digitsAt(time, start, i - start)! <= max;
  };
  if (!field(23) || time[i] !== ':') return false;
  i++;
  if (!field(59)) return false;
  if (time[i] === ':') {
    i++;
    if (!field(59)) return false;
  }
  return true;
}
