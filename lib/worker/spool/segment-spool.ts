// A worker's spool: the segments of query results it wrote for clients to download (the spooling
// protocol's STORAGE mode with the worker as the storage). Files in one directory, named by the random part
// of their sealed id; what is there is known in memory, so a restarted worker starts with an empty spool
// and an id of an earlier process is simply not found. Bounded: a size cap (vivace.spooling.max-size) past
// which nothing more is spooled, and a TTL (fs.segment.ttl) past which a segment not acknowledged goes.
import { mkdirSync, rmSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
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
  now?: () => number;
}

interface Entry {
  queryId: string;
  bytes: number;
  expiresAt: number;
  /** Set while the file is written: it is not served (nor counted gone) before. */
  written: Promise<void>;
}

/** What a task's page becomes once spooled: the segment without its worker's address (the coordinator knows it). */
export type WrittenSegment = Omit<SpooledSegment, 'workerUri'>;

export class SegmentSpool {
  private readonly entries = new Map<string, Entry>();
  private usedBytes = 0;
  private readonly now: () => number;

  constructor(private readonly options: SegmentSpoolOptions) {
    this.now = options.now ?? Date.now;
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
    const encoded = encodeSegment(segmentJson(rows), rowsCount, encoding, this.options.compressionThreshold);
    if (this.usedBytes + encoded.segmentSize > this.options.maxBytes) return undefined;
    const expiresAt = this.now() + this.options.ttlMs;
    const { id, name } = sealSegmentId(this.options.key, { queryId, nodeId: this.options.nodeId, expiresAt });
    const written = writeFile(join(this.options.directory, name), encoded.bytes);
    const entry: Entry = { queryId, bytes: encoded.segmentSize, expiresAt, written };
    this.entries.set(name, entry);
    this.usedBytes += entry.bytes;
    try {
      await written;
    } catch (err) {
      this.remove(name);
      throw err;
    }
    return {
      id,
      rowsCount,
      segmentSize: encoded.segmentSize,
      ...(encoded.uncompressedSize === undefined ? {} : { uncompressedSize: encoded.uncompressedSize }),
      expiresAt: expiresAtText(expiresAt),
    };
  }

  /** The file of a segment a client may download now; undefined for a forged, foreign, expired or removed id. */
  async open(id: string): Promise<{ path: string; bytes: number } | undefined> {
    const handle = openSegmentId(this.options.key, id);
    if (!handle || handle.nodeId !== this.options.nodeId) return undefined;
    const entry = this.entries.get(handle.name);
    if (!entry || entry.queryId !== handle.queryId) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.remove(handle.name);
      return undefined;
    }
    await entry.written;
    return { path: join(this.options.directory, handle.name), bytes: entry.bytes };
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
