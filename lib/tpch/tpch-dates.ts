// dbgen's dates are day numbers counted from 92001 (= 1992-01-01), one per day
// across the 2557-day (7-year) generation window.

export const MIN_GENERATE_DATE = 92001;
export const TOTAL_DATE_RANGE = 2557;
/** dbgen day number of 1970-01-01. */
const EPOCH_OFFSET = 83966;
/** 1995-06-17, dbgen's "current date" deciding shipped/returned status, as a day number. */
const CURRENT_DATE = MIN_GENERATE_DATE + 1263;

/** Days since 1970-01-01 of a dbgen day number. */
export function toEpochDay(date: number): number {
  return date - EPOCH_OFFSET;
}

export function isInPast(date: number): boolean {
  return date <= CURRENT_DATE;
}

// All dates of the window pre-formatted, as strings (row values) and ASCII bytes (CSV).
const DATE_STRINGS: string[] = [];
const DATE_BYTES = new Uint8Array(TOTAL_DATE_RANGE * 10);
for (let i = 0; i < TOTAL_DATE_RANGE; i++) {
  const text = new Date((toEpochDay(MIN_GENERATE_DATE) + i) * 86_400_000).toISOString().slice(0, 10);
  DATE_STRINGS.push(text);
  for (let k = 0; k < 10; k++) DATE_BYTES[i * 10 + k] = text.charCodeAt(k);
}

/** 'YYYY-MM-DD' of a dbgen day number. */
export function formatDate(date: number): string {
  return DATE_STRINGS[date - MIN_GENERATE_DATE];
}

/** Offset of the 10 ASCII bytes of a dbgen day number in `DATE_BYTES`. */
export function dateBytesOffset(date: number): number {
  return (date - MIN_GENERATE_DATE) * 10;
}

export { DATE_BYTES };
