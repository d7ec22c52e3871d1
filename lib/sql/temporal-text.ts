// The text of DATE, TIME and TIMESTAMP literals read into fields as Trino reads it, and Trino's text of
// such values. Trino (io.trino.type.DateTimes) matches TIMESTAMP text against
//   [+-]YYYY...-M[M]-D[D][ H[H]:M[M][:S[S][.fraction]]][ zone]
// and TIME text against H[H]:M[M][:S[S][.fraction]][ +HH:MM]; DATE text is a Joda ISO date (a signed
// year of up to 9 digits). Fractions keep up to 12 digits (picoseconds). Trino writes years as
// java.time's `uuuu`: 4 digits at least, `-0001` before year 0, `+10000` past 9999. Read character
// by character: the text is the user's. Pure.

export interface CivilDate {
  /** ISO year: 0 is 1 BC. */
  year: number;
  month: number;
  day: number;
}

export interface TimeOfDay {
  hour: number;
  minute: number;
  second: number;
  /** Picoseconds within the second (the fraction's digits scaled to 12). */
  picos: number;
  /** Fraction digits as written: the value's precision. */
  precision: number;
}

export interface TimestampText extends CivilDate, TimeOfDay {
  /** The text after the time of day (a zone as written), when there is one. */
  zone?: string;
}

export interface TimeText extends TimeOfDay {
  /** Minutes east of UTC of a `+HH:MM` offset, when there is one. */
  offsetMinutes?: number;
}

/** Most fraction digits Trino keeps (picoseconds). */
export const MAX_PRECISION = 12;

const isDigit = (s: string, i: number) => i < s.length && s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57;

/** Reads text left to right. */
class Cursor {
  i = 0;
  constructor(readonly s: string) {}

  /** The number of `min`..`max` digits here (as many as there are, up to max), or undefined. */
  digits(min: number, max: number): { value: number; length: number } | undefined {
    const start = this.i;
    let value = 0;
    while (this.i - start < max && isDigit(this.s, this.i)) value = value * 10 + (this.s.charCodeAt(this.i++) - 48);
    const length = this.i - start;
    if (length < min || (length === max && isDigit(this.s, this.i))) return undefined;
    return { value, length };
  }

  eat(c: string): boolean {
    if (this.s[this.i] !== c) return false;
    this.i++;
    return true;
  }

  get done(): boolean {
    return this.i >= this.s.length;
  }
}

const isLeap = (y: number) => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
const daysIn = (y: number, m: number) => [31, isLeap(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]!;

/** Whether year, month and day name a day of the proleptic Gregorian calendar. */
const isCalendarDate = (d: CivilDate) => d.month >= 1 && d.month <= 12 && d.day >= 1 && d.day <= daysIn(d.year, d.month);

/** Days since 1970-01-01 of a proleptic Gregorian date (negative before). */
export function epochDay({ year, month, day }: CivilDate): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  return era * 146_097 + yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy - 719_468;
}

/** The proleptic Gregorian date `days` after 1970-01-01. */
export function civilDate(days: number): CivilDate {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day: doy - Math.floor((153 * mp + 2) / 5) + 1 };
}

/** A signed year: `+`/`-` and up to `max` digits (at least `min`). */
function signedYear(c: Cursor, min: number, max: number): number | undefined {
  const negative = c.eat('-');
  if (!negative) c.eat('+');
  const year = c.digits(min, max);
  return year && (negative ? -year.value : year.value);
}

/** `-M[M]-D[D]` after a year. */
function monthDay(c: Cursor, year: number): CivilDate | undefined {
  if (!c.eat('-')) return undefined;
  const month = c.digits(1, 2);
  if (!month || !c.eat('-')) return undefined;
  const day = c.digits(1, 2);
  const date = day && { year, month: month.value, day: day.value };
  return date && isCalendarDate(date) ? date : undefined;
}

/** DATE literal text (Trino: a Joda ISO date, `-4999999-01-01`), or undefined when it is not a calendar date. */
export function parseDateText(text: string): CivilDate | undefined {
  const c = new Cursor(text.trim());
  const year = signedYear(c, 1, 9);
  const date = year === undefined ? undefined : monthDay(c, year);
  return date && c.done ? date : undefined;
}

/** `H[H]:M[M][:S[S][.fraction]]`, in range, fraction of at most 12 digits. */
function timeOfDay(c: Cursor): TimeOfDay | undefined {
  const hour = c.digits(1, 2);
  if (!hour || !c.eat(':')) return undefined;
  const minute = c.digits(1, 2);
  if (!minute) return undefined;
  let second = 0;
  let picos = 0;
  let precision = 0;
  if (c.eat(':')) {
    const s = c.digits(1, 2);
    if (!s) return undefined;
    second = s.value;
    if (c.eat('.')) {
      const fraction = c.digits(1, MAX_PRECISION);
      if (!fraction) return undefined;
      precision = fraction.length;
      picos = fraction.value * 10 ** (MAX_PRECISION - precision);
    }
  }
  if (hour.value > 23 || minute.value > 59 || second > 59) return undefined;
  return { hour: hour.value, minute: minute.value, second, picos, precision };
}

/** Whitespace Trino's `\s` matches. */
const isSpace = (ch: string | undefined) => ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r' || ch === '\f' || ch === '\u000b';

/**
 * TIMESTAMP literal text: a date with an optional time of day and zone, or undefined when Trino refuses it
 * (not a calendar date, a field out of range, more than 12 fraction digits). The zone is the text as written.
 */
export function parseTimestampText(text: string): TimestampText | undefined {
  const c = new Cursor(text);
  const year = signedYear(c, 4, 9);
  const date = year === undefined ? undefined : monthDay(c, year);
  if (!date) return undefined;
  const midnight = { ...date, hour: 0, minute: 0, second: 0, picos: 0, precision: 0 };
  if (c.done) return midnight;
  if (!c.eat(' ')) return undefined;
  const start = c.i;
  const time = isDigit(text, c.i) ? timeOfDay(c) : undefined;
  if (!time) c.i = start;
  while (isSpace(text[c.i])) c.i++;
  const zone = c.done ? undefined : text.slice(c.i);
  return { ...date, ...(time ?? midnight), ...(zone !== undefined && { zone }) };
}

/** TIME literal text: a time of day and an optional `+HH:MM` offset (within 14 hours), or undefined. */
export function parseTimeText(text: string): TimeText | undefined {
  const c = new Cursor(text);
  const time = timeOfDay(c);
  if (!time) return undefined;
  while (isSpace(text[c.i])) c.i++;
  if (c.done) return time;
  const sign = c.eat('+') ? 1 : c.eat('-') ? -1 : 0;
  const hours = sign === 0 ? undefined : c.digits(2, 2);
  const minutes = hours && c.eat(':') ? c.digits(2, 2) : undefined;
  if (!hours || !minutes || !c.done) return undefined;
  if (!((hours.value === 14 && minutes.value === 0) || (hours.value < 14 && minutes.value <= 59))) return undefined;
  return { ...time, offsetMinutes: sign * (hours.value * 60 + minutes.value) };
}

const pad = (n: number, width: number) => String(n).padStart(width, '0');

/** A year as Trino writes it (java.time `uuuu`): `2001`, `0000`, `-0001`, `+10000`. */
export function formatYear(year: number): string {
  if (year > 9999) return `+${year}`;
  return year < 0 ? `-${pad(-year, 4)}` : pad(year, 4);
}

/** A date as Trino writes it: `2001-08-22`, `-2001-08-22`, `+10000-01-01`. */
export const formatDate = (d: CivilDate) => `${formatYear(d.year)}-${pad(d.month, 2)}-${pad(d.day, 2)}`;

/** `.` and the first `precision` of 12 fraction digits (none at precision 0). */
function fractionText(picos: number, precision: number): string {
  return precision === 0 ? '' : `.${pad(Math.floor(picos / 10 ** (MAX_PRECISION - precision)), precision)}`;
}

/** A time of day with `precision` fraction digits: `12:34:56.123456789012`. */
export const formatTime = (t: Omit<TimeOfDay, 'precision'>, precision: number) =>
  `${pad(t.hour, 2)}:${pad(t.minute, 2)}:${pad(t.second, 2)}${fractionText(t.picos, precision)}`;

/** A date and time with `precision` fraction digits, as Trino writes a timestamp(precision). */
export const formatTimestamp = (t: CivilDate & Omit<TimeOfDay, 'precision'>, precision: number) => `${formatDate(t)} ${formatTime(t, precision)}`;

/** An offset in minutes as Trino writes it: `+05:30`, `-08:00`. */
export const formatOffset = (minutes: number) => `${minutes < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(minutes) / 60), 2)}:${pad(Math.abs(minutes) % 60, 2)}`;

/** Seconds since 1970-01-01 00:00:00 of a date and time of day (as if in UTC). */
export const epochSecond = (t: CivilDate & Omit<TimeOfDay, 'picos' | 'precision'>) => epochDay(t) * 86_400 + t.hour * 3600 + t.minute * 60 + t.second;

/** The date and time of day `seconds` after 1970-01-01 00:00:00, with `picos` within the second. */
export function dateTimeOf(seconds: number, picos: number): CivilDate & Omit<TimeOfDay, 'precision'> {
  const days = Math.floor(seconds / 86_400);
  const of = seconds - days * 86_400;
  return { ...civilDate(days), hour: Math.floor(of / 3600), minute: Math.floor((of % 3600) / 60), second: of % 60, picos };
}

/**
 * `seconds` and `picos` rounded half up to `precision` fraction digits (Trino rounds so when it lowers a
 * precision), a carry moving to the next second.
 */
export function roundPicos(seconds: number, picos: number, precision: number): { seconds: number; picos: number } {
  const unit = 10 ** (MAX_PRECISION - precision);
  const rounded = Math.floor((picos + unit / 2) / unit) * unit;
  return rounded >= 10 ** MAX_PRECISION ? { seconds: seconds + 1, picos: 0 } : { seconds, picos: rounded };
}
