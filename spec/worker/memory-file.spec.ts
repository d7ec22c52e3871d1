// The memory catalog on disk (a worker's --memory-catalog): committed tables and their declared column
// types survive closing and reopening the engine; the sandbox still holds.
import { expect } from 'chai';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDuckDbEngine, DECLARED_COLUMNS_FILE, MEMORY_DATABASE_FILE, type DuckDbEngine } from '../../lib/engine/duckdb-engine.js';
import type { Engine } from '../../lib/engine/engine.types.js';
import type { Session } from '../../lib/protocol/types.js';
import { setDefaultLogger } from '../../lib/log/logger.js';
import { captureLog } from '../support/log-capture.js';
import { session } from './worker-support.js';
import { batchText } from '../../lib/engine/row-batch.js';

async function run(engine: Engine, sql: string, s: Session = session()): Promise<unknown[][]> {
  const plan = await engine.plan(sql, s);
  const execution = plan.execute();
  const rows: unknown[][] = [];
  for (let batch = await execution.next(1 << 20); batch; batch = await execution.next(1 << 20)) {
    if (batch.bytes > 0) rows.push(...(JSON.parse(`[${batchText(batch)}]`) as unknown[][]));
    if (execution.exhausted) break;
  }
  return rows;
}

describe('memory catalog in a database file', () => {
  let dir: string;
  let engine: DuckDbEngine | undefined;
  const open = () => createDuckDbEngine({ tempDirectory: join(dir, 'tmp'), memoryLimit: '512MB', threads: 1, maxConnections: 2, tpch: false, memoryDirectory: join(dir, 'data') });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'vivace-memory-file-'));
  });
  afterEach(async () => {
    await engine?.close();
    engine = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps committed tables and their declared types across a close and reopen', async () => {
    engine = await open();
    await run(engine, 'CREATE TABLE kept (id bigint, name varchar(10), at timestamp(3))');
    await run(engine, "INSERT INTO kept VALUES (1, 'one', TIMESTAMP '2024-01-02 03:04:05.678'), (2, 'two', NULL)");
    await run(engine, "CREATE VIEW kept_view AS SELECT name FROM kept WHERE id = 1");
    expect(existsSync(join(dir, 'data', MEMORY_DATABASE_FILE))).to.equal(true);
    expect(existsSync(join(dir, 'data', DECLARED_COLUMNS_FILE))).to.equal(true);
    await engine.close();

    engine = await open();
    expect(await run(engine, 'SELECT id, name, at FROM kept ORDER BY id')).to.deep.equal([[1, 'one', '2024-01-02 03:04:05.678'], [2, 'two', null]]);
    expect(await run(engine, 'DESCRIBE kept')).to.deep.equal([
      ['id', 'bigint', '', ''],
      ['name', 'varchar(10)', '', ''],
      ['at', 'timestamp(3)', '', ''],
    ]);
    expect(await run(engine, 'SELECT * FROM kept_view')).to.deep.equal([['one']]);
    const plan = await engine.plan('SELECT name FROM kept', session());
    expect(plan.columns).to.deep.equal([{ name: 'name', type: { base: 'varchar', length: 10 } }]);
    plan.release();
  });

  it('keeps what was written (in autocommit: the memory catalog takes no write in a transaction), and forgets a dropped table', async () => {
    engine = await open();
    const begin = await engine.plan('START TRANSACTION', session({ transactionId: 'NONE' }));
    const id = begin.sessionUpdates!.startedTransactionId!;
    await begin.execute().next(1024);
    const inTx = session({ transactionId: id });
    const refused = await engine.plan('CREATE TABLE rolled (v varchar(3))', inTx).then(() => undefined, (e: unknown) => e);
    expect(refused).to.include({ errorName: 'AUTOCOMMIT_WRITE_CONFLICT' });
    await run(engine, 'ROLLBACK', inTx);
    await run(engine, 'CREATE TABLE committed (v varchar(7))');
    await run(engine, 'CREATE TABLE dropped (v varchar(5))');
    await run(engine, 'DROP TABLE dropped');
    await engine.close();

    engine = await open();
    expect(await run(engine, "SELECT table_name FROM information_schema.tables WHERE table_schema = 'default'")).to.deep.equal([['committed']]);
    expect(await run(engine, 'DESCRIBE committed')).to.deep.equal([['v', 'varchar(7)', '', '']]);
    await run(engine, 'CREATE TABLE dropped (v varchar)');
    expect(await run(engine, 'DESCRIBE dropped')).to.deep.equal([['v', 'varchar', '', '']]);
  });

  it('starts with an unreadable declared-types file (types fall back to DuckDB\'s) rather than failing', async () => {
    engine = await open();
    await run(engine, 'CREATE TABLE t (v varchar(4))');
    await engine.close();
    writeFileSync(join(dir, 'data', DECLARED_COLUMNS_FILE), '{broken');
    const log = captureLog('info');
    const previous = setDefaultLogger(log.logger);
    try {
      engine = await open();
    } finally {
      setDefaultLogger(previous);
    }
    expect(log.lines().map((l) => l.event)).to.deep.equal(['declared_columns_unreadable']);
    expect(await run(engine, 'DESCRIBE t')).to.deep.equal([['v', 'varchar', '', '']]);
  });

  it('still refuses files outside the sandbox', async () => {
    engine = await open();
    let error: unknown;
    await run(engine, "SELECT * FROM read_csv('/etc/passwd')").catch((err: unknown) => (error = err));
    expect(error).to.be.instanceOf(Error);
    // And the memory file's directory is no way out either.
    error = undefined;
    await run(engine, `SELECT * FROM read_text('${join(dir, 'data', DECLARED_COLUMNS_FILE)}')`).catch((err: unknown) => (error = err));
    expect(error).to.be.instanceOf(Error);
  });
});
