// Presto transactions (START TRANSACTION / COMMIT / ROLLBACK through the Transaction-Id header) on DuckDB:
// a transaction pins one pooled connection, on which BEGIN ran, and every statement carrying its id runs
// there, one at a time. COMMIT / ROLLBACK unpin it. The pool holds one connection fewer meanwhile.
import type { DuckDBConnection } from '@duckdb/node-api';
import { randomUUID } from 'node:crypto';
import type { ConnectionPool } from '../connection-pool.js';
import { VivaceError } from '../../protocol/vivace-error.js';
import { toVivaceError } from '../duckdb-errors.js';

/** A connection lent to one statement; `release` gives it back to its transaction or to the pool. */
export interface ConnectionLease {
  connection: DuckDBConnection;
  release(): void;
}

/** Presto's transaction.idle-timeout default: an abandoned transaction is rolled back after it. */
const DEFAULT_IDLE_TIMEOUT_MS = 5 * 60_000;

interface PinnedTransaction {
  id: string;
  connection: DuckDBConnection;
  busy: boolean;
  waiters: { resolve: () => void; reject: (err: unknown) => void }[];
  idleTimer?: NodeJS.Timeout;
}

const unknownTransaction = (id: string) =>
  new VivaceError('UNKNOWN_TRANSACTION', `Unknown transaction ID: ${id}. Possibly expired? Commands ignored until end of transaction block`);

export class TransactionRegistry {
  private readonly byId = new Map<string, PinnedTransaction>();
  private readonly byConnection = new Map<DuckDBConnection, PinnedTransaction>();

  constructor(
    private readonly pool: ConnectionPool,
    private readonly idleTimeoutMillis = DEFAULT_IDLE_TIMEOUT_MS,
  ) {}

  /** Ids of open transactions (for specs and diagnostics). */
  get openIds(): string[] {
    return [...this.byId.keys()];
  }

  isOpen(id: string | undefined): boolean {
    return id !== undefined && this.byId.has(id);
  }

  /**
   * The connection a statement runs on: its transaction's (waiting while another statement of the same
   * transaction holds it), or a pooled one when the session is in no transaction.
   */
  async lease(transactionId: string | undefined): Promise<ConnectionLease> {
    if (transactionId === undefined || transactionId === 'NONE') {
      const connection = await this.pool.acquire();
      return { connection, release: () => this.giveBack(connection) };
    }
    const tx = this.byId.get(transactionId);
    if (!tx) throw unknownTransaction(transactionId);
    if (tx.busy) await new Promise<void>((resolve, reject) => tx.waiters.push({ resolve, reject }));
    else tx.busy = true;
    clearTimeout(tx.idleTimer);
    let released = false;
    return {
      connection: tx.connection,
      release: () => {
        if (released) return;
        released = true;
        this.giveBack(tx.connection);
      },
    };
  }

  newId(): string {
    return randomUUID();
  }

  /** START TRANSACTION: BEGIN on the statement's (pooled) connection, which then stays with `id`. */
  async begin(connection: DuckDBConnection, id: string): Promise<void> {
    if (this.byConnection.has(connection)) throw new VivaceError('NOT_SUPPORTED', 'Nested transactions not supported');
    await connection.run('BEGIN TRANSACTION').catch((err: unknown) => {
      throw toVivaceError(err);
    });
    const tx: PinnedTransaction = { id, connection, busy: true, waiters: [] };
    this.byId.set(id, tx);
    this.byConnection.set(connection, tx);
  }

  /**
   * COMMIT or ROLLBACK on the transaction's connection (held by the calling statement). The connection
   * is unpinned either way, so the statement's lease then returns it to the pool.
   */
  async finish(id: string, commit: boolean): Promise<void> {
    const tx = this.byId.get(id);
    if (!tx) throw unknownTransaction(id);
    try {
      await tx.connection.run(commit ? 'COMMIT' : 'ROLLBACK');
    } catch (err) {
      // A failed COMMIT (conflict, aborted transaction) leaves nothing to keep: roll back and report it.
      await tx.connection.run('ROLLBACK').catch(() => undefined);
      throw toVivaceError(err);
    } finally {
      this.unpin(tx);
    }
  }

  private unpin(tx: PinnedTransaction): void {
    clearTimeout(tx.idleTimer);
    this.byId.delete(tx.id);
    this.byConnection.delete(tx.connection);
    for (const w of tx.waiters.splice(0)) w.reject(unknownTransaction(tx.id));
  }

  /** A statement is done with `connection`: the next statement of its transaction gets it, or the pool. */
  private giveBack(connection: DuckDBConnection): void {
    const tx = this.byConnection.get(connection);
    if (!tx) {
      this.pool.release(connection);
      return;
    }
    const next = tx.waiters.shift();
    if (next) {
      next.resolve();
      return;
    }
    tx.busy = false;
    tx.idleTimer = setTimeout(() => void this.expire(tx), this.idleTimeoutMillis);
    tx.idleTimer.unref();
  }

  /** Rolls back a transaction nobody used for the idle timeout and returns its connection. */
  private async expire(tx: PinnedTransaction): Promise<void> {
    if (tx.busy || this.byId.get(tx.id) !== tx) return;
    this.unpin(tx);
    await tx.connection.run('ROLLBACK').catch(() => undefined);
    this.pool.release(tx.connection);
  }
}

const registries = new WeakMap<ConnectionPool, TransactionRegistry>();

/** The transactions of one engine (one pool); created on first use. */
export function transactionsOf(pool: ConnectionPool): TransactionRegistry {
  let registry = registries.get(pool);
  if (!registry) {
    registry = new TransactionRegistry(pool);
    registries.set(pool, registry);
  }
  return registry;
}
