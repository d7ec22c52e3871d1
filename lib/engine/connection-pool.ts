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

  release(c: DuckDBConnection): void {
    if (this.closed) return;
    const waiter = this.waiters.shift();
    if (waiter) waiter.resolve(c);
    else this.idle.push(c);
  }

  get size(): { total: number; idle: number; waiting: number } {
    return { total: this.all.length, idle: this.idle.length, waiting: this.waiters.length };
  }

  close(): void {
    this.closed = true;
    for (const w of this.waiters.splice(0)) w.reject(new VivaceError('SERVER_SHUTTING_DOWN', 'Engine is closed'));
    for (const c of this.all.splice(0)) {
      c.interrupt();
      c.closeSync();
    }
    this.idle.length = 0;
  }
}
