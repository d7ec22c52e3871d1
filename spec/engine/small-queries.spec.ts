// The one-thread instance of small table-free queries (lib/engine/small-queries.ts, issue 25 b2): a
// repeated `SELECT 1` of an engine with threads=2 runs there once its plan is known small, with the same
// rows; anything reading a table, a large result, a transaction's statement and an engine of one thread
// stay on the main instance; the instance itself is sandboxed and locked as the main one is.
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDuckDbEngine, type DuckDbEngine } from '../../lib/engine/duckdb-engine.js';
import { SmallQueries } from '../../lib/engine/small-queries.js';
import { runSql, testSession } from './engine-helpers.js';
import { defaultHiveCatalog } from '../../lib/connectors/hive/default-lake.js';

describe('small table-free queries on a one-thread instance', function () {
  this.timeout(60_000);
  let dir: string;
  let engine: DuckDbEngine;
  const smallRuns = () => engine.planStats().smallRuns;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vivace-small-queries-'));
    engine = await createDuckDbEngine({ tempDirectory: dir, threads: 2, maxConnections: 4, tpch: false, smallQueries: true });
    await runSql(engine, 'CREATE TABLE small_t AS SELECT * FROM (VALUES (1, \'a\'), (2, \'b\')) AS v(n, s)');
  });
  after(async () => {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs a repeated SELECT 1 there once its first run showed it small, with the same rows', async () => {
    const before = smallRuns();
    const first = await runSql(engine, 'SELECT 1 AS one, \'x\' AS two');
    expect(smallRuns() - before).to.equal(0);
    for (let i = 0; i < 3; i++) expect((await runSql(engine, 'SELECT 1 AS one, \'x\' AS two')).json).to.equal(first.json);
    expect(smallRuns() - before).to.equal(3);
    expect(first.rows).to.deep.equal([[1, 'x']]);
  });

  it('renders what the main instance renders (macros and registered functions are there too)', async () => {
    const sql = "SELECT TIMESTAMP '2020-01-02 03:04:05.123' AT TIME ZONE 'America/New_York', CAST('10.0.0.1' AS IPADDRESS), cardinality(approx_set(7)), DATE '2020-02-29' + INTERVAL '1' YEAR";
    const main = await runSql(engine, sql);
    const before = smallRuns();
    const small = await runSql(engine, sql);
    expect(smallRuns() - before).to.equal(1);
    expect(small.json).to.equal(main.json);
    expect(small.rows[0]).to.deep.equal(['2020-01-01 22:04:05.123 America/New_York', '10.0.0.1', 1, '2021-02-28']);
  });

  it('keeps a query reading a table on the main instance', async () => {
    const before = smallRuns();
    for (let i = 0; i < 3; i++) expect((await runSql(engine, 'SELECT n, s FROM small_t ORDER BY n')).rows).to.deep.equal([[1, 'a'], [2, 'b']]);
    expect(smallRuns() - before).to.equal(0);
  });

  it('keeps a metadata table whose translation reads no table ("t$partitions") on the main instance, where its catalog is', async () => {
    // The small instance has no catalog attached: a lake's t$partitions there failed CATALOG_NOT_FOUND.
    const lake = await createDuckDbEngine({ tempDirectory: join(dir, 'lake-engine'), threads: 2, maxConnections: 4, tpch: false, smallQueries: true, hive: [defaultHiveCatalog(join(dir, 'lake'))] });
    try {
      const session = testSession({ catalog: 'lake', schema: 's' });
      await runSql(lake, 'CREATE SCHEMA lake.s', session);
      await runSql(lake, "CREATE TABLE lake.s.t (id integer, name varchar) WITH (partitioned_by = ARRAY['name'])", session);
      await runSql(lake, "INSERT INTO lake.s.t VALUES (1, 'alice')", session);
      for (let i = 0; i < 3; i++) expect((await runSql(lake, 'SELECT name FROM lake.s."t$partitions"', session)).rows).to.deep.equal([['alice']]);
      expect(lake.planStats().smallRuns).to.equal(0);
    } finally {
      await lake.close();
    }
  });

  it('keeps a table-free query with a large result on the main instance', async () => {
    const before = smallRuns();
    for (let i = 0; i < 2; i++) expect((await runSql(engine, 'SELECT x FROM UNNEST(sequence(1, 5000)) AS t(x)')).rows).to.have.length(5000);
    expect(smallRuns() - before).to.equal(0);
  });

  it("keeps a transaction's statement on the transaction's connection", async () => {
    await runSql(engine, 'SELECT 5 AS in_tx');
    const begin = await runSql(engine, 'START TRANSACTION', testSession({ transactionId: 'NONE' }));
    const transactionId = begin.plan.sessionUpdates?.startedTransactionId;
    expect(transactionId).to.be.a('string');
    const before = smallRuns();
    expect((await runSql(engine, 'SELECT 5 AS in_tx', testSession({ transactionId: transactionId! }))).rows).to.deep.equal([[5]]);
    expect(smallRuns() - before).to.equal(0);
    await runSql(engine, 'ROLLBACK', testSession({ transactionId: transactionId! }));
  });

  it('is not opened for an engine of one thread (nothing to wake there)', async () => {
    const oneDir = mkdtempSync(join(tmpdir(), 'vivace-small-queries-one-'));
    const one = await createDuckDbEngine({ tempDirectory: oneDir, threads: 1, maxConnections: 2, tpch: false, smallQueries: true });
    try {
      for (let i = 0; i < 3; i++) await runSql(one, 'SELECT 1');
      expect(one.planStats().smallRuns).to.equal(0);
    } finally {
      await one.close();
      rmSync(oneDir, { recursive: true, force: true });
    }
  });

  describe('the instance itself', () => {
    let root: string;
    let small: SmallQueries;
    before(async () => {
      root = mkdtempSync(join(tmpdir(), 'vivace-small-instance-'));
      writeFileSync(join(root, 'canary.csv'), 'secret\n42\n');
      small = await SmallQueries.open({ tempDirectory: root, connections: 1, registerFunctions: () => {}, setup: async () => {} });
    });
    after(async () => {
      await small.close(() => {});
      rmSync(root, { recursive: true, force: true });
    });

    const outcome = async (sql: string): Promise<string> => {
      const lease = small.tryAcquire();
      if (!lease) throw new Error('no idle connection');
      try {
        return JSON.stringify((await lease.connection.runAndReadAll(sql)).getRows(), (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v));
      } catch (err) {
        return (err as Error).message;
      } finally {
        lease.release();
      }
    };

    it('has one thread, and its settings are locked', async () => {
      expect(await outcome("SELECT current_setting('threads')")).to.equal('[[1]]');
      expect(await outcome('SET threads = 2')).to.match(/locked/i);
    });

    it('reads no host file', async () => {
      expect(await outcome(`SELECT * FROM read_csv('${join(root, 'canary.csv')}')`)).to.not.include('42');
    });

    it('lends each connection once at a time (busy: the main instance runs the statement)', () => {
      const lease = small.tryAcquire();
      expect(lease).to.not.equal(undefined);
      expect(small.tryAcquire()).to.equal(undefined);
      lease!.release();
      lease!.release(); // idempotent: the connection is in the pool once
      const again = small.tryAcquire();
      expect(again).to.not.equal(undefined);
      expect(small.tryAcquire()).to.equal(undefined);
      again!.release();
    });
  });
});
