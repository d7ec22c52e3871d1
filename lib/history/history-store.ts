// The durable query history: every finished query's final info (the body /v1/query/{id} gave at its end,
// less its `self` address), appended in batches to JSON-lines files under `<data.directory>/history/`
// that DuckDB reads directly (read_json). A batch (query.history.batch-size queries, batch-max-size bytes,
// or what flush-interval held) is written whole off the event loop, to a temporary file fsynced and then
// renamed: no reader ever sees half a file, and a killed coordinator loses at most the batch it held (and
// the one being written, if it was killed during those milliseconds). One write is in flight at a time.
// Files past query.history.max-age, and the oldest beyond query.history.max-size, are removed at start and
// after writes.
//
// The coordinator runs no DuckDB of its own (its engine sends SQL to the workers), so Node writes the
// lines: the text JSON.stringify would give for the row and the info /v1/query/{id} renders, written
// straight from the view (history-line.ts; measured in the commit that added this file against writing
// the same batches as Parquet through DuckDB, and in figure q).
//
// A file is named `<first created>-<last created>-<sequence>-<writer>.jsonl` (epoch milliseconds of the
// queries' creation, zero-padded; the writer a store's id, new at each start): a lookup by query id reads
// only the files whose range holds the creation second its id names. Coordinators sharing a data
// directory each write files of their own, read everyone's (the directory is listed again before a read,
// and at most every flush-interval for the bounds), and apply the bounds to all files: a file is only
// ever seen complete, so removing another's old file is safe, and another's temporary file is left alone
// unless it is an hour old (its writer died). Files of the older `<first>-<last>-<sequence>.jsonl` form
// are read and removed alike.
//
// Reads (system.runtime.completed_queries, the UI's search, GET /v1/query/{id} past memory) never block
// the event loop: each file is read backward in chunks with awaits between them, newest first, and one
// read takes at most query.history.max-scan-size bytes of files (a search past it answers what it found
// and says it stopped).
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, statSync, unlinkSync } from 'node:fs';
import { open, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { QueryView } from '../actors/query-view.js';
import type { HistoryRow } from './history-row.js';
import { historyLine } from './history-line.js';
import type { CoordinatorConfig } from '../config.js';

/**
 * The history's defaults: a week, 1 GB, batches of 1000 queries or 4 MB written at least every 10 seconds,
 * and a read takes at most 32 MB of files (about 13,000 queries of 2.4 KB).
 */
export const HISTORY_DEFAULTS = {
  maxAgeMs: 7 * 24 * 3_600_000,
  maxSizeBytes: 1 << 30,
  batchSize: 1000,
  batchMaxBytes: 4 << 20,
  flushIntervalMs: 10_000,
  maxScanBytes: 32 << 20,
} as const;

/** The store a coordinator keeps under `<data.directory>/history` (none with query.history.enabled=false). */
export function historyStoreOf(config: CoordinatorConfig, now: () => number = Date.now, onError?: QueryHistoryOptions['onError']): QueryHistoryStore | undefined {
  if (config.queryHistoryEnabled === false) return undefined;
  return new QueryHistoryStore({
    directory: join(config.dataDirectory, 'history'),
    maxAgeMs: config.queryHistoryMaxAgeMs ?? HISTORY_DEFAULTS.maxAgeMs,
    maxSizeBytes: config.queryHistoryMaxSizeBytes ?? HISTORY_DEFAULTS.maxSizeBytes,
    batchSize: config.queryHistoryBatchSize ?? HISTORY_DEFAULTS.batchSize,
    batchMaxBytes: config.queryHistoryBatchMaxBytes ?? HISTORY_DEFAULTS.batchMaxBytes,
    flushIntervalMs: config.queryHistoryFlushIntervalMs ?? HISTORY_DEFAULTS.flushIntervalMs,
    maxScanBytes: config.queryHistoryMaxScanBytes ?? HISTORY_DEFAULTS.maxScanBytes,
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
  /** a batch is written once its lines hold this many characters (query.history.batch-max-size); absent: 4 MB */
  batchMaxBytes?: number;
  /** a batch held this long is written even if not full (query.history.flush-interval); absent: only when full */
  flushIntervalMs?: number;
  /** the most bytes of files one read takes (query.history.max-scan-size); absent: 32 MB */
  maxScanBytes?: number;
  /** this store's part of its files' names (`[a-z0-9]`, at most 32); absent: random, new at each start */
  writerId?: string;
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

/** What a read found, newest first; `complete` false: it stopped at query.history.max-scan-size with files left unread. */
export interface HistoryScan<T> {
  rows: T[];
  complete: boolean;
}

interface HistoryFile {
  name: string;
  firstCreated: number;
  lastCreated: number;
  sequence: number;
  bytes: number;
}

/**
 * A batch: its lines' UTF-8 bytes, each ended by a newline, in `bytes` up to `used` (off the JS heap, so a
 * held line is not a string the collector moves to the old generation: the line is garbage once encoded);
 * its queries' count and creation range; `name` once it is being written.
 */
interface Batch {
  bytes: Buffer;
  used: number;
  count: number;
  first: number;
  last: number;
  name?: string;
}

/** Room past batch-max-size in a batch's buffer, for the line that fills it. */
const BATCH_SLACK = 256 << 10;
const NO_BYTES = Buffer.alloc(0);

const FILE_SUFFIX = '.jsonl';
const TEMP_SUFFIX = '.tmp';
const PAD = 15;
/** A temporary file this old is a dead writer's (no write takes an hour): any store removes it. */
const STALE_TEMP_MS = 3_600_000;
/** Bytes read from a file at a time: the most a read parses between two awaits. */
const CHUNK_BYTES = 1 << 20;
const NEWLINE = 0x0a;
const INFO_KEY = Buffer.from(',"info":');

const digits = (p: string, max: number) => p.length > 0 && p.length <= max && [...p].every((c) => c >= '0' && c <= '9');
const writerChars = (p: string) => p.length > 0 && p.length <= 32 && [...p].every((c) => (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z'));

/** `<first>-<last>-<seq>[-<writer>].jsonl`: anything else in the directory is not ours and is left alone. */
function parseFileName(name: string): Pick<HistoryFile, 'firstCreated' | 'lastCreated' | 'sequence'> | undefined {
  if (!name.endsWith(FILE_SUFFIX)) return undefined;
  const parts = name.slice(0, -FILE_SUFFIX.length).split('-');
  if (parts.length !== 3 && parts.length !== 4) return undefined;
  if (!parts.slice(0, 3).every((p) => digits(p, PAD)) || (parts.length === 4 && !writerChars(parts[3]!))) return undefined;
  const [firstCreated, lastCreated, sequence] = parts.map(Number) as [number, number, number];
  return { firstCreated, lastCreated, sequence };
}

/** Whether the directory entry `name` is the store's to look at: a history file or a temporary one. */
const listed = (name: string): boolean => name.endsWith(TEMP_SUFFIX) || parseFileName(name) !== undefined;

/**
 * What a directory entry is, from its name and stat: a history file; 'stale', a temporary file an hour
 * old (a dead writer's; a younger one is another coordinator's write in flight, left alone); or nothing of ours.
 */
function entryOf(name: string, found: { size: number; mtimeMs: number }, now: number): HistoryFile | 'stale' | undefined {
  if (name.endsWith(TEMP_SUFFIX)) return now - found.mtimeMs > STALE_TEMP_MS ? 'stale' : undefined;
  const parsed = parseFileName(name);
  return parsed && { name, ...parsed, bytes: found.size };
}

/** A query id's creation second (`YYYYMMDD_HHMMSS_...`, UTC) in epoch milliseconds, if it is one. */
export function queryIdSecond(queryId: string): number | undefined {
  if (queryId.length < 15 || queryId[8] !== '_') return undefined;
  const text = queryId.slice(0, 8) + queryId.slice(9, 15);
  if (![...text].every((c) => c >= '0' && c <= '9')) return undefined;
  const at = (from: number, to: number) => Number(text.slice(from, to));
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

function recordOf(line: string): HistoryRecord | undefined {
  const record = parseLine<HistoryRecord>(line);
  return record && typeof record.user === 'string' && record.info !== null && typeof record.info === 'object' ? record : undefined;
}

/** The bytes a read may still take. */
interface Budget {
  left: number;
}

/**
 * Calls `each` with the whole lines of `bytes` (those a newline ends), last first, until it returns false;
 * answers -1 then, else the length of what precedes the first whole line (the start of a line cut there).
 */
function linesBackward(bytes: Buffer, each: (line: Buffer) => boolean): number {
  let end = bytes.length;
  for (let at = end > 0 ? bytes.lastIndexOf(NEWLINE, end - 1) : -1; at >= 0; at = end > 0 ? bytes.lastIndexOf(NEWLINE, end - 1) : -1) {
    if (at + 1 < end && !each(bytes.subarray(at + 1, end))) return -1;
    end = at;
  }
  return end;
}

/** As linesBackward over bytes that start at a line's start (a batch in memory): its first line too. */
function heldLinesBackward(bytes: Buffer, each: (line: Buffer) => boolean): void {
  const end = linesBackward(bytes, each);
  if (end > 0) each(bytes.subarray(0, end));
}

/**
 * Calls `each` with the file's lines, last first, reading it backward CHUNK_BYTES at a time (an await
 * between chunks), until `each` returns false ('stopped'), the file is read ('read'), or `budget` is spent
 * ('spent'; a line cut by the budget is not given). A line's bytes are split at newline bytes, which UTF-8
 * never uses inside a character. A file removed meanwhile reads as empty.
 */
async function eachLineBackward(path: string, budget: Budget, each: (line: Buffer) => boolean): Promise<'read' | 'stopped' | 'spent'> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch {
    return 'read'; // removed meanwhile (expired here or by another coordinator)
  }
  try {
    let position = (await handle.stat()).size;
    // The start of the line whose end an earlier (later in the file) chunk held.
    let carry: Buffer | undefined;
    while (position > 0) {
      if (budget.left <= 0) return 'spent';
      const length = Math.min(CHUNK_BYTES, position, budget.left);
      const chunk = Buffer.allocUnsafe(length);
      const { bytesRead } = await handle.read(chunk, 0, length, position - length);
      if (bytesRead < length) return 'read'; // truncated meanwhile: what is left is not a whole file
      position -= length;
      budget.left -= length;
      const bytes = carry ? Buffer.concat([chunk, carry]) : chunk;
      const end = linesBackward(bytes, each);
      if (end < 0) return 'stopped';
      carry = end > 0 ? bytes.subarray(0, end) : undefined;
      if (position > 0 && budget.left <= 0) return 'spent';
    }
    if (carry && !each(carry)) return 'stopped';
    return 'read';
  } catch {
    return 'read';
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/**
 * The part of a line's bytes before `,"info":` as a row, searched within the line only, and that part's
 * bytes as JSON (the line's bytes up to the cut, and its closing brace: JSON.stringify of the row).
 */
function rowOfBytes(line: Buffer): { row: HistoryRow; bytes: number } | undefined {
  const cut = line.indexOf(INFO_KEY);
  if (cut < 0) return undefined;
  const row = parseLine<HistoryRow>(`${line.toString('utf8', 0, cut)}}`);
  return row && typeof row.user === 'string' ? { row, bytes: cut + 1 } : undefined;
}

export class QueryHistoryStore {
  /** The batch filling now. */
  private batch: Batch = { bytes: NO_BYTES, used: 0, count: 0, first: Infinity, last: -Infinity };
  /** A written batch's buffer, for the next batch (two at most are held: one filling, one being written). */
  private spare: Buffer | undefined;
  /** The batch being written, if any (one at a time). */
  private writing: { batch: Batch; done: Promise<void> } | undefined;
  /** Every complete file known (this store's and, as last listed, other coordinators'), by name. */
  private readonly files = new Map<string, HistoryFile>();
  private sequence = 0;
  private readonly writer: string;
  private timer: NodeJS.Timeout | undefined;
  private listedAt = -Infinity;
  private readonly batchMaxBytes: number;
  private readonly maxScanBytes: number;

  private emptyBatch(): Batch {
    const bytes = this.spare ?? NO_BYTES;
    this.spare = undefined;
    return { bytes, used: 0, count: 0, first: Infinity, last: -Infinity };
  }

  constructor(private readonly options: QueryHistoryOptions) {
    if (options.writerId !== undefined && !writerChars(options.writerId)) throw new Error(`A history writer id is 1 to 32 of [a-z0-9]: ${JSON.stringify(options.writerId.slice(0, 40))}`);
    this.writer = options.writerId ?? randomBytes(6).toString('hex');
    this.batchMaxBytes = options.batchMaxBytes ?? HISTORY_DEFAULTS.batchMaxBytes;
    this.maxScanBytes = options.maxScanBytes ?? HISTORY_DEFAULTS.maxScanBytes;
    // At start, before any query: the directory is read and old files removed at once.
    mkdirSync(options.directory, { recursive: true, mode: 0o700 });
    const now = options.now();
    for (const name of readdirSync(options.directory)) {
      if (!listed(name)) continue;
      const path = join(options.directory, name);
      try {
        const entry = entryOf(name, statSync(path), now);
        if (entry === 'stale') unlinkSync(path);
        else if (entry) this.files.set(name, entry);
      } catch {
        // removed meanwhile by another coordinator
      }
    }
    this.listedAt = now;
    for (const file of this.expired()) {
      try {
        unlinkSync(join(options.directory, file.name));
      } catch {
        // removed meanwhile
      }
    }
    if (options.flushIntervalMs !== undefined) {
      this.timer = setInterval(() => void this.flush(), options.flushIntervalMs);
      this.timer.unref();
    }
  }

  /** Writes what is held and stops the timer (the coordinator's stop). */
  async close(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  get directory(): string {
    return this.options.directory;
  }

  /** The history's files known now, oldest first (absolute paths), for readers such as DuckDB's read_json. */
  filePaths(): string[] {
    return this.sortedFiles().map((f) => join(this.options.directory, f.name));
  }

  /** Queries held in memory, not yet in a complete file (the batch filling and the one being written). */
  get pending(): number {
    return this.batch.count + (this.writing?.batch.count ?? 0);
  }

  /** The query event listener's end: a finished query's final view. */
  ended(view: QueryView): void {
    this.append(view);
  }

  append(view: QueryView): void {
    // The line is written straight from the view (history-line.ts), not built as a record and stringified.
    const line = historyLine(view);
    // A UTF-16 code unit is at most 3 bytes of UTF-8, and the newline one more.
    const batch = this.roomFor(line.length * 3 + 1);
    batch.used += batch.bytes.write(line, batch.used);
    batch.bytes[batch.used++] = NEWLINE;
    batch.count++;
    if (view.createTime < batch.first) batch.first = view.createTime;
    if (view.createTime > batch.last) batch.last = view.createTime;
    if (batch.count >= this.options.batchSize || batch.used >= this.batchMaxBytes) this.cut();
  }

  /**
   * The batch filling now, with room for `bytes` more: its buffer is the spare one (batch-max-size and a
   * slack) or grows by copying (a line larger than that, or batches filling while a write is in flight).
   * A batch past four times batch-max-size while a write is stuck is dropped and reported: memory stays bounded.
   */
  private roomFor(bytes: number): Batch {
    let batch = this.batch;
    if (batch.used + bytes <= batch.bytes.length) return batch;
    if (batch.count > 0 && batch.used + bytes > 4 * this.batchMaxBytes + BATCH_SLACK) {
      this.options.onError?.(`could not write ${batch.count} finished queries to ${this.options.directory}: the previous batch is still being written`, undefined);
      batch = this.batch = this.emptyBatch();
      if (bytes <= batch.bytes.length) return batch;
    }
    const grown = Buffer.allocUnsafe(Math.max(2 * batch.bytes.length, batch.used + bytes, this.batchMaxBytes + BATCH_SLACK));
    batch.bytes.copy(grown, 0, 0, batch.used);
    batch.bytes = grown;
    return batch;
  }

  /** Starts writing the batch filling now, unless a write is in flight (the next starts when it ends, the batch filling on meanwhile). */
  private cut(): void {
    const batch = this.batch;
    if (batch.count === 0 || this.writing) return;
    this.batch = this.emptyBatch();
    const pad = (n: number) => String(Math.max(0, Math.trunc(n))).padStart(PAD, '0');
    batch.name = `${pad(batch.first)}-${pad(batch.last)}-${pad(++this.sequence)}-${this.writer}${FILE_SUFFIX}`;
    const writing = { batch, done: this.write(batch).catch((err: unknown) => this.options.onError?.(`could not write to ${this.options.directory}`, err)) };
    this.writing = writing;
    void writing.done.then(() => {
      this.writing = undefined;
      if (batch.bytes.length === this.batchMaxBytes + BATCH_SLACK) this.spare = batch.bytes;
      const next = this.batch;
      if (next.count >= this.options.batchSize || next.used >= this.batchMaxBytes) this.cut();
    });
  }

  /** Writes a batch as one file (temporary, fsynced, renamed), then removes what the bounds exclude; never rejects. */
  private async write(batch: Batch): Promise<void> {
    const name = batch.name!;
    const path = join(this.options.directory, name);
    const temporary = `${path}${TEMP_SUFFIX}`;
    try {
      const bytes = batch.bytes.subarray(0, batch.used);
      const handle = await open(temporary, 'w', 0o600);
      try {
        await handle.writeFile(bytes);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temporary, path);
      const parsed = parseFileName(name)!;
      this.files.set(name, { name, ...parsed, bytes: bytes.length });
    } catch (err) {
      await rm(temporary, { force: true }).catch(() => undefined);
      this.options.onError?.(`could not write ${batch.count} finished queries to ${this.options.directory}`, err);
      return;
    }
    await this.expire();
  }

  /** Resolves once no write is in flight (the batch filling now stays held). */
  async settled(): Promise<void> {
    while (this.writing) await this.writing.done;
  }

  /**
   * Writes what is held: the batch being written, then the one filling now. Resolves once both are in
   * files (or reported and dropped).
   */
  async flush(): Promise<void> {
    if (this.writing) await this.writing.done;
    this.cut();
    if (this.writing) await this.writing.done;
  }

  /** Lists the directory again (other coordinators' files), when `always` or a flush interval has passed. */
  private async list(always: boolean): Promise<void> {
    const now = this.options.now();
    if (!always && now - this.listedAt < (this.options.flushIntervalMs ?? HISTORY_DEFAULTS.flushIntervalMs)) return;
    this.listedAt = now;
    let names: string[];
    try {
      names = await readdir(this.options.directory);
    } catch {
      return;
    }
    const present = new Set(names);
    for (const name of this.files.keys()) if (!present.has(name)) this.files.delete(name);
    for (const name of names) {
      if (this.files.has(name) || !listed(name)) continue;
      const path = join(this.options.directory, name);
      const found = await stat(path).catch(() => undefined);
      const entry = found && entryOf(name, found, now);
      if (entry === 'stale') await unlink(path).catch(() => undefined);
      else if (entry) this.files.set(name, entry);
    }
  }

  /** Files oldest first: by their newest query's creation, then their oldest's, then their name. */
  private sortedFiles(): HistoryFile[] {
    return [...this.files.values()].sort((a, b) => a.lastCreated - b.lastCreated || a.firstCreated - b.firstCreated || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** The files past max-age, then the oldest until the rest fit in max-size; dropped from what is known. */
  private expired(): HistoryFile[] {
    const oldest = this.options.now() - this.options.maxAgeMs;
    let total = 0;
    for (const file of this.files.values()) total += file.bytes;
    const gone: HistoryFile[] = [];
    for (const file of this.sortedFiles()) {
      if (file.lastCreated < oldest || total > this.options.maxSizeBytes) {
        total -= file.bytes;
        this.files.delete(file.name);
        gone.push(file);
      }
    }
    return gone;
  }

  /** Removes the files the bounds exclude (every coordinator's: each sees the same complete files). */
  async expire(): Promise<void> {
    await this.list(false);
    for (const file of this.expired()) {
      try {
        await unlink(join(this.options.directory, file.name));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') this.options.onError?.(`could not remove ${file.name} from ${this.options.directory}`, err);
      }
    }
  }

  /** The batches held in memory, newest first (their lines' bytes), and the names of the files they are becoming. */
  private heldLines(): { batches: Buffer[]; names: Set<string> } {
    const batches: Buffer[] = [];
    const names = new Set<string>();
    for (const batch of [this.batch, this.writing?.batch]) {
      if (!batch) continue;
      batches.push(batch.bytes.subarray(0, batch.used));
      if (batch.name !== undefined) names.add(batch.name);
    }
    return { batches, names };
  }

  /**
   * The flat rows (no info) of the newest `limit` stored queries whose owner `visible` accepts (and that
   * `matches` takes: the web UI's search), newest first, reading at most query.history.max-scan-size
   * bytes of files, and as many as fit in `maxRowBytes` bytes of their JSON (the rows a worker's plan
   * request carries). Only the part of each line before its `info` is parsed.
   */
  recentRows(limit: number, visible: (owner: string) => boolean = () => true, matches: (row: HistoryRow) => boolean = () => true, maxRowBytes = Infinity): Promise<HistoryScan<HistoryRow>> {
    return this.scan(limit, visible, matches, (row) => row, maxRowBytes);
  }

  /** As recentRows, with each taken row's whole record (its info parsed only for the rows taken). */
  recentRecords(limit: number, visible: (owner: string) => boolean, matches: (row: HistoryRow) => boolean): Promise<HistoryScan<HistoryRecord>> {
    return this.scan(limit, visible, matches, (_row, line) => recordOf(line()));
  }

  private async scan<T>(limit: number, visible: (owner: string) => boolean, matches: (row: HistoryRow) => boolean, take: (row: HistoryRow, line: () => string) => T | undefined, maxRowBytes = Infinity): Promise<HistoryScan<T>> {
    await this.list(true);
    // The memory and the files as of one moment: a batch written meanwhile is read once, from memory.
    const held = this.heldLines();
    const files = this.sortedFiles().filter((f) => !held.names.has(f.name));
    const rows: T[] = [];
    let rowBytes = 0;
    let full = false;
    /** Takes a line's row if it is one to take; false once no more rows are wanted. */
    const accept = (line: Buffer): boolean => {
      const found = rowOfBytes(line);
      if (found && visible(found.row.user) && matches(found.row)) {
        // A row past the byte bound ends the read: the rows kept are the newest that fit.
        if (rowBytes + found.bytes + 1 > maxRowBytes) full = true;
        else {
          const taken = take(found.row, () => line.toString('utf8'));
          if (taken !== undefined) {
            rows.push(taken);
            rowBytes += found.bytes + 1;
          }
        }
      }
      return !full && rows.length < limit;
    };
    // Synchronously: a held buffer is reused once its batch is written.
    for (const batch of held.batches) {
      heldLinesBackward(batch, accept);
      if (full || rows.length >= limit) return { rows, complete: true };
    }
    const budget = { left: this.maxScanBytes };
    for (let f = files.length - 1; f >= 0 && !full && rows.length < limit; f--) {
      const ended = await eachLineBackward(join(this.options.directory, files[f]!.name), budget, accept);
      if (ended === 'spent') return { rows, complete: false };
      if (budget.left <= 0 && f > 0 && !full && rows.length < limit) return { rows, complete: false };
    }
    return { rows, complete: true };
  }

  /**
   * The stored record of `queryId`: in memory, or in a file whose range holds the creation second its id
   * names (newest first), reading at most query.history.max-scan-size bytes.
   */
  async find(queryId: string): Promise<HistoryRecord | undefined> {
    const prefixBytes = Buffer.from(`{"queryId":${JSON.stringify(queryId)},`);
    const starts = (line: Buffer) => line.length >= prefixBytes.length && line.subarray(0, prefixBytes.length).equals(prefixBytes);
    const held = this.heldLines();
    for (const batch of held.batches) {
      let found: HistoryRecord | undefined;
      heldLinesBackward(batch, (line) => {
        if (starts(line)) found = recordOf(line.toString('utf8'));
        return found === undefined;
      });
      if (found) return found;
    }
    const second = queryIdSecond(queryId);
    if (second === undefined) return undefined;
    await this.list(true);
    const budget = { left: this.maxScanBytes };
    const files = this.sortedFiles().filter((f) => !held.names.has(f.name) && second <= f.lastCreated && second + 1000 > f.firstCreated);
    for (let f = files.length - 1; f >= 0; f--) {
      let found: HistoryRecord | undefined;
      const ended = await eachLineBackward(join(this.options.directory, files[f]!.name), budget, (bytes) => {
        found = starts(bytes) ? recordOf(bytes.toString('utf8')) : undefined;
        return found === undefined;
      });
      if (found) return found;
      if (ended === 'spent') return undefined;
    }
    return undefined;
  }
}
