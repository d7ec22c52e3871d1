// PREPARE / EXECUTE [USING] / EXECUTE IMMEDIATE / DEALLOCATE PREPARE / DESCRIBE INPUT and OUTPUT.
import { expect } from 'chai';
import type { Engine } from '../../../lib/engine/engine.types.js';
import { newEngine, runSql, testSession } from '../engine-helpers.js';

const failure = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e);

describe('dialect: prepared statements', () => {
  let engine: Engine;
  before(async () => {
    engine = await newEngine(1);
    await runSql(engine, "CREATE TABLE people AS SELECT * FROM (VALUES (1, 'ann'), (2, 'bob'), (3, 'cy')) t(id, name)");
  });
  after(() => engine.close());

  it('PREPARE reports Added-Prepare with the statement text', async () => {
    const out = await runSql(engine, 'PREPARE q1 FROM SELECT name FROM people WHERE id = ?;');
    expect([out.plan.updateType, out.plan.columns, out.rows]).to.deep.equal(['PREPARE', [], []]);
    expect(out.plan.sessionUpdates).to.deep.equal({ addedPreparedStatements: { q1: 'SELECT name FROM people WHERE id = ?' } });
    expect(await failure(engine.plan('PREPARE bad FROM SELEC 1', testSession()))).to.include({ errorName: 'SYNTAX_ERROR' });
  });

  it('EXECUTE substitutes USING values and runs the statement', async () => {
    const session = testSession({ preparedStatements: { q1: "SELECT name, '?' AS q FROM people WHERE id = ? -- what?\n" } });
    const out = await runSql(engine, 'EXECUTE q1 USING 2', session);
    expect(out.plan.columns.map((c) => c.name)).to.deep.equal(['name', 'q']);
    expect(out.rows).to.deep.equal([['bob', '?']]);
    const two = testSession({ preparedStatements: { q2: 'SELECT ? + ?, ?' } });
    expect((await runSql(engine, "EXECUTE q2 USING 1, 2 * 3, concat('a', ',b')", two)).rows).to.deep.equal([[7, 'a,b']]);
    const dml = testSession({ preparedStatements: { ins: 'INSERT INTO people VALUES (?, ?)' } });
    const inserted = await runSql(engine, "EXECUTE ins USING 4, 'dee'", dml);
    expect([inserted.plan.updateType, inserted.updateCount]).to.deep.equal(['INSERT', 1]);
  });

  it('EXECUTE of a prepared Presto statement goes through the dialect layer', async () => {
    const session = testSession({ preparedStatements: { cats: "SHOW CATALOGS LIKE 'mem%'" } });
    expect((await runSql(engine, 'EXECUTE cats', session)).rows).to.deep.equal([['memory']]);
  });

  it('EXECUTE of an unknown name is NOT_FOUND; a wrong parameter count is an error', async () => {
    const missing = await failure(engine.plan('EXECUTE nope', testSession()));
    expect(missing).to.include({ errorName: 'NOT_FOUND', message: 'Prepared statement not found: nope' });
    const session = testSession({ preparedStatements: { q: 'SELECT ?' } });
    // Trino's QueryPreparer: INVALID_PARAMETER_USAGE at the statement, for EXECUTE and for markers without EXECUTE alike.
    expect(await failure(engine.plan('EXECUTE q', session))).to.include({ errorName: 'INVALID_PARAMETER_USAGE', message: 'line 1:1: Incorrect number of parameters: expected 1 but found 0' });
    expect(await failure(engine.plan('EXECUTE q USING 1, 2', session))).to.include({ errorName: 'INVALID_PARAMETER_USAGE', message: 'line 1:1: Incorrect number of parameters: expected 1 but found 2' });
    expect(await failure(engine.plan('INSERT INTO people VALUES (?, ?)', testSession()))).to.include({
      errorName: 'INVALID_PARAMETER_USAGE', message: 'line 1:1: Incorrect number of parameters: expected 2 but found 0',
    });
  });

  describe('a row count taken from a parameter (LIMIT ?, OFFSET ?, FETCH FIRST ? ROWS), bound on the tree', () => {
    const names = async (sql: string, using: string) => (await runSql(engine, `EXECUTE IMMEDIATE '${sql}' USING ${using}`)).rows.map((r) => r[0]);

    it('limits, skips and fetches by the value, whatever expression gives it', async () => {
      expect(await names('SELECT name FROM people ORDER BY id OFFSET ? LIMIT ?', '1, 1')).to.deep.equal(['bob']);
      expect(await names('SELECT name FROM people ORDER BY id OFFSET ? ROWS FETCH FIRST ? ROWS ONLY', '2, 1 + 0')).to.deep.equal(['cy']);
      expect(await names('SELECT name FROM people WHERE id > ? ORDER BY id LIMIT ?', "0, CAST('2' AS bigint)")).to.deep.equal(['ann', 'bob']);
      expect(await names('SELECT name FROM people ORDER BY id LIMIT ?', '0')).to.deep.equal([]);
      const session = testSession({ preparedStatements: { q: 'SELECT name FROM (SELECT * FROM people ORDER BY id LIMIT ?) ORDER BY id DESC LIMIT ?' } });
      expect((await runSql(engine, 'EXECUTE q USING 2, 1', session)).rows).to.deep.equal([['bob']]);
      expect((await runSql(engine, 'EXECUTE q USING 3, 1', session)).rows).to.deep.equal([['cy']]);
    });

    it('fails as Trino fails for a negative, NULL or non-integer value', async () => {
      const fails = (sql: string, using: string) => failure(engine.plan(`EXECUTE IMMEDIATE '${sql}' USING ${using}`, testSession()));
      expect(await fails('SELECT 1 LIMIT ?', '-1')).to.include({ errorName: 'NUMERIC_VALUE_OUT_OF_RANGE', message: 'line 1:16: LIMIT row count must be greater or equal to 0 (actual value: -1)' });
      expect(await fails('SELECT 1 OFFSET ?', '-2')).to.include({ errorName: 'NUMERIC_VALUE_OUT_OF_RANGE', message: 'line 1:17: OFFSET row count must be greater or equal to 0 (actual value: -2)' });
      expect(await fails('SELECT 1 FETCH FIRST ? ROWS ONLY', '0')).to.include({ errorName: 'NUMERIC_VALUE_OUT_OF_RANGE', message: 'line 1:22: FETCH FIRST row count must be positive (actual value: 0)' });
      expect(await fails('SELECT 1 LIMIT ?', 'NULL')).to.include({ errorName: 'INVALID_ARGUMENTS', message: 'line 1:16: Parameter value provided for LIMIT is NULL: null' });
      expect(await fails('SELECT 1 LIMIT ?', '1.5')).to.include({ errorName: 'TYPE_MISMATCH', message: 'line 1:16: Cannot cast type decimal(2,1) to bigint' });
      expect(await fails('SELECT 1 LIMIT ?', 'DOUBLE \'2\'')).to.include({ errorName: 'TYPE_MISMATCH', message: 'line 1:16: Cannot cast type double to bigint' });
    });

    it('EXPLAIN in a prepared statement explains the statement with its values bound', async () => {
      const session = testSession({ preparedStatements: { e: 'EXPLAIN SELECT name FROM people WHERE id = ? LIMIT ?', v: 'EXPLAIN (TYPE VALIDATE) SELECT ? + 1' } });
      const plan = (await runSql(engine, 'EXECUTE e USING 2, 1', session)).rows[0]![0] as string;
      expect(plan).to.be.a('string').and.include('name');
      expect((await runSql(engine, 'EXECUTE v USING 41', session)).rows).to.deep.equal([[true]]);
      expect(await failure(engine.plan('EXECUTE v USING ARRAY[1]', session))).to.include({ errorName: 'TYPE_MISMATCH' });
    });

    it('DESCRIBE OUTPUT and DESCRIBE INPUT take a statement with such markers', async () => {
      const session = testSession({ preparedStatements: { q: 'SELECT name FROM people WHERE id > ? ORDER BY id OFFSET ? LIMIT ?' } });
      expect((await runSql(engine, 'DESCRIBE OUTPUT q', session)).rows.map((r) => r[0])).to.deep.equal(['name']);
      expect((await runSql(engine, 'DESCRIBE INPUT q', session)).rows).to.deep.equal([[0, 'integer'], [1, 'bigint'], [2, 'bigint']]);
    });
  });

  it('EXECUTE IMMEDIATE runs a statement given as a string', async () => {
    expect((await runSql(engine, "EXECUTE IMMEDIATE 'SELECT ? * 2' USING 21")).rows).to.deep.equal([[42]]);
  });

  it('DEALLOCATE PREPARE reports Deallocated-Prepare, NOT_FOUND when unknown', async () => {
    const out = await runSql(engine, 'DEALLOCATE PREPARE q1', testSession({ preparedStatements: { q1: 'SELECT 1' } }));
    expect([out.plan.updateType, out.plan.sessionUpdates]).to.deep.equal(['DEALLOCATE', { deallocatedPreparedStatements: ['q1'] }]);
    expect(await failure(engine.plan('DEALLOCATE PREPARE q1', testSession()))).to.include({ errorName: 'NOT_FOUND' });
  });

  it('DESCRIBE INPUT lists parameter positions and types', async () => {
    const session = testSession({ preparedStatements: { q: 'SELECT name FROM people WHERE id = ? AND ? IS NULL' } });
    const out = await runSql(engine, 'DESCRIBE INPUT q', session);
    expect(out.plan.columns).to.deep.equal([
      { name: 'Position', type: { base: 'bigint' } },
      { name: 'Type', type: { base: 'varchar' } },
    ]);
    expect(out.rows).to.deep.equal([[0, 'integer'], [1, 'unknown']]);
  });

  it('DESCRIBE INPUT types a parameter DuckDB leaves untyped from the literal beside it', async () => {
    const session = testSession({ preparedStatements: { q: "SELECT ? + 1, 2.5 * ?, ? || 'a', 3 = ?" } });
    const out = await runSql(engine, 'DESCRIBE INPUT q', session);
    expect(out.rows).to.deep.equal([[0, 'integer'], [1, 'decimal(2,1)'], [2, 'varchar'], [3, 'integer']]);
  });

  it('DESCRIBE OUTPUT lists output columns with type size and aliasing', async () => {
    const session = testSession({ preparedStatements: { q: 'SELECT count(*) AS n, 1 + 2, name FROM people GROUP BY name', d: 'INSERT INTO people VALUES (9, ?)' } });
    const out = await runSql(engine, 'DESCRIBE OUTPUT q', session);
    expect(out.plan.columns.map((c) => c.name)).to.deep.equal(['Column Name', 'Catalog', 'Schema', 'Table', 'Type', 'Type Size', 'Aliased']);
    // As Trino's DescribeOutputRewrite: a column read as it is names its table; anything else has ''.
    expect(out.rows).to.deep.equal([
      ['n', '', '', '', 'bigint', 8, true],
      ['_col1', '', '', '', 'integer', 4, false],
      ['name', 'memory', 'default', 'people', 'varchar', 0, false],
    ]);
    const withParameter = testSession({ preparedStatements: { p: 'SELECT ? + 1 AS x' } });
    expect((await runSql(engine, 'DESCRIBE OUTPUT p', withParameter)).rows).to.deep.equal([['x', '', '', '', 'integer', 4, true]]);
    const dml = await runSql(engine, 'DESCRIBE OUTPUT d', session);
    expect(dml.rows).to.deep.equal([['rows', '', '', '', 'bigint', 8, false]]);
  });

  it('DESCRIBE OUTPUT names the table of each column read as it is: through *, an alias, a qualifier', async () => {
    const describe = async (sql: string) => (await runSql(engine, 'DESCRIBE OUTPUT q', testSession({ preparedStatements: { q: sql } }))).rows.map((r) => [r[0], r[3], r[6]]);
    expect(await describe('SELECT * FROM people')).to.deep.equal([['id', 'people', false], ['name', 'people', false]]);
    expect(await describe("SELECT p.name AS who, DECIMAL '1.0' AS a, p.* FROM memory.default.people p")).to.deep.equal([
      ['who', 'people', true], ['a', '', true], ['id', 'people', false], ['name', 'people', false],
    ]);
    // Named without its relation in a join, a column's table is not known here.
    expect(await describe('SELECT a.id, name FROM people a JOIN (VALUES 1) v (k) ON a.id = v.k')).to.deep.equal([['id', 'people', false], ['name', '', false]]);
    expect(await describe('WITH w AS (SELECT * FROM people) SELECT id FROM w')).to.deep.equal([['id', '', false]]);
  });

  describe('a prepared statement never runs itself (Trino: NOT_SUPPORTED)', () => {
    const invalid = (type: string) => ({ errorName: 'NOT_SUPPORTED', message: `Invalid statement type for prepared statement: ${type}` });

    it('PREPARE of EXECUTE, EXECUTE IMMEDIATE, PREPARE, DEALLOCATE or DESCRIBE is refused', async () => {
      const refused: [string, string][] = [
        ['PREPARE p FROM EXECUTE p', 'EXECUTE'],
        ['PREPARE p FROM execute p USING 1;', 'EXECUTE'],
        ["PREPARE p FROM EXECUTE IMMEDIATE 'EXECUTE p'", 'EXECUTE IMMEDIATE'],
        ['PREPARE p FROM PREPARE q FROM SELECT 1', 'PREPARE'],
        ['PREPARE p FROM DEALLOCATE PREPARE q', 'DEALLOCATE'],
        ['PREPARE p FROM EXPLAIN EXECUTE p', 'EXECUTE'],
        ['PREPARE p FROM DESCRIBE OUTPUT p', 'DESCRIBE OUTPUT'],
        ['PREPARE p FROM DESCRIBE INPUT p', 'DESCRIBE INPUT'],
      ];
      for (const [sql, type] of refused) expect(await failure(engine.plan(sql, testSession())), sql).to.include(invalid(type));
      const explain = await runSql(engine, 'PREPARE e FROM EXPLAIN SELECT 1');
      expect(explain.plan.sessionUpdates).to.deep.equal({ addedPreparedStatements: { e: 'EXPLAIN SELECT 1' } });
    });

    it('a Prepared-Statement header holding such a statement fails when it is executed or described', async () => {
      const cases: [Record<string, string>, string, string][] = [
        [{ p: 'EXECUTE p' }, 'EXECUTE p', 'EXECUTE'],
        [{ p: 'execute P;' }, 'EXECUTE p', 'EXECUTE'],
        [{ a: 'EXECUTE b', b: 'EXECUTE a' }, 'EXECUTE a', 'EXECUTE'],
        [{ p: "EXECUTE IMMEDIATE 'EXECUTE p'" }, 'EXECUTE p', 'EXECUTE IMMEDIATE'],
        [{ p: 'EXPLAIN EXECUTE p' }, 'EXECUTE p', 'EXECUTE'],
        [{ p: 'EXPLAIN ANALYZE EXECUTE p' }, 'EXECUTE p', 'EXECUTE'],
        [{ p: 'DESCRIBE OUTPUT p' }, 'EXECUTE p', 'DESCRIBE OUTPUT'],
        [{ p: 'EXECUTE p' }, 'DESCRIBE OUTPUT p', 'EXECUTE'],
        [{ p: 'EXECUTE p' }, 'DESCRIBE INPUT p', 'EXECUTE'],
        [{ p: 'EXECUTE p' }, "EXECUTE IMMEDIATE 'EXECUTE p'", 'EXECUTE'],
        [{ p: 'PREPARE q FROM SELECT 1' }, 'EXECUTE p', 'PREPARE'],
      ];
      for (const [preparedStatements, sql, type] of cases) {
        const err = await failure(engine.plan(sql, testSession({ preparedStatements })));
        expect(err, `${JSON.stringify(preparedStatements)}: ${sql}`).to.include(invalid(type));
      }
      // DEALLOCATE only needs the name.
      const out = await runSql(engine, 'DEALLOCATE PREPARE p', testSession({ preparedStatements: { p: 'EXECUTE p' } }));
      expect(out.plan.sessionUpdates).to.deep.equal({ deallocatedPreparedStatements: ['p'] });
    });

    it('fails at once, and the memory stays flat', async () => {
      const rss = process.memoryUsage.rss();
      const start = performance.now();
      for (let i = 0; i < 50; i++) {
        await failure(engine.plan('PREPARE p FROM EXECUTE p', testSession()));
        await failure(engine.plan('EXECUTE a', testSession({ preparedStatements: { a: 'EXPLAIN EXECUTE b', b: 'EXECUTE a' } })));
      }
      // Before: each of these recursed until the process ran out of memory.
      expect(performance.now() - start).to.be.below(5000);
      expect(process.memoryUsage.rss() - rss).to.be.below(64 * 1024 * 1024);
    });
  });
});
