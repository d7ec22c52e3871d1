// Syntax errors as Trino reports them: VivaceError SYNTAX_ERROR, "line L:C: mismatched input 'x'. Expecting: ..."
// at the furthest token the parse reached, Trino's own messages for identifiers and literals, DuckDB-only syntax
// refused, and bounded nesting.
import { expect } from 'chai';
import { parseDataType, parseExpression, parseStatement } from '../../lib/sql/parser.js';
import { VivaceError } from '../../lib/protocol/vivace-error.js';

function error(parse: () => unknown): VivaceError {
  try {
    parse();
  } catch (err) {
    if (err instanceof VivaceError) return err;
    throw err;
  }
  throw new Error('expected a syntax error');
}
const statementError = (sql: string) => error(() => parseStatement(sql));
const message = (sql: string) => statementError(sql).message;

const STATEMENT_START =
  "'ALTER', 'ANALYZE', 'CALL', 'COMMENT', 'COMMIT', 'CREATE', 'DEALLOCATE', 'DELETE', 'DENY', 'DESC', 'DESCRIBE', " +
  "'DROP', 'EXECUTE', 'EXPLAIN', 'GRANT', 'INSERT', 'MERGE', 'PREPARE', 'REFRESH', 'RESET', 'REVOKE', 'ROLLBACK', " +
  "'SET', 'SHOW', 'START', 'TRUNCATE', 'UPDATE', 'USE', <query>";

describe('parser errors', () => {
  it('are VivaceError SYNTAX_ERROR with the location Trino reports', () => {
    const err = statementError('SELECT *\nFROM t\nWHERE FROM');
    expect(err.errorName).to.equal('SYNTAX_ERROR');
    expect(err.errorCode).to.equal(1);
    expect(err.errorLocation).to.deep.equal({ lineNumber: 3, columnNumber: 7 });
    expect(err.message).to.equal("line 3:7: mismatched input 'FROM'. Expecting: <expression>");
    expect(err.toQueryError().failureInfo.type).to.equal('io.trino.sql.parser.ParsingException');
  });

  it("matches Trino's messages for typical mistakes (TestSqlParserErrorHandling)", () => {
    const cases: [string, string][] = [
      ['', `line 1:1: mismatched input '<EOF>'. Expecting: ${STATEMENT_START}`],
      ['  \n  ', `line 2:3: mismatched input '<EOF>'. Expecting: ${STATEMENT_START}`],
      ['@select', `line 1:1: mismatched input '@'. Expecting: ${STATEMENT_START}`],
      ['select * from foo where @what', "line 1:25: mismatched input '@'. Expecting: <expression>"],
      ["select * from 'oops", "line 1:15: mismatched input '''. Expecting: '(', 'LATERAL', 'TABLE', 'UNNEST', <identifier>"],
      [
        'select *\nfrom x\nfrom',
        "line 3:1: mismatched input 'from'. Expecting: ',', '.', 'AS', 'CROSS', 'EXCEPT', 'FETCH', 'FOR', 'FULL', 'GROUP', 'HAVING', " +
          "'INNER', 'INTERSECT', 'JOIN', 'LEFT', 'LIMIT', 'NATURAL', 'OFFSET', 'ORDER', 'RIGHT', 'TABLESAMPLE', 'UNION', 'WHERE', " +
          "'WINDOW', <EOF>, <identifier>",
      ],
      ['select *\nfrom x\nwhere from', "line 3:7: mismatched input 'from'. Expecting: <expression>"],
      ['select ', "line 1:8: mismatched input '<EOF>'. Expecting: '*', 'ALL', 'DISTINCT', <expression>"],
      ['select * from', "line 1:14: mismatched input '<EOF>'. Expecting: '(', 'LATERAL', 'TABLE', 'UNNEST', <identifier>"],
      ['select * from  ', "line 1:16: mismatched input '<EOF>'. Expecting: '(', 'LATERAL', 'TABLE', 'UNNEST', <identifier>"],
      ['select * from `foo`', 'line 1:15: backquoted identifiers are not supported; use double quotes to quote identifiers'],
      ['select * from foo `bar`', 'line 1:19: backquoted identifiers are not supported; use double quotes to quote identifiers'],
      ['select 1x from dual', 'line 1:8: identifiers must not start with a digit; surround the identifier with double quotes'],
      [
        'select fuu from dual order by fuu order by fuu',
        "line 1:35: mismatched input 'order'. Expecting: '%', '*', '+', ',', '-', '.', '/', 'AND', 'ASC', 'AT', 'DESC', 'FETCH', " +
          "'LIMIT', 'NULLS', 'OFFSET', 'OR', '[', '||', <EOF>, <predicate>",
      ],
      ['select fuu from dual limit 10 order by fuu', "line 1:31: mismatched input 'order'. Expecting: <EOF>"],
      ['select CAST(12223222232535343423232435343 AS BIGINT)', 'line 1:13: Invalid numeric literal: 12223222232535343423232435343'],
      ['select CAST(-12223222232535343423232435343 AS BIGINT)', 'line 1:13: Invalid numeric literal: -12223222232535343423232435343'],
      ['select foo(,1)', "line 1:12: mismatched input ','. Expecting: ')', '*', 'ALL', 'DISTINCT', 'ORDER', <expression>"],
      ['select foo ( ,1)', "line 1:14: mismatched input ','. Expecting: ')', '*', 'ALL', 'DISTINCT', 'ORDER', <expression>"],
      ['select foo(DISTINCT)', "line 1:20: mismatched input ')'. Expecting: <expression>"],
      ['select foo(DISTINCT ,1)', "line 1:21: mismatched input ','. Expecting: <expression>"],
      ['CREATE )', "line 1:8: mismatched input ')'. Expecting: 'CATALOG', 'FUNCTION', 'MATERIALIZED', 'OR', 'ROLE', 'SCHEMA', 'TABLE', 'VIEW'"],
      ['CREATE TABLE ) AS (VALUES 1)', "line 1:14: mismatched input ')'. Expecting: 'IF', <identifier>"],
      ['CREATE TABLE foo ', "line 1:18: mismatched input '<EOF>'. Expecting: '(', '.', 'AS', 'COMMENT', 'WITH'"],
      ['CREATE TABLE foo () AS (VALUES 1)', "line 1:19: mismatched input ')'. Expecting: 'LIKE', <identifier>"],
      ['CREATE TABLE foo (*) AS (VALUES 1)', "line 1:19: mismatched input '*'. Expecting: 'LIKE', <identifier>"],
      ['SELECT grouping(a+2) FROM (VALUES (1)) AS t (a) GROUP BY a+2', "line 1:18: mismatched input '+'. Expecting: ')', ',', '.'"],
      ['SELECT x() over (ROWS select) FROM t', "line 1:23: mismatched input 'select'. Expecting: 'BETWEEN', 'CURRENT', 'UNBOUNDED', <expression>"],
      ['SELECT X() OVER (ROWS UNBOUNDED) FROM T', "line 1:32: mismatched input ')'. Expecting: 'FOLLOWING', 'PRECEDING'"],
      ['SELECT a FROM x ORDER BY (SELECT b FROM t WHERE ', "line 1:49: mismatched input '<EOF>'. Expecting: <expression>"],
      ['SELECT a FROM a AS x TABLESAMPLE x ', "line 1:34: mismatched input 'x'. Expecting: 'BERNOULLI', 'SYSTEM'"],
      ['SELECT a AS z FROM t GROUP BY CUBE (a), ', "line 1:41: mismatched input '<EOF>'. Expecting: '(', 'CUBE', 'GROUPING', 'ROLLUP', <expression>"],
      ['SELECT a AS z FROM t WHERE x = 1 + ', "line 1:36: mismatched input '<EOF>'. Expecting: <expression>"],
      ['CREATE TABLE t (x bigint) COMMENT ', "line 1:35: mismatched input '<EOF>'. Expecting: <string>"],
      ['SELECT * FROM ( ', "line 1:17: mismatched input '<EOF>'. Expecting: '(', 'LATERAL', 'TABLE', 'UNNEST', <identifier>, <query>"],
      ['SELECT CAST(a AS )', "line 1:18: mismatched input ')'. Expecting: <type>"],
      ['SELECT CAST(a AS decimal()', "line 1:26: mismatched input ')'. Expecting: <integer>, <type>"],
      ['SELECT foo(*) filter (', "line 1:23: mismatched input '<EOF>'. Expecting: 'WHERE'"],
      [
        'SELECT * FROM t t x',
        "line 1:19: mismatched input 'x'. Expecting: '(', ',', 'CROSS', 'EXCEPT', 'FETCH', 'FULL', 'GROUP', 'HAVING', 'INNER', " +
          "'INTERSECT', 'JOIN', 'LEFT', 'LIMIT', 'NATURAL', 'OFFSET', 'ORDER', 'RIGHT', 'TABLESAMPLE', 'UNION', 'WHERE', 'WINDOW', <EOF>",
      ],
      ['SELECT * FROM t WHERE EXISTS (', "line 1:31: mismatched input '<EOF>'. Expecting: <query>"],
      ['SELECT "" FROM t', 'line 1:8: Zero-length delimited identifier not allowed'],
      ['SELECT a FROM ""', 'line 1:15: Zero-length delimited identifier not allowed'],
      ['SELECT a FROM "".t', 'line 1:15: Zero-length delimited identifier not allowed'],
      ["SHOW CATALOGS LIKE '%$_%' ESCAPE", "line 1:33: mismatched input '<EOF>'. Expecting: <string>"],
      ["SHOW SCHEMAS IN foo LIKE '%$_%' ESCAPE", "line 1:39: mismatched input '<EOF>'. Expecting: <string>"],
      ["SHOW FUNCTIONS LIKE '%$_%' ESCAPE", "line 1:34: mismatched input '<EOF>'. Expecting: <string>"],
      ["SHOW SESSION LIKE '%$_%' ESCAPE", "line 1:32: mismatched input '<EOF>'. Expecting: <string>"],
    ];
    for (const [sql, expected] of cases) expect(message(sql), JSON.stringify(sql)).to.equal(expected);
  });

  it('reports expressions and types as Trino does', () => {
    expect(error(() => parseExpression('')).message).to.equal("line 1:1: mismatched input '<EOF>'. Expecting: <expression>");
    expect(error(() => parseExpression('1 + 1 x')).message).to.equal(
      "line 1:7: mismatched input 'x'. Expecting: '%', '*', '+', '-', '.', '/', 'AND', 'AT', 'OR', '[', '||', <EOF>, <predicate>",
    );
    expect(error(() => parseDataType('map(varchar,')).message).to.equal("line 1:13: mismatched input '<EOF>'. Expecting: <integer>, <type>");
  });

  it('places the typical mistakes at the right line and column', () => {
    const cases: [string, string][] = [
      ['SELECT FROM', "line 1:8: mismatched input 'FROM'. Expecting: '*', 'ALL', 'DISTINCT', <expression>"],
      ['SELECT 1 +', "line 1:11: mismatched input '<EOF>'. Expecting: <expression>"],
      ['SELEC 1', `line 1:1: mismatched input 'SELEC'. Expecting: ${STATEMENT_START}`],
      ["SELECT 'abc", "line 1:8: mismatched input '''. Expecting: '*', 'ALL', 'DISTINCT', <expression>"],
      ['SELECT "a', "line 1:8: mismatched input '\"'. Expecting: '*', 'ALL', 'DISTINCT', <expression>"],
      ['SELECT 1; SELECT 2', "line 1:11: mismatched input 'SELECT'. Expecting: <EOF>"],
      ["EXPLAIN SELECT 1; COPY t TO 'f'", "line 1:19: mismatched input 'COPY'. Expecting: <EOF>"],
      ['SELECT `a`', 'line 1:8: backquoted identifiers are not supported; use double quotes to quote identifiers'],
      ['SELECT 1a', 'line 1:8: identifiers must not start with a digit; surround the identifier with double quotes'],
      ['SELECT 1 /* unclosed', "line 1:11: mismatched input '*'. Expecting: <expression>"],
      ['SELECT a,\n  b\n  c d', "line 3:5: mismatched input 'd'. Expecting: ',', 'EXCEPT', 'FETCH', 'FROM', 'GROUP', 'HAVING', 'INTERSECT', 'LIMIT', 'OFFSET', 'ORDER', 'UNION', 'WHERE', 'WINDOW', <EOF>"],
      // One predicate per value, as in Trino: a = b = c is an error.
      [
        'SELECT 1 = 1 = 1',
        "line 1:14: mismatched input '='. Expecting: '%', '*', '+', ',', '-', '.', '/', 'AND', 'AS', 'AT', 'EXCEPT', 'FETCH', " +
          "'FROM', 'GROUP', 'HAVING', 'INTERSECT', 'LIMIT', 'OFFSET', 'OR', 'ORDER', 'UNION', 'WHERE', 'WINDOW', '[', '||', <EOF>, <identifier>",
      ],
      [';', `line 1:1: mismatched input ';'. Expecting: ${STATEMENT_START}`],
      ["SELECT '😀' FROM\t\tx y z", "line 1:22: mismatched input 'z'. Expecting: '(', ',', 'CROSS', 'EXCEPT', 'FETCH', 'FULL', 'GROUP', 'HAVING', 'INNER', 'INTERSECT', 'JOIN', 'LEFT', 'LIMIT', 'NATURAL', 'OFFSET', 'ORDER', 'RIGHT', 'TABLESAMPLE', 'UNION', 'WHERE', 'WINDOW', <EOF>"],
    ];
    for (const [sql, expected] of cases) expect(message(sql), JSON.stringify(sql)).to.equal(expected);
    // Columns count code points, as ANTLR does: the emoji above is one column.
    expect(statementError("SELECT '😀' FROM\t\tx y z").errorLocation).to.deep.equal({ lineNumber: 1, columnNumber: 22 });
  });

  it('refuses DuckDB-only syntax', () => {
    const duckdb = [
      "SELECT * FROM 'file.csv'",
      'FROM t SELECT a',
      "COPY t TO 'x'",
      "ATTACH 'x'",
      'PRAGMA x',
      'INSTALL httpfs',
      'LOAD x',
      'CREATE MACRO m(a) AS a',
      'SELECT $$x$$',
      'SELECT a::int',
      "SELECT {'a': 1}",
      'SELECT [1, 2]',
      "EXPORT DATABASE 'x'",
      "SET memory_limit='1GB'",
      'DETACH tpch',
      'SUMMARIZE t',
      'PIVOT t ON a USING sum(b)',
      'SELECT * EXCLUDE (a) FROM t',
      'SELECT a FROM t QUALIFY row_number() OVER () = 1',
      'SELECT list_value(1)[1:2]',
      'CREATE TEMP TABLE t (a int)',
      "SELECT 'a' ~~ 'b'",
      'SELECT 1 // 2',
      'SELECT 2 ** 3',
      'USE memory.main; ATTACH x',
    ];
    for (const sql of duckdb) expect(statementError(sql).errorName, sql).to.equal('SYNTAX_ERROR');
    expect(message('SELECT a::int')).to.match(/^line 1:9: mismatched input ':'/);
    expect(message("SET memory_limit='1GB'")).to.equal("line 1:5: mismatched input 'memory_limit'. Expecting: 'PATH', 'ROLE', 'SESSION', 'TIME'");
    expect(message('SELECT [1, 2]')).to.equal("line 1:8: mismatched input '['. Expecting: '*', 'ALL', 'DISTINCT', <expression>");
  });

  it("checks literals and identifiers with Trino's messages", () => {
    const cases: [string, string][] = [
      ['SELECT 9223372036854775808', 'line 1:8: Invalid numeric literal: 9223372036854775808'],
      ["SELECT X'ABC'", 'line 1:8: Binary literal must contain an even number of digits'],
      ["SELECT X'AG'", 'line 1:8: Binary literal can only contain hexadecimal digits'],
      ["SELECT U&'\\00'", 'line 1:8: Incomplete escape sequence: 00'],
      ["SELECT U&'\\xyz'", 'line 1:8: Invalid hexadecimal digit: x'],
      ["SELECT U&'\\D800'", "line 1:8: Invalid escaped character: D800. Escaped character is a surrogate. Use '\\+123456' instead."],
      ["SELECT U&'\\+110000'", 'line 1:8: Invalid escaped character: 110000'],
      ["SELECT U&'a' UESCAPE ''", 'line 1:8: Empty Unicode escape character'],
      ["SELECT U&'a' UESCAPE '+'", 'line 1:8: Invalid Unicode escape character: +'],
      ['SELECT EXTRACT(fortnight FROM d)', 'line 1:8: Invalid EXTRACT field: fortnight'],
      ['SELECT if(a)', "line 1:8: Invalid number of arguments for 'if' function"],
      ['SELECT nullif(a, b, c)', "line 1:8: Invalid number of arguments for 'nullif' function"],
      ['SELECT coalesce(a)', "line 1:8: The 'coalesce' function must have at least two arguments"],
      ['SELECT try(a, b)', "line 1:8: The 'try' function must have exactly one argument"],
      ["SELECT format('%s')", "line 1:8: The 'format' function must have at least two arguments"],
      ['SELECT if(DISTINCT a, b)', "line 1:8: DISTINCT not valid for 'if' function"],
      ['SELECT coalesce(a, b) OVER ()', "line 1:8: OVER clause not valid for 'coalesce' function"],
      ['SELECT CAST(x AS int ARRAY[2])', 'line 1:27: Explicit array size not supported'],
    ];
    for (const [sql, expected] of cases) expect(message(sql), sql).to.equal(expected);
  });

  it('shortens the quoted text of a huge token', () => {
    const text = `SELECT 1 '${'x'.repeat(5000)}'`;
    expect(message(text)).to.equal(`line 1:10: mismatched input '${"'".concat('x'.repeat(99))}...'. Expecting: ${message("SELECT 1 'x'").split('Expecting: ')[1]}`);
  });

  describe('nesting', () => {
    const tooLarge = 'statement is too large (stack overflow while parsing)';

    it('accepts nesting up to maxDepth (500 by default), whatever the construct', () => {
      const n = 450;
      for (const sql of [
        `SELECT ${'('.repeat(n)}1${')'.repeat(n)}`,
        `SELECT ${'f('.repeat(n)}1${')'.repeat(n)}`,
        `SELECT ${'CASE WHEN '.repeat(n)}1${' THEN 1 END'.repeat(n)}`,
        `SELECT ${'ARRAY['.repeat(n)}1${']'.repeat(n)}`,
        `SELECT ${'x -> '.repeat(n)}1`,
        `SELECT * FROM ${'('.repeat(n)}t${')'.repeat(n)}`,
        `SELECT CAST(x AS ${'array('.repeat(n)}int${')'.repeat(n)})`,
        `${'EXPLAIN '.repeat(n)}SELECT 1`,
        `SELECT ${'(SELECT '.repeat(n / 2)}1${')'.repeat(n / 2)}`,
      ]) {
        expect(() => parseStatement(sql), sql.slice(0, 30)).not.to.throw();
      }
    });

    it("refuses deeper nesting with Trino's message, at once, never a RangeError", () => {
      const started = performance.now();
      const err = statementError('('.repeat(100_000));
      expect(err.message).to.equal(`line 1:500: ${tooLarge}`);
      expect(message(`SELECT ${'('.repeat(100_000)}1`)).to.equal(`line 1:506: ${tooLarge}`);
      expect(message(`SELECT ${'- '.repeat(600)}x`)).to.contain(tooLarge);
      expect(message(`SELECT x${'.y'.repeat(600)}`)).to.contain(tooLarge);
      expect(message(`SELECT ${'NOT '.repeat(600)}x`)).to.contain(tooLarge);
      expect(message(`SELECT ${'1 + '.repeat(600)}1`)).to.contain(tooLarge);
      expect(message(`SELECT * FROM ${'a JOIN '.repeat(600)}b`)).to.contain(tooLarge);
      expect(message(`${'SELECT 1 UNION '.repeat(600)}SELECT 1`)).to.contain(tooLarge);
      expect(error(() => parseExpression('('.repeat(10_000))).message).to.equal('line 1:501: expression is too large (stack overflow while parsing)');
      expect(error(() => parseDataType('array('.repeat(10_000))).message).to.contain('type is too large');
      expect(performance.now() - started).to.be.below(1000);
    });

    it('takes a smaller or larger maxDepth, and long flat lists are not nesting', () => {
      // statement, query, select item, two parentheses: five levels
      expect(error(() => parseStatement('SELECT ((1))', { maxDepth: 4 })).message).to.contain(tooLarge);
      expect(parseStatement('SELECT ((1))', { maxDepth: 5 }).type).to.equal('Query');
      expect(parseStatement(`SELECT ${'('.repeat(800)}1${')'.repeat(800)}`, { maxDepth: 900 }).type).to.equal('Query');
      expect(parseStatement(`SELECT ${Array(20_000).fill('x = y').join(' OR ')}`).type).to.equal('Query');
      expect(parseStatement(`SELECT 1 IN (${Array(20_000).fill('1').join(', ')})`).type).to.equal('Query');
      expect(parseStatement(`VALUES ${Array(20_000).fill('(1, 2)').join(', ')}`).type).to.equal('Query');
    });

    it('turns a stack overflow the depth limit did not prevent into the same error', () => {
      // With the limit lifted, the stack runs out first: the error is still Trino's, never a RangeError.
      const err = error(() => parseStatement(`SELECT ${'f('.repeat(100_000)}1`, { maxDepth: 1e9 }));
      expect(err.message).to.equal(`line 1:1: ${tooLarge}`);
    });
  });
});
