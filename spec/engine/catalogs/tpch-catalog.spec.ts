// The tpch catalog through the engine: data generated on first use into a temporary data directory,
// the connector's row counts and types, one generation for concurrent first uses, reuse at a later
// start, and a clear error for a scale factor the disk cannot hold.
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDuckDbEngine } from '../../../lib/engine/duckdb-engine.js';
import type { Engine } from '../../../lib/engine/engine.types.js';
import { schemasOfTables } from '../../../lib/engine/catalogs/tpch-schemas.js';
import { parseStatement } from '../../../lib/sql/parser.js';
import { translateStatement } from '../../../lib/sql/duckdb-translation.js';
import { TPCH_TABLES } from '../../../lib/tpch/index.js';
import { VivaceError } from '../../../lib/protocol/vivace-error.js';
import { runSql, testSession } from '../engine-helpers.js';

const TINY_ROWS: Record<string, number> = {
  region: 5, nation: 25, supplier: 100, customer: 1500, part: 2000, partsupp: 8000, orders: 15000, lineitem: 60175,
};
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
    expect(rows).to.deep.equal([['sf1', 8], ['sf10', 8], ['sf100', 8], ['sf1000', 8], ['sf300', 8], ['tiny', 8]]);
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
    expect(names('SELECT * FROM sf1.lineitem')).to.deep.equal([]);
    expect(names('SELECT * FROM sf1.lineitem, orders', tiny)).to.deep.equal(['sf1', 'tiny']);
    expect(names(`SELECT * FROM information_schema.columns WHERE table_name = 'lineitem'`, tiny)).to.deep.equal([]);
    expect(names(`WITH lineitem AS (SELECT 1) SELECT * FROM lineitem`, tiny)).to.deep.equal([]);
    expect(names('SELECT date_part(\'year\', d) FROM memory.default.t', tiny)).to.deep.equal([]);
  });
});
