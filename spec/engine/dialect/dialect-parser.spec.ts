// Recognition of Presto-only statements: forms, quoting, case, comments, semicolons; anything else is DuckDB's.
import { expect } from 'chai';
import { parseStatement } from '../../../lib/sql/parser.js';
import { dialectStatementOf } from '../../../lib/sql/dialect-statement.js';
import { expression } from '../../../lib/sql/sql-formatter.js';
import { likeMatcher } from '../../../lib/engine/dialect/like-pattern.js';

/** The dialect statement of a text, or undefined when it is none (or not Trino SQL: the gate refuses that). */
function parseDialectStatement(sql: string) {
  let statement;
  try {
    statement = parseStatement(sql);
  } catch {
    return undefined;
  }
  return dialectStatementOf(statement, sql);
}

describe('dialect: statement recognition', () => {
  const cases: [string, unknown][] = [
    ['show catalogs', { kind: 'showCatalogs', like: undefined }],
    ["SHOW SCHEMAS IN tpch LIKE 't%' ESCAPE '\\';", { kind: 'showSchemas', catalog: 'tpch', like: { pattern: 't%', escape: '\\' } }],
    ['SHOW TABLES FROM "My".Sch', { kind: 'showTables', schema: ['My', 'sch'], like: undefined }],
    ['/* hi */ SHOW COLUMNS FROM a.b.c', { kind: 'showColumns', table: ['a', 'b', 'c'], like: undefined }],
    ['-- x\nDESCRIBE t', { kind: 'showColumns', table: ['t'], like: undefined }],
    ['DESCRIBE input', { kind: 'showColumns', table: ['input'], like: undefined }],
    ['DESCRIBE INPUT q', { kind: 'describeInput', name: 'q' }],
    ['DESCRIBE OUTPUT "Q"', { kind: 'describeOutput', name: 'Q' }],
    ['USE tpch.tiny ;', { kind: 'use', catalog: 'tpch', schema: 'tiny' }],
    ['RESET SESSION a', { kind: 'resetSession', name: 'a' }],
    ['PREPARE p FROM SELECT ?', { kind: 'prepare', name: 'p', statement: 'SELECT ?' }],
    ['DEALLOCATE PREPARE p', { kind: 'deallocate', name: 'p' }],
    ['EXPLAIN ANALYZE SELECT 1', { kind: 'explain', analyze: true, statement: 'SELECT 1' }],
    ['START TRANSACTION ISOLATION LEVEL READ COMMITTED', { kind: 'startTransaction' }],
    ['commit work', { kind: 'commit' }],
  ];
  for (const [sql, expected] of cases) {
    it(`recognises ${JSON.stringify(sql)}`, () => expect(parseDialectStatement(sql)).to.deep.equal(expected));
  }

  it('keeps EXECUTE ... USING parameters as their trees, bound to the prepared statement later', () => {
    const execute = parseDialectStatement("EXECUTE p USING 1, (2, 3), 'it''s' /* x */");
    expect(execute && execute.kind === 'execute' && [execute.name, execute.parameters.map(expression)]).to.deep.equal(['p', ['1', 'ROW (2, 3)', "'it''s'"]]);
  });

  for (const sql of ['SELECT 1', 'SHOW TABLES garbage here', 'SET memory_limit = 1', 'EXECUTE p(1, 2)', "SHOW TABLES LIKE x", 'USE a.b.c', 'DESCRIBE SELECT 1']) {
    it(`leaves ${JSON.stringify(sql)} to DuckDB`, () => expect(parseDialectStatement(sql)).to.equal(undefined));
  }

  it('LIKE patterns match with % and _ and honour ESCAPE', () => {
    expect(['ab', 'a_b', 'axb'].filter(likeMatcher({ pattern: 'a\\_b', escape: '\\' }))).to.deep.equal(['a_b']);
    expect(['ab', 'a.b', 'xab'].filter(likeMatcher({ pattern: 'a%' }))).to.deep.equal(['ab', 'a.b']);
    expect(() => likeMatcher({ pattern: 'a', escape: 'xy' })).to.throw(/single character/);
  });
});
