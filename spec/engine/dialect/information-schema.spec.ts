// Per-catalog information_schema: `memory.information_schema.tables` and friends with Presto's columns.
import { expect } from 'chai';
import type { Engine } from '../../../lib/engine/engine.types.js';
import { newEngine, runSql, testSession } from '../engine-helpers.js';

describe('dialect: information_schema', () => {
  let engine: Engine;
  before(async () => {
    engine = await newEngine(1);
    await runSql(engine, 'CREATE SCHEMA memory.inf');
    await runSql(engine, 'CREATE TABLE memory.inf.t1 (a INTEGER NOT NULL, b VARCHAR, c REAL)');
    await runSql(engine, 'CREATE VIEW memory.inf.v1 AS SELECT a FROM memory.inf.t1');
  });
  after(() => engine.close());

  it('memory.information_schema.tables lists tables and views with table_type', async () => {
    const out = await runSql(engine, "SELECT table_catalog, table_schema, table_name, table_type FROM memory.information_schema.tables WHERE table_schema = 'inf' ORDER BY table_name");
    expect(out.rows).to.deep.equal([
      ['memory', 'inf', 't1', 'BASE TABLE'],
      ['memory', 'inf', 'v1', 'VIEW'],
    ]);
  });

  it('information_schema.columns in the session catalog gives Presto types and ordinal positions', async () => {
    const out = await runSql(
      engine,
      "SELECT column_name, ordinal_position, is_nullable, data_type FROM information_schema.columns c WHERE c.table_schema = 'inf' AND table_name = 't1' ORDER BY 2",
      testSession({ catalog: 'memory', schema: 'default' }),
    );
    expect(out.plan.columns.map((c) => c.type.base)).to.deep.equal(['varchar', 'bigint', 'varchar', 'varchar']);
    expect(out.rows).to.deep.equal([
      ['a', 1, 'NO', 'integer'],
      ['b', 2, 'YES', 'varchar'],
      ['c', 3, 'YES', 'real'],
    ]);
  });

  it('schemata lists the catalog\'s schemas including information_schema', async () => {
    const out = await runSql(engine, 'SELECT catalog_name, schema_name FROM "memory".information_schema.schemata AS s ORDER BY schema_name');
    expect(out.rows).to.deep.equal([
      ['memory', 'default'],
      ['memory', 'inf'],
      ['memory', 'information_schema'],
    ]);
  });

  it('SHOW COLUMNS FROM information_schema.tables describes the virtual table', async () => {
    expect((await runSql(engine, 'SHOW COLUMNS FROM memory.information_schema.tables')).rows.map((r) => r[0])).to.deep.equal([
      'table_catalog', 'table_schema', 'table_name', 'table_type',
    ]);
  });

  it('stands in for table references only: strings stay strings, aliases and the table name qualify columns', async () => {
    const session = testSession({ catalog: 'memory', schema: 'default' });
    expect((await runSql(engine, "SELECT 'information_schema.tables'", session)).rows).to.deep.equal([['information_schema.tables']]);
    const aliased = await runSql(engine, "SELECT t.table_name FROM memory.information_schema.tables t WHERE t.table_schema = 'inf' ORDER BY 1", session);
    expect(aliased.rows).to.deep.equal([['t1'], ['v1']]);
    const bare = await runSql(engine, "SELECT tables.table_name FROM information_schema.tables WHERE tables.table_schema = 'inf' ORDER BY 1", session);
    expect(bare.rows).to.deep.equal([['t1'], ['v1']]);
    const cte = await runSql(engine, "WITH tables AS (SELECT 'mine' AS table_name) SELECT table_name FROM tables", session);
    expect(cte.rows).to.deep.equal([['mine']]);
  });
});
