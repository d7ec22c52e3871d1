// The allow-list on the parse tree: statement kinds, functions, tables and write targets, with the
// variants a guard's author forgets: quoting, case, nesting, other catalogs, PREPARE, EXPLAIN.
import { expect } from 'chai';
import { parseStatement } from '../../lib/sql/parser.js';
import { admitStatement, type GateContext } from '../../lib/sql/statement-gate.js';
import { VivaceError } from '../../lib/protocol/vivace-error.js';

const CONTEXT: GateContext = {
  catalog: 'memory',
  schema: 'default',
  catalogs: new Set(['memory', 'tpch', 'system']),
  writableCatalogs: new Set(['memory']),
  protectedSchemas: new Set(['memory.default']),
};

function refusal(sql: string, context: GateContext = CONTEXT): VivaceError | undefined {
  try {
    admitStatement(parseStatement(sql), sql, context);
    return undefined;
  } catch (err) {
    if (!(err instanceof VivaceError)) throw err;
    return err;
  }
}

describe('admitStatement', () => {
  it('admits the Presto statements the project serves', () => {
    for (const sql of [
      'SELECT 1',
      'SELECT transform(ARRAY[1, 2], x -> x + 1), upper(name) FROM tpch.tiny.nation',
      'WITH region AS (SELECT 1 AS x) SELECT * FROM region',
      'SELECT count(*) OVER (PARTITION BY a) FROM memory.default.t',
      'SELECT row_number() OVER () FROM t',
      'SELECT * FROM system.runtime.queries',
      'SELECT * FROM information_schema.tables',
      'EXPLAIN SELECT 1',
      'SHOW TABLES FROM tpch.tiny',
      'CREATE TABLE t (a bigint)',
      'CREATE TABLE memory."default".t2 AS SELECT 1 AS a',
      'INSERT INTO "MEMORY"."DEFAULT".T VALUES (1)',
      'DROP SCHEMA memory.other CASCADE',
      'PREPARE p FROM SELECT ?',
      'EXECUTE p USING 1',
      'START TRANSACTION',
      "SET SESSION query_max_run_time = '1m'",
      'SELECT system.builtin.abs(-1)',
    ]) {
      expect(refusal(sql), sql).to.equal(undefined);
    }
  });

  it('refuses functions Trino does not have or the project does not map, however they are spelled', () => {
    for (const sql of [
      "SELECT * FROM TABLE(read_csv('/etc/passwd'))",
      "SELECT read_text('/etc/passwd')",
      "SELECT READ_TEXT('/etc/passwd')",
      `SELECT "read_text"('/etc/passwd')`,
      "SELECT system.main.read_text('x')",
      "SELECT main.upper('x')",
      "SELECT getenv('HOME')",
      "SELECT current_setting('threads')",
      'SELECT vivace_divide(1, 2)',
      "SELECT (SELECT json_serialize_sql('SELECT 1'))",
      "SELECT transform(ARRAY[1], x -> glob('*'))",
      "WITH q AS (SELECT range(10) AS r) SELECT * FROM q",
      "EXPLAIN SELECT read_blob('x')",
      "PREPARE p FROM SELECT read_text('x')",
      "CREATE TABLE x AS SELECT read_text('x') AS t",
      "INSERT INTO t SELECT read_text('x')",
      "SELECT 1 WHERE EXISTS (SELECT read_text('x'))",
      "SELECT count(*) FILTER (WHERE read_text('x') IS NULL) FROM t",
      "SELECT sum(a) OVER (ORDER BY read_text('x')) FROM t",
    ]) {
      expect(refusal(sql), sql).to.include({ errorName: 'FUNCTION_NOT_FOUND' });
    }
    expect(refusal("SELECT read_text('x')")!.message).to.equal("line 1:8: Function 'read_text' not registered");
  });

  it('refuses DuckDB\'s own catalogs, schemas and views', () => {
    for (const sql of [
      'SELECT * FROM temp.main.t',
      'SELECT * FROM temp.t',
      'SELECT * FROM pg_catalog.pg_settings',
      'SELECT * FROM pg_settings',
      'SELECT * FROM duckdb_tables',
      'SELECT * FROM "DUCKDB_TABLES"',
      'SELECT * FROM system.duckdb_tables',
      'SELECT * FROM sqlite_master',
    ]) {
      expect(refusal(sql), sql?.toString()).to.be.an.instanceOf(VivaceError);
      expect(['TABLE_NOT_FOUND', 'CATALOG_NOT_FOUND']).to.include(refusal(sql)!.errorName);
    }
    expect(refusal('SELECT * FROM nowhere.s.t')).to.include({ errorName: 'CATALOG_NOT_FOUND', message: "line 1:15: Catalog 'nowhere' does not exist" });
  });

  it('writes only to the memory catalog, whatever the quoting and case, and never drops memory.default', () => {
    for (const sql of [
      'CREATE OR REPLACE TABLE "TPCH"."TINY"."REGION" AS SELECT 1 AS x',
      'INSERT INTO "tpch".tiny.region VALUES (1)',
      'DELETE FROM TPCH.TINY.REGION',
      'UPDATE tpch.tiny.region SET name = 1',
      'DROP TABLE "tpch"."tiny"."region"',
      'DROP VIEW tpch.tiny.region',
      'CREATE VIEW tpch.tiny.v AS SELECT 1',
      'CREATE SCHEMA tpch.mine',
      'DROP SCHEMA Tpch.Tiny CASCADE',
      'CREATE TABLE system.runtime.t (a bigint)',
      'ALTER TABLE tpch.tiny.region ADD COLUMN c bigint',
      'ALTER TABLE memory.default.t RENAME TO tpch.tiny.t',
      'TRUNCATE TABLE tpch.tiny.region',
      'COMMENT ON TABLE tpch.tiny.region IS \'x\'',
    ]) {
      expect(refusal(sql), sql).to.include({ errorName: 'NOT_SUPPORTED' });
    }
    for (const sql of ['DROP SCHEMA memory."default" CASCADE', 'DROP SCHEMA "MEMORY"."DEFAULT"', 'DROP SCHEMA "default"']) {
      expect(refusal(sql), sql).to.include({ errorName: 'PERMISSION_DENIED' });
    }
    const inTpch: GateContext = { ...CONTEXT, catalog: 'tpch', schema: 'tiny' };
    for (const sql of ['CREATE TABLE t (a bigint)', 'INSERT INTO t VALUES (1)', 'CREATE SCHEMA extra', 'CREATE OR REPLACE VIEW system.runtime.v AS SELECT 1']) {
      expect(refusal(sql, inTpch), sql).to.include({ errorName: 'NOT_SUPPORTED' });
    }
    // Reading a connector catalog, or writing memory while reading one, is no write to it.
    for (const sql of ['SELECT * FROM tpch.tiny.region', 'INSERT INTO memory.default.t SELECT * FROM tpch.tiny.nation', 'DROP SCHEMA memory.s']) {
      expect(refusal(sql), sql).to.equal(undefined);
    }
    expect(refusal('CREATE TABLE other.s.t (a bigint)')).to.include({ errorName: 'CATALOG_NOT_FOUND' });
    // COMMENT ON COLUMN names a column: its table is all but the last part.
    expect(refusal("COMMENT ON COLUMN memory.shop.orders.note IS 'x'")).to.equal(undefined);
    expect(refusal("COMMENT ON COLUMN orders.note IS 'x'")).to.equal(undefined);
    expect(refusal("COMMENT ON COLUMN tpch.tiny.nation.n_name IS 'x'")).to.include({ errorName: 'NOT_SUPPORTED' });
  });

  it('refuses every write in an explicit transaction, as Trino\'s memory connector (writes only in autocommit)', () => {
    const inTransaction = { ...CONTEXT, inTransaction: true };
    for (const sql of ['INSERT INTO t VALUES (1)', 'CREATE TABLE memory.default.n AS SELECT 1 AS a', 'DROP TABLE t', 'CREATE SCHEMA memory.s', "COMMENT ON TABLE t IS 'x'", 'ALTER TABLE t ADD COLUMN c int']) {
      expect(refusal(sql, inTransaction), sql).to.include({ errorName: 'AUTOCOMMIT_WRITE_CONFLICT', message: 'Catalog only supports writes using autocommit: memory' });
    }
    expect(refusal('SELECT * FROM t', inTransaction)).to.equal(undefined);
    // A write to a read-only catalog is refused for that first.
    expect(refusal('INSERT INTO tpch.tiny.nation VALUES (1)', inTransaction)).to.include({ errorName: 'NOT_SUPPORTED' });
  });

  it('admits the session functions: the translation answers them with the session\'s values, never DuckDB\'s', () => {
    for (const sql of ['SELECT current_user', 'SELECT current_catalog', 'SELECT current_schema', 'SELECT current_path', 'SELECT 1 WHERE current_user = \'x\'']) {
      expect(refusal(sql), sql).to.equal(undefined);
    }
  });

  it('knows Trino\'s types only, in casts, column definitions and typed literals', () => {
    for (const sql of [
      "SELECT CAST(1 AS bigint), CAST('a' AS varchar(3)), CAST(NULL AS array(map(varchar, row(a double, b decimal(10, 2)))))",
      "SELECT DATE '2020-01-01', TIMESTAMP '2020-01-01 00:00:00', DECIMAL '1.5', REAL '1', JSON '{}', UUID '8c3c6a2e-6f0b-4a8e-9b8f-2c3b8e8f9a10'",
      'CREATE TABLE t (a bigint, b varchar, c timestamp(3) with time zone, d interval day to second)',
    ]) {
      expect(refusal(sql), sql).to.equal(undefined);
    }
    for (const sql of [
      'SELECT CAST(1 AS hugeint)',
      'SELECT CAST(1 AS UBIGINT)',
      "SELECT CAST('x' AS blob)",
      'CREATE TABLE t (a hugeint)',
      "SELECT E'\\'' ; COPY (SELECT 42) TO $$/tmp/pwn.csv$$ ; SELECT $$' AS x --$$",
      "SELECT CAST(ARRAY[1] AS list(integer))",
    ]) {
      expect(refusal(sql), sql).to.include({ errorName: 'TYPE_NOT_FOUND' });
    }
    expect(refusal('SELECT CAST(1 AS hugeint)')!.message).to.equal('line 1:18: Unknown type: hugeint');
  });

  it('refuses Trino statements the project does not serve, and prepared statements that prepare or execute', () => {
    expect(refusal('CREATE FUNCTION f() RETURNS bigint RETURN 1')).to.include({ errorName: 'NOT_SUPPORTED' });
    expect(refusal('GRANT SELECT ON t TO alice')).to.include({ errorName: 'NOT_SUPPORTED' });
    expect(refusal('CALL system.runtime.kill_query(\'x\')')).to.include({ errorName: 'PROCEDURE_NOT_FOUND' });
    expect(refusal('PREPARE p FROM EXECUTE p')).to.include({ errorName: 'NOT_SUPPORTED', message: 'Invalid statement type for prepared statement: EXECUTE' });
    expect(refusal('PREPARE p FROM PREPARE q FROM SELECT 1')).to.include({ message: 'Invalid statement type for prepared statement: PREPARE' });
    expect(refusal("PREPARE p FROM EXECUTE IMMEDIATE 'SELECT 1'")).to.include({ message: 'Invalid statement type for prepared statement: EXECUTE IMMEDIATE' });
    expect(refusal('EXPLAIN GRANT SELECT ON t TO alice')).to.include({ errorName: 'NOT_SUPPORTED' });
    // Prepared statements from the Prepared-Statement header are held to the same rule when executed.
    const headers = { ...CONTEXT, preparedStatements: { p: 'EXECUTE p', q: 'SELECT 1', r: "EXECUTE IMMEDIATE 'SELECT 1'", e: 'EXPLAIN EXECUTE p' } };
    expect(refusal('EXECUTE e', headers)).to.include({ message: 'Invalid statement type for prepared statement: EXECUTE' });
    expect(refusal('EXECUTE p', headers)).to.include({ errorName: 'NOT_SUPPORTED', message: 'Invalid statement type for prepared statement: EXECUTE' });
    expect(refusal('EXECUTE r', headers)).to.include({ message: 'Invalid statement type for prepared statement: EXECUTE IMMEDIATE' });
    expect(refusal('EXECUTE q', headers)).to.equal(undefined);
  });

  it('answers ALTER TABLE SET PROPERTIES as Trino\'s connectors here (Hive, memory, tpch): the catalog resolved, then not supported', () => {
    const unsupported = { errorName: 'NOT_SUPPORTED', message: 'This connector does not support setting table properties' };
    for (const sql of ["ALTER TABLE t SET PROPERTIES format = 'CSV'", 'ALTER TABLE tpch.tiny.nation SET PROPERTIES a = 1', 'alter table "MEMORY".default.t set properties x = DEFAULT']) {
      expect(refusal(sql), sql).to.include(unsupported);
    }
    expect(refusal('ALTER TABLE nowhere.s.t SET PROPERTIES a = 1')).to.include({ errorName: 'CATALOG_NOT_FOUND', message: "line 1:1: Catalog 'nowhere' does not exist" });
    // A materialized view's properties stay a statement the project does not serve.
    expect(refusal("ALTER MATERIALIZED VIEW mv SET PROPERTIES x = 'y'")).to.include({ errorName: 'NOT_SUPPORTED' });
  });
});
