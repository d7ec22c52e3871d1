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

/** How many transactions may be open at once, and for how long one may sit idle. */
export interface TransactionLimits {
  /** Open transactions in all (each pins a pooled connection); the rest of the pool stays for everyone. */
  maxOpen: number;
  /** Open transactions of one user. */
  maxOpenPerUser: number;
  /** Trino's transaction.idle-timeout (5 m): an abandoned transaction is rolled back after it. */
  idleTimeoutMs: number;
}

/** Half the pool at most, so idle transactions never starve other queries of connections. */
export function defaultTransactionLimits(poolSize: number): TransactionLimits {
  return { maxOpen: Math.max(1, Math.floor(poolSize / 2)), maxOpenPerUser: 2, idleTimeoutMs: 5 * 60_000 };
}

interface PinnedTransaction {
  id: string;
  user: string;
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
  private readonly expiredListeners: ((id: string) => void)[] = [];

  constructor(
    private readonly pool: ConnectionPool,
    private readonly limits: TransactionLimits,
  ) {}

  /** `listener` hears of each transaction rolled back for its idle timeout (nobody ends it otherwise). */
  onExpire(listener: (id: string) => void): void {
    this.expiredListeners.push(listener);
  }

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

  /**
   * START TRANSACTION: BEGIN on the statement's (pooled) connection, which then stays with `id`. Past the
   * limits the statement fails at once rather than take another connection from everyone else.
   */
  async begin(connection: DuckDBConnection, id: string, user: string): Promise<void> {
    if (this.byConnection.has(connection)) throw new VivaceError('NOT_SUPPORTED', 'Nested transactions not supported');
    const { maxOpen, maxOpenPerUser } = this.limits;
    if (this.byId.size >= maxOpen) {
      throw new VivaceError('GENERIC_INSUFFICIENT_RESOURCES', `Too many open transactions: the server allows ${maxOpen}`);
    }
    let ofUser = 0;
    for (const tx of this.byId.values()) if (tx.user === user) ofUser++;
    if (ofUser >= maxOpenPerUser) {
      throw new VivaceError('GENERIC_INSUFFICIENT_RESOURCES', `Too many open transactions for user ${user}: at most ${maxOpenPerUser}`);
    }
    await connection.run('BEGIN TRANSACTION').catch((err: unknown) => {
      throw toVivaceError(err);
    });
    const tx: PinnedTransaction = { id, user, connection, busy: true, waiters: [] };
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
    tx.idleTimer = setTimeout(() => void this.expire(tx), this.limits.idleTimeoutMs);
    tx.idleTimer.unref();
  }

  /** Engine close: every idle transaction is rolled back and its connection returned (a busy one returns with its statement). */
  async rollbackIdle(): Promise<void> {
    await Promise.all([...this.byId.values()].filter((tx) => !tx.busy).map((tx) => this.expire(tx)));
  }

  /** Rolls back a transaction nobody used for the idle timeout and returns its connection. */
  private async expire(tx: PinnedTransaction): Promise<void> {
    if (tx.busy || this.byId.get(tx.id) !== tx) return;
    this.unpin(tx);
    await tx.connection.run('ROLLBACK').catch(() => undefined);
    this.pool.release(tx.connection);
    for (const listener of this.expiredListeners) listener(tx.id);
  }
}

const registries = new WeakMap<ConnectionPool, TransactionRegistry>();

/** The transactions of one engine (one pool); created on first use, with `limits` or the defaults for the pool. */
export function transactionsOf(pool: ConnectionPool, limits?: TransactionLimits): TransactionRegistry {
  let registry = registries.get(pool);
  if (!registry) {
    registry = new TransactionRegistry(pool, limits ?? defaultTransactionLimits(pool.capacity));
    registries.set(pool, registry);
  }
  return registry;
}
