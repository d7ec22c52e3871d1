// The generic traversal the statement gate relies on: every function call, table and statement, however
// deeply nested (subqueries, lambdas, CTEs, EXPLAIN, PREPARE, CREATE ... AS, INSERT ... SELECT, MERGE).
import { expect } from 'chai';
import type { Node } from '../../lib/sql/ast.js';
import { parseStatement } from '../../lib/sql/parser.js';
import { childrenOf, findAll, walk } from '../../lib/sql/tree-walk.js';
import { TPCH_QUERIES } from '../../lib/tpch/queries/tpch-queries.js';
import { QUERY_CORPUS, STATEMENT_CORPUS } from './sql-corpus.js';

const functionNames = (sql: string): string[] =>
  findAll(parseStatement(sql), 'FunctionCall').map((f) => f.name.parts.map((p) => p.value).join('.'));
const tableNames = (sql: string): string[] => findAll(parseStatement(sql), 'Table').map((t) => t.name.parts.map((p) => p.value).join('.'));

describe('tree walk', () => {
  it('finds every function call, wherever it is nested', () => {
    const sql = `
      WITH c AS (SELECT f1(x) FROM t)
      SELECT f2(a) FILTER (WHERE f3(b)), transform(arr, x -> f4(x)), CAST(f5(y) AS int), f6(z) OVER (PARTITION BY f7(p) ORDER BY f8(q)),
             CASE WHEN f9(a) THEN f10(b) ELSE f11(c) END, (SELECT f12(1)), f13(t) AT TIME ZONE 'UTC', TRIM(f14(s)), EXTRACT(YEAR FROM f15(d))
      FROM t JOIN u ON f16(t.a) = u.a, UNNEST(f17(arr)), TABLE(f18(x => f19(1))), LATERAL (SELECT f20(1))
      WHERE EXISTS (SELECT f21(1)) AND a IN (SELECT f22(1)) AND b = ANY (SELECT f23(1)) AND c IN (f24(1))
      GROUP BY GROUPING SETS ((f25(a)), ()) HAVING f26(1) > 0 ORDER BY f27(1) LIMIT 1`;
    const names = functionNames(sql);
    // f18 is a table function (TableFunctionInvocation), not a FunctionCall.
    const expected = Array.from({ length: 27 }, (_, i) => `f${i + 1}`).filter((n) => n !== 'f18');
    expect([...names].sort()).to.deep.equal([...expected, 'transform'].sort());
    expect(findAll(parseStatement(sql), 'TableFunctionInvocation').map((t) => t.name.parts[0].value)).to.deep.equal(['f18']);
  });

  it('reaches into the statements that hold other statements and queries', () => {
    expect(functionNames('EXPLAIN ANALYZE SELECT f(1)')).to.deep.equal(['f']);
    expect(functionNames('PREPARE p FROM SELECT g(?)')).to.deep.equal(['g']);
    expect(functionNames('PREPARE p FROM EXPLAIN SELECT h(1)')).to.deep.equal(['h']);
    expect(functionNames('CREATE TABLE t AS SELECT f(1)')).to.deep.equal(['f']);
    expect(functionNames('CREATE VIEW v AS SELECT f(1)')).to.deep.equal(['f']);
    expect(functionNames('INSERT INTO t SELECT f(1) FROM u')).to.deep.equal(['f']);
    expect(functionNames('INSERT INTO t VALUES (f(1), g(2))')).to.deep.equal(['f', 'g']);
    expect(functionNames('UPDATE t SET a = f(1) WHERE g(b)')).to.deep.equal(['f', 'g']);
    expect(functionNames('DELETE FROM t WHERE f(a)')).to.deep.equal(['f']);
    expect(functionNames('MERGE INTO t USING (SELECT f(1)) s ON g(1) WHEN MATCHED THEN UPDATE SET a = h(1)')).to.deep.equal(['f', 'g', 'h']);
    expect(functionNames('SET SESSION a = f(1)')).to.deep.equal(['f']);
    expect(functionNames('EXECUTE p USING f(1)')).to.deep.equal(['f']);
    expect(functionNames('CALL p(x => f(1))')).to.deep.equal(['f']);
    expect(functionNames("CREATE TABLE t (a int WITH (p = f(1))) WITH (q = g(2))")).to.deep.equal(['f', 'g']);
  });

  it('finds every table, as a Table node with its QualifiedName', () => {
    expect(tableNames('SELECT * FROM a, b.c JOIN "D".e ON TRUE WHERE x IN (SELECT 1 FROM f) UNION TABLE g')).to.deep.equal(['a', 'b.c', 'D.e', 'f', 'g']);
    expect(tableNames('WITH w AS (SELECT * FROM t) SELECT * FROM w')).to.deep.equal(['t', 'w']);
    expect(tableNames('INSERT INTO memory.default.t SELECT * FROM tpch.tiny.nation')).to.deep.equal(['memory.default.t', 'tpch.tiny.nation']);
    expect(tableNames('DELETE FROM t WHERE EXISTS (SELECT 1 FROM u)')).to.deep.equal(['t', 'u']);
    expect(tableNames('UPDATE t SET a = (SELECT max(b) FROM u)')).to.deep.equal(['t', 'u']);
    expect(tableNames('EXPLAIN SELECT * FROM (SELECT * FROM t) s')).to.deep.equal(['t']);
    expect(tableNames('SHOW STATS FOR t')).to.deep.equal(['t']);
    expect(tableNames('SELECT * FROM TABLE(f(input => TABLE(t)))')).to.deep.equal(['t']);
  });

  it('visits parents before children, in source order, and passes each node its parent', () => {
    const root = parseStatement('SELECT a + b, c FROM t');
    const seen: string[] = [];
    const parents = new Map<Node, Node | undefined>();
    walk(root, (node, parent) => {
      parents.set(node, parent);
      if (node.type === 'Identifier') seen.push(node.value);
    });
    expect(seen).to.deep.equal(['a', 'b', 'c', 't']);
    const [a] = findAll(root, 'Identifier');
    expect(parents.get(a)?.type).to.equal('ArithmeticBinaryExpression');
    expect(parents.get(root)).to.equal(undefined);
  });

  it('skips the children of a node when the visitor answers false', () => {
    const root = parseStatement('SELECT f(1) FROM t WHERE x IN (SELECT g(2) FROM u)');
    const calls: string[] = [];
    walk(root, (node) => {
      if (node.type === 'SubqueryExpression') return false;
      if (node.type === 'FunctionCall') calls.push(node.name.parts[0].value);
      return undefined;
    });
    expect(calls).to.deep.equal(['f']);
  });

  it('lists direct children, nested lists included', () => {
    const root = parseStatement('SELECT 1 GROUP BY GROUPING SETS ((a, b), (c))');
    const [sets] = findAll(root, 'GroupingSets');
    expect(childrenOf(sets).map((n) => (n.type === 'Identifier' ? n.value : n.type))).to.deep.equal(['a', 'b', 'c']);
  });

  it('gives every node of every corpus statement a type and a location inside the text', () => {
    for (const sql of [...TPCH_QUERIES.map((q) => q.sql), ...QUERY_CORPUS, ...STATEMENT_CORPUS]) {
      walk(parseStatement(sql), (node) => {
        expect(node.type, sql).to.be.a('string');
        expect(node.location.start, `${node.type} in ${sql}`).to.be.within(0, node.location.end);
        expect(node.location.end, `${node.type} in ${sql}`).to.be.at.most(sql.length);
      });
    }
  });

  it('walks trees of any depth without recursion', () => {
    const deep = parseStatement(`SELECT ${Array(50_000).fill('1').join(' + ')}`, { maxDepth: 1e9 });
    let count = 0;
    walk(deep, () => {
      count++;
    });
    expect(count).to.be.above(100_000);
  });
});
