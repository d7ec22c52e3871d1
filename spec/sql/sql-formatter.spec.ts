// formatSql: canonical Trino SQL that parses back to the same tree, quoting, escaping and parentheses.
import { expect } from 'chai';
import type { Expression, Node } from '../../lib/sql/ast.js';
import { parseDataType, parseExpression, parseStatement } from '../../lib/sql/parser.js';
import { formatSql, quoteIdentifier, quoteString } from '../../lib/sql/sql-formatter.js';
import { TPCH_QUERIES } from '../../lib/tpch/queries/tpch-queries.js';
import { QUERY_CORPUS, STATEMENT_CORPUS } from './sql-corpus.js';
import { bare } from './tree-helpers.js';

/** formatSql of the statement, checking on the way that it parses back to the same tree. */
function roundTrip(sql: string): string {
  const tree = parseStatement(sql);
  const text = formatSql(tree);
  expect(bare(parseStatement(text)), `${sql}\n  printed as\n${text}`).to.deep.equal(bare(tree));
  return text;
}

const formatExpression = (text: string): string => {
  const tree = parseExpression(text);
  const printed = formatSql(tree);
  expect(bare(parseExpression(printed)), printed).to.deep.equal(bare(tree));
  return printed;
};

describe('formatSql', () => {
  it('prints the 22 TPC-H queries so that they parse back to the same tree', () => {
    for (const q of TPCH_QUERIES) roundTrip(q.sql);
    expect(roundTrip(TPCH_QUERIES[5].sql)).to.equal(
      "SELECT sum(extendedprice * discount) AS revenue FROM lineitem WHERE shipdate >= DATE '1994-01-01' AND " +
        "shipdate < DATE '1994-01-01' + INTERVAL '1' YEAR AND discount BETWEEN 0.06 - 0.01 AND 0.06 + 0.01 AND quantity < 24",
    );
  });

  it('round-trips every query and statement of the corpus', () => {
    for (const sql of [...QUERY_CORPUS, ...STATEMENT_CORPUS]) roundTrip(sql);
  });

  it('adds parentheses exactly where precedence needs them', () => {
    expect(formatExpression('(a + b) * c - (d - e) - f')).to.equal('(a + b) * c - (d - e) - f');
    expect(formatExpression('((a AND b) OR c) AND (d OR e)')).to.equal('(a AND b OR c) AND (d OR e)');
    expect(formatExpression('(a AND b) AND c')).to.equal('(a AND b) AND c');
    expect(formatExpression('NOT (a AND b) = (NOT c)')).to.equal('NOT (a AND b) = (NOT c)');
    expect(formatExpression('(a || b) || (c || d)')).to.equal('a || b || (c || d)');
    expect(formatExpression('-(a + b) * -c')).to.equal('-(a + b) * -c');
    expect(formatExpression('(a = b) IS NULL')).to.equal('(a = b) IS NULL');
    expect(formatExpression("(x + 1) AT TIME ZONE 'UTC'")).to.equal("(x + 1) AT TIME ZONE 'UTC'");
    expect(formatExpression('f((x -> x + 1), y)')).to.equal('f(x -> x + 1, y)');
    expect(formatExpression('(x -> x) IS NULL')).to.equal('(x -> x) IS NULL');
  });

  it('never prints a sign that would merge with a number or open a comment', () => {
    expect(formatExpression('-(1)')).to.equal('-(1)');
    expect(formatExpression('- -1')).to.equal('-(-1)');
    expect(formatExpression('-(-x)')).to.equal('-(-x)');
    expect(formatExpression('1 - -1')).to.equal('1 - -1');
    expect(formatExpression('(1).a')).to.equal('(1).a');
    expect(formatExpression('(array)[1]')).to.equal('(array)[1]');
    // -0 AT TIME ZONE z would sign the literal and zone the signed value (found by the parser's property).
    expect(formatExpression("- (0 AT TIME ZONE 'UTC')")).to.equal("-(0 AT TIME ZONE 'UTC')");
  });

  it('quotes identifiers that were quoted or must be, and re-escapes strings', () => {
    expect(roundTrip('SELECT "Order", "a""b", "select", x, "x" FROM "my table"')).to.equal('SELECT "Order", "a""b", "select", x, "x" FROM "my table"');
    expect(formatExpression("'it''s' || U&'\\0041' || 'a\nb'")).to.equal("'it''s' || 'A' || 'a\nb'");
    expect(quoteIdentifier('a"b')).to.equal('"a""b"');
    expect(quoteString("it's")).to.equal("'it''s'");
    const hand: Node = { type: 'Identifier', value: 'from', quoted: false, location: { start: 0, end: 0 } };
    expect(formatSql(hand)).to.equal('"from"');
  });

  it('keeps the non-reserved words that would read as keywords where they stand', () => {
    expect(roundTrip('SELECT (all + 1), count((all - 1)) FROM t GROUP BY (all)')).to.equal('SELECT (all + 1), count((all - 1)) FROM t GROUP BY (all)');
    expect(roundTrip('SET TIME ZONE (local)')).to.equal('SET TIME ZONE (local)');
    expect(roundTrip('ALTER TABLE t SET PROPERTIES a = (default)')).to.equal('ALTER TABLE t SET PROPERTIES a = (default)');
    expect(roundTrip('SELECT sum(x) OVER (ROWS (current) PRECEDING) FROM t')).to.equal('SELECT sum(x) OVER (ROWS (current) PRECEDING) FROM t');
    expect(roundTrip('SELECT a limit FROM t tablesample')).to.equal('SELECT a AS limit FROM t AS tablesample');
  });

  it('prints literals, types and special forms canonically', () => {
    expect(formatExpression("x'de ad'")).to.equal("X'DEAD'");
    expect(formatExpression('0x1F + 1_000 + 1.50 + 1e3')).to.equal('0x1F + 1_000 + 1.50 + 1e3');
    expect(formatExpression("INTERVAL +'1' DAY + INTERVAL -'1-2' YEAR TO MONTH")).to.equal("INTERVAL '1' DAY + INTERVAL -'1-2' YEAR TO MONTH");
    expect(formatExpression('SUBSTRING(s FROM 1 FOR 2)')).to.equal('substr(s, 1, 2)');
    expect(formatExpression('POSITION(a IN b)')).to.equal('strpos(b, a)');
    expect(formatExpression('TRIM(s)')).to.equal('TRIM(BOTH FROM s)');
    expect(formatExpression('count(*) + count()')).to.equal('count(*) + count(*)');
    expect(formatExpression('(1, 2)')).to.equal('ROW (1, 2)');
    expect(formatSql(parseDataType('int array'))).to.equal('ARRAY(int)');
    expect(formatSql(parseDataType('MAP<varchar, timestamp(3) without time zone>'))).to.equal('MAP(varchar, TIMESTAMP(3))');
    expect(formatSql(parseDataType('row(a bigint, double precision)'))).to.equal('ROW(a bigint, double)');
  });

  it('prints relations with the parentheses joins need', () => {
    expect(roundTrip('SELECT * FROM a JOIN (b JOIN c ON x) ON y')).to.equal('SELECT * FROM a INNER JOIN (b INNER JOIN c ON x) ON y');
    expect(roundTrip('SELECT * FROM (a CROSS JOIN b) AS j, (SELECT 1) s TABLESAMPLE SYSTEM (1)')).to.equal(
      'SELECT * FROM (a CROSS JOIN b) AS j, (SELECT 1) AS s TABLESAMPLE SYSTEM (1)',
    );
    expect(roundTrip('SELECT * FROM a CROSS JOIN (b JOIN c USING (k))')).to.equal('SELECT * FROM a CROSS JOIN (b INNER JOIN c USING (k))');
  });

  it('prints statements, the refused ones as written', () => {
    expect(roundTrip('explain (type distributed) select 1')).to.equal('EXPLAIN (TYPE DISTRIBUTED) SELECT 1');
    expect(roundTrip('describe t')).to.equal('SHOW COLUMNS FROM t');
    expect(roundTrip("create table t with (format = 'ORC') as select 1 with no data")).to.equal("CREATE TABLE t WITH (format = 'ORC') AS SELECT 1 WITH NO DATA");
    expect(roundTrip('insert into t (a) values (1, 2)')).to.equal('INSERT INTO t (a) VALUES (1, 2)');
    expect(roundTrip('grant select on t to  bob')).to.equal('grant select on t to  bob');
  });

  it('prints any node on its own: an expression, a query body, a relation, a name', () => {
    const e: Expression = parseExpression('a + b');
    expect(formatSql(e)).to.equal('a + b');
    const q = parseStatement('SELECT 1 FROM t AS x, u');
    expect(q.type === 'Query' && formatSql(q.body)).to.equal('SELECT 1 FROM t AS x, u');
    expect(q.type === 'Query' && q.body.type === 'QuerySpecification' && formatSql(q.body.from!)).to.equal('t AS x, u');
  });
});
