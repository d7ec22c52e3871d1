// A bounded pool of DuckDB connections: one statement per connection at a time, FIFO waiters.
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { VivaceError } from '../protocol/vivace-error.js';

export class ConnectionPool {
  private readonly idle: DuckDBConnection[] = [];
  private readonly all: DuckDBConnection[] = [];
  private readonly waiters: { resolve: (c: DuckDBConnection) => void; reject: (e: unknown) => void }[] = [];
  private creating = 0;
  private closed = false;

  constructor(
    private readonly instance: DuckDBInstance,
    private readonly maxConnections: number,
    /** Run on every new connection before first use (settings, TEMP macros). */
    private readonly setup: (c: DuckDBConnection) => Promise<void>,
  ) {}

  async acquire(): Promise<DuckDBConnection> {
    if (this.closed) throw new VivaceError('SERVER_SHUTTING_DOWN', 'Engine is closed');
    const ready = this.idle.pop();
    if (ready) return ready;
    if (this.all.length + this.creating < this.maxConnections) {
      this.creating++;
      try {
        const c = await this.instance.connect();
        await this.setup(c);
        this.all.push(c);
        return c;
      } finally {
        this.creating--;
      }
    }
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  /** An idle connection, or undefined when none is idle now (never opens one, never waits). */
  tryAcquire(): DuckDBConnection | undefined {
    return this.closed ? undefined : this.idle.pop();
  }

  /**
   * Opens and sets up every connection now, two at a time. The engine locks DuckDB's configuration once
   * they exist (engine-sandbox.ts), after which a new connection could not run its setup.
   */
  async fill(): Promise<void> {
    const opened: DuckDBConnection[] = [];
    const openOne = async (): Promise<void> => {
      while (this.all.length + this.creating < this.maxConnections) opened.push(await this.acquire());
    };
    await Promise.all([openOne(), openOne()]);
    for (const c of opened) this.release(c);
  }

  release(c: DuckDBConnection): void {
    if (this.closed) {
      this.idle.push(c);
      if (this.idle.length === this.all.length) this.drained?.();
      return;
    }
    const waiter = this.waiters.shift();
    if (waiter) waiter.resolve(c);
    else this.idle.push(c);
  }

  /** The most connections this pool opens. */
  get capacity(): number {
    return this.maxConnections;
  }

  get size(): { total: number; idle: number; waiting: number } {
    return { total: this.all.length, idle: this.idle.length, waiting: this.waiters.length };
  }

  private drained?: () => void;

  /**
   * Interrupts what runs, waits (bounded) until every connection is back, then closes them. A connection
   * closed while DuckDB still executes on it can deadlock that worker thread (the statement ends up the
   * last owner of its client context), and Node then hangs at exit joining the thread pool.
   */
  async close(beforeDisconnect: (connections: readonly DuckDBConnection[]) => void = () => {}, waitMs = 5000): Promise<void> {
    this.closed = true;
    for (const w of this.waiters.splice(0)) w.reject(new VivaceError('SERVER_SHUTTING_DOWN', 'Engine is closed'));
    if (this.idle.length < this.all.length) {
      const idle = new Set(this.idle);
      for (const c of this.all) if (!idle.has(c)) c.interrupt();
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, waitMs);
        this.drained = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    beforeDisconnect(this.all);
    for (const c of this.all.splice(0)) c.closeSync();
    this.idle.length = 0;
  }
}
