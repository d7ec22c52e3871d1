// The declared column types a memory table keeps beyond DuckDB's (varchar(n), char(n), time(p), ...):
// kept by the DDL that ran, followed through renames and drops, counted from COMMIT, dropped by ROLLBACK,
// and read alike by query outputs, DESCRIBE and information_schema.
import { expect } from 'chai';
import type { Engine } from '../../../lib/engine/engine.types.js';
import { newEngine, runSql, testSession } from '../engine-helpers.js';

describe('declared column types of memory tables', () => {
  let engine: Engine;
  before(async () => {
    engine = await newEngine(2);
  });
  after(() => engine.close());

  const types = async (sql: string, session = testSession()) => (await runSql(engine, sql, session)).plan.columns.map((c) => c.type);
  const described = async (table: string) => (await runSql(engine, `DESCRIBE ${table}`)).rows.map((r) => `${r[0]}:${r[1]}`);

  it('keeps what CREATE TABLE and ADD COLUMN declare, through column and table renames, until DROP', async () => {
    await runSql(engine, 'CREATE TABLE memory.default.kept (Name varchar(3), code char(2), n bigint)');
    await runSql(engine, 'ALTER TABLE memory.default.kept ADD COLUMN at time(0)');
    expect(await described('memory.default.kept')).to.deep.equal(['Name:varchar(3)', 'code:char(2)', 'n:bigint', 'at:time(0)']);
    await runSql(engine, 'ALTER TABLE memory.default.kept RENAME COLUMN code TO c2');
    await runSql(engine, 'ALTER TABLE memory.default.kept RENAME TO renamed');
    expect(await types('SELECT name, c2, at FROM renamed')).to.deep.equal([{ base: 'varchar', length: 3 }, { base: 'char', length: 2 }, { base: 'time', precision: 0 }]);
    const info = await runSql(engine, "SELECT column_name, data_type FROM memory.information_schema.columns WHERE table_name = 'renamed' ORDER BY ordinal_position");
    expect(info.rows).to.deep.equal([['Name', 'varchar(3)'], ['c2', 'char(2)'], ['n', 'bigint'], ['at', 'time(0)']]);
    await runSql(engine, 'DROP TABLE renamed');
    await runSql(engine, 'CREATE TABLE memory.default.renamed AS SELECT CAST(\'x\' AS varchar) AS name');
    expect(await types('SELECT name FROM renamed')).to.deep.equal([{ base: 'varchar' }]);
  });

  it('declares nothing for DDL refused in a transaction (the memory catalog writes only in autocommit, as Trino\'s)', async () => {
    const started = await runSql(engine, 'START TRANSACTION', testSession({ transactionId: 'NONE' }));
    const session = testSession({ transactionId: started.plan.sessionUpdates!.startedTransactionId });
    const refused = await engine.plan('CREATE TABLE memory.default.tx_rolled (v varchar(5))', session).then(() => undefined, (e: unknown) => e);
    expect(refused).to.include({ errorName: 'AUTOCOMMIT_WRITE_CONFLICT' });
    await runSql(engine, 'ROLLBACK', session);
    await runSql(engine, 'CREATE TABLE memory.default.tx_rolled (v varchar)');
    expect(await types('SELECT v FROM tx_rolled')).to.deep.equal([{ base: 'varchar' }]);
  });

  it('keeps what an existing table declares when CREATE TABLE or ADD COLUMN IF NOT EXISTS does nothing', async () => {
    await runSql(engine, 'CREATE TABLE memory.default.exists_once (v varchar(3))');
    await runSql(engine, 'CREATE TABLE IF NOT EXISTS memory.default.exists_once (v varchar(9))');
    await runSql(engine, 'ALTER TABLE memory.default.exists_once ADD COLUMN IF NOT EXISTS v char(9)');
    expect(await types('SELECT v FROM exists_once')).to.deep.equal([{ base: 'varchar', length: 3 }]);
  });

  it('drops a schema\'s declarations with the schema', async () => {
    await runSql(engine, 'CREATE SCHEMA memory.gone');
    await runSql(engine, 'CREATE TABLE memory.gone.t (v varchar(4))');
    await runSql(engine, 'DROP SCHEMA memory.gone CASCADE');
    await runSql(engine, 'CREATE SCHEMA memory.gone');
    await runSql(engine, 'CREATE TABLE memory.gone.t (v varchar)');
    expect(await types('SELECT v FROM memory.gone.t')).to.deep.equal([{ base: 'varchar' }]);
  });

  it('answers SHOW CREATE VIEW with the view as written in Trino SQL until DROP; a table is NOT_SUPPORTED', async () => {
    await runSql(engine, "CREATE VIEW memory.default.shown AS SELECT 1 AS a, 'x' || 'y' AS \"B c\" FROM (VALUES 1) t(x) WHERE x / 2 = 0");
    const shown = await runSql(engine, 'SHOW CREATE VIEW memory.default.shown');
    expect(shown.plan.columns.map((c) => c.name)).to.deep.equal(['Create View']);
    expect(shown.rows).to.deep.equal([[
      'CREATE VIEW memory.default.shown SECURITY DEFINER AS\nSELECT 1 AS a, \'x\' || \'y\' AS "B c" FROM (VALUES 1) AS t (x) WHERE x / 2 = 0',
    ]]);
    await runSql(engine, 'CREATE TABLE memory.default.plain (a bigint)');
    expect(await engine.plan('SHOW CREATE VIEW memory.default.plain', testSession()).catch((e: unknown) => e)).to.include({ errorName: 'NOT_SUPPORTED' });
    await runSql(engine, 'DROP VIEW memory.default.shown');
    expect(await engine.plan('SHOW CREATE VIEW memory.default.shown', testSession()).catch((e: unknown) => e)).to.include({ errorName: 'TABLE_NOT_FOUND' });
  });
});
