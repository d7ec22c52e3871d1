// Output names from the tree.
import { expect } from 'chai';
import { parseStatement } from '../../lib/sql/parser.js';
import { outputNames } from '../../lib/sql/output-names.js';

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
