// Binding a prepared statement's markers on the tree: the bound tree is the tree of the statement with
// the values written in, and a row count's marker takes its value where the grammar takes a `?`.
import { expect } from 'chai';
import fc from 'fast-check';
import { parseStatement } from '../../lib/sql/parser.js';
import type { Expression } from '../../lib/sql/ast.js';
import { bindingKey, bindParameters, checkParameterCount, checkRowCount, parametersOf, rowCountParameters } from '../../lib/sql/parameter-binding.js';
import { statement } from './sql-generators.js';

/** A tree as JSON, locations aside. */
const shape = (node: unknown) => JSON.stringify(node, (key, value: unknown) => (key === 'location' ? undefined : value));
const expression = (text: string) => (parseStatement(`SELECT ${text}`) as unknown as { body: { select: { selectItems: { expression: Expression }[] } } }).body.select.selectItems[0]!.expression;

describe('sql: parameter binding', () => {
  it('finds markers in text order, not inside a PREPARE, and which stand for row counts', () => {
    const tree = parseStatement('SELECT ? FROM t WHERE a = ? ORDER BY 1 OFFSET ? ROWS FETCH FIRST ? ROWS ONLY');
    expect(parametersOf(tree).map((p) => p.location.start)).to.deep.equal([7, 26, 46, 65]);
    expect(rowCountParameters(tree).map((m) => [m.position, m.clause])).to.deep.equal([[2, 'OFFSET'], [3, 'FETCH FIRST']]);
    expect(parametersOf(parseStatement('PREPARE p FROM SELECT ? LIMIT ?'))).to.deep.equal([]);
    expect(rowCountParameters(parseStatement('SELECT * FROM (SELECT 1 LIMIT ?) LIMIT ?')).map((m) => m.position)).to.deep.equal([0, 1]);
  });

  it('counts as Trino counts: INVALID_PARAMETER_USAGE at the statement', () => {
    const sql = '\n  INSERT INTO t VALUES (?)';
    expect(() => checkParameterCount(parseStatement(sql), sql, 0)).to.throw('line 2:3: Incorrect number of parameters: expected 1 but found 0').with.property('errorName', 'INVALID_PARAMETER_USAGE');
    expect(() => checkParameterCount(parseStatement(sql), sql, 1)).not.to.throw();
  });

  it('holds a row count to its clause: OFFSET and LIMIT from 0, FETCH FIRST from 1', () => {
    const sql = 'SELECT 1 LIMIT ?';
    const [marker] = rowCountParameters(parseStatement(sql));
    expect(() => checkRowCount(sql, marker!.parameter, 'LIMIT', -1n)).to.throw('line 1:16: LIMIT row count must be greater or equal to 0 (actual value: -1)');
    expect(() => checkRowCount(sql, marker!.parameter, 'FETCH FIRST', 0n)).to.throw('FETCH FIRST row count must be positive (actual value: 0)');
    expect(() => checkRowCount(sql, marker!.parameter, 'OFFSET', 0n)).not.to.throw();
  });

  it('binds a value where its marker stood: the tree of the statement with the value written in', () => {
    const sql = 'SELECT ?, a FROM t WHERE b = ? LIMIT ?';
    const bound = bindParameters(parseStatement(sql), [expression("'it''s'"), expression('x + 1')], new Map([[2, 5n]]));
    expect(shape(bound)).to.equal(shape(parseStatement("SELECT 'it''s', a FROM t WHERE b = (x + 1) LIMIT 5")));
    // A value stands where its marker stood, for error locations in the prepared statement.
    expect(parametersOf(parseStatement(sql)).map((p) => p.location)).to.deep.equal([{ start: 7, end: 8 }, { start: 29, end: 30 }, { start: 37, end: 38 }]);
    expect(JSON.stringify(bound)).to.include('"location":{"start":29,"end":30}');
  });

  it('property: binding generated statements equals parsing them with the values written in', () => {
    fc.assert(
      fc.property(statement, fc.array(fc.nat({ max: 1000 }), { minLength: 8, maxLength: 8 }), (sql, numbers) => {
        const tree = parseStatement(sql);
        const markers = parametersOf(tree);
        fc.pre(markers.length <= numbers.length);
        const counts = new Map(rowCountParameters(tree).map((m) => [m.position, BigInt(numbers[m.position]!)]));
        let written = '';
        let copied = 0;
        markers.forEach((m, i) => {
          written += `${sql.slice(copied, m.location.start)}${counts.has(i) ? numbers[i] : `(${numbers[i]})`}`;
          copied = m.location.end;
        });
        written += sql.slice(copied);
        const values = markers.map((_, i) => expression(String(numbers[i])));
        expect(shape(bindParameters(tree, values, counts))).to.equal(shape(parseStatement(written)));
      }),
      { numRuns: 500 },
    );
  });

  it('keys bound values by their trees: the same values written differently share a key, different ones do not', () => {
    expect(bindingKey([expression('1'), expression("'a'")])).to.equal(bindingKey([expression(' 1 '), expression("'a' /* c */")]));
    expect(bindingKey([expression('1')])).not.to.equal(bindingKey([expression('2')]));
    expect(bindingKey([expression("'1'")])).not.to.equal(bindingKey([expression('1')]));
  });
});
