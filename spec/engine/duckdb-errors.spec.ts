// DuckDB failures become Presto errors with names, Presto-like messages and 1-based locations.
import { expect } from 'chai';
import type { Engine } from '../../lib/engine/engine.types.js';
import { VivaceError } from '../../lib/protocol/vivace-error.js';
import { locationFromCaret, toVivaceError } from '../../lib/engine/duckdb-errors.js';
import { newEngine, runSql } from './engine-helpers.js';

async function failure(engine: Engine, sql: string): Promise<VivaceError> {
  const err = await runSql(engine, sql).then(() => undefined, (e: unknown) => e);
  expect(err, sql).to.be.instanceOf(VivaceError);
  return err as VivaceError;
}

describe('duckdb engine: errors', () => {
  let engine: Engine;
  before(async () => {
    engine = await newEngine();
    await runSql(engine, 'CREATE TABLE err_t (x INTEGER)');
    await runSql(engine, 'CREATE TABLE err_two (x INTEGER, s VARCHAR)');
  });
  after(() => engine.close());

  it('reports syntax errors with their location', async () => {
    const err = await failure(engine, 'SELECT 1 FROM');
    expect(err.errorName).to.equal('SYNTAX_ERROR');
    expect(err.errorLocation).to.deep.equal({ lineNumber: 1, columnNumber: 14 });
    const mid = await failure(engine, 'SELECT 1,\n  2 FROM FROM t');
    expect(mid.errorName).to.equal('SYNTAX_ERROR');
    expect(mid.errorLocation).to.deep.equal({ lineNumber: 2, columnNumber: 10 });
  });

  it('points errors at the SQL as written when Presto literals were rewritten before DuckDB saw it', async () => {
    // X'..' becomes '\xAB'::BLOB and if(c, x) gets a third argument: positions after them shift in DuckDB's text.
    const column = await failure(engine, "SELECT X'AB' AS b, nope FROM err_t");
    expect(column.errorName).to.equal('COLUMN_NOT_FOUND');
    expect(column.errorLocation).to.deep.equal({ lineNumber: 1, columnNumber: 20 });
    expect(column.message).to.match(/^line 1:20: /);
    const syntax = await failure(engine, "SELECT X'ABCD', if(true, 1) FROM FROM err_t");
    expect(syntax.errorName).to.equal('SYNTAX_ERROR');
    expect(syntax.errorLocation).to.deep.equal({ lineNumber: 1, columnNumber: 34 });
    const nextLine = await failure(engine, "SELECT X'ABCDEF',\n  nope FROM err_t");
    expect(nextLine.errorLocation).to.deep.equal({ lineNumber: 2, columnNumber: 3 });
  });

  it('rejects more than one statement', async () => {
    expect((await failure(engine, 'SELECT 1; SELECT 2')).errorName).to.equal('SYNTAX_ERROR');
  });

  it('accepts one statement with a trailing semicolon', async () => {
    expect((await runSql(engine, 'SELECT 1;')).rows).to.deep.equal([[1]]);
  });

  it('names missing tables like Presto', async () => {
    const err = await failure(engine, 'SELECT * FROM missing');
    expect(err.errorName).to.equal('TABLE_NOT_FOUND');
    expect(err.message).to.equal("line 1:15: Table 'memory.default.missing' does not exist");
    expect(err.errorLocation).to.deep.equal({ lineNumber: 1, columnNumber: 15 });
  });

  const cases: [string, string][] = [
    ['SELECT * FROM nope_schema.t', 'SCHEMA_NOT_FOUND'],
    ['SELECT * FROM nope_catalog.s.t', 'CATALOG_NOT_FOUND'],
    ['SELECT y FROM err_t', 'COLUMN_NOT_FOUND'],
    ['SELECT err_t.y FROM err_t', 'COLUMN_NOT_FOUND'],
    ['SELECT no_such_function(1)', 'FUNCTION_NOT_FOUND'],
    ["SELECT CAST('abc' AS INTEGER)", 'INVALID_CAST_ARGUMENT'],
    ['SELECT CAST(9223372036854775807 AS BIGINT) + 1', 'NUMERIC_VALUE_OUT_OF_RANGE'],
    ['CREATE TABLE err_t (y INTEGER)', 'TABLE_ALREADY_EXISTS'],
    ['CREATE SCHEMA main', 'SCHEMA_ALREADY_EXISTS'],
  ];
  for (const [sql, name] of cases) {
    it(`${sql} -> ${name}`, async () => {
      expect((await failure(engine, sql)).errorName).to.equal(name);
    });
  }

  // Errors of the user's SQL are USER_ERRORs with Trino's names and, where Trino has one, its message.
  const trino: [string, string, string][] = [
    ['SELECT T', 'COLUMN_NOT_FOUND', "line 1:8: Column 't' cannot be resolved"],
    ['SELECT "T"', 'COLUMN_NOT_FOUND', "line 1:8: Column 't' cannot be resolved"],
    ['SELECT q.x FROM err_t', 'COLUMN_NOT_FOUND', "line 1:8: Column 'q.x' cannot be resolved"],
    ['SELECT v.b FROM (SELECT 1 a) v', 'COLUMN_NOT_FOUND', "line 1:8: Column 'v.b' cannot be resolved"],
    ['INSERT INTO err_two (nope) VALUES (1)', 'COLUMN_NOT_FOUND', "Column 'nope' cannot be resolved"],
    ['SELECT x FROM err_t, err_t u', 'AMBIGUOUS_NAME', "line 1:8: Column 'x' is ambiguous"],
    // LIMIT is a non-reserved word: after a select item Trino's parser first reads it as the item's alias.
    [
      'SELECT 1 LIMIT -1',
      'SYNTAX_ERROR',
      "line 1:16: mismatched input '-'. Expecting: ',', 'EXCEPT', 'FETCH', 'FROM', 'GROUP', 'HAVING', 'INTERSECT', 'LIMIT', 'OFFSET', 'ORDER', 'UNION', 'WHERE', 'WINDOW', <EOF>",
    ],
    ['SELECT x FROM err_t ORDER BY x LIMIT -1', 'SYNTAX_ERROR', "line 1:38: mismatched input '-'. Expecting: '?', 'ALL', <integer>"],
    // OFFSET comes before LIMIT in Trino's grammar.
    ['SELECT 1 LIMIT 1 OFFSET -5', 'SYNTAX_ERROR', "line 1:18: mismatched input 'OFFSET'. Expecting: <EOF>"],
    ['SELECT x FROM err_t ORDER BY x OFFSET -5 LIMIT 1', 'SYNTAX_ERROR', "line 1:39: mismatched input '-'. Expecting: '?', <integer>"],
    ['SELECT x FROM err_t ORDER BY 3', 'INVALID_COLUMN_REFERENCE', 'line 1:30: ORDER BY position 3 is not in select list'],
    ['SELECT x FROM err_t GROUP BY 5', 'INVALID_COLUMN_REFERENCE', 'GROUP BY term out of range - should be between 1 and 1'],
    ['SELECT x, count(*) FROM err_t', 'EXPRESSION_NOT_AGGREGATE', "line 1:8: 'x' must be an aggregate expression or appear in GROUP BY clause"],
    ['SELECT x FROM err_t WHERE sum(x) > 1', 'EXPRESSION_NOT_SCALAR', 'line 1:27: WHERE clause cannot contain aggregations, window functions or grouping operations'],
    ['SELECT sum(sum(1))', 'NESTED_AGGREGATION', 'line 1:12: aggregate function calls cannot be nested'],
    ['SELECT Abs(1, 2)', 'FUNCTION_NOT_FOUND', 'line 1:8: Unexpected parameters (integer, integer) for function abs'],
    ['SELECT lower(1)', 'FUNCTION_NOT_FOUND', 'line 1:8: Unexpected parameters (integer) for function lower'],
    ["SELECT 1 + 'a'", 'TYPE_MISMATCH', 'line 1:10: Cannot apply operator: integer + varchar'],
    ['SELECT ARRAY[1] + 1', 'TYPE_MISMATCH', 'line 1:17: Cannot apply operator: array(integer) + integer'],
    ["SELECT CAST(X'01' AS INTEGER)", 'TYPE_MISMATCH', 'Cannot cast varbinary to integer'],
    ['INSERT INTO err_two VALUES (1)', 'TYPE_MISMATCH', 'table err_two has 2 columns but 1 values were supplied'],
    ['SELECT CAST(1 AS nope)', 'TYPE_NOT_FOUND', 'line 1:18: Unknown type: nope'],
    ["SELECT CAST('abc' AS INTEGER)", 'INVALID_CAST_ARGUMENT', "Cannot cast 'abc' to INT"],
    ["SELECT CAST('abc' AS BIGINT)", 'INVALID_CAST_ARGUMENT', "Cannot cast 'abc' to BIGINT"],
    ["SELECT CAST('2020-13-01' AS DATE)", 'INVALID_CAST_ARGUMENT', 'Value cannot be cast to date: 2020-13-01'],
    ['SELECT CAST(99999 AS SMALLINT)', 'NUMERIC_VALUE_OUT_OF_RANGE', 'Out of range for smallint: 99999'],
    ['SELECT 2147483647 + 1', 'NUMERIC_VALUE_OUT_OF_RANGE', 'integer addition overflow: 2147483647 + 1'],
    ['SELECT CAST(9223372036854775807 AS BIGINT) * 2', 'NUMERIC_VALUE_OUT_OF_RANGE', 'bigint multiplication overflow: 9223372036854775807 * 2'],
    ['SELECT CAST(12345678901 AS DECIMAL(5,2))', 'NUMERIC_VALUE_OUT_OF_RANGE', 'Cannot cast value 12345678901 to decimal(5,2)'],
  ];
  for (const [sql, name, message] of trino) {
    it(`${sql} -> ${name}: ${message}`, async () => {
      const err = await failure(engine, sql);
      expect({ errorName: err.errorName, message: err.message }).to.deep.equal({ errorName: name, message });
      expect(err.toQueryError().errorType).to.equal('USER_ERROR');
    });
  }

  it('maps DuckDB messages that need the SQL as written: literals, negative row counts not written as literals', () => {
    const date = toVivaceError(new Error('Conversion Error: date field value out of range: "2020-13-01"'), { sql: "SELECT DATE '2020-13-01'" });
    expect(date).to.include({ errorName: 'INVALID_LITERAL', message: "'2020-13-01' is not a valid DATE literal" });
    const timestamp = toVivaceError(new Error('Conversion Error: invalid timestamp field format: "x", expected format is (YYYY-MM-DD)'), { sql: "SELECT timestamp 'x'" });
    expect(timestamp).to.include({ errorName: 'INVALID_LITERAL', message: "'x' is not a valid TIMESTAMP literal" });
    const parameter = toVivaceError(new Error('Binder Error: LIMIT/OFFSET cannot be negative\n\nLINE 1: SELECT 1 LIMIT $1\n                       ^'), { sql: 'SELECT 1 LIMIT ?' });
    expect(parameter).to.include({ errorName: 'NUMERIC_VALUE_OUT_OF_RANGE', message: 'line 1:16: LIMIT row count must be greater or equal to 0' });
    const infinite = toVivaceError(new Error("Conversion Error: Type DOUBLE with value inf can't be cast because the value is out of range for the destination type INT32"));
    expect(infinite).to.include({ errorName: 'NUMERIC_VALUE_OUT_OF_RANGE', message: 'Out of range for integer: Infinity' });
  });

  it('maps what is left of the binder and the catalog to user errors, and sandbox refusals to PERMISSION_DENIED', () => {
    expect(toVivaceError(new Error('Binder Error: DECIMAL type width must be between 1 and 38'))).to.include({ errorName: 'GENERIC_USER_ERROR', message: 'DECIMAL type width must be between 1 and 38' });
    expect(toVivaceError(new Error('Catalog Error: Sequence with name s does not exist!'))).to.include({ errorName: 'NOT_FOUND', message: 'Sequence with name s does not exist' });
    expect(toVivaceError(new Error('Permission Error: File system LocalFileSystem has been disabled by configuration'))).to.include({
      errorName: 'PERMISSION_DENIED',
      message: 'Access Denied: File system LocalFileSystem has been disabled by configuration',
    });
    expect(toVivaceError(new Error('Constraint Error: NOT NULL constraint failed: t.x')).errorName).to.equal('CONSTRAINT_VIOLATION');
  });

  it('keeps GENERIC_INTERNAL_ERROR for what is not the user\'s: DuckDB internals and our own exceptions', () => {
    expect(toVivaceError(new Error('INTERNAL Error: Attempted to access index 3 within vector of size 3')).errorName).to.equal('GENERIC_INTERNAL_ERROR');
    expect(toVivaceError(new TypeError("Cannot read properties of undefined (reading 'node')")).errorName).to.equal('GENERIC_INTERNAL_ERROR');
  });

  it('locates binder errors on later lines', async () => {
    const err = await failure(engine, 'SELECT x,\n       y\nFROM err_t');
    expect(err.errorLocation).to.deep.equal({ lineNumber: 2, columnNumber: 8 });
    expect(err.message).to.equal("line 2:8: Column 'y' cannot be resolved");
  });

  it('maps memory, interrupt and unknown failures', () => {
    expect(toVivaceError(new Error('Out of Memory Error: failed to allocate data of size 1.0 GiB (3.7 GiB/3.7 GiB used)')).errorName).to.equal('EXCEEDED_LOCAL_MEMORY_LIMIT');
    // Trino's message names the limit (ExceededMemoryLimitException.exceededLocalUserMemoryLimit) when the engine knows it.
    expect(toVivaceError(new Error('Out of Memory Error: could not allocate block of size 256.0 KiB (15.8 MiB/16.0 MiB used)'), { memoryLimit: '16MB' })).to.include({
      errorName: 'EXCEEDED_LOCAL_MEMORY_LIMIT', message: 'Query exceeded per-node memory limit of 16MB [could not allocate block of size 256.0 KiB (15.8 MiB/16.0 MiB used)]',
    });
    expect(toVivaceError(new Error('INTERRUPT Error: Interrupted!'))).to.include({ errorName: 'USER_CANCELED', message: 'Query was canceled' });
    expect(toVivaceError(new Error('Something odd'))).to.include({ errorName: 'GENERIC_INTERNAL_ERROR', message: 'Something odd' });
  });

  it('maps a caret in a shortened line back onto the statement', () => {
    const sql = `SELECT ${'a'.repeat(100)}, nope FROM t`;
    const message = `Binder Error: x\n\nLINE 1: ...${'a'.repeat(20)}, nope FROM t\n${' '.repeat(8 + 3 + 22)}^`;
    expect(locationFromCaret(message, sql)).to.deep.equal({ lineNumber: 1, columnNumber: sql.indexOf('nope') + 1 });
  });
});
