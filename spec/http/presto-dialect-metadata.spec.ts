// Presto metadata statements through the HTTP protocol, as a Presto client sends them: SHOW, DESCRIBE,
// SHOW CREATE TABLE, SHOW FUNCTIONS, SHOW SESSION, information_schema and EXPLAIN, with the column names
// and types Presto answers. Expected results are written out (Presto's tpch connector, Trino's docs).
import { expect } from 'chai';
import { createTestEngine } from '../support/duckdb.js';
import { startTestServer, type TestServer } from '../support/http.js';
import { PrestoSession, type StatementOutcome } from '../support/presto-session.js';

/** [name, type] of each result column. */
const columns = (out: StatementOutcome) => out.columns?.map((c) => [c.name, c.type]);
const varcharColumns = (...names: string[]) => names.map((n) => [n, 'varchar']);

describe('Presto dialect over HTTP: metadata', function () {
  this.timeout(30_000);
  let server: TestServer;
  let presto: PrestoSession;

  before(async () => {
    server = await startTestServer({ engine: await createTestEngine(2) });
    presto = new PrestoSession(server.url, { timeZone: 'UTC' });
    await presto.ok('CREATE SCHEMA memory.shop');
    await presto.ok('CREATE TABLE memory.shop.items (id bigint NOT NULL, name varchar, price decimal(10,2), created timestamp)');
    await presto.ok("COMMENT ON COLUMN memory.shop.items.name IS 'item name'");
    await presto.ok('CREATE TABLE memory.shop.stock (sku bigint NOT NULL, label varchar, weight double, active boolean, since date)');
  });
  after(() => server.stop());

  it('SHOW CATALOGS lists memory and tpch (and system when present), with LIKE', async () => {
    const out = await presto.ok('SHOW CATALOGS');
    expect(columns(out)).to.deep.equal([['Catalog', 'varchar']]);
    const catalogs = out.rows.map((r) => r[0]);
    expect(catalogs.filter((c) => c !== 'system')).to.deep.equal(['memory', 'tpch']);
    expect((await presto.ok("SHOW CATALOGS LIKE 't%'")).rows).to.deep.equal([['tpch']]);
  });

  it('SHOW SCHEMAS FROM tpch lists the scale factors Trino lists and information_schema', async () => {
    const out = await presto.ok('SHOW SCHEMAS FROM tpch');
    expect(columns(out)).to.deep.equal([['Schema', 'varchar']]);
    expect(out.rows).to.deep.equal([['information_schema'], ['sf1'], ['sf100'], ['sf1000'], ['sf10000'], ['sf100000'], ['sf300'], ['sf3000'], ['sf30000'], ['tiny']]);
    expect((await presto.ok("SHOW SCHEMAS FROM tpch LIKE 'sf1%'")).rows).to.deep.equal([['sf1'], ['sf100'], ['sf1000'], ['sf10000'], ['sf100000']]);
  });

  it('SHOW TABLES FROM tpch.tiny lists the eight TPC-H tables', async () => {
    const out = await presto.ok('SHOW TABLES FROM tpch.tiny');
    expect(columns(out)).to.deep.equal([['Table', 'varchar']]);
    expect(out.rows).to.deep.equal([['customer'], ['lineitem'], ['nation'], ['orders'], ['part'], ['partsupp'], ['region'], ['supplier']]);
    expect((await presto.ok("SHOW TABLES FROM tpch.tiny LIKE '%part%'")).rows).to.deep.equal([['part'], ['partsupp']]);
  });

  it('DESCRIBE and SHOW COLUMNS FROM tpch.tiny.nation give Column, Type, Extra, Comment', async () => {
    const expected = [
      ['nationkey', 'bigint', '', ''],
      ['name', 'varchar(25)', '', ''],
      ['regionkey', 'bigint', '', ''],
      ['comment', 'varchar(152)', '', ''],
    ];
    const described = await presto.ok('DESCRIBE tpch.tiny.nation');
    expect(columns(described)).to.deep.equal(varcharColumns('Column', 'Type', 'Extra', 'Comment'));
    expect(described.rows).to.deep.equal(expected);
    const shown = await presto.ok('SHOW COLUMNS FROM tpch.tiny.nation');
    expect(columns(shown)).to.deep.equal(varcharColumns('Column', 'Type', 'Extra', 'Comment'));
    expect(shown.rows).to.deep.equal(expected);
  });

  it('DESCRIBE of lineitem has the connector types: keys bigint, linenumber integer, money double, dates date, bounded varchar', async () => {
    const out = await presto.ok('DESCRIBE tpch.tiny.lineitem');
    expect(out.rows.map((r) => [r[0], r[1]])).to.deep.equal([
      ['orderkey', 'bigint'], ['partkey', 'bigint'], ['suppkey', 'bigint'], ['linenumber', 'integer'],
      ['quantity', 'double'], ['extendedprice', 'double'], ['discount', 'double'], ['tax', 'double'],
      ['returnflag', 'varchar(1)'], ['linestatus', 'varchar(1)'], ['shipdate', 'date'], ['commitdate', 'date'],
      ['receiptdate', 'date'], ['shipinstruct', 'varchar(25)'], ['shipmode', 'varchar(10)'], ['comment', 'varchar(44)'],
    ]);
  });

  it('DESCRIBE of a memory table names prestodb types for X-Presto- and Trino types for X-Trino-', async () => {
    const presto_ = await presto.ok('DESCRIBE memory.shop.items');
    expect(presto_.rows).to.deep.equal([
      ['id', 'bigint', '', ''],
      ['name', 'varchar', '', 'item name'],
      ['price', 'decimal(10,2)', '', ''],
      ['created', 'timestamp', '', ''],
    ]);
    const trino = new PrestoSession(server.url, { prefix: 'X-Trino-', timeZone: 'UTC' });
    const out = await trino.ok('DESCRIBE memory.shop.items');
    expect(out.rows[3]).to.deep.equal(['created', 'timestamp(3)', '', '']);
    expect(out.columns![0]!.typeSignature).to.deep.equal({ rawType: 'varchar', arguments: [{ kind: 'LONG', value: 2147483647 }] });
  });

  it('SHOW CREATE TABLE of a tpch table renders it as a table (connector tables are not views), its columns as the connector declares them', async () => {
    const out = await presto.ok('SHOW CREATE TABLE tpch.tiny.region');
    expect(out.rows).to.deep.equal([[
      ['CREATE TABLE tpch.tiny.region (', '   regionkey bigint NOT NULL,', '   name varchar(25) NOT NULL,', '   comment varchar(152) NOT NULL', ')'].join('\n'),
    ]]);
  });

  it('SHOW CREATE TABLE of a memory table renders a Presto CREATE TABLE', async () => {
    const out = await presto.ok('SHOW CREATE TABLE memory.shop.items');
    expect(columns(out)).to.deep.equal([['Create Table', 'varchar']]);
    expect(out.rows).to.deep.equal([[
      [
        'CREATE TABLE memory.shop.items (',
        '   id bigint NOT NULL,',
        "   name varchar COMMENT 'item name',",
        '   price decimal(10,2),',
        '   created timestamp',
        ')',
      ].join('\n'),
    ]]);
  });

  it('SHOW FUNCTIONS LIKE \'element%\' lists element_at with the six Presto columns', async () => {
    const out = await presto.ok("SHOW FUNCTIONS LIKE 'element%'");
    expect(columns(out)).to.deep.equal([
      ['Function', 'varchar'], ['Return Type', 'varchar'], ['Argument Types', 'varchar'],
      ['Function Type', 'varchar'], ['Deterministic', 'boolean'], ['Description', 'varchar'],
    ]);
    expect(out.rows.length).to.be.at.least(1);
    for (const row of out.rows) expect([row[0], row[3], row[4]]).to.deep.equal(['element_at', 'scalar', true]);
  });

  it('SHOW SESSION LIKE \'query_max%\' lists name, value, default, type, description', async () => {
    const out = await presto.ok("SHOW SESSION LIKE 'query_max%'");
    expect(columns(out)).to.deep.equal(varcharColumns('Name', 'Value', 'Default', 'Type', 'Description'));
    // Upstream's other query_max_* properties are listed too (kept, not acted on).
    expect(out.rows.map((r) => r.slice(0, 4))).to.deep.include.members([
      ['query_max_execution_time', '100.00d', '100.00d', 'varchar'],
      ['query_max_planning_time', '10.00m', '10.00m', 'varchar'],
      ['query_max_run_time', '100.00d', '100.00d', 'varchar'],
    ]);
    for (const row of out.rows) expect(row[4]).to.be.a('string').and.not.equal('');
  });

  it('memory.information_schema.columns describes a memory table', async () => {
    const out = await presto.ok(
      "SELECT * FROM memory.information_schema.columns WHERE table_schema = 'shop' AND table_name = 'stock' ORDER BY ordinal_position",
    );
    expect(columns(out)).to.deep.equal([
      ['table_catalog', 'varchar'], ['table_schema', 'varchar'], ['table_name', 'varchar'], ['column_name', 'varchar'],
      ['ordinal_position', 'bigint'], ['column_default', 'varchar'], ['is_nullable', 'varchar'], ['data_type', 'varchar'],
      ['comment', 'varchar'], ['extra_info', 'varchar'],
    ]);
    expect(out.rows).to.deep.equal([
      ['memory', 'shop', 'stock', 'sku', 1, null, 'NO', 'bigint', null, null],
      ['memory', 'shop', 'stock', 'label', 2, null, 'YES', 'varchar', null, null],
      ['memory', 'shop', 'stock', 'weight', 3, null, 'YES', 'double', null, null],
      ['memory', 'shop', 'stock', 'active', 4, null, 'YES', 'boolean', null, null],
      ['memory', 'shop', 'stock', 'since', 5, null, 'YES', 'date', null, null],
    ]);
  });

  it('information_schema.tables and schemata per catalog', async () => {
    const tables = await presto.ok("SELECT table_catalog, table_schema, table_name, table_type FROM memory.information_schema.tables WHERE table_schema = 'shop' ORDER BY table_name");
    expect(tables.rows).to.deep.equal([['memory', 'shop', 'items', 'BASE TABLE'], ['memory', 'shop', 'stock', 'BASE TABLE']]);
    const schemata = await presto.ok("SELECT schema_name FROM tpch.information_schema.schemata WHERE schema_name LIKE 't%'");
    expect(schemata.rows).to.deep.equal([['tiny']]);
  });

  it('tpch.information_schema.tables reports the connector tables as BASE TABLE', async () => {
    // Presto's tpch connector has tables; Vivace attaches them as DuckDB views, which must not show.
    const out = await presto.ok("SELECT table_name, table_type FROM tpch.information_schema.tables WHERE table_schema = 'tiny' AND table_name IN ('nation', 'region') ORDER BY table_name");
    expect(out.rows).to.deep.equal([['nation', 'BASE TABLE'], ['region', 'BASE TABLE']]);
    expect((await presto.ok("SELECT count(*) FROM tpch.information_schema.views")).rows).to.deep.equal([[0]]);
  });

  it('EXPLAIN and EXPLAIN ANALYZE answer one varchar column named Query Plan', async () => {
    const out = await presto.ok('EXPLAIN SELECT count(*) FROM memory.shop.items');
    expect(columns(out)).to.deep.equal([['Query Plan', 'varchar']]);
    expect(out.rows).to.have.length(1);
    expect(out.rows[0]![0]).to.be.a('string').and.match(/memory\.shop\.items|items/);
    const analyzed = await presto.ok('EXPLAIN ANALYZE SELECT 1');
    expect(columns(analyzed)).to.deep.equal([['Query Plan', 'varchar']]);
  });

  it('a plain query reports Presto column names and types (prestodb spelling: no space in map(k,v))', async () => {
    // A varchar literal is varchar(1) in Presto; DuckDB has no bounded varchar, so the literals are cast.
    const out = await presto.ok("SELECT 1 AS a, CAST('x' AS varchar), CAST(1 AS bigint) AS c, 2.5E0, DATE '2020-01-01' AS d, ARRAY[1, 2] AS arr, MAP(ARRAY[CAST('k' AS varchar)], ARRAY[1.5E0]) AS m");
    expect(columns(out)).to.deep.equal([
      ['a', 'integer'], ['_col1', 'varchar'], ['c', 'bigint'], ['_col3', 'double'], ['d', 'date'], ['arr', 'array(integer)'], ['m', 'map(varchar,double)'],
    ]);
    expect(out.dataText).to.equal('[[1,"x",1,2.5,"2020-01-01",[1,2],{"k":1.5}]]');
  });
});
