// Statement kinds (queries, DML, CTAS, DDL), Presto column naming, division semantics, session catalog/schema.
import { vivaceVersion } from '../../lib/protocol/vivace-version.js';
import { expect } from 'chai';
import type { Engine } from '../../lib/engine/engine.types.js';
import { newEngine, rowText, runSql, testSession } from './engine-helpers.js';

describe('duckdb engine: statements', () => {
  let engine: Engine;
  before(async () => {
    engine = await newEngine();
  });
  after(() => engine.close());

  describe('column names', () => {
    it('names unaliased expressions _col{i} and keeps aliases and column references', async () => {
      await runSql(engine, 'CREATE TABLE names_t (x INTEGER, y VARCHAR)');
      const { plan } = await runSql(engine, 'SELECT 1, 2 AS b, x, names_t.y, x + 1 FROM names_t');
      expect(plan.columns.map((c) => c.name)).to.deep.equal(['_col0', 'b', 'x', 'y', '_col4']);
    });

    it('keeps DuckDB names for star expansions and counts positions across them', async () => {
      const { plan } = await runSql(engine, 'SELECT *, 1, x AS z FROM names_t');
      expect(plan.columns.map((c) => c.name)).to.deep.equal(['x', 'y', '_col2', 'z']);
    });

    it('names VALUES columns _col{i} and set operations after their first branch', async () => {
      expect((await runSql(engine, "VALUES (1, 'a'), (2, 'b')")).plan.columns.map((c) => c.name)).to.deep.equal(['_col0', '_col1']);
      expect((await runSql(engine, 'SELECT 1 AS a UNION ALL SELECT 2')).plan.columns.map((c) => c.name)).to.deep.equal(['a']);
      expect((await runSql(engine, 'WITH q AS (SELECT 1 AS a) SELECT a, a * 2 FROM q')).plan.columns.map((c) => c.name)).to.deep.equal(['a', '_col1']);
    });
  });

  describe('DML and DDL', () => {
    it('CREATE TABLE reports no columns and no rows', async () => {
      const out = await runSql(engine, 'CREATE TABLE dml_t (id BIGINT, name VARCHAR)');
      expect(out.plan.updateType).to.equal('CREATE TABLE');
      expect(out.plan.columns).to.deep.equal([]);
      expect(out.rows).to.deep.equal([]);
    });

    it('INSERT, UPDATE and DELETE report the row count as a rows column and updateCount', async () => {
      const insert = await runSql(engine, "INSERT INTO dml_t VALUES (1, 'a'), (2, 'b'), (3, 'c')");
      expect(insert.plan.updateType).to.equal('INSERT');
      expect(insert.plan.columns).to.deep.equal([{ name: 'rows', type: { base: 'bigint' } }]);
      expect(insert.rows).to.deep.equal([[3]]);
      expect(insert.updateCount).to.equal(3);
      const update = await runSql(engine, "UPDATE dml_t SET name = 'z' WHERE id > 1");
      expect([update.plan.updateType, update.updateCount, update.rows]).to.deep.equal(['UPDATE', 2, [[2]]]);
      const del = await runSql(engine, 'DELETE FROM dml_t WHERE id = 3');
      expect([del.plan.updateType, del.updateCount, del.rows]).to.deep.equal(['DELETE', 1, [[1]]]);
      expect((await runSql(engine, 'SELECT id, name FROM dml_t ORDER BY id')).rows).to.deep.equal([[1, 'a'], [2, 'z']]);
    });

    it('CREATE TABLE AS reports its row count like Presto, with division rewritten', async () => {
      const out = await runSql(engine, 'CREATE TABLE ctas_t AS SELECT i, i / 2 AS h FROM UNNEST(sequence(0, 4)) AS t(i)');
      expect([out.plan.updateType, out.updateCount, out.rows]).to.deep.equal(['CREATE TABLE', 5, [[5]]]);
      expect((await runSql(engine, 'SELECT h FROM ctas_t ORDER BY i')).rows).to.deep.equal([[0], [0], [1], [1], [2]]);
    });

    it('reports schema, view and drop statements', async () => {
      expect((await runSql(engine, 'CREATE SCHEMA ddl_s')).plan.updateType).to.equal('CREATE SCHEMA');
      expect((await runSql(engine, 'CREATE VIEW ddl_v AS SELECT 1 AS a')).plan.updateType).to.equal('CREATE VIEW');
      expect((await runSql(engine, 'DROP VIEW ddl_v')).plan.updateType).to.equal('DROP VIEW');
      expect((await runSql(engine, 'DROP TABLE ctas_t')).plan.updateType).to.equal('DROP TABLE');
      const drop = await runSql(engine, 'DROP SCHEMA ddl_s');
      expect([drop.plan.updateType, drop.plan.columns, drop.rows]).to.deep.equal(['DROP SCHEMA', [], []]);
    });
  });

  describe('division', () => {
    it('divides integers with truncation toward zero', async () => {
      expect(await rowText(engine, 'SELECT 7 / 2, -7 / 2, 7 / -2, 9223372036854775807 / 2')).to.equal('3,-3,-3,4611686018427387903');
    });

    it('divides decimal literals as decimals and doubles as doubles', async () => {
      const { plan, json } = await runSql(engine, 'SELECT 7.0 / 2, 1e0 / 0, -1e0 / 0, 0e0 / 0, 7e0 / 2');
      expect(plan.columns[0]!.type).to.deep.equal({ base: 'decimal', precision: 2, scale: 1 });
      expect(json).to.equal('[["3.5","Infinity","-Infinity","NaN",3.5]]');
    });

    for (const sql of ['SELECT 1 / 0', 'SELECT 1.5 / 0', 'SELECT x / 0 FROM (VALUES (1)) t(x)', 'SELECT 1 FROM (VALUES (1)) t(x) WHERE 10 / (x - 1) > 0']) {
      it(`${sql} fails with DIVISION_BY_ZERO`, async () => {
        const err = await runSql(engine, sql).then(() => undefined, (e: unknown) => e);
        expect(err).to.include({ errorName: 'DIVISION_BY_ZERO', message: 'Division by zero' });
      });
    }

    it('rewrites divisions inside INSERT ... SELECT', async () => {
      await runSql(engine, 'CREATE TABLE div_t (v INTEGER)');
      await runSql(engine, 'INSERT INTO div_t SELECT 7 / 2');
      expect((await runSql(engine, 'SELECT v FROM div_t')).rows).to.deep.equal([[3]]);
      const err = await runSql(engine, 'INSERT INTO div_t SELECT 1 / 0').then(() => undefined, (e: unknown) => e);
      expect(err).to.include({ errorName: 'DIVISION_BY_ZERO' });
    });
  });

  describe('session catalog and schema', () => {
    it('resolves unqualified names in the session schema (default memory.default)', async () => {
      await runSql(engine, 'CREATE SCHEMA other');
      await runSql(engine, "CREATE TABLE other.t AS SELECT 'in other' AS w");
      expect(await rowText(engine, 'SELECT w FROM t', testSession({ catalog: 'memory', schema: 'other' }))).to.equal('"in other"');
      // Without a session catalog and schema, an unqualified name is memory.default's.
      await runSql(engine, "CREATE TABLE memory.default.t AS SELECT 'in default' AS w");
      expect(await rowText(engine, 'SELECT w FROM t')).to.equal('"in default"');
    });

    it('rejects an unknown catalog or schema where a statement names a table in it (SELECT 1 runs, as in Trino)', async () => {
      const noCatalog = await engine.plan('SELECT * FROM t', testSession({ catalog: 'nope', schema: 'x' })).catch((e: unknown) => e);
      expect(noCatalog).to.include({ errorName: 'CATALOG_NOT_FOUND' });
      const noSchema = await engine.plan('SELECT * FROM t', testSession({ catalog: 'memory', schema: 'nope' })).catch((e: unknown) => e);
      expect(noSchema).to.include({ errorName: 'SCHEMA_NOT_FOUND' });
      expect((await runSql(engine, 'SELECT 1', testSession({ catalog: 'nope', schema: 'x' }))).rows).to.deep.equal([[1]]);
    });

    it('answers version() with Vivace\'s version, not DuckDB\'s', async () => {
      expect((await runSql(engine, 'SELECT version()')).rows).to.deep.equal([[vivaceVersion()]]);
    });

    it('resolves names as Trino does without a session catalog or schema', async () => {
      const none = testSession({ catalog: undefined, schema: undefined });
      const tpchOnly = testSession({ catalog: 'tpch', schema: undefined });
      const error = (sql: string, session = none) => engine.plan(sql, session).catch((e: unknown) => e);
      expect(await error('SELECT * FROM t')).to.include({ errorName: 'MISSING_CATALOG_NAME', message: 'line 1:15: Catalog must be specified when session catalog is not set' });
      expect(await error('SELECT * FROM s.t')).to.include({ errorName: 'MISSING_CATALOG_NAME' });
      expect(await error('SELECT * FROM nation', tpchOnly)).to.include({ errorName: 'MISSING_SCHEMA_NAME', message: 'line 1:15: Schema must be specified when session schema is not set' });
      expect(await error('SHOW TABLES')).to.include({ errorName: 'MISSING_CATALOG_NAME' });
      expect(await error('SHOW TABLES', tpchOnly)).to.include({ errorName: 'MISSING_SCHEMA_NAME' });
      // Fully qualified names run, and the session functions answer NULL for what is unset.
      await runSql(engine, 'CREATE TABLE memory.default.qualified AS SELECT 1 AS a', none);
      expect((await runSql(engine, 'SELECT a, current_catalog, current_schema, current_user FROM memory.default.qualified', none)).rows).to.deep.equal([[1, null, null, 'test']]);
      expect((await runSql(engine, 'SELECT count(*) FROM "default".qualified', testSession({ catalog: 'memory', schema: undefined }))).rows).to.deep.equal([[1]]);
      expect((await runSql(engine, 'SELECT current_catalog, current_schema, current_path', testSession({ catalog: 'memory', schema: 'default' }))).rows).to.deep.equal([['memory', 'default', '']]);
    });
  });

  it('divides aggregates (sum(a) / sum(b)): doubles as doubles, integers truncated and failing on zero', async () => {
    const doubles = await runSql(engine, 'SELECT sum(x) / sum(y) FROM (VALUES (1.5e0, 2e0), (1.5e0, 2e0)) t(x, y)');
    expect(doubles.rows).to.deep.equal([[0.75]]);
    const ints = await runSql(engine, 'SELECT sum(x) / sum(y) FROM (VALUES (7, 1), (0, 1)) t(x, y)');
    expect(ints.rows).to.deep.equal([[3]]);
    let error: unknown;
    try {
      await runSql(engine, 'SELECT sum(x) / sum(y) FROM (VALUES (7, 0)) t(x, y)');
    } catch (err) {
      error = err;
    }
    expect((error as { errorName?: string }).errorName).to.equal('DIVISION_BY_ZERO');
  });

  it('re-plans a repeated query after DDL changes what it reads (plan cache invalidation)', async () => {
    await runSql(engine, 'CREATE TABLE cached_t AS SELECT 1 AS a');
    const first = await runSql(engine, 'SELECT * FROM cached_t');
    expect(first.plan.columns.map((c) => c.name)).to.deep.equal(['a']);
    expect((await runSql(engine, 'SELECT * FROM cached_t')).rows).to.deep.equal([[1]]);
    await runSql(engine, 'DROP TABLE cached_t');
    await runSql(engine, "CREATE TABLE cached_t AS SELECT 'x' AS b, 2 AS c");
    const again = await runSql(engine, 'SELECT * FROM cached_t');
    expect(again.plan.columns.map((c) => c.name)).to.deep.equal(['b', 'c']);
    expect(again.rows).to.deep.equal([['x', 2]]);
  });

  it('gives the connection back when a plan is released without executing', async () => {
    const small = await newEngine(1);
    try {
      const plan = await small.plan('SELECT 1', testSession());
      plan.release();
      plan.release();
      expect((await runSql(small, 'SELECT 2')).rows).to.deep.equal([[2]]);
    } finally {
      await small.close();
    }
  });
});
