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
    ["SELECT 'abc'::INTEGER", 'INVALID_CAST_ARGUMENT'],
    ['SELECT 9223372036854775807::BIGINT + 1', 'NUMERIC_VALUE_OUT_OF_RANGE'],
    ['CREATE TABLE err_t (y INTEGER)', 'TABLE_ALREADY_EXISTS'],
    ['CREATE SCHEMA main', 'SCHEMA_ALREADY_EXISTS'],
  ];
  for (const [sql, name] of cases) {
    it(`${sql} -> ${name}`, async () => {
      expect((await failure(engine, sql)).errorName).to.equal(name);
    });
  }

  it('locates binder errors on later lines', async () => {
    const err = await failure(engine, 'SELECT x,\n       y\nFROM err_t');
    expect(err.errorLocation).to.deep.equal({ lineNumber: 2, columnNumber: 8 });
    expect(err.message).to.equal("line 2:8: Column 'y' cannot be resolved");
  });

  it('maps memory, interrupt and unknown failures', () => {
    expect(toVivaceError(new Error('Out of Memory Error: failed to allocate data of size 1.0 GiB (3.7 GiB/3.7 GiB used)')).errorName).to.equal('EXCEEDED_LOCAL_MEMORY_LIMIT');
    expect(toVivaceError(new Error('INTERRUPT Error: Interrupted!'))).to.include({ errorName: 'USER_CANCELED', message: 'Query was canceled' });
    expect(toVivaceError(new Error('Something odd'))).to.include({ errorName: 'GENERIC_INTERNAL_ERROR', message: 'Something odd' });
  });

  it('maps a caret in a shortened line back onto the statement', () => {
    const sql = `SELECT ${'a'.repeat(100)}, nope FROM t`;
    const message = `Binder Error: x\n\nLINE 1: ...${'a'.repeat(20)}, nope FROM t\n${' '.repeat(8 + 3 + 22)}^`;
    expect(locationFromCaret(message, sql)).to.deep.equal({ lineNumber: 1, columnNumber: sql.indexOf('nope') + 1 });
  });
});
