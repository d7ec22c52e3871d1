// Presto errors through the HTTP protocol: every failure is a 200 whose last body has state FAILED, no
// nextUri and an error object with Presto's name, code and type (Trino's codes for the *_NOT_FOUND
// names); syntax and analysis errors carry an exact 1-based errorLocation. The server keeps serving.
import { expect } from 'chai';
import { createTestEngine } from '../support/duckdb.js';
import { startTestServer, type TestServer } from '../support/http.js';
import { validateResponse } from '../support/schema-validator.js';
import { PrestoSession, type StatementOutcome } from '../support/presto-session.js';

interface ExpectedError {
  errorName: string;
  errorCode: number;
  /** Exact message, or a pattern. */
  message: string | RegExp;
  errorLocation?: { lineNumber: number; columnNumber: number };
}

describe('Presto dialect over HTTP: errors', function () {
  this.timeout(30_000);
  let server: TestServer;
  let presto: PrestoSession;

  before(async () => {
    server = await startTestServer({ engine: await createTestEngine(2) });
    presto = new PrestoSession(server.url, { timeZone: 'UTC' });
    await presto.ok('CREATE TABLE memory.default.things (id bigint, label varchar)');
    await presto.ok("INSERT INTO memory.default.things VALUES (1, 'one')");
  });
  after(() => server.stop());

  /** Runs `sql`, checks the failed final response and the error object, then that the server still answers. */
  async function fails(sql: string, expected: ExpectedError, session = presto): Promise<StatementOutcome> {
    const out = await session.execute(sql);
    const final = out.final;
    validateResponse('statement-failed', final);
    expect(final.stats.state, sql).to.equal('FAILED');
    expect(final.nextUri, sql).to.equal(undefined);
    const { errorName, errorCode, errorType, message, errorLocation } = out.error;
    expect({ errorName, errorCode, errorType }, sql).to.deep.equal({ errorName: expected.errorName, errorCode: expected.errorCode, errorType: 'USER_ERROR' });
    if (typeof expected.message === 'string') expect(message, sql).to.equal(expected.message);
    else expect(message, sql).to.match(expected.message);
    expect(errorLocation, sql).to.deep.equal(expected.errorLocation);
    expect(out.error.failureInfo?.type, sql).to.be.a('string');
    // No session change is answered for a failed statement.
    for (const h of out.headers) for (const [name] of h) expect(name, sql).not.to.match(/^x-presto-(set|clear|added|deallocated|started)-/);
    expect((await session.ok('SELECT 1')).rows, `after ${sql}`).to.deep.equal([[1]]);
    return out;
  }

  it('SYNTAX_ERROR at the end of input, with its line and column', async () => {
    await fails('SELECT * FROM', {
      errorName: 'SYNTAX_ERROR', errorCode: 1, message: /^line 1:14: /, errorLocation: { lineNumber: 1, columnNumber: 14 },
    });
  });

  it('SYNTAX_ERROR on a later line points at the offending token', async () => {
    await fails('SELECT 1,\n  2 FROM WHERE', {
      errorName: 'SYNTAX_ERROR', errorCode: 1, message: /^line 2:10: /, errorLocation: { lineNumber: 2, columnNumber: 10 },
    });
    await fails('SELECT id\nFROM memory.default.things\nWHERE id = = 1', {
      errorName: 'SYNTAX_ERROR', errorCode: 1, message: /^line 3:12: /, errorLocation: { lineNumber: 3, columnNumber: 12 },
    });
  });

  it('CATALOG_NOT_FOUND', async () => {
    await fails('SELECT * FROM nope.tiny.nation', {
      errorName: 'CATALOG_NOT_FOUND', errorCode: 44, message: "line 1:15: Catalog 'nope' does not exist", errorLocation: { lineNumber: 1, columnNumber: 15 },
    });
    await fails('SHOW SCHEMAS FROM nope', { errorName: 'CATALOG_NOT_FOUND', errorCode: 44, message: "Catalog 'nope' does not exist" });
    await fails('USE nope.tiny', { errorName: 'CATALOG_NOT_FOUND', errorCode: 44, message: "Catalog 'nope' does not exist" });
  });

  it('SCHEMA_NOT_FOUND names the schema in the catalog the statement names', async () => {
    await fails('SHOW TABLES FROM tpch.nope', { errorName: 'SCHEMA_NOT_FOUND', errorCode: 45, message: "Schema 'tpch.nope' does not exist" });
    await fails('SELECT * FROM tpch.nope.nation', {
      errorName: 'SCHEMA_NOT_FOUND', errorCode: 45, message: "line 1:15: Schema 'tpch.nope' does not exist", errorLocation: { lineNumber: 1, columnNumber: 15 },
    });
  });

  it('TABLE_NOT_FOUND names the table as written, qualified', async () => {
    await fails('SELECT * FROM tpch.tiny.nope', {
      errorName: 'TABLE_NOT_FOUND', errorCode: 46, message: "line 1:15: Table 'tpch.tiny.nope' does not exist", errorLocation: { lineNumber: 1, columnNumber: 15 },
    });
    // Without a session catalog an unqualified name is Trino's MISSING_CATALOG_NAME, where it stands.
    await fails('SELECT *\nFROM   nope', {
      errorName: 'MISSING_CATALOG_NAME', errorCode: 56, message: 'line 2:8: Catalog must be specified when session catalog is not set', errorLocation: { lineNumber: 2, columnNumber: 8 },
    });
    const inTiny = new PrestoSession(server.url, { catalog: 'tpch', schema: 'tiny' });
    await fails('SELECT * FROM nope', {
      errorName: 'TABLE_NOT_FOUND', errorCode: 46, message: "line 1:15: Table 'tpch.tiny.nope' does not exist", errorLocation: { lineNumber: 1, columnNumber: 15 },
    }, inTiny);
    await fails('DESCRIBE tpch.tiny.nope', { errorName: 'TABLE_NOT_FOUND', errorCode: 46, message: "Table 'tpch.tiny.nope' does not exist" });
  });

  it('COLUMN_NOT_FOUND', async () => {
    await fails('SELECT nope FROM memory.default.things', {
      errorName: 'COLUMN_NOT_FOUND', errorCode: 47, message: "line 1:8: Column 'nope' cannot be resolved", errorLocation: { lineNumber: 1, columnNumber: 8 },
    });
  });

  // Binder errors of the user's SQL, once INTERNAL_ERRORs: Trino's names, messages and locations.
  const binderErrors: [string, string, number, string, number][] = [
    ['SELECT T', 'COLUMN_NOT_FOUND', 47, "Column 't' cannot be resolved", 8],
    // LIMIT is a non-reserved word: right after a select item Trino's parser reads it as the item's alias.
    [
      'SELECT 1 LIMIT -1', 'SYNTAX_ERROR', 1,
      "mismatched input '-'. Expecting: ',', 'EXCEPT', 'FETCH', 'FROM', 'GROUP', 'HAVING', 'INTERSECT', 'LIMIT', 'OFFSET', 'ORDER', 'UNION', 'WHERE', 'WINDOW', <EOF>",
      16,
    ],
    // Elsewhere it begins the LIMIT clause, whose row count Trino's grammar takes as an unsigned integer, ? or ALL.
    ['SELECT id FROM memory.default.things ORDER BY id LIMIT -1', 'SYNTAX_ERROR', 1, "mismatched input '-'. Expecting: '?', 'ALL', <integer>", 56],
    ['SELECT id FROM memory.default.things a, memory.default.things b', 'AMBIGUOUS_NAME', 62, "Column 'id' is ambiguous", 8],
    ['SELECT id + ARRAY[1] FROM memory.default.things', 'TYPE_MISMATCH', 58, 'Cannot apply operator: bigint + array(integer)', 11],
    ['SELECT abs(1, 2)', 'FUNCTION_NOT_FOUND', 6, 'Unexpected parameters (integer, integer) for function abs', 8],
  ];
  for (const [sql, errorName, errorCode, text, column] of binderErrors) {
    it(`${errorName} for ${sql}`, async () => {
      await fails(sql, { errorName, errorCode, message: `line 1:${column}: ${text}`, errorLocation: { lineNumber: 1, columnNumber: column } });
    });
  }

  // Trino reads 1e400 with Double.parseDouble: Infinity, no error. json_serialize_sql's JSON carries it as a
  // bare Infinity, which parseAst (lib/engine/duckdb-ast.ts) marks as a number.
  it('SELECT 1e400 answers Infinity, as Trino does', async () => {
    expect((await presto.ok('SELECT 1e400')).rows).to.deep.equal([['Infinity']]);
    expect((await presto.ok('SELECT -1e400, 1e400 - 1e400')).rows).to.deep.equal([['-Infinity', 'NaN']]);
  });

  it('FUNCTION_NOT_FOUND', async () => {
    await fails('SELECT no_such_function(1)', {
      errorName: 'FUNCTION_NOT_FOUND', errorCode: 6, message: "line 1:8: Function 'no_such_function' not registered", errorLocation: { lineNumber: 1, columnNumber: 8 },
    });
  });

  it("INVALID_CAST_ARGUMENT for CAST('x' AS INTEGER)", async () => {
    await fails("SELECT CAST('x' AS INTEGER)", { errorName: 'INVALID_CAST_ARGUMENT', errorCode: 9, message: /'x'/ });
  });

  it('NUMERIC_VALUE_OUT_OF_RANGE for an integer overflow and a narrowing cast', async () => {
    await fails('SELECT 2147483647 + 1', { errorName: 'NUMERIC_VALUE_OUT_OF_RANGE', errorCode: 19, message: /2147483647/ });
    await fails('SELECT CAST(9223372036854775807 AS bigint) * 2', { errorName: 'NUMERIC_VALUE_OUT_OF_RANGE', errorCode: 19, message: /./ });
  });

  it('DIVISION_BY_ZERO for SELECT 1/0', async () => {
    await fails('SELECT 1/0', { errorName: 'DIVISION_BY_ZERO', errorCode: 8, message: 'Division by zero' });
    await fails('SELECT id / (id - 1) FROM memory.default.things', { errorName: 'DIVISION_BY_ZERO', errorCode: 8, message: 'Division by zero' });
  });

  it('the same failures with X-Trino- headers, and the server still serves both families', async () => {
    const trino = new PrestoSession(server.url, { prefix: 'X-Trino-' });
    await fails('SELECT 1/0', { errorName: 'DIVISION_BY_ZERO', errorCode: 8, message: 'Division by zero' }, trino);
    await fails('SELECT * FROM', { errorName: 'SYNTAX_ERROR', errorCode: 1, message: /^line 1:14: /, errorLocation: { lineNumber: 1, columnNumber: 14 } }, trino);
    expect((await presto.ok('SELECT count(*) FROM memory.default.things')).rows).to.deep.equal([[1]]);
    expect(server.coordinator.liveQueryCount()).to.equal(0);
  });
});
