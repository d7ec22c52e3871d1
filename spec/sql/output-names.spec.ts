// Output names from the tree, and whether the engine needs DuckDB's own tree for a rewrite.
import { expect } from 'chai';
import { parseStatement } from '../../lib/sql/parser.js';
import { needsEngineRewrite, outputNames } from '../../lib/sql/output-names.js';

const names = (sql: string, engine: string[]) => outputNames(parseStatement(sql), engine);

describe('outputNames', () => {
  it('names aliases, plain column references and _col{i} for the rest, through set operations and parentheses', () => {
    expect(names('SELECT 1, 2 AS b, x, t.y, x + 1 FROM t', ['1', 'b', 'x', 'y', '(x + 1)'])).to.deep.equal(['_col0', 'b', 'x', 'y', '_col4']);
    expect(names('SELECT 1 AS a UNION ALL SELECT 2', ['a'])).to.deep.equal(['a']);
    expect(names('(SELECT 1, "Q" AS "Mixed")', ['1', 'Mixed'])).to.deep.equal(['_col0', 'Mixed']);
    expect(names('WITH q AS (SELECT 1 AS a) SELECT a, a * 2 FROM q', ['a', '(a * 2)'])).to.deep.equal(['a', '_col1']);
  });

  it('keeps the engine\'s names for star expansions, counting positions across them, and names VALUES _col{i}', () => {
    expect(names('SELECT *, 1, x AS z FROM t', ['x', 'y', '1', 'z'])).to.deep.equal(['x', 'y', '_col2', 'z']);
    expect(names("VALUES (1, 'a'), (2, 'b')", ['col0', 'col1'])).to.deep.equal(['_col0', '_col1']);
    expect(names('SELECT * FROM (VALUES (1, 2))', ['col0', 'col1'])).to.deep.equal(['_col0', '_col1']);
    expect(names('SHOW TABLES', ['Table'])).to.deep.equal(['Table']);
  });
});

describe('needsEngineRewrite', () => {
  const rewritten = new Set(['transform', 'format']);
  it('is true for a division, an interval, try and the rewritten functions, anywhere in the tree', () => {
    for (const sql of ['SELECT a / b FROM t', "SELECT DATE '2020-01-01' + INTERVAL '1' DAY", 'SELECT try(1)', 'SELECT (SELECT transform(ARRAY[1], x -> x))', "SELECT 1 WHERE format('%s', 1) = '1'"]) {
      expect(needsEngineRewrite(parseStatement(sql), rewritten), sql).to.equal(true);
    }
    for (const sql of ['SELECT 1', `SELECT 1 WHERE 1 IN (${Array.from({ length: 1000 }, (_, i) => i).join(',')})`, 'SELECT upper(x) FROM t']) {
      expect(needsEngineRewrite(parseStatement(sql), rewritten), sql).to.equal(false);
    }
  });
});
