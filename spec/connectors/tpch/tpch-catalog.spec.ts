// The tpch catalog through the engine: data generated on first use into a temporary data directory,
// the connector's row counts and types, one generation for concurrent first uses, reuse at a later
// start, and a clear error for a scale factor the disk cannot hold.
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDuckDbEngine } from '../../../lib/engine/duckdb-engine.js';
import type { Engine } from '../../../lib/engine/engine.types.js';
import { schemasOfTables } from '../../../lib/connectors/tpch/tpch-schemas.js';
import { tpchColumnType, tpchDirectoryName, tpchScaleFactor } from '../../../lib/connectors/tpch/tpch-metadata.js';
import { parseStatement } from '../../../lib/sql/parser.js';
import { translateStatement } from '../../../lib/sql/duckdb-translation.js';
import { TPCH_TABLES } from '../../../lib/tpch/index.js';
import { VivaceError } from '../../../lib/protocol/vivace-error.js';
import { runSql, testSession } from '../../engine/engine-helpers.js';

const TINY_ROWS: Record<string, number> = {
  region: 5, nation: 25, supplier: 100, customer: 1500, part: 2000, partsupp: 8000, orders: 15000, lineitem: 60175,
};
/** What Trino's SHOW SCHEMAS FROM tpch answers (TpchMetadata.SCHEMA_NAMES and information_schema, sorted). */
const LISTED = ['information_schema', 'sf1', 'sf100', 'sf1000', 'sf10000', 'sf100000', 'sf300', 'sf3000', 'sf30000', 'tiny'];
/** Enough for tiny (11 MB), not for sf1 (1.1 GB). */
const SMALL_DISK = async () => 500e6;

describe('tpch catalog', function () {
  this.timeout(60_000);
  let dataDirectory: string;
  let engine: Engine;
  const lines: string[] = [];
  const open = (log: string[]) => createDuckDbEngine({
    tempDirectory: join(dataDirectory, 'spill'), dataDirectory, threads: 2, maxConnections: 4,
    tpch: { freeDiskBytes: SMALL_DISK, log: (line) => log.push(line) },
  });

  before(async () => {
    dataDirectory = mkdtempSync(join(tmpdir(), 'vivace-tpch-spec-'));
    // Leftovers of a crash: a temporary directory of a dead process and a schema directory without manifest.
    mkdirSync(join(dataDirectory, 'tpch', '.tmp-tiny-999999999-x'), { recursive: true });
    mkdirSync(join(dataDirectory, 'tpch', 'sf1', 'lineitem'), { recursive: true });
    writeFileSync(join(dataDirectory, 'tpch', 'sf1', 'lineitem', 'lineitem-00001.parquet'), 'half written');
    engine = await open(lines);
  });
  after(async () => {
    await engine?.close();
    rmSync(dataDirectory, { recursive: true, force: true });
  });

  it('does not generate anything at start, and removes temporaries of dead processes', () => {
    expect(lines).to.deep.equal([]);
    expect(readdirSync(join(dataDirectory, 'tpch'))).to.not.include('.tmp-tiny-999999999-x');
  });

  it('lists every schema and table with the connector types before any data exists', async () => {
    const { rows } = await runSql(engine, `SELECT table_schema, count(DISTINCT table_name) FROM tpch.information_schema.columns
      GROUP BY 1 ORDER BY 1`);
    expect(rows).to.deep.equal(LISTED.slice(1).map((s) => [s, 8]));
    const { rows: types } = await runSql(engine, `SELECT column_name, data_type FROM tpch.information_schema.columns
      WHERE table_schema = 'sf1000' AND table_name = 'lineitem' ORDER BY ordinal_position`);
    expect(types.slice(0, 5)).to.deep.equal([['orderkey', 'bigint'], ['partkey', 'bigint'], ['suppkey', 'bigint'], ['linenumber', 'integer'], ['quantity', 'double']]);
    expect(lines).to.deep.equal([]);
  });

  it('refuses writes into the catalog with NOT_SUPPORTED and keeps its tables', async () => {
    for (const sql of ['CREATE TABLE tpch.tiny.t AS SELECT 1 AS a', "INSERT INTO tpch.tiny.region VALUES (9, 'X', 'y')", 'DROP VIEW tpch.tiny.region', 'DELETE FROM tpch.tiny.region']) {
      const err = await runSql(engine, sql).then(() => undefined, (e: unknown) => e);
      expect(err, sql).to.include({ errorName: 'NOT_SUPPORTED' });
    }
    const { rows } = await runSql(engine, "SELECT count(*) FROM tpch.information_schema.tables WHERE table_schema = 'tiny'");
    expect(rows).to.deep.equal([[8]]);
  });

  it('generates tiny once for concurrent first uses', async () => {
    const session = testSession({ catalog: 'tpch', schema: 'tiny' });
    const counts = await Promise.all([
      runSql(engine, 'SELECT count(*) FROM tpch.tiny.region'),
      runSql(engine, 'SELECT count(*) FROM nation', session),
      runSql(engine, 'SELECT count(*) FROM tiny.lineitem', session),
    ]);
    expect(counts.map((c) => c.rows[0]![0])).to.deep.equal([5, 25, 60175]);
    expect(lines.filter((l) => l.includes('generating'))).to.have.length(1);
    expect(readdirSync(join(dataDirectory, 'tpch')).filter((n) => n.startsWith('.tmp'))).to.deep.equal([]);
  });

  it('has the row counts of scale factor 0.01', async () => {
    const union = TPCH_TABLES.map((t) => `SELECT '${t.name}', count(*) FROM tpch.tiny.${t.name}`).join(' UNION ALL ');
    const { rows } = await runSql(engine, union);
    expect(Object.fromEntries(rows)).to.deep.equal(TINY_ROWS);
  });

  it('orders nations by key from ALGERIA', async () => {
    const { rows } = await runSql(engine, 'SELECT name FROM tpch.tiny.nation ORDER BY nationkey LIMIT 5');
    expect(rows.map((r) => r[0])).to.deep.equal(['ALGERIA', 'ARGENTINA', 'BRAZIL', 'CANADA', 'EGYPT']);
  });

  it('has the connector column names and types', async () => {
    for (const table of TPCH_TABLES) {
      const { plan } = await runSql(engine, `SELECT * FROM tpch.tiny.${table.name} LIMIT 0`);
      expect(plan.columns.map((c) => [c.name, c.type.base]), table.name).to.deep.equal(table.columns.map((c) => [c.name, c.type]));
    }
  });

  it('describes the connector\'s column types, varchar bounds included, whatever DuckDB holds', async () => {
    const described = await runSql(engine, 'DESCRIBE tpch.tiny.lineitem');
    expect(described.rows.map((r) => `${r[0]} ${r[1]}`)).to.deep.equal([
      'orderkey bigint', 'partkey bigint', 'suppkey bigint', 'linenumber integer', 'quantity double', 'extendedprice double', 'discount double',
      'tax double', 'returnflag varchar(1)', 'linestatus varchar(1)', 'shipdate date', 'commitdate date', 'receiptdate date',
      'shipinstruct varchar(25)', 'shipmode varchar(10)', 'comment varchar(44)',
    ]);
    const shown = await runSql(engine, "SHOW COLUMNS FROM tpch.sf100000.orders LIKE 'o%'");
    expect(shown.rows).to.deep.equal([['orderkey', 'bigint', '', ''], ['orderstatus', 'varchar(1)', '', ''], ['orderdate', 'date', '', ''], ['orderpriority', 'varchar(15)', '', '']]);
    const created = await runSql(engine, 'SHOW CREATE TABLE tpch.tiny.nation');
    expect(created.rows).to.deep.equal([[
      'CREATE TABLE tpch.tiny.nation (\n   nationkey bigint NOT NULL,\n   name varchar(25) NOT NULL,\n   regionkey bigint NOT NULL,\n   comment varchar(152) NOT NULL\n)',
    ]]);
    const info = await runSql(engine, `SELECT table_name, column_name, data_type, is_nullable FROM tpch.information_schema.columns
      WHERE table_schema = 'tiny' AND data_type LIKE 'varchar(%' AND column_name IN ('comment', 'returnflag', 'type') ORDER BY 1, 2`);
    expect(info.rows).to.deep.equal([
      ['customer', 'comment', 'varchar(117)', 'NO'], ['lineitem', 'comment', 'varchar(44)', 'NO'], ['lineitem', 'returnflag', 'varchar(1)', 'NO'],
      ['nation', 'comment', 'varchar(152)', 'NO'], ['orders', 'comment', 'varchar(79)', 'NO'], ['part', 'comment', 'varchar(23)', 'NO'],
      ['part', 'type', 'varchar(25)', 'NO'], ['partsupp', 'comment', 'varchar(199)', 'NO'], ['region', 'comment', 'varchar(152)', 'NO'],
      ['supplier', 'comment', 'varchar(101)', 'NO'],
    ]);
    expect(tpchColumnType('tiny', 'lineitem', 'comment')).to.deep.equal({ base: 'varchar', length: 44 });
    expect(tpchColumnType('sf0.1', 'orders', 'orderdate')).to.deep.equal({ base: 'date' });
    expect(tpchColumnType('nope', 'lineitem', 'comment')).to.equal(undefined);
    expect(tpchColumnType('tiny', 'lineitem', 'row_number')).to.equal(undefined);
  });

  it('lists the schemas Trino lists', async () => {
    expect((await runSql(engine, 'SHOW SCHEMAS FROM tpch')).rows.map((r) => r[0])).to.deep.equal(LISTED);
    const schemata = await runSql(engine, 'SELECT schema_name FROM tpch.information_schema.schemata ORDER BY 1');
    expect(schemata.rows.map((r) => r[0])).to.deep.equal(LISTED);
  });

  it('reads a schema name into a scale factor as Trino does (tiny, or sf and a number above zero)', () => {
    const accepted: [string, number][] = [
      ['tiny', 0.01], ['sf1', 1], ['SF1', 1], ['sf0.1', 0.1], ['sf3000', 3000], ['sf01', 1], ['sf1.0', 1], ['sf.5', 0.5], ['sf1.', 1],
      ['sf1e3', 1000], ['sf1E-2', 0.01], ['sf+2', 2], ['sf 2 ', 2], ['sf2d', 2], ['sf2f', 2], ['sf0x1p3', 8], ['sf0x.8p1', 1], ['sf1e400', Infinity],
    ];
    for (const [name, scaleFactor] of accepted) expect(tpchScaleFactor(name), name).to.equal(scaleFactor);
    const refused = ['nope', 'sf', 'sf0', 'sf0.0', 'sf-1', 'sf1e-400', 'sfnan', 'sfinfinity', 'sf1e', 'sf1x', 'sf.', 'sf1..2', 'sf1 2', 'sf0x1', 'sf0xp1', 'sf1dd', 's1', 'tiny2'];
    for (const name of refused) expect(tpchScaleFactor(name), name).to.equal(undefined);
    // One directory per scale factor however it is spelled; none with the '-' that separates a temporary's pid.
    expect(['tiny', 'sf0.01', 'sf1', 'sf1.0', 'sf0.1', 'sf1e-7'].map((n) => tpchDirectoryName(tpchScaleFactor(n)!))).to.deep.equal(['tiny', 'tiny', 'sf1', 'sf1', 'sf0.1', 'sf1em7']);
  });

  it('takes any name the connector accepts as a schema, listed or not, and refuses the others as Trino does', async () => {
    const tables = await runSql(engine, 'SHOW TABLES FROM tpch."sf0.1"');
    expect(tables.rows.map((r) => r[0])).to.deep.equal(['customer', 'lineitem', 'nation', 'orders', 'part', 'partsupp', 'region', 'supplier']);
    expect((await runSql(engine, 'DESCRIBE tpch.sf10.nation')).rows.map((r) => r[1])).to.deep.equal(['bigint', 'varchar(25)', 'bigint', 'varchar(152)']);
    const used = await runSql(engine, 'SHOW TABLES', testSession({ catalog: 'tpch', schema: 'sf3000' }));
    expect(used.rows).to.have.length(8);
    for (const sql of ['SHOW TABLES FROM tpch.sf0', 'DESCRIBE tpch.nope.nation', 'USE tpch."sf-1"']) {
      const error = await runSql(engine, sql).then(() => undefined, (e: unknown) => e);
      expect(error, sql).to.include({ errorName: 'SCHEMA_NOT_FOUND' });
    }
    const missing = await runSql(engine, 'SHOW TABLES FROM tpch.sf0').then(() => undefined, (e: unknown) => e);
    expect(missing).to.include({ message: "Schema 'tpch.sf0' does not exist" });
    const read = await runSql(engine, 'SELECT * FROM tpch.sf0.nation').then(() => undefined, (e: unknown) => e);
    expect(read).to.include({ errorName: 'SCHEMA_NOT_FOUND' });
    const table = await runSql(engine, 'DESCRIBE tpch."sf0.1".nope').then(() => undefined, (e: unknown) => e);
    expect(table).to.include({ errorName: 'TABLE_NOT_FOUND', message: "Table 'tpch.sf0.1.nope' does not exist" });
    expect(lines.filter((l) => l.includes('sf0.1') || l.includes('sf10'))).to.deep.equal([]);
  });

  it('generates an unlisted scale factor on first use, once for every spelling, and keeps it unlisted', async () => {
    const log: string[] = [];
    lines.length = 0;
    const [orders, nation, region] = await Promise.all([
      runSql(engine, 'SELECT count(*) FROM tpch."sf0.001".orders'),
      runSql(engine, 'SELECT count(*) FROM tpch."sf0.0010".nation'),
      runSql(engine, 'SELECT count(*) FROM tpch."sf1e-3".region'),
    ]);
    log.push(...lines);
    expect([orders.rows[0]![0], nation.rows[0]![0], region.rows[0]![0]]).to.deep.equal([1500, 25, 5]);
    expect(log.filter((l) => l.includes('generating'))).to.have.length(1);
    expect(readdirSync(join(dataDirectory, 'tpch'))).to.include('sf0.001');
    const { rows } = await runSql(engine, 'SELECT l.returnflag, count(*) FROM tpch."sf0.001".lineitem l GROUP BY 1 ORDER BY 1');
    expect(rows.map((r) => r[0])).to.deep.equal(['A', 'N', 'R']);
    expect((await runSql(engine, 'SHOW SCHEMAS FROM tpch')).rows.map((r) => r[0])).to.deep.equal(LISTED);
    const schemata = await runSql(engine, "SELECT count(*) FROM tpch.information_schema.tables WHERE table_schema LIKE 'sf0.%'");
    expect(schemata.rows).to.deep.equal([[0]]);
  });

  it('refuses an unlisted scale factor too large for the disk with the same clear error', async () => {
    const error = await engine.plan('SELECT count(*) FROM tpch.sf3000.nation', testSession()).then(() => undefined, (e: unknown) => e);
    expect(error).to.include({ errorName: 'GENERIC_INSUFFICIENT_RESOURCES' });
    expect((error as VivaceError).message).to.match(/^Cannot generate tpch\.sf3000: scale factor 3000 needs about 3300\.0 GB of free disk .* only 500 MB is free/);
    const huge = await engine.plan('SELECT count(*) FROM tpch."sf1e400".nation', testSession()).then(() => undefined, (e: unknown) => e);
    expect(huge).to.include({ errorName: 'GENERIC_INSUFFICIENT_RESOURCES' });
  });

  it('reuses the cache from a second engine on the same directory', async () => {
    const manifest = join(dataDirectory, 'tpch', 'tiny', 'manifest.json');
    const before = statSync(manifest).mtimeMs;
    const log: string[] = [];
    const start = performance.now();
    const second = await open(log);
    try {
      const { rows } = await runSql(second, 'SELECT count(*) FROM tpch.tiny.lineitem');
      expect(rows).to.deep.equal([[60175]]);
      expect(performance.now() - start).to.be.below(2000);
      expect(log).to.deep.equal([]);
      expect(statSync(manifest).mtimeMs).to.equal(before);
    } finally {
      await second.close();
    }
  });

  it('fails with a clear error when the disk cannot hold the scale factor', async () => {
    // sf1's directory holds a half-written file without manifest: it is not taken as generated.
    const error = await engine.plan('SELECT count(*) FROM tpch.sf1.nation', testSession()).then(() => undefined, (e: unknown) => e);
    expect(error).to.be.instanceOf(VivaceError);
    expect((error as VivaceError).errorName).to.equal('GENERIC_INSUFFICIENT_RESOURCES');
    expect((error as VivaceError).message).to.match(/tpch\.sf1: scale factor 1 needs about 1\.1 GB of free disk .* only 500 MB is free/);
    expect(readdirSync(join(dataDirectory, 'tpch')).filter((n) => n.startsWith('.tmp'))).to.deep.equal([]);
  });

  it('finds the schemas a statement reads, from the tables its translation resolved', () => {
    const none = testSession();
    const tiny = testSession({ catalog: 'tpch', schema: 'tiny' });
    const names = (sql: string, session = none) => {
      const context = { catalog: session.catalog, schema: session.schema, databaseOf: (c: string) => c };
      return [...schemasOfTables(translateStatement(parseStatement(sql), sql, context).tables)].sort();
    };
    expect(names('SELECT * FROM tpch.sf1.lineitem l JOIN TPCH . "sf10" . "orders" o ON true')).to.deep.equal(['sf1', 'sf10']);
    expect(names('SELECT * FROM tpch."sf0.1".nation, tpch.nope.nation, tpch.sf0.nation, tpch.sf3000.nope')).to.deep.equal(['sf0.1']);
    expect(names('SELECT * FROM sf1.lineitem')).to.deep.equal([]);
    expect(names('SELECT * FROM sf1.lineitem, orders', tiny)).to.deep.equal(['sf1', 'tiny']);
    expect(names(`SELECT * FROM information_schema.columns WHERE table_name = 'lineitem'`, tiny)).to.deep.equal([]);
    expect(names(`WITH lineitem AS (SELECT 1) SELECT * FROM lineitem`, tiny)).to.deep.equal([]);
    expect(names('SELECT date_part(\'year\', d) FROM memory.default.t', tiny)).to.deep.equal([]);
  });
});
