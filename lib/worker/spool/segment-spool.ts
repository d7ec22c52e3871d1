// A worker's spool: the segments of query results it wrote for clients to download (the spooling
// protocol's STORAGE mode with the worker as the storage). Files in one directory, named by the random part
// of their sealed id; what is there is known in memory, so a restarted worker starts with an empty spool
// and an id of an earlier process is simply not found. Bounded: a size cap (vivace.spooling.max-size) past
// which nothing more is spooled, and a TTL (fs.segment.ttl) past which a segment not acknowledged goes.
// A fresh segment's bytes also stay in memory until its first download (within memoryBytes): a client
// fetches it moments after the coordinator handed it out, and then it is served from the very buffers
// the rows were rendered into, not read back from its file (figure c's worker profile: the read-back, its
// stream and the copy that joined a segment before writing it cost the worker about as much as writing it).
import { mkdirSync, rmSync } from 'node:fs';
import { open as openFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { SpooledSegment } from '../../engine/engine.types.js';
import { encodeSegment, segmentJson, type QueryDataEncoding } from '../../protocol/spooling/query-data-encoding.js';
import { expiresAtText, openSegmentId, sealSegmentId } from '../../spooling/segment-id.js';

export interface SegmentSpoolOptions {
  directory: string;
  key: Buffer;
  nodeId: string;
  maxBytes: number;
  ttlMs: number;
  compressionThreshold: number;
  /** Bytes of fresh segments kept in memory for their first download (oldest let go first); 0: none. */
  memoryBytes?: number;
  now?: () => number;
}

/** Fresh segments' bytes held for their first download by default: a few 8 MB segments. */
export const DEFAULT_SPOOL_MEMORY_BYTES = 64 << 20;

interface Entry {
  queryId: string;
  bytes: number;
  expiresAt: number;
  /** Set while the file is written: it is not served from the file (nor counted gone) before. */
  written: Promise<void>;
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

/** The bytes of a segment of rows (RowBatch.json) as `encoding` asks: plain JSON's parts are the rows' own buffers, never joined. */
function segmentParts(rows: string | readonly Buffer[], rowsCount: number, encoding: QueryDataEncoding, threshold: number): { parts: readonly Buffer[]; size: number; uncompressedSize?: number } {
  if (typeof rows === 'string') {
    const encoded = encodeSegment(segmentJson(rows), rowsCount, encoding, threshold);
    return { parts: [encoded.bytes], size: encoded.segmentSize, ...(encoded.uncompressedSize === undefined ? {} : { uncompressedSize: encoded.uncompressedSize }) };
  }
  let json = 2;
  for (const row of rows) json += row.length;
  if (encoding === 'json' || json < threshold) return { parts: [OPEN_BRACKET, ...rows, CLOSE_BRACKET], size: json };
  const encoded = encodeSegment(segmentJson(rows), rowsCount, encoding, threshold);
  return { parts: [encoded.bytes], size: encoded.segmentSize, uncompressedSize: json };
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
    const { parts, size, uncompressedSize } = segmentParts(rows, rowsCount, encoding, this.options.compressionThreshold);
    if (this.usedBytes + size > this.options.maxBytes) return undefined;
    const expiresAt = this.now() + this.options.ttlMs;
    const { id, name } = sealSegmentId(this.options.key, { queryId, nodeId: this.options.nodeId, expiresAt });
    const written = writeParts(join(this.options.directory, name), parts);
    const entry: Entry = { queryId, bytes: size, expiresAt, written };
    this.entries.set(name, entry);
    this.usedBytes += entry.bytes;
    this.hold(name, entry, parts);
    try {
      await written;
    } catch (err) {
      this.remove(name);
      throw err;
    }
    return {
      id,
      rowsCount,
      segmentSize: size,
      ...(uncompressedSize === undefined ? {} : { uncompressedSize }),
      expiresAt: expiresAtText(expiresAt),
    };
  }

  /** Bytes of fresh segments held in memory now. */
  get memory(): number {
    return this.memoryUsed;
  }

  /** Keeps a fresh segment's bytes for its first download, letting the oldest go past memoryBytes. */
  private hold(name: string, entry: Entry, parts: readonly Buffer[]): void {
    if (entry.bytes > this.memoryBytes) return;
    entry.memory = parts;
    this.inMemory.add(name);
    this.memoryUsed += entry.bytes;
    for (const oldest of this.inMemory) {
      if (this.memoryUsed <= this.memoryBytes) break;
      this.letGo(oldest);
    }
  }

  /** The segment's bytes leave memory (downloaded once, or room needed): its file serves it from now on. */
  letGo(name: string): void {
    const entry = this.entries.get(name);
    if (!this.inMemory.delete(name) || !entry?.memory) return;
    entry.memory = undefined;
    this.memoryUsed -= entry.bytes;
  }

  /**
   * The segment a client may download now (its file, and its bytes while in memory, which the caller lets
   * go once sent: `name`); undefined for a forged, foreign, expired or removed id.
   */
  async open(id: string): Promise<(OpenSegment & { name: string }) | undefined> {
    const handle = openSegmentId(this.options.key, id);
    if (!handle || handle.nodeId !== this.options.nodeId) return undefined;
    const entry = this.entries.get(handle.name);
    if (!entry || entry.queryId !== handle.queryId) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.remove(handle.name);
      return undefined;
    }
    const path = join(this.options.directory, handle.name);
    if (entry.memory) return { name: handle.name, path, bytes: entry.bytes, memory: entry.memory };
    await entry.written;
    return { name: handle.name, path, bytes: entry.bytes };
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
    this.letGo(name);
    this.entries.delete(name);
    this.usedBytes -= entry.bytes;
    // After its write settles (a file removed while being written would come back).
    const removal: Promise<void> = entry.written.catch(() => {}).then(() => rm(join(this.options.directory, name), { force: true })).catch(() => {})
      .finally(() => this.removals.delete(removal));
    this.removals.add(removal);
  }

  /** Removals still under way, until their files are gone. */
  private readonly removals = new Set<Promise<void>>();

  /** Resolves once every removal begun so far has ended (a spec waits for the files' going). */
  async settled(): Promise<void> {
    await Promise.all([...this.removals]);
  }
}
