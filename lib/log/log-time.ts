// The `time` field of every log line, the ISO 8601 text pino's stdTimeFunctions.isoTime writes, built
// from the text of the current second, made once per second, and the milliseconds: a Date and its
// toISOString per line were a visible share of the query log's cost (one line per finished query).

let cachedSecond = Number.NaN;
/** `,"time":"` and the current second's ISO text up to and including its decimal point. */
let cachedPrefix = '';

/** pino's timestamp option: `,"time":"<ISO 8601 of now>"`, as isoTime's. */
export function isoTimeField(): string {
  return isoTimeFieldAt(Date.now());
}

/** The field for the epoch milliseconds `now` (a whole number, as Date.now() gives). */
export function isoTimeFieldAt(now: number): string {
  const second = Math.floor(now / 1000);
  if (second !== cachedSecond) {
    const iso = new Date(second * 1000).toISOString();
    // "….sssZ": keep the point, drop "000Z" (years past 9999 make the text longer, not the tail).
    cachedPrefix = `,"time":"${iso.slice(0, iso.length - 4)}`;
    cachedSecond = second;
  }
  const ms = now - second * 1000;
  return `${cachedPrefix}${ms < 10 ? '00' : ms < 100 ? '0' : ''}${ms}Z"`;
}
