// The logger's default destination: stderr, written in batches. One asynchronous write per line was a
// libuv thread-pool job per finished query, competing with DuckDB's work on that pool (bench a: about
// 0.1 ms per SELECT 1), so lines gather and go out once 4 KB are waiting or a second has passed, one
// write at a time, and what is left is written at exit.
//
// Ours rather than pino.destination (sonic-boom): its synchronous flush at exit retries a failed write
// every 100 ms for as long as it fails, and a broken pipe (EPIPE: whoever read our stderr is gone, such
// as a killed coordinator for its local workers) fails forever, so the process never exited. Here a
// failed write drops its lines: logs must never keep a process alive or stall its event loop.
import { write, writeSync } from 'node:fs';

export interface BatchedStderrOptions {
  /** Where to write (default 2, stderr). */
  fd?: number;
  /** Bytes gathered before a write starts (default 4096). */
  minBytes?: number;
  /** Longest a line waits (default 1000 ms). */
  intervalMs?: number;
}

/** Gathered text is dropped past this, should the descriptor stop taking writes (a reader that never reads). */
const MAX_PENDING_BYTES = 8 * 1024 * 1024;

export class BatchedStderr {
  private pending: string[] = [];
  private pendingBytes = 0;
  private writing = false;
  /** Set once a write failed for good: later lines are dropped. */
  private broken = false;
  private readonly fd: number;
  private readonly minBytes: number;
  private readonly timer: NodeJS.Timeout;
  /** Lines dropped (a broken descriptor, or more than MAX_PENDING_BYTES waiting). */
  dropped = 0;

  constructor(options: BatchedStderrOptions = {}) {
    this.fd = options.fd ?? 2;
    this.minBytes = options.minBytes ?? 4096;
    this.timer = setInterval(() => this.flush(), options.intervalMs ?? 1000);
    this.timer.unref();
    process.once('exit', () => this.flushSync());
  }

  /** pino's DestinationStream: one line (its text ends with a newline). */
  write(line: string): void {
    if (this.broken || this.pendingBytes > MAX_PENDING_BYTES) {
      this.dropped++;
      return;
    }
    this.pending.push(line);
    this.pendingBytes += line.length;
    if (this.pendingBytes >= this.minBytes) this.flush();
  }

  /** Starts writing what is gathered, unless a write is under way (it starts the next one when done). */
  flush(): void {
    if (this.writing || this.broken || this.pending.length === 0) return;
    const text = this.take();
    this.writing = true;
    write(this.fd, text, null, 'utf8', (err, written) => {
      this.writing = false;
      if (err) {
        // A full pipe: again at the next interval (not at once, which would spin while the reader is slow).
        if (err.code === 'EAGAIN') this.requeue(text);
        else this.breakDown();
        return;
      }
      if (written < Buffer.byteLength(text)) this.requeue(Buffer.from(text).subarray(written).toString('utf8'));
      if (this.pendingBytes >= this.minBytes) this.flush();
    });
  }

  /** At exit: what is gathered, in one synchronous write attempt; nothing if that fails. */
  flushSync(): void {
    clearInterval(this.timer);
    if (this.broken || this.pending.length === 0) return;
    const text = this.take();
    try {
      writeSync(this.fd, text);
    } catch {
      this.breakDown();
    }
  }

  private take(): string {
    const text = this.pending.join('');
    this.pending = [];
    this.pendingBytes = 0;
    return text;
  }

  private requeue(text: string): void {
    this.pending.unshift(text);
    this.pendingBytes += text.length;
  }

  private breakDown(): void {
    this.broken = true;
    this.dropped += this.pending.length;
    this.pending = [];
    this.pendingBytes = 0;
  }
}
