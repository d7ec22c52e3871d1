// Pure formatting and parsing for the pages (no DOM, so specs test it directly): airlift durations and
// data sizes as the server sends them, counts and rates, and query text shortened for a list.
import { durationMillis } from '../../protocol/duration.js';

/** Milliseconds of an airlift Duration ("3.60s", "2.00ms", "1.50m"), or undefined for anything else. */
export function parseDuration(text: string | undefined): number | undefined {
  if (typeof text !== 'string' || text.length === 0 || text.length > 64) return undefined;
  return durationMillis(text); // the server's own parser (config values, session properties)
}

/** A short duration for a column: 850ms, 12.3s, 4.5m, 2.1h. */
export function formatMillis(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms) || ms < 0) return '';
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  if (ms < 3_600_000) return `${(ms / 60_000).toFixed(1)}m`;
  if (ms < 86_400_000) return `${(ms / 3_600_000).toFixed(1)}h`;
  return `${(ms / 86_400_000).toFixed(1)}d`;
}

/** 999, 1.2K, 3.4M, 5.6B, 7.8T. */
export function formatCount(value: number | undefined): string {
  if (value === undefined || !Number.isFinite(value)) return '';
  const abs = Math.abs(value);
  for (const [limit, suffix] of [[1e12, 'T'], [1e9, 'B'], [1e6, 'M'], [1e3, 'K']] as const) {
    if (abs >= limit) return `${(value / limit).toFixed(1)}${suffix}`;
  }
  return Number.isInteger(value) ? String(value) : value.toFixed(2);
}

/** At most `max` characters of `text` on one line: runs of white space become one space, an ellipsis ends a cut. */
export function shortText(text: string | undefined, max: number): string {
  if (typeof text !== 'string') return '';
  let out = '';
  let space = false;
  for (const ch of text) {
    const isSpace = ch === ' ' || ch === '\n' || ch === '\r' || ch === '\t' || ch === '\f' || ch === '\v';
    if (isSpace) {
      space = out.length > 0;
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += ch;
    if (out.length >= max) return `${out.slice(0, max - 1)}…`;
  }
  return out;
}

/** Completed out of total, as a fraction in [0, 1] (0 when nothing is known). */
export function progressOf(completed: number | undefined, total: number | undefined): number {
  if (!total || total <= 0 || !Number.isFinite(total) || completed === undefined || !Number.isFinite(completed)) return 0;
  return Math.min(1, Math.max(0, completed / total));
}

export function formatPercent(fraction: number | undefined): string {
  if (fraction === undefined || !Number.isFinite(fraction)) return '';
  return `${(fraction * 100).toFixed(1)}%`;
}

/** A query id as the server makes them (digits, letters, underscores), or undefined. */
export function queryIdFrom(search: string): string | undefined {
  let text = search.startsWith('?') ? search.slice(1) : search;
  const amp = text.indexOf('&');
  if (amp >= 0) text = text.slice(0, amp);
  try {
    text = decodeURIComponent(text);
  } catch {
    return undefined;
  }
  if (text.length === 0 || text.length > 100) return undefined;
  for (const ch of text) {
    const ok = (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch === '_';
    if (!ok) return undefined;
  }
  return text;
}
