// START TRANSACTION / COMMIT / ROLLBACK through the Transaction-Id header: a transaction pins a connection and
// reads one snapshot; as in Trino, the memory catalog takes writes only in autocommit.
import { expect } from 'chai';
import type { Engine } from '../../../lib/engine/engine.types.js';
import { newEngine, runSql, testSession } from '../engine-helpers.js';
import sinon from 'sinon';
import { DuckDBInstance } from '@duckdb/node-api';
import { ConnectionPool } from '../../../lib/engine/connection-pool.js';
import { TransactionRegistry } from '../../../lib/engine/dialect/transaction-registry.js';

const failure = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e);

describe('dialect: transactions', () => {
  let engine: Engine;
  before(async () => {
    engine = await newEngine(2);
    await runSql(engine, 'CREATE TABLE tx_t (v INTEGER)');
  });
  after(() => engine.close());

  const begin = async () => {
    const out = await runSql(engine, 'START TRANSACTION', testSession({ transactionId: 'NONE' }));
    expect([out.plan.updateType, out.plan.columns, out.rows]).to.deep.equal(['START TRANSACTION', [], []]);
    const id = out.plan.sessionUpdates?.startedTransactionId;
    expect(id).to.be.a('string');
    return testSession({ transactionId: id });
  };
  const count = async (session = testSession()) => (await runSql(engine, 'SELECT count(*) FROM tx_t', session)).rows[0]![0];

  it('START TRANSACTION without the Transaction-Id header is INCOMPATIBLE_CLIENT', async () => {
    const err = await failure(engine.plan('START TRANSACTION', testSession()));
    expect(err).to.include({ errorName: 'INCOMPATIBLE_CLIENT', message: 'Client does not support transactions' });
  });

  it('a write in a transaction fails as Trino\'s memory connector fails it: AUTOCOMMIT_WRITE_CONFLICT', async () => {
    const tx = await begin();
    const conflict = { errorName: 'AUTOCOMMIT_WRITE_CONFLICT', message: 'Catalog only supports writes using autocommit: memory' };
    for (const sql of [
      'INSERT INTO tx_t VALUES (1)', 'CREATE TABLE tx_only (a INTEGER)', 'CREATE TABLE memory.default.tx_as AS SELECT 1 AS a', 'DELETE FROM tx_t',
      "COMMENT ON TABLE tx_t IS 'x'", 'CREATE SCHEMA memory.tx_s', 'DROP TABLE tx_t', "EXECUTE IMMEDIATE 'INSERT INTO tx_t VALUES (?)' USING 2",
    ]) {
      expect(await failure(engine.plan(sql, tx)), sql).to.include(conflict);
    }
    expect(await count(tx)).to.equal(0);
    await runSql(engine, 'ROLLBACK', tx);
  });

  it('COMMIT and ROLLBACK clear the transaction id; the transaction reads what was there when it began', async () => {
    const tx = await begin();
    expect(await count(tx)).to.equal(0);
    await runSql(engine, 'INSERT INTO tx_t VALUES (1), (2)');
    expect(await count(tx)).to.equal(0);
    const commit = await runSql(engine, 'COMMIT', tx);
    expect([commit.plan.updateType, commit.plan.sessionUpdates]).to.deep.equal(['COMMIT', { clearTransactionId: true }]);
    expect(await count()).to.equal(2);
    const other = await begin();
    const rollback = await runSql(engine, 'ROLLBACK', other);
    expect([rollback.plan.updateType, rollback.plan.sessionUpdates]).to.deep.equal(['ROLLBACK', { clearTransactionId: true }]);
  });

  it('an unknown or finished transaction id is UNKNOWN_TRANSACTION; COMMIT outside one is NOT_IN_TRANSACTION', async () => {
    expect(await failure(engine.plan('SELECT 1', testSession({ transactionId: 'no-such-id' })))).to.include({ errorName: 'UNKNOWN_TRANSACTION' });
    const tx = await begin();
    await runSql(engine, 'COMMIT', tx);
    expect(await failure(engine.plan('SELECT 1', tx))).to.include({ errorName: 'UNKNOWN_TRANSACTION' });
    expect(await failure(engine.plan('COMMIT', testSession({ transactionId: 'NONE' })))).to.include({ errorName: 'NOT_IN_TRANSACTION' });
  });

  it('runs a transaction\'s statements one at a time on its connection while others use the pool', async () => {
    const tx = await begin();
    const [a, b] = await Promise.all([count(tx), count(tx)]);
    expect([a, b]).to.deep.equal([2, 2]);
    await runSql(engine, 'INSERT INTO tx_t VALUES (10)'); // on the other pooled connection, while the transaction is open
    expect([await count(tx), await count()]).to.deep.equal([2, 3]);
    await runSql(engine, 'ROLLBACK', tx);
  });

  it('gives the connection back when a START TRANSACTION plan is released unexecuted', async () => {
    const small = await newEngine(1);
    try {
      const plan = await small.plan('START TRANSACTION', testSession({ transactionId: 'NONE' }));
      plan.release();
      expect((await runSql(small, 'SELECT 1')).rows).to.deep.equal([[1]]);
      const id = plan.sessionUpdates!.startedTransactionId!;
      expect(await failure(small.plan('SELECT 1', testSession({ transactionId: id })))).to.include({ errorName: 'UNKNOWN_TRANSACTION' });
    } finally {
      await small.close();
    }
  });

  it('bounds open transactions per user and in all, so idle ones never hold the whole pool', async () => {
    const pooled = await newEngine(8); // at most 4 open transactions, 2 per user
    try {
      const open = async (user: string) => {
        const out = await runSql(pooled, 'START TRANSACTION', testSession({ user, transactionId: 'NONE' }));
        return out.plan.sessionUpdates!.startedTransactionId!;
      };
      const refused = (user: string) => failure(runSql(pooled, 'START TRANSACTION', testSession({ user, transactionId: 'NONE' })));
      await open('alice');
      await open('alice');
      expect(await refused('alice')).to.include({ errorName: 'GENERIC_INSUFFICIENT_RESOURCES', message: 'Too many open transactions for user alice: at most 2' });
      await open('bob');
      const last = await open('carol');
      expect(await refused('dave')).to.include({ errorName: 'GENERIC_INSUFFICIENT_RESOURCES', message: 'Too many open transactions: the server allows 4' });
      // Four idle transactions pin four connections; the other four still serve everyone else at once.
      const selects = await Promise.all([1, 2, 3, 4, 5, 6].map((n) => runSql(pooled, `SELECT ${n}`, testSession({ user: 'eve' }))));
      expect(selects.map((o) => o.rows[0]![0])).to.deep.equal([1, 2, 3, 4, 5, 6]);
      await runSql(pooled, 'ROLLBACK', testSession({ user: 'carol', transactionId: last }));
      await open('dave');
    } finally {
      await pooled.close();
    }
  });
});

describe('dialect: transactions rolled back for their idle timeout', () => {
  it('are rolled back on a simulated clock, and their listeners hear of it (the engine drops their declared column types)', async () => {
    const instance = await DuckDBInstance.create(':memory:');
    const pool = new ConnectionPool(instance, 2, async () => undefined);
    const registry = new TransactionRegistry(pool, { maxOpen: 1, maxOpenPerUser: 1, idleTimeoutMs: 60_000 });
    const heard = new Promise<string>((resolve) => registry.onExpire(resolve));
    const clock = sinon.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const lease = await registry.lease(undefined);
      await registry.begin(lease.connection, 'tx-idle', 'u');
      lease.release();
      await clock.tickAsync(59_000);
      expect(registry.isOpen('tx-idle')).to.equal(true);
      await clock.tickAsync(2_000);
      // The listener hears once DuckDB's ROLLBACK has run (an event, not a timer).
      expect(await heard).to.equal('tx-idle');
      expect(registry.isOpen('tx-idle')).to.equal(false);
    } finally {
      clock.restore();
      await pool.close(() => undefined);
      instance.closeSync();
    }
  });
});
