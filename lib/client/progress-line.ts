// The live status of a running query on stderr, with the content of Trino's CLI StatusPrinter:
//   Query 20261124_..., RUNNING, 1 node, 12 splits
//   0:03 [ 1.2M rows, 24.5MB] [ 400K rows/s, 8.17MB/s] [=========>>        ] 45%
// and its number formats (FormatUtils: formatCount, formatDataSize, formatTime). Pure text; the redraw
// in place is StatusDisplay's.
import type { QueryStats, QueryStatus } from './statement-client.js';

export function progressLines(status: QueryStatus, elapsedMs: number, terminalWidth: number): string[] {
  const s = status.stats;
  const lines = [`Query ${status.id}, ${s.state}, ${s.nodes.toLocaleString('en-US')} ${plural('node', s.nodes)}, ${s.totalSplits.toLocaleString('en-US')} splits`];
  const seconds = elapsedMs / 1000;
  const barWidth = Math.min(Math.max(terminalWidth, 75), 100) - 75 + 17;
  const head =
    `${formatTime(elapsedMs)} [${formatCount(s.processedRows).padStart(5)} rows, ${formatDataSize(s.processedBytes, true).padStart(6)}] ` +
    `[${formatCount(rate(s.processedRows, seconds)).padStart(5)} rows/s, ${formatDataRate(s.processedBytes, seconds).padStart(8)}]`;
  if (s.scheduled && s.totalSplits > 0) {
    // Capped at 99%: 100% while the query still runs looks wrong (Trino does the same).
    const percent = Math.floor(Math.min(99, progressPercent(s)));
    lines.push(`${head} [${progressBar(barWidth, s)}] ${percent}%`);
  } else {
    lines.push(`${head} [${bouncingBar(barWidth, Math.round(seconds))}]`);
  }
  return lines;
}

/** Trino's final summary after a query that ran splits: "Query id, FINISHED, 1 node", splits, totals. */
export function finalLines(status: QueryStatus): string[] {
  const s = status.stats;
  if (s.nodes === 0 || s.totalSplits === 0) return [];
  const seconds = s.elapsedTimeMillis / 1000;
  const time = s.elapsedTimeMillis >= 60_000 ? formatTime(s.elapsedTimeMillis) : seconds.toFixed(2);
  return [
    '',
    `Query ${status.id}, ${s.state}, ${s.nodes.toLocaleString('en-US')} ${plural('node', s.nodes)}`,
    `Splits: ${s.totalSplits.toLocaleString('en-US')} total, ${s.completedSplits.toLocaleString('en-US')} done (${progressPercent(s).toFixed(2)}%)`,
    `${time} [${formatCount(s.processedRows)} rows, ${formatDataSize(s.processedBytes, true)}] [${formatCount(rate(s.processedRows, seconds))} rows/s, ${formatDataRate(s.processedBytes, seconds)}]`,
    '',
  ];
}

function progressPercent(s: QueryStats): number {
  if (s.progressPercentage !== undefined) return s.progressPercentage;
  return s.totalSplits > 0 ? (100 * s.completedSplits) / s.totalSplits : 0;
}

function plural(word: string, n: number): string {
  return n === 1 ? word : `${word}s`;
}

function rate(count: number, seconds: number): number {
  const r = count / seconds;
  return Number.isFinite(r) ? r : 0;
}

/** m:ss */
export function formatTime(ms: number): string {
  const total = Math.round(ms / 1000);
  return `${Math.floor(total / 60)}:${String(total % 60).padStart(2, '0')}`;
}

/** 3 significant digits and K, M, B, T, Q above 1000 (FormatUtils.formatCount). */
export function formatCount(count: number): string {
  let v = Math.trunc(count);
  let unit = '';
  for (const u of ['K', 'M', 'B', 'T', 'Q']) {
    if (v <= 1000) break;
    v /= 1000;
    unit = u;
  }
  return `${significant(v)}${unit}`;
}

/** Bytes with B, KB, MB, GB, TB, PB (decimal units, as Trino's CLI). */
export function formatDataSize(bytes: number, longForm: boolean): string {
  let v = bytes;
  let unit: string | undefined;
  for (const u of ['K', 'M', 'G', 'T', 'P']) {
    if (v < 1000) break;
    v /= 1000;
    unit = u;
  }
  return `${significant(v)}${unit === undefined ? 'B' : longForm ? `${unit}B` : unit}`;
}

function formatDataRate(bytes: number, seconds: number): string {
  const text = formatDataSize(Math.round(rate(bytes, seconds)), false);
  return `${text.endsWith('B') ? text : `${text}B`}/s`;
}

/** Up to two decimals under 10, one under 100, none above; half up; no trailing zeros (DecimalFormat "#.##"). */
function significant(v: number): string {
  const digits = v < 10 ? 2 : v < 100 ? 1 : 0;
  const scale = 10 ** digits;
  const rounded = Math.round(v * scale + Number.EPSILON) / scale;
  return String(rounded);
}

/** "=" done, ">" running, " " pending, `width` characters (FormatUtils.formatProgressBar). */
function progressBar(width: number, s: QueryStats): string {
  const total = Math.max(1, s.totalSplits);
  const done = Math.min(width, Math.ceil((s.completedSplits * width) / total));
  const running = Math.min(width - done, Math.max(s.runningSplits > 0 ? 1 : 0, Math.ceil((Math.max(0, s.runningSplits) * width) / total)));
  return '='.repeat(done) + '>'.repeat(running) + ' '.repeat(Math.max(0, width - done - running));
}

/** Before the query is scheduled: a "<=>" bouncing across the bar, one step a second. */
function bouncingBar(width: number, tick: number): string {
  const range = width - 3;
  let lower = tick % range;
  if (Math.floor(tick / range) % 2 === 1) lower = range - lower;
  return `${' '.repeat(lower)}<=>${' '.repeat(width - lower - 3)}`;
}
