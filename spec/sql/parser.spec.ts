// The tree the parser builds: node types and fields, Trino's precedence, non-reserved words, special forms,
// relations, queries and every statement; TPC-H and the Presto constructs the project supports.
import { expect } from 'chai';
import type { Expression, FunctionCall, Node, Query, QuerySpecification, Statement } from '../../lib/sql/ast.js';
import { parseDataType, parseExpression, parseStatement } from '../../lib/sql/parser.js';
import { formatSql } from '../../lib/sql/sql-formatter.js';
import { TPCH_QUERIES } from '../../lib/tpch/queries/tpch-queries.js';
import { QUERY_CORPUS, STATEMENT_CORPUS } from './sql-corpus.js';
import { bare } from './tree-helpers.js';


/** An expression as an S-expression, to read precedence and shape at a glance. */
function shape(e: Expression): string {
  switch (e.type) {
    case 'Identifier':
      return e.quoted ? `"${e.value}"` : e.value;
    case 'LongLiteral':
    case 'DecimalLiteral':
    case 'DoubleLiteral':
      return e.value;
    case 'StringLiteral':
      return `'${e.value}'`;
    case 'LogicalExpression':
      return `(${e.operator} ${e.terms.map(shape).join(' ')})`;
    case 'NotExpression':
      return `(NOT ${shape(e.value)})`;
    case 'ComparisonExpression':
    case 'ArithmeticBinaryExpression':
      return `(${e.operator} ${shape(e.left)} ${shape(e.right)})`;
    case 'ConcatExpression':
      return `(|| ${shape(e.left)} ${shape(e.right)})`;
    case 'ArithmeticUnaryExpression':
      return `(${e.sign} ${shape(e.value)})`;
    case 'AtTimeZone':
      return `(AT ${shape(e.value)} ${shape(e.timeZone)})`;
    case 'DereferenceExpression':
      return `(. ${shape(e.base)} ${e.field.value})`;
    case 'SubscriptExpression':
      return `([] ${shape(e.base)} ${shape(e.index)})`;
    case 'FunctionCall':
      return `(${e.name.parts.map((p) => p.value).join('.')} ${e.arguments.map(shape).join(' ')})`.replace(' )', ')');
    case 'BetweenPredicate':
      return `(${e.negated ? 'NOT ' : ''}BETWEEN ${shape(e.value)} ${shape(e.min)} ${shape(e.max)})`;
    case 'IsNullPredicate':
      return `(IS${e.negated ? ' NOT' : ''} NULL ${shape(e.value)})`;
    case 'LikePredicate':
      return `(${e.negated ? 'NOT ' : ''}LIKE ${shape(e.value)} ${shape(e.pattern)}${e.escape ? ` ${shape(e.escape)}` : ''})`;
    case 'InPredicate':
      return `(${e.negated ? 'NOT ' : ''}IN ${shape(e.value)} ${e.valueList.type === 'InListExpression' ? `[${e.valueList.values.map(shape).join(' ')}]` : 'subquery'})`;
    case 'Row':
      return `(ROW ${e.items.map(shape).join(' ')})`;
    case 'LambdaExpression':
      return `(-> [${e.arguments.map((a) => a.value).join(' ')}] ${shape(e.body)})`;
    case 'SubqueryExpression':
      return 'subquery';
    default:
      return e.type;
  }
}

const expr = (text: string): string => shape(parseExpression(text));
const query = (sql: string): Query => parseStatement(sql) as Query;
const spec = (sql: string): QuerySpecification => query(sql).body as QuerySpecification;
const firstItem = (sql: string): Expression => {
  const item = spec(sql).select.selectItems[0];
  if (item.type !== 'SingleColumn') throw new Error('not a single column');
  return item.expression;
};

describe('parser', () => {
  describe('TPC-H and the supported Presto constructs', () => {
    it('parses the 22 TPC-H queries', () => {
      for (const q of TPCH_QUERIES) expect(parseStatement(q.sql).type, `Q${q.number}`).to.equal('Query');
    });

    it('reads TPC-H Q1 into the expected tree', () => {
      const q = query(TPCH_QUERIES[0].sql);
      const body = q.body as QuerySpecification;
      expect(body.select.selectItems).to.have.length(10);
      expect(bare(body.from)).to.deep.equal({
        type: 'Table',
        name: { type: 'QualifiedName', parts: [{ type: 'Identifier', value: 'lineitem', quoted: false }] },
      });
      expect(shape(body.where!)).to.equal("(<= shipdate (- GenericLiteral IntervalLiteral))");
      expect(body.groupBy!.groupingElements.map((g) => bare(g))).to.have.length(2);
      expect(q.orderBy!.sortItems.map((s) => shape(s.sortKey))).to.deep.equal(['returnflag', 'linestatus']);
      const sumCharge = body.select.selectItems[5];
      expect(sumCharge.type === 'SingleColumn' && shape(sumCharge.expression)).to.equal('(sum (* (* extendedprice (- 1 discount)) (+ 1 tax)))');
    });

    it('parses every query of the corpus', () => {
      for (const sql of QUERY_CORPUS) expect(() => parseStatement(sql), sql).not.to.throw();
    });

    it('reads lambdas, one parameter or several', () => {
      expect(expr('transform(a, x -> x + 1)')).to.equal('(transform a (-> [x] (+ x 1)))');
      expect(expr('map_filter(m, (k, v) -> v > 10)')).to.equal('(map_filter m (-> [k v] (> v 10)))');
      expect(expr('f(() -> 1)')).to.equal('(f (-> [] 1))');
      expect(expr('reduce(a, 0, (s, x) -> s + x, s -> s)')).to.equal('(reduce a 0 (-> [s x] (+ s x)) (-> [s] s))');
    });

    it('reads VALUES lists, TABLESAMPLE and TRY as in Presto', () => {
      expect(bare(query('VALUES 1, 2, 3').body)).to.deep.equal({
        type: 'Values',
        rows: ['1', '2', '3'].map((v) => ({ type: 'LongLiteral', value: v, text: v })),
      });
      const sampled = spec('SELECT * FROM t TABLESAMPLE BERNOULLI (10)').from!;
      expect(sampled).to.include({ type: 'SampledRelation', samplingType: 'BERNOULLI' });
      expect(firstItem('SELECT try(1 / 0)')).to.include({ type: 'FunctionCall' });
      expect(expr('if(c, x)')).to.equal('(if c x)');
      expect(expr("date_add('day', 1, d)")).to.equal("(date_add 'day' 1 d)");
    });
  });

  describe('names', () => {
    it('keeps identifiers as written, with a flag for quoted ones', () => {
      expect(bare(parseExpression('Foo'))).to.deep.equal({ type: 'Identifier', value: 'Foo', quoted: false });
      expect(bare(parseExpression('"a ""b"""'))).to.deep.equal({ type: 'Identifier', value: 'a "b"', quoted: true });
      expect(bare(parseExpression('"select"'))).to.deep.equal({ type: 'Identifier', value: 'select', quoted: true });
    });

    it('reads table names as a Table with a QualifiedName', () => {
      const from = spec('SELECT * FROM tpch."Tiny".lineitem').from!;
      expect(from.type).to.equal('Table');
      expect(from.type === 'Table' && from.name.parts.map((p) => [p.value, p.quoted])).to.deep.equal([
        ['tpch', false],
        ['Tiny', true],
        ['lineitem', false],
      ]);
      expect(bare(query('TABLE orders').body)).to.deep.equal({
        type: 'Table',
        name: { type: 'QualifiedName', parts: [{ type: 'Identifier', value: 'orders', quoted: false }] },
      });
    });

    it('reads a dotted call as a FunctionCall with a QualifiedName and a dotted column as dereferences', () => {
      const call = parseExpression('system.builtin.upper(x)') as FunctionCall;
      expect(call.name.parts.map((p) => p.value)).to.deep.equal(['system', 'builtin', 'upper']);
      expect(expr('a.b.c')).to.equal('(. (. a b) c)');
      expect(expr('f(x).y[1]')).to.equal('([] (. (f x) y) 1)');
    });

    it('accepts Trino non-reserved keywords as identifiers, reserved ones only quoted', () => {
      expect(expr('date + at + row + array + interval + current + if + limit + "from"')).to.equal(
        '(+ (+ (+ (+ (+ (+ (+ (+ date at) row) array) interval) current) if) limit) "from")',
      );
      const items = spec('SELECT a AS limit, b offset, c fetch FROM t window').select.selectItems;
      expect(items.map((i) => i.type === 'SingleColumn' && i.alias?.value)).to.deep.equal(['limit', 'offset', 'fetch']);
      expect(spec('SELECT a FROM t window').from).to.include({ type: 'AliasedRelation' });
      expect(query('SELECT x FROM t LIMIT 5').limit).to.include({ type: 'Limit' });
      expect(spec('SELECT all FROM t').select.distinct).to.equal(false);
      expect(firstItem('SELECT all FROM t')).to.include({ type: 'Identifier', value: 'all' });
      expect(firstItem('SELECT ALL a FROM t')).to.include({ type: 'Identifier', value: 'a' });
      expect(firstItem('SELECT x at')).to.include({ type: 'Identifier', value: 'x' });
    });

    it('reads ALL before a clause as a column named all, as Trino (GROUP BY all LIMIT 10), and as the quantifier otherwise', () => {
      // Found by the translation property (seed -1918321112): 'SELECT t.* GROUP BY all LIMIT 10' failed to parse.
      for (const [sql, printed] of [
        ['SELECT t.* GROUP BY all LIMIT 10', 'SELECT t.* GROUP BY (all) LIMIT 10'],
        ['SELECT a FROM t GROUP BY ALL OFFSET 5', 'SELECT a FROM t GROUP BY (ALL) OFFSET 5 ROWS'],
        ['SELECT a FROM t GROUP BY All FETCH FIRST 1 ROWS ONLY', 'SELECT a FROM t GROUP BY (All) FETCH FIRST 1 ROWS ONLY'],
        ['SELECT a FROM t GROUP BY all WINDOW w AS ()', 'SELECT a FROM t GROUP BY (all) WINDOW w AS ()'],
        ['SELECT all LIMIT 10', 'SELECT (all) LIMIT 10'],
        ['SELECT x FROM t GROUP BY ALL x LIMIT 10', 'SELECT x FROM t GROUP BY x LIMIT 10'],
        ['SELECT a FROM t GROUP BY ALL limit', 'SELECT a FROM t GROUP BY limit'],
        ['SELECT a FROM t GROUP BY ALL offset', 'SELECT a FROM t GROUP BY offset'],
      ] as const) {
        expect(formatSql(parseStatement(sql)), sql).to.equal(printed);
      }
      expect(query('SELECT a FROM t GROUP BY all LIMIT 10').limit).to.include({ type: 'Limit' });
      expect(spec('SELECT a FROM t GROUP BY all LIMIT 10').groupBy?.groupingElements).to.have.length(1);
    });
  });

  describe('expressions', () => {
    it("follows Trino's precedence: OR < AND < NOT < predicates < || < + - < * / % < sign < AT TIME ZONE", () => {
      expect(expr('a OR b AND NOT c = d')).to.equal('(OR a (AND b (NOT (= c d))))');
      expect(expr('a AND b AND c OR d OR e')).to.equal('(OR (AND a b c) d e)');
      expect(expr('(a AND b) AND c')).to.equal('(AND (AND a b) c)');
      expect(expr('1 + 2 * 3 || 4')).to.equal('(|| (+ 1 (* 2 3)) 4)');
      expect(expr('a - b - c')).to.equal('(- (- a b) c)');
      expect(expr('a / b % c * d')).to.equal('(* (% (/ a b) c) d)');
      expect(expr('-a * b')).to.equal('(* (- a) b)');
      expect(expr("-x AT TIME ZONE 'UTC'")).to.equal("(- (AT x 'UTC'))");
      expect(expr("x AT TIME ZONE 'UTC' + 1")).to.equal("(+ (AT x 'UTC') 1)");
      expect(expr('a || b = c || d')).to.equal('(= (|| a b) (|| c d))');
      expect(expr('NOT a IS NULL')).to.equal('(NOT (IS NULL a))');
      expect(expr('a + 1 BETWEEN b AND c + 1 AND d')).to.equal('(AND (BETWEEN (+ a 1) b (+ c 1)) d)');
    });

    it('reads a minus written before a number as part of the literal, as Trino does', () => {
      expect(bare(parseExpression('-5'))).to.deep.equal({ type: 'LongLiteral', value: '-5', text: '-5' });
      expect(bare(parseExpression('- 5'))).to.deep.equal({ type: 'LongLiteral', value: '-5', text: '-5' });
      expect(expr('- -5')).to.equal('(- -5)');
      expect(expr('-(5)')).to.equal('(- 5)');
      expect(expr('1 - -1')).to.equal('(- 1 -1)');
      expect(expr('+5')).to.equal('(+ 5)');
      expect(expr('-1.5e3')).to.equal('-1.5e3');
    });

    it('reads predicates with their negations', () => {
      expect(expr('a NOT BETWEEN 1 AND 2')).to.equal('(NOT BETWEEN a 1 2)');
      expect(expr('a NOT IN (1, 2)')).to.equal('(NOT IN a [1 2])');
      expect(expr('a IN (SELECT 1)')).to.equal('(IN a subquery)');
      expect(expr("a NOT LIKE 'x%' ESCAPE '!'")).to.equal("(NOT LIKE a 'x%' '!')");
      expect(expr('a IS NOT NULL')).to.equal('(IS NOT NULL a)');
      expect(expr('a IS NOT DISTINCT FROM b')).to.equal('(IS NOT DISTINCT FROM a b)');
      expect(expr('a != b')).to.equal('(<> a b)');
      expect(bare(parseExpression('a = ANY (SELECT 1)'))).to.include({ type: 'QuantifiedComparisonExpression', operator: '=', quantifier: 'ANY' });
      expect(expr('a = any(b)')).to.equal('(= a (any b))');
    });

    it('reads literals', () => {
      expect(bare(parseExpression('0x1F'))).to.deep.equal({ type: 'LongLiteral', value: '31', text: '0x1F' });
      expect(bare(parseExpression('1_000'))).to.deep.equal({ type: 'LongLiteral', value: '1000', text: '1_000' });
      expect(bare(parseExpression('-9223372036854775808'))).to.include({ value: '-9223372036854775808' });
      expect(bare(parseExpression('1.50'))).to.deep.equal({ type: 'DecimalLiteral', value: '1.50' });
      expect(bare(parseExpression('1E3'))).to.deep.equal({ type: 'DoubleLiteral', value: '1E3' });
      expect(bare(parseExpression("'it''s'"))).to.deep.equal({ type: 'StringLiteral', value: "it's" });
      expect(bare(parseExpression("U&'\\0041\\+01F600\\\\'"))).to.deep.equal({ type: 'StringLiteral', value: 'A😀\\' });
      expect(bare(parseExpression("U&'#0041##' UESCAPE '#'"))).to.deep.equal({ type: 'StringLiteral', value: 'A#' });
      expect(bare(parseExpression("X'de AD'"))).to.deep.equal({ type: 'BinaryLiteral', value: 'DEAD' });
      expect(bare(parseExpression('TRUE'))).to.deep.equal({ type: 'BooleanLiteral', value: true });
      expect(bare(parseExpression('NULL'))).to.deep.equal({ type: 'NullLiteral' });
    });

    it('reads type constructors and intervals', () => {
      const generic = (text: string) => {
        const e = parseExpression(text);
        return e.type === 'GenericLiteral' ? [e.typeName.value, e.value] : e.type;
      };
      expect(generic("DATE '2020-01-01'")).to.deep.equal(['DATE', '2020-01-01']);
      expect(generic("timestamp '2020-01-01 10:00'")).to.deep.equal(['timestamp', '2020-01-01 10:00']);
      expect(generic("DECIMAL '1.5'")).to.deep.equal(['DECIMAL', '1.5']);
      expect(generic("TIME '10:00'")).to.deep.equal(['TIME', '10:00']);
      expect(generic("DOUBLE PRECISION '1'")).to.deep.equal(['DOUBLE', '1']);
      expect(generic("ipaddress '::1'")).to.deep.equal(['ipaddress', '::1']);
      expect(generic("INTERVAL '3'")).to.deep.equal(['INTERVAL', '3']);
      expect(bare(parseExpression("INTERVAL -'1-2' YEAR TO MONTH"))).to.deep.equal({
        type: 'IntervalLiteral',
        value: '1-2',
        sign: 'NEGATIVE',
        startField: 'YEAR',
        endField: 'MONTH',
      });
      expect(bare(parseExpression("INTERVAL '1' DAY"))).to.deep.equal({ type: 'IntervalLiteral', value: '1', sign: 'POSITIVE', startField: 'DAY' });
    });

    it('numbers parameters in the order of the text, LIMIT and OFFSET included', () => {
      const q = query('SELECT ?, f(?) FROM t WHERE a = ? OFFSET ? LIMIT ?');
      const indexes: number[] = [];
      const visit = (n: unknown): void => {
        if (Array.isArray(n)) n.forEach(visit);
        else if (n && typeof n === 'object') {
          if ((n as Node).type === 'Parameter') indexes.push((n as { index: number }).index);
          Object.values(n).forEach(visit);
        }
      };
      visit(q);
      expect(indexes).to.deep.equal([0, 1, 2, 3, 4]);
    });

    it('reads function calls with DISTINCT, ORDER BY, FILTER, null treatment and windows', () => {
      const call = (text: string) => parseExpression(text) as FunctionCall;
      expect(call('count(*)').arguments).to.deep.equal([]);
      expect(call('count(DISTINCT x)').distinct).to.equal(true);
      expect(call('array_agg(x ORDER BY y DESC)').orderBy!.sortItems[0]).to.include({ ordering: 'DESC' });
      expect(shape(call('sum(x) FILTER (WHERE x > 0)').filter!)).to.equal('(> x 0)');
      const windowed = call('lag(x) IGNORE NULLS OVER (PARTITION BY a ORDER BY b ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)');
      expect(windowed.nullTreatment).to.equal('IGNORE');
      expect(bare(windowed.window)).to.deep.include({ type: 'WindowSpecification' });
      const w = windowed.window!;
      expect(w.type === 'WindowSpecification' && [w.partitionBy.length, w.frame!.frameType, w.frame!.start.boundType, w.frame!.end!.boundType]).to.deep.equal([
        1,
        'ROWS',
        'PRECEDING',
        'CURRENT_ROW',
      ]);
      expect(bare(call('rank() OVER w').window)).to.deep.equal({ type: 'WindowReference', name: { type: 'Identifier', value: 'w', quoted: false } });
      expect(bare(call('f(x) OVER (w RANGE UNBOUNDED PRECEDING)').window)).to.deep.include({ existingWindowName: { type: 'Identifier', value: 'w', quoted: false } });
    });

    it('turns the special forms into Trino nodes or calls', () => {
      expect(expr('SUBSTRING(s FROM 2 FOR 3)')).to.equal('(substr s 2 3)');
      expect(expr('substring(s, 2)')).to.equal('(substring s 2)');
      expect(expr("POSITION('a' IN s)")).to.equal("(strpos s 'a')");
      expect(expr('NORMALIZE(s, NFKD)')).to.equal("(normalize s 'NFKD')");
      expect((parseExpression('NORMALIZE(s)') as FunctionCall).name.parts[0].quoted).to.equal(true);
      expect(bare(parseExpression("TRIM(LEADING 'x' FROM s)"))).to.deep.include({ type: 'Trim', specification: 'LEADING' });
      expect(bare(parseExpression('TRIM(s, c)'))).to.deep.include({ specification: 'BOTH', trimCharacter: { type: 'Identifier', value: 'c', quoted: false } });
      expect(bare(parseExpression('EXTRACT(day_of_week FROM d)'))).to.deep.include({ type: 'Extract', field: 'DAY_OF_WEEK' });
      expect(bare(parseExpression('CURRENT_TIMESTAMP(3)'))).to.deep.equal({ type: 'CurrentTime', function: 'CURRENT_TIMESTAMP', precision: 3 });
      expect(bare(parseExpression('CURRENT_DATE'))).to.deep.equal({ type: 'CurrentTime', function: 'CURRENT_DATE' });
      expect(parseExpression('CURRENT_USER').type).to.equal('CurrentUser');
      expect(parseExpression('GROUPING(a, b.c)').type).to.equal('GroupingOperation');
      expect(bare(parseExpression('CAST(x AS bigint)'))).to.deep.include({ type: 'Cast', safe: false });
      expect(bare(parseExpression('TRY_CAST(x AS bigint)'))).to.deep.include({ type: 'Cast', safe: true });
      expect(expr('(a, b)')).to.equal('(ROW a b)');
      expect(expr('ROW(a)')).to.equal('(ROW a)');
      expect(parseExpression('ARRAY[1, 2]').type).to.equal('ArrayConstructor');
      expect(parseExpression('EXISTS (SELECT 1)').type).to.equal('ExistsPredicate');
      expect(parseExpression('CASE a WHEN 1 THEN 2 END').type).to.equal('SimpleCaseExpression');
      expect(parseExpression('CASE WHEN a THEN 2 ELSE 3 END').type).to.equal('SearchedCaseExpression');
    });

    it('tells a parenthesized query, expression and row apart after reading them once', () => {
      expect(expr('((SELECT 1))')).to.equal('subquery');
      expect(expr('((SELECT 1) + 1)')).to.equal('(+ subquery 1)');
      expect(expr('((SELECT 1) UNION (SELECT 2))')).to.equal('subquery');
      expect(expr('((SELECT 1), 2)')).to.equal('(ROW subquery 2)');
      expect(expr('x IN ((SELECT 1))')).to.equal('(IN x [subquery])'); // Trino's choice: the IN list comes first
      expect(expr('x IN ((SELECT 1), 2)')).to.equal('(IN x [subquery 2])');
      expect(expr('((a))')).to.equal('a');
    });
  });

  describe('data types', () => {
    it('reads every form of the type rule', () => {
      const t = (text: string) => bare(parseDataType(text));
      expect(t('varchar(10)')).to.deep.equal({
        type: 'GenericDataType',
        name: { type: 'Identifier', value: 'varchar', quoted: false },
        arguments: [{ type: 'NumericParameter', value: '10' }],
      });
      expect(t('int ARRAY')).to.deep.equal(t('ARRAY(int)'));
      expect(t('ARRAY<int>')).to.deep.equal({ ...(t('ARRAY(int)') as object) });
      expect(t('timestamp(3) with time zone')).to.deep.equal({
        type: 'DateTimeDataType',
        kind: 'TIMESTAMP',
        withTimeZone: true,
        precision: { type: 'NumericParameter', value: '3' },
      });
      expect(t('time')).to.deep.equal({ type: 'DateTimeDataType', kind: 'TIME', withTimeZone: false });
      expect(t('interval day to second')).to.deep.equal({ type: 'IntervalDataType', from: 'DAY', to: 'SECOND' });
      expect(t('double precision')).to.deep.include({ type: 'GenericDataType', arguments: [] });
      const row = parseDataType('row(a bigint, "b c" map(varchar, array(int)), double)');
      expect(row.type === 'RowDataType' && row.fields.map((f) => f.name?.value)).to.deep.equal(['a', 'b c', undefined]);
      const unnamed = parseDataType('row(int array, double precision)');
      expect(unnamed.type === 'RowDataType' && unnamed.fields.map((f) => f.name)).to.deep.equal([undefined, undefined]);
    });
  });

  describe('queries and relations', () => {
    it('reads WITH, set operations (INTERSECT first), ORDER BY, OFFSET and LIMIT / FETCH', () => {
      const q = query('WITH RECURSIVE a (x) AS (SELECT 1) SELECT 1 UNION SELECT 2 INTERSECT SELECT 3 EXCEPT ALL SELECT 4 ORDER BY 1 OFFSET 2 ROWS LIMIT 5');
      expect(q.with!.recursive).to.equal(true);
      expect(q.with!.queries[0].columnNames!.map((c) => c.value)).to.deep.equal(['x']);
      const body = q.body;
      expect(body.type).to.equal('Except');
      expect(body.type === 'Except' && [body.distinct, body.left.type, body.left.type === 'Union' && body.left.right.type]).to.deep.equal([false, 'Union', 'Intersect']);
      expect(bare(q.offset!.rowCount)).to.deep.equal({ type: 'LongLiteral', value: '2', text: '2' });
      expect(q.limit).to.include({ type: 'Limit' });
      expect(bare(query('SELECT 1 FETCH FIRST 3 ROWS WITH TIES').limit)).to.deep.equal({
        type: 'FetchFirst',
        rowCount: { type: 'LongLiteral', value: '3', text: '3' },
        withTies: true,
      });
      expect(bare(query('SELECT 1 LIMIT ALL').limit)).to.deep.equal({ type: 'Limit', rowCount: { type: 'AllRows' } });
    });

    it('reads joins, left-deep, with a join nested on the right as Trino does', () => {
      const from = spec('SELECT * FROM a JOIN b ON x LEFT JOIN c USING (k) CROSS JOIN d, e').from!;
      const names = (r: Node): string => {
        if (r.type === 'Table') return r.name.parts[0].value;
        if (r.type === 'Join') return `(${r.joinType} ${names(r.left)} ${names(r.right)}${r.criteria ? ` ${r.criteria.type}` : ''})`;
        return r.type;
      };
      expect(names(from)).to.equal('(IMPLICIT (CROSS (LEFT (INNER a b JoinOn) c JoinUsing) d) e)');
      expect(names(spec('SELECT * FROM a JOIN b JOIN c ON x ON y').from!)).to.equal('(INNER a (INNER b c JoinOn) JoinOn)');
      expect(names(spec('SELECT * FROM a NATURAL FULL JOIN b').from!)).to.equal('(FULL a b NaturalJoin)');
    });

    it('reads aliases, subqueries, UNNEST, LATERAL, table functions and query periods', () => {
      const from = spec('SELECT * FROM (SELECT 1) AS s (a), UNNEST(x, y) WITH ORDINALITY u, LATERAL (SELECT 2), TABLE(sequence(start => 1, stop => 5))').from!;
      const relations: string[] = [];
      const flatten = (r: Node): void => {
        if (r.type === 'Join') {
          flatten(r.left);
          flatten(r.right);
        } else relations.push(r.type === 'AliasedRelation' ? `${r.relation.type} AS ${r.alias.value}` : r.type);
      };
      flatten(from);
      expect(relations).to.deep.equal(['TableSubquery AS s', 'Unnest AS u', 'Lateral', 'TableFunctionInvocation']);
      const unnest = spec('SELECT * FROM UNNEST(x) WITH ORDINALITY').from!;
      expect(unnest).to.include({ type: 'Unnest', withOrdinality: true });
      const tf = spec("SELECT * FROM TABLE(f(input => TABLE(t) PARTITION BY a, d => DESCRIPTOR(x bigint), 'x'))").from!;
      expect(tf.type === 'TableFunctionInvocation' && tf.arguments.map((a) => [a.name?.value, a.value.type])).to.deep.equal([
        ['input', 'TableFunctionTableArgument'],
        ['d', 'Descriptor'],
        [undefined, 'StringLiteral'],
      ]);
      expect(spec('SELECT * FROM t FOR VERSION AS OF 3').from).to.deep.include({ type: 'Table' });
    });

    it('reads GROUP BY elements: plain, parenthesized sets, ROLLUP, CUBE, GROUPING SETS', () => {
      const groupBy = spec('SELECT 1 FROM t GROUP BY a, (b, c), (), (d) + 1, ROLLUP (e, (f, g)), CUBE (h), GROUPING SETS ((i), ())').groupBy!;
      expect(
        groupBy.groupingElements.map((g) =>
          g.type === 'SimpleGroupBy' ? g.expressions.map(shape) : [g.groupingType, g.sets.map((s) => s.map(shape))],
        ),
      ).to.deep.equal([['a'], ['b', 'c'], [], ['(+ d 1)'], ['ROLLUP', [['e'], ['f', 'g']]], ['CUBE', [['h']]], ['EXPLICIT', [['i'], []]]]);
    });

    it('reads select items: *, t.*, expressions with and without AS', () => {
      const items = spec('SELECT *, t.*, t.* AS (x, y), a b, c AS d, e FROM t').select.selectItems;
      expect(items.map((i) => (i.type === 'AllColumns' ? `*${i.target ? ` of ${shape(i.target)}` : ''}${i.aliases.length}` : `${shape(i.expression)} ${i.alias?.value}`))).to.deep.equal([
        '*0',
        '* of t0',
        '* of t2',
        'a b',
        'c d',
        'e undefined',
      ]);
    });

    it('gives nodes their UTF-16 offsets in the text', () => {
      const sql = "SELECT 'é😀' || a + b AS s FROM tpch.tiny.t";
      const q = spec(sql);
      const item = q.select.selectItems[0];
      expect(item.type === 'SingleColumn' && sql.slice(item.expression.location.start, item.expression.location.end)).to.equal("'é😀' || a + b");
      expect(sql.slice(q.from!.location.start, q.from!.location.end)).to.equal('tpch.tiny.t');
      expect(parseStatement(sql).location).to.deep.equal({ start: 0, end: sql.length });
    });
  });

  describe('statements', () => {
    it('parses every statement of the corpus', () => {
      for (const sql of STATEMENT_CORPUS) expect(() => parseStatement(sql), sql).not.to.throw();
    });

    it('tells the statement kinds apart', () => {
      const kinds: [string, Statement['type']][] = [
        ['EXPLAIN SELECT 1', 'Explain'],
        ['SHOW CATALOGS', 'ShowCatalogs'],
        ['SHOW SCHEMAS FROM tpch', 'ShowSchemas'],
        ['SHOW TABLES IN tpch.tiny', 'ShowTables'],
        ['SHOW COLUMNS FROM t', 'ShowColumns'],
        ['DESCRIBE t', 'ShowColumns'],
        ['DESC t', 'ShowColumns'],
        ['DESCRIBE INPUT q', 'DescribeInput'],
        ['DESCRIBE OUTPUT q', 'DescribeOutput'],
        ['DESCRIBE input', 'ShowColumns'],
        ['SHOW CREATE MATERIALIZED VIEW v', 'ShowCreate'],
        ['SHOW FUNCTIONS', 'ShowFunctions'],
        ['SHOW SESSION', 'ShowSession'],
        ['SHOW STATS FOR (SELECT 1)', 'ShowStats'],
        ['USE s', 'Use'],
        ['SET SESSION a.b = 1', 'SetSession'],
        ['RESET SESSION a', 'ResetSession'],
        ['SET TIME ZONE LOCAL', 'SetTimeZone'],
        ['PREPARE p FROM SELECT 1', 'Prepare'],
        ['EXECUTE p USING 1', 'Execute'],
        ["EXECUTE IMMEDIATE 'SELECT 1'", 'ExecuteImmediate'],
        ['EXECUTE immediate', 'Execute'],
        ['DEALLOCATE PREPARE p', 'Deallocate'],
        ['START TRANSACTION', 'StartTransaction'],
        ['COMMIT WORK', 'Commit'],
        ['ROLLBACK', 'Rollback'],
        ['CREATE TABLE t (a int)', 'CreateTable'],
        ['CREATE TABLE t (a, b) AS SELECT 1, 2', 'CreateTableAsSelect'],
        ['INSERT INTO t SELECT 1', 'Insert'],
        ['DELETE FROM t', 'Delete'],
        ['UPDATE t SET a = 1', 'Update'],
        ['MERGE INTO t USING s ON TRUE WHEN MATCHED THEN DELETE', 'Merge'],
        ['TRUNCATE TABLE t', 'TruncateTable'],
        ['DROP TABLE t', 'DropTable'],
        ['CREATE SCHEMA s', 'CreateSchema'],
        ['DROP SCHEMA s', 'DropSchema'],
        ['ALTER SCHEMA s RENAME TO t', 'RenameSchema'],
        ['ALTER TABLE t RENAME TO u', 'RenameTable'],
        ['ALTER TABLE t ADD COLUMN c int', 'AddColumn'],
        ['ALTER TABLE t DROP COLUMN c', 'DropColumn'],
        ['ALTER TABLE t RENAME COLUMN c TO d', 'RenameColumn'],
        ['ALTER TABLE t ALTER COLUMN c SET DATA TYPE int', 'SetColumnType'],
        ['ALTER TABLE t ALTER COLUMN c DROP NOT NULL', 'DropNotNullConstraint'],
        ['ALTER TABLE t SET PROPERTIES a = 1', 'SetProperties'],
        ['CREATE VIEW v AS SELECT 1', 'CreateView'],
        ['DROP VIEW v', 'DropView'],
        ['CREATE MATERIALIZED VIEW v AS SELECT 1', 'CreateMaterializedView'],
        ['DROP MATERIALIZED VIEW v', 'DropMaterializedView'],
        ["COMMENT ON TABLE t IS 'x'", 'Comment'],
        ['CALL p(1)', 'Call'],
        ['GRANT SELECT ON t TO u', 'Grant'],
        ['REVOKE SELECT ON t FROM u', 'Revoke'],
        ['DENY SELECT ON t TO u', 'Deny'],
        ['GRANT r TO u', 'GrantRoles'],
        ['REVOKE r FROM u', 'RevokeRoles'],
        ['CREATE ROLE r', 'CreateRole'],
        ['DROP ROLE r', 'DropRole'],
        ['SET ROLE r', 'SetRole'],
        ['SHOW GRANTS', 'ShowGrants'],
        ['SHOW ROLES', 'ShowRoles'],
        ['CREATE FUNCTION f() RETURNS int RETURN 1', 'CreateFunction'],
        ['DROP FUNCTION f()', 'DropFunction'],
        ['ANALYZE t', 'Analyze'],
        ['REFRESH MATERIALIZED VIEW v', 'RefreshMaterializedView'],
        ['SET SESSION AUTHORIZATION u', 'SetSessionAuthorization'],
        ['SET PATH a', 'SetPath'],
      ];
      for (const [sql, type] of kinds) expect(parseStatement(sql).type, sql).to.equal(type);
    });

    it('keeps the statement inside EXPLAIN and PREPARE, and the query of CREATE ... AS and INSERT', () => {
      const explain = parseStatement('EXPLAIN (TYPE IO, FORMAT JSON) DELETE FROM t');
      expect(bare(explain)).to.deep.include({ analyze: false, verbose: false });
      expect(explain.type === 'Explain' && [explain.statement.type, explain.options.map((o) => `${o.option} ${o.value}`)]).to.deep.equal([
        'Delete',
        ['TYPE IO', 'FORMAT JSON'],
      ]);
      const analyze = parseStatement('EXPLAIN ANALYZE VERBOSE SELECT 1');
      expect(bare(analyze)).to.deep.include({ analyze: true, verbose: true });
      const ofAnalyze = parseStatement('EXPLAIN ANALYZE t');
      expect(ofAnalyze.type === 'Explain' && [ofAnalyze.analyze, ofAnalyze.statement.type]).to.deep.equal([false, 'Analyze']);
      const ctas = parseStatement('CREATE TABLE IF NOT EXISTS t COMMENT \'c\' WITH (format = \'ORC\') AS (WITH a AS (SELECT 1) SELECT * FROM a) WITH NO DATA');
      expect(ctas.type === 'CreateTableAsSelect' && [ctas.notExists, ctas.comment, ctas.withData, ctas.query.with?.queries.length]).to.deep.equal([true, 'c', false, 1]);
      const insert = parseStatement('INSERT INTO memory.default.t (a, b) VALUES (1, 2)');
      expect(insert.type === 'Insert' && [insert.target.name.parts.length, insert.columns!.length, insert.query.body.type]).to.deep.equal([3, 2, 'Values']);
      const prepare = parseStatement('PREPARE q FROM EXPLAIN SELECT ?');
      expect(prepare.type === 'Prepare' && prepare.statement.type).to.equal('Explain');
    });

    it('reads the fields of DDL statements', () => {
      const create = parseStatement("CREATE OR REPLACE TABLE t (a bigint NOT NULL COMMENT 'x', LIKE u EXCLUDING PROPERTIES) WITH (p = DEFAULT)");
      expect(bare(create)).to.deep.include({ type: 'CreateTable', replace: true, notExists: false });
      expect(create.type === 'CreateTable' && create.elements.map((e) => (e.type === 'ColumnDefinition' ? [e.nullable, e.comment] : e.propertiesOption))).to.deep.equal([
        [false, 'x'],
        'EXCLUDING',
      ]);
      expect(create.type === 'CreateTable' && bare(create.properties[0])).to.deep.equal({ type: 'Property', name: { type: 'Identifier', value: 'p', quoted: false } });
      expect(bare(parseStatement('DROP SCHEMA IF EXISTS s CASCADE'))).to.deep.include({ exists: true, cascade: true });
      expect(bare(parseStatement('ALTER TABLE IF EXISTS t ADD COLUMN IF NOT EXISTS c int'))).to.deep.include({ tableExists: true, columnNotExists: true });
      expect(bare(parseStatement('COMMENT ON COLUMN t.c IS NULL'))).to.deep.include({ objectType: 'COLUMN' });
      expect(bare(parseStatement('USE tpch.tiny'))).to.deep.equal({
        type: 'Use',
        catalog: { type: 'Identifier', value: 'tpch', quoted: false },
        schema: { type: 'Identifier', value: 'tiny', quoted: false },
      });
      expect(bare(parseStatement('SET TIME ZONE LOCAL'))).to.deep.equal({ type: 'SetTimeZone' });
      expect(bare(parseStatement('START TRANSACTION ISOLATION LEVEL READ COMMITTED, READ ONLY'))).to.deep.equal({
        type: 'StartTransaction',
        transactionModes: [
          { type: 'Isolation', level: 'READ COMMITTED' },
          { type: 'TransactionAccessMode', readOnly: true },
        ],
      });
      const show = parseStatement("SHOW TABLES FROM tpch.tiny LIKE 'l\\_%' ESCAPE '\\'");
      expect(bare(show)).to.deep.include({ likePattern: 'l\\_%', escape: '\\' });
    });

    it('keeps the source of the statements the project refuses', () => {
      const grant = parseStatement('GRANT SELECT ON TABLE t TO USER alice  WITH GRANT OPTION');
      expect(bare(grant)).to.deep.include({ type: 'Grant', text: 'GRANT SELECT ON TABLE t TO USER alice  WITH GRANT OPTION' });
      const fn = parseStatement('CREATE FUNCTION s.f(x int) RETURNS int BEGIN DECLARE y int; SET y = x; RETURN y; END');
      expect(fn.type === 'CreateFunction' && fn.name?.parts.map((p) => p.value)).to.deep.equal(['s', 'f']);
    });

    it('accepts trailing semicolons, spaces and comments', () => {
      for (const sql of ['SELECT 1;', 'SELECT 1 ; ;', 'SELECT 1; -- done', 'SELECT 1 /* x */;\n\t', '\n SELECT 1']) {
        expect(parseStatement(sql).type, sql).to.equal('Query');
      }
    });
  });
});
