// The tpch connector's hidden `row_number` column through the engine at tpch.tiny: readable by name, left
// out of `*` and of every listing, and equal to the generator's row number. The expected numbers come
// from this process's own generator (row i of orders has number i), not from the catalog's formula.
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDuckDbEngine } from '../../lib/engine/duckdb-engine.js';
import type { Engine } from '../../lib/engine/engine.types.js';
import { generateRows } from '../../lib/tpch/index.js';
import { SystemTablesBinding } from '../../lib/connectors/system/system-tables.js';
import { tpchHiddenColumns } from '../../lib/connectors/tpch/tpch-metadata.js';
import { translateStatement, type TranslationContext } from '../../lib/sql/duckdb-translation.js';
import { parseStatement } from '../../lib/sql/parser.js';
import { runSql, testSession } from '../engine/engine-helpers.js';

describe('tpch hidden row_number column', function () {
  this.timeout(60_000);
  let directory: string;
  let engine: Engine;
  const session = testSession({ catalog: 'tpch', schema: 'tiny' });
  const names = async (sql: string) => (await runSql(engine, sql, session)).plan.columns.map((c) => c.name);

  before(async () => {
    directory = mkdtempSync(join(tmpdir(), 'vivace-tpch-row-number-'));
    engine = await createDuckDbEngine({ tempDirectory: join(directory, 'spill'), dataDirectory: directory, threads: 2, tpch: { log: () => {} }, system: new SystemTablesBinding() });
    await runSql(engine, 'SELECT count(*) FROM tpch.tiny.region');
  });
  after(async () => {
    await engine?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('reads as a bigint when named: nation and region number their rows from 0, as their keys', async () => {
    const { rows, plan } = await runSql(engine, 'SELECT row_number, name FROM tpch.tiny.nation ORDER BY row_number', session);
    expect(plan.columns).to.deep.equal([{ name: 'row_number', type: { base: 'bigint' } }, { name: 'name', type: { base: 'varchar', length: 25 } }]);
    expect(rows.map((r) => r[0])).to.deep.equal(Array.from({ length: 25 }, (_, i) => i));
    expect(rows[0]![1]).to.equal('ALGERIA');
    const region = await runSql(engine, 'SELECT count(*) FROM region WHERE row_number <> regionkey', session);
    expect(region.rows).to.deep.equal([[0]]);
  });

  it('numbers orders by the generator\'s order index, and lineitem by its order\'s', async () => {
    const expected = new Map<number, number>();
    let index = 0;
    for (const row of generateRows('orders', 0.01, 1, 1)) expected.set(row[0] as number, ++index);
    const orders = await runSql(engine, 'SELECT orderkey, row_number FROM tpch.tiny.orders', session);
    expect(orders.rows).to.have.length(15_000);
    for (const [orderkey, rowNumber] of orders.rows) expect(rowNumber, `order ${String(orderkey)}`).to.equal(expected.get(orderkey as number));
    const lines = await runSql(engine, 'SELECT DISTINCT l.orderkey, l.row_number FROM tpch.tiny.lineitem AS l', session);
    expect(lines.rows).to.have.length(15_000);
    for (const [orderkey, rowNumber] of lines.rows) expect(rowNumber, `lineitem of order ${String(orderkey)}`).to.equal(expected.get(orderkey as number));
  });

  it('is the part key for part and partsupp, and the key for supplier and customer', async () => {
    const { rows } = await runSql(engine, `SELECT
      (SELECT count(*) FROM part WHERE row_number <> partkey), (SELECT count(*) FROM partsupp WHERE row_number <> partkey),
      (SELECT count(*) FROM supplier WHERE row_number <> suppkey), (SELECT count(*) FROM customer WHERE row_number <> custkey),
      (SELECT max(row_number) FROM customer)`, session);
    expect(rows).to.deep.equal([[0, 0, 0, 0, 1500]]);
  });

  it('is left out of * and t.*, also when the statement names it', async () => {
    expect(await names('SELECT * FROM nation')).to.deep.equal(['nationkey', 'name', 'regionkey', 'comment']);
    expect(await names('SELECT *, row_number FROM nation')).to.deep.equal(['nationkey', 'name', 'regionkey', 'comment', 'row_number']);
    expect(await names('SELECT n.*, n.row_number AS rn FROM tpch.tiny.nation n')).to.deep.equal(['nationkey', 'name', 'regionkey', 'comment', 'rn']);
    expect(await names('SELECT * FROM nation n JOIN region r ON n.regionkey = r.regionkey WHERE n.row_number = 1'))
      .to.deep.equal(['nationkey', 'name', 'regionkey', 'comment', 'regionkey', 'name', 'comment']);
    // A subquery's * leaves it out too, so the outer query cannot read it (Trino: cannot be resolved).
    expect(await names('SELECT * FROM (SELECT * FROM nation) WHERE nationkey < 2')).to.deep.equal(['nationkey', 'name', 'regionkey', 'comment']);
    const inner = await runSql(engine, 'SELECT x.row_number FROM (SELECT * FROM nation) x', session).then(() => undefined, (e: Error) => e);
    expect(inner).to.be.instanceOf(Error);
  });

  it('reads columns named with their schema and catalog too, in SELECT, WHERE and ORDER BY', async () => {
    const { rows } = await runSql(engine, `SELECT tpch.tiny.nation.row_number, tiny.nation.name, nation.regionkey FROM tpch.tiny.nation
      WHERE tiny.nation.row_number < 3 ORDER BY tpch.tiny.nation.row_number DESC`, session);
    expect(rows).to.deep.equal([[2, 'BRAZIL', 1], [1, 'ARGENTINA', 1], [0, 'ALGERIA', 0]]);
    const correlated = await runSql(engine, `SELECT name FROM nation WHERE EXISTS (SELECT 1 FROM region WHERE region.row_number = tiny.nation.regionkey
      AND tiny.nation.row_number = 24)`, session);
    expect(correlated.rows).to.deep.equal([['UNITED STATES']]);
  });

  it('leaves the window function row_number() and other tables\' columns of that name alone', async () => {
    const { rows } = await runSql(engine, 'SELECT row_number() OVER (ORDER BY nationkey DESC), * FROM nation ORDER BY nationkey LIMIT 1', session);
    expect(rows).to.have.length(1);
    expect(rows[0]).to.have.length(5);
    expect(rows[0]![0]).to.equal(25);
    const memory = testSession();
    await runSql(engine, 'CREATE TABLE memory.default.numbered AS SELECT 7 AS row_number, 1 AS k', memory);
    const joined = await runSql(engine, 'SELECT m.row_number, n.row_number, n.name FROM numbered m JOIN tpch.tiny.nation n ON n.nationkey = m.k', memory);
    expect(joined.rows).to.deep.equal([[7, 1, 'ARGENTINA']]);
    expect((await runSql(engine, 'SELECT * FROM numbered', memory)).plan.columns.map((c) => c.name)).to.deep.equal(['row_number', 'k']);
  });

  it('is not listed: DESCRIBE, SHOW COLUMNS, information_schema.columns, system.jdbc.columns', async () => {
    const listed = [
      'DESCRIBE tpch.tiny.nation',
      'SHOW COLUMNS FROM tpch.tiny.nation',
      "SELECT column_name FROM tpch.information_schema.columns WHERE table_schema = 'tiny' AND table_name = 'nation'",
      "SELECT column_name FROM system.jdbc.columns WHERE table_cat = 'tpch' AND table_schem = 'tiny' AND table_name = 'nation'",
    ];
    for (const sql of listed) {
      const { rows } = await runSql(engine, sql, session);
      expect(rows.map((r) => r[0]), sql).to.deep.equal(['nationkey', 'name', 'regionkey', 'comment']);
    }
  });

  it('leaves the translation of a statement that does not name it as it was (the bench path)', () => {
    const context: TranslationContext = {
      catalog: 'tpch', schema: 'sf1', databaseOf: (c) => c, hiddenColumns: (t) => tpchHiddenColumns(t.schema, t.table),
    };
    const translate = (sql: string) => translateStatement(parseStatement(sql), sql, context).sql;
    expect(translate('SELECT * FROM lineitem')).to.equal('SELECT * FROM "tpch"."sf1"."lineitem"');
    expect(translate('SELECT row_number, * FROM lineitem l')).to.equal(
      'SELECT "row_number", * EXCLUDE ("l"."row_number") FROM (SELECT *, CAST(("orderkey" // 32) * 8 + "orderkey" % 8 AS BIGINT) AS "row_number" '
      + 'FROM "tpch"."sf1"."lineitem") AS "l"',
    );
  });
});
