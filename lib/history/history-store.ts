// The durable query history: every finished query's final info (the body /v1/query/{id} gave at its end,
// less its `self` address), appended in batches to JSON-lines files under `<data.directory>/history/`
// that DuckDB reads directly (read_json). One batch at most is held in memory; a batch is written whole
// to a temporary file and renamed, so a killed coordinator loses at most the batch it held, and no reader
// ever sees half a file. Files past query.history.max-age, and the oldest beyond query.history.max-size,
// are removed when a batch is written and at start.
//
// The coordinator runs no DuckDB of its own (its engine sends SQL to the workers), so Node writes the
// lines: the text JSON.stringify would give for the row and the info /v1/query/{id} renders, written
// straight from the view (history-line.ts; measured in the commit that added this file against writing
// the same batches as Parquet through DuckDB, and in figure q).
//
// A file is named `<first created>-<last created>-<sequence>.jsonl` (epoch milliseconds of the queries'
// creation, zero-padded): a lookup by query id reads only the files whose range holds the creation second
// its id names, and the sequence orders files across restarts.
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync, fsyncSync } from 'node:fs';
import { join } from 'node:path';
import type { QueryView } from '../actors/query-view.js';
import type { HistoryRow } from './history-row.js';
import { historyLine } from './history-line.js';
import type { CoordinatorConfig } from '../config.js';

/** The history's defaults: a week, 1 GB, batches of 100 queries written at least every 10 seconds. */
export const HISTORY_DEFAULTS = { maxAgeMs: 7 * 24 * 3_600_000, maxSizeBytes: 1 << 30, batchSize: 100, flushIntervalMs: 10_000 } as const;

/** The store a coordinator keeps under `<data.directory>/history` (none with query.history.enabled=false). */
export function historyStoreOf(config: CoordinatorConfig, now: () => number = Date.now, onError?: QueryHistoryOptions['onError']): QueryHistoryStore | undefined {
  if (config.queryHistoryEnabled === false) return undefined;
  return new QueryHistoryStore({
    directory: join(config.dataDirectory, 'history'),
    maxAgeMs: config.queryHistoryMaxAgeMs ?? HISTORY_DEFAULTS.maxAgeMs,
    maxSizeBytes: config.queryHistoryMaxSizeBytes ?? HISTORY_DEFAULTS.maxSizeBytes,
    batchSize: config.queryHistoryBatchSize ?? HISTORY_DEFAULTS.batchSize,
    flushIntervalMs: config.queryHistoryFlushIntervalMs ?? HISTORY_DEFAULTS.flushIntervalMs,
    now,
    ...(onError ? { onError } : {}),
  });
}

export interface QueryHistoryOptions {
  /** `<data.directory>/history` */
  directory: string;
  /** query.history.max-age: files whose newest query was created longer ago are removed */
  maxAgeMs: number;
  /** query.history.max-size: the oldest files go until the rest fit */
  maxSizeBytes: number;
  /** queries per batch (query.history.batch-size) */
  batchSize: number;
  /** a batch held this long is written even if not full (query.history.flush-interval); absent: only when full */
  flushIntervalMs?: number;
  /** epoch milliseconds (the coordinator's clock) */
  now: () => number;
  /** Told when a batch could not be written (it is dropped: memory stays bounded) or a file not removed. */
  onError?: (message: string, err: unknown) => void;
}

/** One line of a history file: the flat columns of system.runtime.completed_queries and the query's info. */
export interface HistoryRecord extends HistoryRow {
  /** renderQueryInfo's body without `self` (added when served) */
  info: Record<string, unknown>;
}

interface HistoryFile {
  name: string;
  firstCreated: number;
  lastCreated: number;
  sequence: number;
  bytes: number;
}

const FILE_SUFFIX = '.jsonl';
const PAD = 15;

/** `<first>-<last>-<seq>.jsonl`, digits only: anything else in the directory is not ours and is left alone. */
function parseFileName(name: string): Pick<HistoryFile, 'firstCreated' | 'lastCreated' | 'sequence'> | undefined {
  if (!name.endsWith(FILE_SUFFIX)) return undefined;
  const parts = name.slice(0, -FILE_SUFFIX.length).split('-');
  if (parts.length !== 3 || !parts.every((p) => p.length > 0 && p.length <= PAD && [...p].every((c) => c >= '0' && c <= '9'))) return undefined;
  const [firstCreated, lastCreated, sequence] = parts.map(Number) as [number, number, number];
  return { firstCreated, lastCreated, sequence };
}

/** A query id's creation second (`YYYYMMDD_HHMMSS_...`, UTC) in epoch milliseconds, if it is one. */
export function queryIdSecond(queryId: string): number | undefined {
  if (queryId.length < 15 || queryId[8] !== '_') return undefined;
  const digits = queryId.slice(0, 8) + queryId.slice(9, 15);
  if (![...digits].every((c) => c >= '0' && c <= '9')) return undefined;
  const at = (from: number, to: number) => Number(digits.slice(from, to));
  const millis = Date.UTC(at(0, 4), at(4, 6) - 1, at(6, 8), at(8, 10), at(10, 12), at(12, 14));
  return Number.isNaN(millis) ? undefined : millis;
}

/** A stored line, or undefined when it does not parse (a file damaged or edited by hand is skipped, not fatal). */
function parseLine<T>(line: string): T | undefined {
  try {
    return JSON.parse(line) as T;
  } catch {
    return undefined;
  }
}

export class QueryHistoryStore {
  private batch: string[] = [];
  private batchFirst = Infinity;
  private batchLast = -Infinity;
  private files: HistoryFile[] = [];
  private sequence = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: QueryHistoryOptions) {
    mkdirSync(options.directory, { recursive: true, mode: 0o700 });
    for (const name of readdirSync(options.directory)) {
      const path = join(options.directory, name);
      // A temporary file is a batch whose write was cut short (the process was killed): never complete.
      if (name.endsWith('.tmp')) {
        unlinkSync(path);
        continue;
      }
      const parsed = parseFileName(name);
      if (!parsed) continue;
      this.files.push({ name, ...parsed, bytes: statSync(path).size });
    }
    this.files.sort((a, b) => a.sequence - b.sequence);
    this.sequence = this.files.reduce((n, f) => Math.max(n, f.sequence), 0);
    this.expire();
    if (options.flushIntervalMs !== undefined) {
      this.timer = setInterval(() => this.flush(), options.flushIntervalMs);
      this.timer.unref();
    }
  }

  /** Writes what is held and stops the timer (the coordinator's stop). */
  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.flush();
  }

  get directory(): string {
    return this.options.directory;
  }

  /** The history's files, oldest first (absolute paths), for readers such as DuckDB's read_json. */
  filePaths(): string[] {
    return this.files.map((f) => join(this.options.directory, f.name));
  }

  /** Queries held in memory, not yet written. */
  get pending(): number {
    return this.batch.length;
  }

  /** The query event listener's end: a finished query's final view. */
  ended(view: QueryView): void {
    this.append(view);
  }

  append(view: QueryView): void {
    // The line is written straight from the view (history-line.ts), not built as a record and stringified.
    this.batch.push(historyLine(view));
    this.batchFirst = Math.min(this.batchFirst, view.createTime);
    this.batchLast = Math.max(this.batchLast, view.createTime);
    if (this.batch.length >= this.options.batchSize) this.flush();
  }

  /**
   * Writes the batch held in memory (if any) as one file, then removes files past the bounds. A failed
   * write (disk full, directory gone) drops the batch and is reported, never thrown: it runs on a timer
   * and in the tracker's listeners, where a throw would take the coordinator down.
   */
  flush(): void {
    if (this.batch.length === 0) return;
    try {
      this.writeBatch();
    } catch (err) {
      this.options.onError?.(`could not write ${this.batch.length} finished queries to ${this.options.directory}`, err);
    }
    this.batch = [];
    this.batchFirst = Infinity;
    this.batchLast = -Infinity;
    try {
      this.expire();
    } catch (err) {
      this.options.onError?.(`could not remove old files from ${this.options.directory}`, err);
    }
  }

  private writeBatch(): void {
    const sequence = ++this.sequence;
    const pad = (n: number) => String(Math.max(0, Math.trunc(n))).padStart(PAD, '0');
    const name = `${pad(this.batchFirst)}-${pad(this.batchLast)}-${pad(sequence)}${FILE_SUFFIX}`;
    // Encoded once: the bytes written are the bytes counted against max-size.
    const bytes = Buffer.from(`${this.batch.join('\n')}\n`, 'utf8');
    const path = join(this.options.directory, name);
    const temporary = `${path}.tmp`;
    try {
      const fd = openSync(temporary, 'w', 0o600);
      try {
        writeFileSync(fd, bytes); // loops until every byte is written
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(temporary, path);
    } catch (err) {
      rmSync(temporary, { force: true });
      throw err;
    }
    this.files.push({ name, firstCreated: this.batchFirst, lastCreated: this.batchLast, sequence, bytes: bytes.length });
  }

  /** Removes the files whose newest query is older than max-age, then the oldest until the rest fit in max-size. */
  expire(): void {
    const oldest = this.options.now() - this.options.maxAgeMs;
    let total = this.files.reduce((n, f) => n + f.bytes, 0);
    const kept: HistoryFile[] = [];
    for (const file of this.files) {
      if (file.lastCreated < oldest || total > this.options.maxSizeBytes) {
        total -= file.bytes;
        const path = join(this.options.directory, file.name);
        if (existsSync(path)) unlinkSync(path);
      } else {
        kept.push(file);
      }
    }
    this.files = kept;
  }

  /**
   * The flat rows (no info) of the newest `limit` stored queries whose owner `visible` accepts (and that
   * `matches` takes: the web UI's search), newest file first. Only the part of each line before its `info`
   * is parsed: the flat fields come first, and `,"info":` cannot occur inside them (a quote inside a JSON
   * string is escaped).
   */
  recentRows(limit: number, visible: (owner: string) => boolean = () => true, matches: (row: HistoryRow) => boolean = () => true): HistoryRow[] {
    return this.scan(limit, visible, matches, (row) => row);
  }

  /** As recentRows, with each taken row's whole record (its info parsed only for the rows taken). */
  recentRecords(limit: number, visible: (owner: string) => boolean, matches: (row: HistoryRow) => boolean): HistoryRecord[] {
    return this.scan(limit, visible, matches, (_row, line) => {
      const record = parseLine<HistoryRecord>(line);
      return record && record.info !== null && typeof record.info === 'object' ? record : undefined;
    });
  }

  private scan<T>(limit: number, visible: (owner: string) => boolean, matches: (row: HistoryRow) => boolean, take: (row: HistoryRow, line: string) => T | undefined): T[] {
    const out: T[] = [];
    const lines = (all: readonly string[]) => {
      for (let i = all.length - 1; i >= 0 && out.length < limit; i--) {
        const line = all[i]!;
        const cut = line.indexOf(',"info":');
        if (cut < 0) continue;
        const row = parseLine<HistoryRow>(`${line.slice(0, cut)}}`);
        if (!row || typeof row.user !== 'string' || !visible(row.user) || !matches(row)) continue;
        const taken = take(row, line);
        if (taken !== undefined) out.push(taken);
      }
    };
    lines(this.batch);
    for (let f = this.files.length - 1; f >= 0 && out.length < limit; f--) {
      try {
        lines(readFileSync(join(this.options.directory, this.files[f]!.name), 'utf8').split('\n'));
      } catch {
        // removed meanwhile
      }
    }
    return out;
  }

  /** The stored record of `queryId` (in the batch held or in a file whose range holds its creation second). */
  find(queryId: string): HistoryRecord | undefined {
    const prefix = `{"queryId":${JSON.stringify(queryId)},`;
    const held = this.batch.find((line) => line.startsWith(prefix));
    if (held) return parseLine<HistoryRecord>(held);
    const second = queryIdSecond(queryId);
    if (second === undefined) return undefined;
    // Newest first: an id is unique, and recent queries are the likely ones.
    for (let i = this.files.length - 1; i >= 0; i--) {
      const file = this.files[i]!;
      if (second > file.lastCreated || second + 1000 <= file.firstCreated) continue;
      let text: string;
      try {
        text = readFileSync(join(this.options.directory, file.name), 'utf8');
      } catch {
        continue; // removed meanwhile
      }
      for (const line of text.split('\n')) {
        const record = line.startsWith(prefix) ? parseLine<HistoryRecord>(line) : undefined;
        if (record && typeof record.user === 'string' && record.info !== null && typeof record.info === 'object') return record;
      }
    }
    return undefined;
  }
}
