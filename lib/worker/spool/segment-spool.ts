// A worker's spool: the segments of query results it wrote for clients to download (the spooling
// protocol's STORAGE mode with the worker as the storage). Files in one directory, named by the random part
// of their sealed id; what is there is known in memory, so a restarted worker starts with an empty spool
// and an id of an earlier process is simply not found. Bounded: a size cap (vivace.spooling.max-size) past
// which nothing more is spooled, and a TTL (fs.segment.ttl) past which a segment not acknowledged goes.
// A segment is held in memory, as the very buffers its rows were rendered into, until it is acknowledged,
// and written to its file only when it must leave memory unacknowledged (past memoryBytes, oldest first):
// a client downloads and acknowledges a segment moments after the coordinator handed it out, so most
// segments never touch the disk (figure c's worker profile: joining a segment into one copy, writing it and
// reading it back for the download cost the worker as much as a tenth of its rendering).
import { mkdirSync, rmSync } from 'node:fs';
import { open as openFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { SpooledSegment } from '../../engine/engine.types.js';
import { segmentJson, staysPlain, type QueryDataEncoding } from '../../protocol/spooling/query-data-encoding.js';
import { expiresAtText, openSegmentId, sealSegmentId } from '../../spooling/segment-id.js';
import { DEFAULT_SPOOL_MEMORY_BYTES } from '../../spooling/spooling-config.js';
import { compressOffThread } from './compression-thread.js';

export interface SegmentSpoolOptions {
  directory: string;
  key: Buffer;
  nodeId: string;
  maxBytes: number;
  ttlMs: number;
  compressionThreshold: number;
  /** Bytes of segments kept in memory until acknowledged (the oldest written out past it); 0: every segment written at once. */
  memoryBytes?: number;
  now?: () => number;
}


interface Entry {
  queryId: string;
  bytes: number;
  expiresAt: number;
  /** Its file's write, once begun (when the segment leaves memory); it is not served from the file before. */
  written?: Promise<void>;
  /** The segment's bytes in order while held in memory (they concatenate to the file's). */
  memory?: readonly Buffer[];
}

/** A segment a client may download: its file, and its bytes when still in memory. */
export interface OpenSegment {
  path: string;
  bytes: number;
  memory?: readonly Buffer[];
}

const OPEN_BRACKET = Buffer.from('[');
const CLOSE_BRACKET = Buffer.from(']');

/**
 * The bytes of a segment of rows (RowBatch.json) as `encoding` asks: plain JSON's parts are the rows' own
 * buffers, never joined; a compressed segment is joined and compressed on the compression thread.
 */
async function segmentParts(rows: string | readonly Buffer[], encoding: QueryDataEncoding, threshold: number): Promise<{ parts: readonly Buffer[]; size: number; uncompressedSize?: number }> {
  const plain = typeof rows === 'string' ? [segmentJson(rows)] : [OPEN_BRACKET, ...rows, CLOSE_BRACKET];
  let json = 0;
  for (const part of plain) json += part.length;
  // (`encoding === 'json'` again only so the type narrows to the compressed encodings below.)
  if (encoding === 'json' || staysPlain(encoding, json, threshold)) return { parts: plain, size: json };
  const compressed = await compressOffThread(plain.length === 1 ? plain[0]! : Buffer.concat(plain, json), encoding);
  return { parts: [compressed], size: compressed.length, uncompressedSize: json };
}

/** Writes `parts` as the file at `path` with gathered writes (no joined copy). */
async function writeParts(path: string, parts: readonly Buffer[]): Promise<void> {
  const file = await openFile(path, 'wx', 0o600);
  try {
    let pending = parts.filter((p) => p.length > 0);
    while (pending.length > 0) {
      let { bytesWritten } = await file.writev(pending);
      // A short write (rare on a regular file): the rest again.
      while (pending.length > 0 && bytesWritten >= pending[0]!.length) bytesWritten -= pending.shift()!.length;
      if (bytesWritten > 0) pending = [pending[0]!.subarray(bytesWritten), ...pending.slice(1)];
    }
  } finally {
    await file.close();
  }
}

/** What a task's page becomes once spooled: the segment without its worker's address (the coordinator knows it). */
export type WrittenSegment = Omit<SpooledSegment, 'workerUri'>;

export class SegmentSpool {
  private readonly entries = new Map<string, Entry>();
  private usedBytes = 0;
  /** Bytes of the entries' `memory`; the names holding some, oldest first. */
  private memoryUsed = 0;
  private readonly inMemory = new Set<string>();
  private readonly memoryBytes: number;
  private readonly now: () => number;

  constructor(private readonly options: SegmentSpoolOptions) {
    this.now = options.now ?? Date.now;
    this.memoryBytes = options.memoryBytes ?? DEFAULT_SPOOL_MEMORY_BYTES;
    // Segments of an earlier process of this worker cannot be served (their index is gone): cleared.
    rmSync(options.directory, { recursive: true, force: true });
    mkdirSync(options.directory, { recursive: true });
  }

  /** Bytes the spool holds now. */
  get bytes(): number {
    return this.usedBytes;
  }

  get size(): number {
    return this.entries.size;
  }

  /**
   * Encodes rows (RowBatch.json) as `encoding` and writes them as a segment of `queryId`; undefined when the
   * spool has no room for it (the caller answers the rows inline instead).
   */
  async write(queryId: string, encoding: QueryDataEncoding, rows: string | readonly Buffer[], rowsCount: number): Promise<WrittenSegment | undefined> {
    const { parts, size, uncompressedSize } = await segmentParts(rows, encoding, this.options.compressionThreshold);
    if (this.usedBytes + size > this.options.maxBytes) return undefined;
    const expiresAt = this.now() + this.options.ttlMs;
    const { id, name } = sealSegmentId(this.options.key, { queryId, nodeId: this.options.nodeId, expiresAt });
    const entry: Entry = { queryId, bytes: size, expiresAt };
    this.entries.set(name, entry);
    this.usedBytes += entry.bytes;
    if (size <= this.memoryBytes) this.hold(name, entry, parts);
    else {
      // Larger than all the memory a spool holds: written now, and the page waits for it (a failure fails the page).
      entry.written = writeParts(join(this.options.directory, name), parts);
      try {
        await entry.written;
      } catch (err) {
        this.remove(name);
        throw err;
      }
    }
    return {
      id,
      rowsCount,
      segmentSize: size,
      ...(uncompressedSize === undefined ? {} : { uncompressedSize }),
      expiresAt: expiresAtText(expiresAt),
    };
  }

  /** Bytes of segments held in memory now (those being written out included). */
  get memory(): number {
    return this.memoryUsed;
  }

  /** Keeps a segment's bytes in memory, writing the oldest held ones out past memoryBytes. */
  private hold(name: string, entry: Entry, parts: readonly Buffer[]): void {
    entry.memory = parts;
    this.inMemory.add(name);
    this.memoryUsed += entry.bytes;
    for (const oldest of this.inMemory) {
      if (this.memoryUsed - this.spilling <= this.memoryBytes) break;
      this.spill(oldest);
    }
  }

  /** Bytes of held segments whose files are being written (their memory goes once written). */
  private spilling = 0;

  /** Writes a held segment to its file; its memory goes once the file is there (a failed write loses the segment). */
  private spill(name: string): void {
    const entry = this.entries.get(name);
    this.inMemory.delete(name);
    if (!entry?.memory || entry.written) return;
    this.spilling += entry.bytes;
    const done = () => {
      this.spilling -= entry.bytes;
      this.release(entry);
    };
    entry.written = writeParts(join(this.options.directory, name), entry.memory).then(done, (err: unknown) => {
      done();
      if (this.entries.get(name) === entry) this.remove(name);
      throw err;
    });
    const settled: Promise<void> = entry.written.catch(() => {}).finally(() => this.removals.delete(settled));
    this.removals.add(settled);
  }

  /** Lets a segment's memory go. */
  private release(entry: Entry): void {
    if (!entry.memory) return;
    entry.memory = undefined;
    this.memoryUsed -= entry.bytes;
  }

  /** The segment a client may download now (its bytes while in memory, else its file); undefined for a forged, foreign, expired or removed id. */
  async open(id: string): Promise<OpenSegment | undefined> {
    const handle = openSegmentId(this.options.key, id);
    if (!handle || handle.nodeId !== this.options.nodeId) return undefined;
    const entry = this.entries.get(handle.name);
    if (!entry || entry.queryId !== handle.queryId) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.remove(handle.name);
      return undefined;
    }
    const path = join(this.options.directory, handle.name);
    if (entry.memory) return { path, bytes: entry.bytes, memory: entry.memory };
    await entry.written;
    return { path, bytes: entry.bytes };
  }

  /**
   * The client has the segment: it goes. Idempotent, as Trino's (its acknowledge deletes a file that may be
   * gone): an id sealed for this worker and not expired is acknowledged again (trino-python-client sends
   * the ack once more when it reads an empty 200). False for a forged, foreign or expired id.
   */
  acknowledge(id: string): boolean {
    const handle = openSegmentId(this.options.key, id);
    if (!handle || handle.nodeId !== this.options.nodeId || handle.expiresAt <= this.now()) return false;
    if (this.entries.get(handle.name)?.queryId === handle.queryId) this.remove(handle.name);
    return true;
  }

  /** A cancelled query's segments go at once. */
  dropQuery(queryId: string): number {
    let dropped = 0;
    for (const [name, entry] of this.entries) {
      if (entry.queryId !== queryId) continue;
      this.remove(name);
      dropped++;
    }
    return dropped;
  }

  /** Removes segments past their expiry; returns how many went. */
  sweep(): number {
    const now = this.now();
    let swept = 0;
    for (const [name, entry] of this.entries) {
      if (entry.expiresAt > now) continue;
      this.remove(name);
      swept++;
    }
    return swept;
  }

  /** Every segment goes (the worker stops). */
  close(): void {
    for (const name of [...this.entries.keys()]) this.remove(name);
  }

  private remove(name: string): void {
    const entry = this.entries.get(name);
    if (!entry) return;
    this.entries.delete(name);
    this.usedBytes -= entry.bytes;
    this.inMemory.delete(name);
    // Being written: its memory goes when the write ends (spill's `done`).
    if (!entry.written) this.release(entry);
    if (!entry.written) return; // never written: no file
    // After its write settles (a file removed while being written would come back).
    const removal: Promise<void> = entry.written.catch(() => {}).then(() => rm(join(this.options.directory, name), { force: true })).catch(() => {})
      .finally(() => this.removals.delete(removal));
    this.removals.add(removal);
  }

  /** Removals and writes out of memory still under way. */
  private readonly removals = new Set<Promise<void>>();

  /** Resolves once every removal and write out of memory begun so far has ended (a spec waits for the files). */
  async settled(): Promise<void> {
    await Promise.all([...this.removals]);
  }
}
