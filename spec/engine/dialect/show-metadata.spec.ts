// SHOW CATALOGS / SCHEMAS / TABLES / COLUMNS / CREATE TABLE, DESCRIBE, SHOW FUNCTIONS and EXPLAIN through the engine.
import { expect } from 'chai';
import type { Engine } from '../../../lib/engine/engine.types.js';
import { newEngine, runSql, testSession } from '../engine-helpers.js';

const names = (out: { plan: { columns: { name: string }[] } }) => out.plan.columns.map((c) => c.name);
const failure = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e);

describe('dialect: SHOW and DESCRIBE', () => {
  let engine: Engine;
  before(async () => {
    engine = await newEngine(1);
    await runSql(engine, 'CREATE SCHEMA memory.shop');
    await runSql(engine, 'CREATE TABLE memory.shop.orders (id BIGINT NOT NULL, note VARCHAR, price DECIMAL(10,2), created TIMESTAMP, tags VARCHAR ARRAY)');
    await runSql(engine, "COMMENT ON COLUMN orders.note IS 'free text'", testSession({ catalog: 'memory', schema: 'shop' }));
    await runSql(engine, 'CREATE TABLE memory.shop.items (x INTEGER)');
    await runSql(engine, 'CREATE VIEW memory.shop.cheap AS SELECT id FROM memory.shop.orders');
  });
  after(() => engine.close());

  it('SHOW CATALOGS lists DuckDB databases without DuckDB internals, with LIKE', async () => {
    const out = await runSql(engine, 'SHOW CATALOGS');
    expect(names(out)).to.deep.equal(['Catalog']);
    expect(out.plan.columns[0]!.type).to.deep.equal({ base: 'varchar' });
    const catalogs = out.rows.map((r) => r[0]);
    expect(catalogs).to.include('memory');
    expect(catalogs).not.to.include.members(['system', 'temp']);
    expect((await runSql(engine, "show catalogs like 'mem%';")).rows).to.deep.equal([['memory']]);
    expect(out.plan.updateType).to.equal(undefined);
  });

  it('SHOW SCHEMAS [FROM c] [LIKE p] includes information_schema and hides an empty main', async () => {
    const out = await runSql(engine, 'SHOW SCHEMAS FROM memory');
    expect(names(out)).to.deep.equal(['Schema']);
    expect(out.rows).to.deep.equal([['default'], ['information_schema'], ['shop']]);
    expect((await runSql(engine, "SHOW SCHEMAS LIKE 'sh%'")).rows).to.deep.equal([['shop']]);
    expect(await failure(engine.plan('SHOW SCHEMAS FROM nope', testSession()))).to.include({ errorName: 'CATALOG_NOT_FOUND' });
  });

  it('SHOW TABLES lists tables and views of the session schema or FROM [c.]s, with LIKE', async () => {
    const session = testSession({ catalog: 'memory', schema: 'shop' });
    const out = await runSql(engine, 'SHOW TABLES', session);
    expect(names(out)).to.deep.equal(['Table']);
    expect(out.rows).to.deep.equal([['cheap'], ['items'], ['orders']]);
    expect((await runSql(engine, 'SHOW TABLES FROM memory.shop')).rows).to.have.length(3);
    expect((await runSql(engine, "SHOW TABLES FROM shop LIKE 'o%'")).rows).to.deep.equal([['orders']]);
    expect((await runSql(engine, "SHOW TABLES IN shop LIKE 'i\\_%' ESCAPE '\\'")).rows).to.deep.equal([]);
    expect((await runSql(engine, 'SHOW TABLES FROM memory.information_schema')).rows.map((r) => r[0])).to.include('tables');
    expect(await failure(engine.plan('SHOW TABLES FROM memory.nope', testSession()))).to.include({ errorName: 'SCHEMA_NOT_FOUND' });
  });

  it('CREATE TABLE takes column comments inline, as Trino: SHOW COLUMNS and information_schema show them', async () => {
    await runSql(engine, "CREATE TABLE memory.shop.commented (id INTEGER COMMENT 'this is the id column', \"Odd\" VARCHAR COMMENT 'it''s', name VARCHAR)");
    expect((await runSql(engine, 'SHOW COLUMNS FROM memory.shop.commented')).rows).to.deep.equal([
      ['id', 'integer', '', 'this is the id column'], ['Odd', 'varchar', '', "it's"], ['name', 'varchar', '', ''],
    ]);
    const listed = await runSql(engine, "SELECT column_name, comment FROM memory.information_schema.columns WHERE table_schema = 'shop' AND table_name = 'commented' ORDER BY ordinal_position");
    expect(listed.rows).to.deep.equal([['id', 'this is the id column'], ['Odd', "it's"], ['name', null]]);
    // IF NOT EXISTS over the table already there changes none of its comments.
    await runSql(engine, "CREATE TABLE IF NOT EXISTS memory.shop.commented (id INTEGER COMMENT 'other')");
    expect((await runSql(engine, 'SHOW COLUMNS FROM memory.shop.commented')).rows[0]).to.deep.equal(['id', 'integer', '', 'this is the id column']);
  });

  it('SHOW COLUMNS and DESCRIBE give Column, Type, Extra, Comment with Presto type names', async () => {
    const expected = [
      ['id', 'bigint', '', ''],
      ['note', 'varchar', '', 'free text'],
      ['price', 'decimal(10,2)', '', ''],
      ["created", "timestamp(3)", "", ""],
      ['tags', 'array(varchar)', '', ''],
    ];
    const out = await runSql(engine, 'SHOW COLUMNS FROM memory.shop.orders');
    expect(names(out)).to.deep.equal(['Column', 'Type', 'Extra', 'Comment']);
    expect(out.rows).to.deep.equal(expected);
    expect((await runSql(engine, 'DESCRIBE shop.orders')).rows).to.deep.equal(expected);
    expect((await runSql(engine, 'DESC "orders"', testSession({ catalog: 'memory', schema: 'shop' }))).rows).to.deep.equal(expected);
    expect((await runSql(engine, 'DESCRIBE shop.cheap')).rows).to.deep.equal([['id', 'bigint', '', '']]);
    const err = await failure(engine.plan('SHOW COLUMNS FROM shop.missing', testSession()));
    expect(err).to.include({ errorName: 'TABLE_NOT_FOUND', message: "Table 'memory.shop.missing' does not exist" });
  });

  it('DESCRIBE of the prestodb dialect prints types without precision', async () => {
    const out = await runSql(engine, 'DESCRIBE shop.orders', testSession({ prefix: 'X-Presto-' }));
    expect(out.rows[3]).to.deep.equal(["created", "timestamp", "", ""]);
  });

  it('SHOW CREATE TABLE renders a Presto CREATE TABLE; a view is NOT_SUPPORTED', async () => {
    const out = await runSql(engine, 'SHOW CREATE TABLE shop.orders');
    expect(names(out)).to.deep.equal(['Create Table']);
    expect(out.rows[0]![0]).to.equal(
      [
        'CREATE TABLE memory.shop.orders (',
        '   id bigint NOT NULL,',
        "   note varchar COMMENT 'free text',",
        '   price decimal(10,2),',
        '   created timestamp(3),',
        '   tags array(varchar)',
        ')',
      ].join('\n'),
    );
    expect(await failure(engine.plan('SHOW CREATE TABLE shop.cheap', testSession()))).to.include({ errorName: 'NOT_SUPPORTED' });
  });

  it('SHOW FUNCTIONS lists DuckDB functions with Presto columns, filtered by LIKE', async () => {
    const out = await runSql(engine, "SHOW FUNCTIONS LIKE 'abs'");
    expect(names(out)).to.deep.equal(['Function', 'Return Type', 'Argument Types', 'Function Type', 'Deterministic', 'Description']);
    expect(out.plan.columns[4]!.type).to.deep.equal({ base: 'boolean' });
    expect(out.rows.length).to.be.greaterThan(0);
    for (const row of out.rows) expect([row[0], row[3], row[4]]).to.deep.equal(['abs', 'scalar', true]);
    expect((await runSql(engine, "SHOW FUNCTIONS LIKE 'random'")).rows[0]![4]).to.equal(false);
    expect((await runSql(engine, "SHOW FUNCTIONS LIKE 'sum'")).rows.every((r) => r[3] === 'aggregate')).to.equal(true);
  });

  it('EXPLAIN and EXPLAIN ANALYZE answer one Query Plan column', async () => {
    const plain = await runSql(engine, 'EXPLAIN SELECT count(*) FROM shop.orders');
    expect(names(plain)).to.deep.equal(['Query Plan']);
    expect(plain.rows).to.have.length(1);
    expect(String(plain.rows[0]![0])).to.match(/SEQ_SCAN|TABLE_SCAN|orders/i);
    const typed = await runSql(engine, 'EXPLAIN (TYPE DISTRIBUTED) SELECT 1');
    expect(typed.rows).to.have.length(1);
    const analyzed = await runSql(engine, 'EXPLAIN ANALYZE SELECT 1');
    expect(String(analyzed.rows[0]![0])).to.match(/Fragment 0 \[SINGLE\]/);
    expect(await failure(engine.plan('EXPLAIN SELECT * FROM nowhere', testSession()))).to.include({ errorName: 'TABLE_NOT_FOUND' });
  });

  it('does not cache SHOW results: DDL shows up at once', async () => {
    expect((await runSql(engine, "SHOW TABLES FROM shop LIKE 'late'")).rows).to.deep.equal([]);
    await runSql(engine, 'CREATE TABLE shop.late (a INTEGER)');
    expect((await runSql(engine, "SHOW TABLES FROM shop LIKE 'late'")).rows).to.deep.equal([['late']]);
  });
});
