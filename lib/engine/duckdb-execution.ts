// Executions over one pooled DuckDB connection: a streaming one for queries (rows already rendered
// as JSON text by DuckDB, see row-renderer.ts) and a one-shot one for DML/DDL.
import duckdbBindings from '@duckdb/node-bindings';
import { DuckDBMaterializedResult, type DuckDBConnection, type DuckDBDataChunk, type DuckDBResult } from '@duckdb/node-api';
import type { Execution, ExecutionProgress, RowBatch } from './engine.types.js';
import { VivaceError } from '../protocol/vivace-error.js';
import { toVivaceError, type ErrorContext } from './duckdb-errors.js';
import { TEXT_PAGE_MAX_BYTES } from './row-batch.js';
import { NO_SCANS, type ScanCounts, type ScanProfiles } from './scan-profile.js';

const canceled = () => new VivaceError('USER_CANCELED', 'Query was canceled');

const getDataFromPointer = duckdbBindings.get_data_from_pointer;

/**
 * The raw 16-byte string entries of a chunk's one BLOB column (duckdb_string_t: uint32 length, then 12
 * inline bytes or a 4-byte prefix and a pointer), read straight from the bindings: node-api's vector
 * (getColumnVector) first asks DuckDB for the column's logical type and its validity mask, native calls
 * and objects for every chunk that the rendered rows (one BLOB column, never NULL) do not need. For a
 * one-row query that was about a tenth of the worker's time in its page (bench figure b's profile).
 */
function blobEntries(chunk: DuckDBDataChunk, rows: number): DataView {
  const data = duckdbBindings.vector_get_data(duckdbBindings.data_chunk_get_vector(chunk.chunk, 0), rows * 16);
  return new DataView(data.buffer, data.byteOffset, data.byteLength);
}

/** Length of entry i and either its inline bytes or its heap address (x86-64 user addresses fit a double). */
function stringAt(entries: DataView, i: number): { length: number; inline?: Uint8Array; pointer?: number } {
  const at = i * 16;
  const length = entries.getUint32(at, true);
  if (length <= 12) return { length, inline: new Uint8Array(entries.buffer, entries.byteOffset + at + 4, length) };
  return { length, pointer: entries.getUint32(at + 8, true) + entries.getUint32(at + 12, true) * 2 ** 32 };
}

/** Runs of rendered rows at least this long are a page's pieces as the bindings copied them; shorter ones are copied into the page. */
const MIN_PIECE_BYTES = 1024;

/** Holds the connection until the execution ends, fails or is cancelled; gives it back exactly once. */
abstract class ConnectionExecution implements Execution {
  protected isCanceled = false;
  protected failure?: VivaceError;
  /** Rows and bytes handed out (rendered rows, or DML's count row). */
  protected outputRows = 0;
  protected outputBytes = 0;
  /** What the statement's table scans read: known once it has run (DuckDB writes its profile at the end). */
  protected scanned: ScanCounts = NO_SCANS;
  protected busyMillis = 0;
  /** A DuckDB call in flight: the connection must not go back to the pool before it settles. */
  private inFlight = 0;
  private released = false;

  constructor(
    protected readonly connection: DuckDBConnection,
    private readonly onRelease: () => void,
    protected readonly errorContext: ErrorContext,
    /** The connection's profiles, and whether the statement reads tables; absent: nothing is counted as read. */
    protected readonly scans?: { profiles: ScanProfiles; readsTables: boolean },
  ) {}

  /** Right before the statement starts, inside its call(): the profiler on or off for it. */
  protected async beginScans(): Promise<void> {
    await this.scans?.profiles.begin(this.connection, this.scans.readsTables);
  }

  /** Once the statement has run, while the connection is still this execution's. */
  protected readScans(): void {
    if (this.scans) this.scanned = this.scans.profiles.read(this.connection);
  }

  abstract next(targetBytes: number): Promise<RowBatch | null>;

  /** Runs one DuckDB call, accounting its wall time and mapping its error. */
  protected async call<T>(work: () => Promise<T>): Promise<T> {
    if (this.isCanceled) throw canceled();
    this.inFlight++;
    const started = performance.now();
    try {
      return await work();
    } catch (err) {
      // An interrupt surfaces as "INTERRUPT Error"; any error after cancel() means the cancel.
      throw this.isCanceled ? canceled() : toVivaceError(err, this.errorContext);
    } finally {
      this.busyMillis += performance.now() - started;
      this.inFlight--;
      if (this.inFlight === 0 && this.isCanceled) this.release();
    }
  }

  protected fail(err: unknown): never {
    const error = this.isCanceled ? canceled() : toVivaceError(err, this.errorContext);
    this.failure = error;
    this.release();
    throw error;
  }

  protected release(): void {
    if (this.released || this.inFlight > 0) return;
    this.released = true;
    this.onRelease();
  }

  cancel(): void {
    if (this.released || this.isCanceled) return;
    this.isCanceled = true;
    // Interrupt only while a call runs: the connection is still ours, and DuckDB resets the flag.
    if (this.inFlight > 0) this.connection.interrupt();
    else this.release();
  }

  progress(): ExecutionProgress {
    return {
      processedRows: this.scanned.rows,
      processedBytes: this.scanned.bytes,
      outputRows: this.outputRows,
      outputBytes: this.outputBytes,
      cpuTimeMillis: Math.round(this.busyMillis),
      ...(this.scanned.peakMemoryBytes > 0 ? { peakMemoryBytes: this.scanned.peakMemoryBytes } : {}),
    };
  }
}

/**
 * Streams `sql` (one BLOB column: a rendered JSON row in UTF-8 and its comma) and cuts it into batches of at most
 * targetBytes (a single larger row makes its own batch). Row bytes are copied into one page and
 * decoded once per batch: per-row string decoding cost about 25% of throughput.
 */
export class StreamingExecution extends ConnectionExecution {
  private result?: Promise<DuckDBResult>;
  /** The string entries of the chunk being read (blobEntries). */
  private entries?: DataView;
  /**
   * The chunk `entries` reads from. The view is of the chunk's native memory without owning it: if the
   * chunk were collected between two next() calls, the rows still to copy would be freed memory.
   */
  private chunk?: DuckDBDataChunk;
  /** A materialized result's chunk count (asked of DuckDB once). */
  private chunkCount?: number;
  // Small at first (most results are a few rows; a 64 KB page per query was a large share of the
  // garbage at a thousand queries a second), doubled as rows need.
  private page = Buffer.allocUnsafe(1 << 10);
  /** Next chunk of a materialized result (read synchronously, no thread-pool round trip). */
  private chunkIndex = 0;
  private position = 0;
  private rowsInVector = 0;
  private finished = false;

  /** The streamed chunk after the one being read, already asked of DuckDB. */
  private prefetched?: Promise<DuckDBDataChunk | null>;

  /**
   * The next streamed chunk, asking DuckDB for the one after it at once: DuckDB renders it on a pool
   * thread while this thread copies the current one and serves HTTP, instead of waiting for a turn of
   * this thread between chunks (GETs of a long result waited on production for about half its time).
   * One fetch is in flight at a time; a cancel interrupts it (call() counts it in flight).
   */
  private async fetchStreamed(result: DuckDBResult): Promise<DuckDBDataChunk | null> {
    const pending = this.prefetched ?? this.call(() => result.fetchChunk());
    this.prefetched = undefined;
    const chunk = await pending;
    if (chunk && chunk.rowCount > 0 && !this.isCanceled) {
      this.prefetched = this.call(() => result.fetchChunk());
      this.prefetched.catch(() => undefined); // surfaces when awaited
    }
    return chunk;
  }

  /** True once every row has been read (not after a cancel or failure). */
  get exhausted(): boolean {
    return this.finished;
  }

  /**
   * `open` starts the result: a prepared statement's `stream()`, or its `run()` for a result known to be
   * small (materialized, so its chunks are read without further thread-pool round trips).
   */
  constructor(connection: DuckDBConnection, private readonly open: () => Promise<DuckDBResult>, onRelease: () => void, errorContext: ErrorContext, scans?: ConnectionExecution['scans']) {
    super(connection, onRelease, errorContext, scans);
  }

  /** Starts the query now so DuckDB works while the first response goes out. */
  start(): this {
    this.result = this.call(async () => {
      await this.beginScans();
      return this.open();
    });
    this.result.catch(() => undefined);
    return this;
  }

  async next(targetBytes: number): Promise<RowBatch | null> {
    if (this.isCanceled) throw canceled();
    if (this.failure) throw this.failure;
    if (this.finished) return null;
    const result = await (this.result ?? this.start().result!).catch((err: unknown) => this.fail(err));
    let page = this.page;
    /** Bytes of the batch (each row with its comma); of them, those in `page` (from pageStart: not yet a piece). */
    let used = 0;
    let pageUsed = 0;
    let pageStart = 0;
    const pieces: Buffer[] = [];
    let rows = 0;
    for (;;) {
      if (this.position >= this.rowsInVector) {
        // Enough for this batch: don't fetch (and hold a chunk) beyond what was asked.
        if (rows > 0 && used - 1 >= targetBytes) break;
        const chunk =
          result instanceof DuckDBMaterializedResult
            ? this.chunkIndex < (this.chunkCount ??= result.chunkCount) ? result.getChunk(this.chunkIndex++) : null
            : await this.fetchStreamed(result).catch((err: unknown) => this.fail(err));
        // The trap of engine.md: an interrupt between fetches ends the stream silently.
        if (this.isCanceled) throw canceled();
        if (!chunk || chunk.rowCount === 0) {
          this.finished = true;
          this.chunk = this.entries = undefined;
          // Nothing reads the result again: its native memory goes with the next young collection rather
          // than with the execution, which a worker keeps for a retried request (often into the old generation).
          this.result = undefined;
          this.readScans();
          break;
        }
        this.chunk = chunk;
        this.position = 0;
        this.rowsInVector = chunk.rowCount;
        this.entries = blobEntries(chunk, this.rowsInVector);
      }
      const strings = this.entries!;
      let i = this.position;
      const end = this.rowsInVector;
      while (i < end) {
        // Every rendered row ends with its comma (row-renderer.ts), so a run of rows whose bytes lie back to
        // back in the chunk's string heap (DuckDB writes a chunk's strings sequentially: ~7 runs per 2048
        // rows) is already the page's bytes: one native read and one copy per run, where a copy per row
        // (with the comma written between) was a fifth of the worker's main thread in figure c.
        const first = stringAt(strings, i);
        let runEnd = i + 1;
        let runBytes = first.length;
        if (first.pointer !== undefined) {
          let next = first.pointer + first.length;
          while (runEnd < end) {
            const at = runEnd * 16;
            const length = strings.getUint32(at, true);
            // (A page's JSON is its bytes but the last comma.)
            if (length <= 12 || used + runBytes + length - 1 > targetBytes) break;
            if (strings.getUint32(at + 8, true) + strings.getUint32(at + 12, true) * 2 ** 32 !== next) break;
            runBytes += length;
            next += length;
            runEnd++;
          }
        }
        if (rows > 0 && used + runBytes - 1 > targetBytes) break;
        if (first.pointer !== undefined && runBytes >= MIN_PIECE_BYTES) {
          // The bindings' copy of the run is a piece of the page as it is: not copied again (a page's copy
          // and its buffer were half of the worker's allocations in figure c, and of its collections).
          if (pageUsed > pageStart) pieces.push(page.subarray(pageStart, pageUsed));
          pageStart = pageUsed;
          const run = getDataFromPointer(strings.buffer as ArrayBuffer, strings.byteOffset + i * 16 + 8, runBytes);
          pieces.push(Buffer.from(run.buffer, run.byteOffset, run.byteLength));
        } else {
          if (pageUsed + runBytes > page.length) {
            // Bytes before pageStart belong to pieces already: only the rest moves to the larger page.
            const grown = Buffer.allocUnsafe(Math.max(page.length * 2, pageUsed - pageStart + runBytes));
            page.copy(grown, 0, pageStart, pageUsed);
            pageUsed -= pageStart;
            pageStart = 0;
            page = this.page = grown;
          }
          page.set(first.pointer === undefined ? first.inline! : getDataFromPointer(strings.buffer as ArrayBuffer, strings.byteOffset + i * 16 + 8, runBytes), pageUsed);
          pageUsed += runBytes;
        }
        used += runBytes;
        rows += runEnd - i;
        i = runEnd;
      }
      this.position = i;
      if (i < end) break;
    }
    if (rows === 0) {
      if (this.finished) this.release();
      return null;
    }
    if (pageUsed > pageStart) pieces.push(page.subarray(pageStart, pageUsed));
    // The last row's comma goes.
    used--;
    const last = pieces.pop()!;
    if (last.length > 1) pieces.push(last.subarray(0, last.length - 1));
    // A large page goes as its bytes (no UTF-8 decode here and encode again at the socket); its pieces in
    // `page` are handed over with it when they fill at least half of it (the next page gets a new one),
    // else copied out.
    let json: RowBatch['json'];
    if (used <= TEXT_PAGE_MAX_BYTES) json = pieces.length === 1 ? pieces[0]!.toString('utf8') : Buffer.concat(pieces, used).toString('utf8');
    else if (pageUsed === 0) json = pieces;
    else if (pageUsed * 2 >= page.length) {
      json = pieces;
      this.page = Buffer.allocUnsafe(page.length);
    } else json = pieces.map((piece) => (piece.buffer === page.buffer ? Buffer.from(piece) : piece));
    this.outputRows += rows;
    this.outputBytes += used;
    // Released once this batch is counted: the release's caller learns the result's size from progress()
    // (a plan is known small when its rows fit SMALL_RESULT; counted before, a one-page result read as 0 rows).
    if (this.finished) this.release();
    return { json, rows, bytes: used };
  }
}

/** DML and DDL: runs once; DML yields its row count as the single row `[n]`. */
export class UpdateExecution extends ConnectionExecution {
  private outcome?: Promise<number | undefined>;
  private delivered = false;
  updateCount?: number;

  get exhausted(): boolean {
    return this.delivered;
  }

  constructor(
    connection: DuckDBConnection,
    private readonly sql: string,
    private readonly hasCountRow: boolean,
    onRelease: () => void,
    errorContext: ErrorContext,
    /** Called once the statement has run (DDL's declared column types count from then). */
    private readonly onSuccess?: () => void,
    scans?: ConnectionExecution['scans'],
  ) {
    super(connection, onRelease, errorContext, scans);
  }

  start(): this {
    this.outcome = this.call(async () => {
      await this.beginScans();
      const reader = await this.connection.runAndReadAll(this.sql);
      this.readScans();
      this.onSuccess?.();
      const rows = reader.getRows();
      const first = rows[0]?.[0];
      return typeof first === 'bigint' || typeof first === 'number' ? Number(first) : undefined;
    });
    this.outcome.catch(() => undefined);
    return this;
  }

  async next(): Promise<RowBatch | null> {
    if (this.isCanceled) throw canceled();
    if (this.failure) throw this.failure;
    const count = await (this.outcome ?? this.start().outcome!).catch((err: unknown) => this.fail(err));
    if (this.isCanceled) throw canceled();
    this.release();
    if (this.delivered || !this.hasCountRow) {
      this.delivered = true;
      return null;
    }
    this.delivered = true;
    this.updateCount = count ?? 0;
    const json = `[${this.updateCount}]`;
    this.outputRows = 1;
    this.outputBytes = json.length;
    return { json, rows: 1, bytes: json.length };
  }
}
