// Presto functions and literals DuckDB lacks (presto-functions.ts macros, presto-ast.ts rewrites,
// presto-literals.ts text pass): each with Presto's value, JSON encoding and, where it matters, type.
import { expect } from 'chai';
import type { Engine } from '../../lib/engine/engine.types.js';
import type { PrestoType } from '../../lib/protocol/types.js';
import { newEngine, runSql, testSession } from './engine-helpers.js';

const failure = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e);

/** Compact Presto type text for assertions: array(bigint), timestamp(6) with time zone, ... */
function typeText(t: PrestoType): string {
  const p = t as { precision?: number; scale?: number };
  if (t.base === 'decimal') return `decimal(${p.precision},${p.scale})`;
  if (t.params) return `${t.base}(${t.params.map(typeText).join(', ')})`;
  if (p.precision !== undefined) return t.base.replace(/^(timestamp|time)/, `$1(${p.precision})`);
  return t.base;
}

describe('duckdb engine: Presto functions and literals', () => {
  let engine: Engine;
  before(async () => {
    engine = await newEngine(2);
  });
  after(() => engine.close());

  /** One row: its JSON text (without the outer brackets) and its column types. */
  async function row(sql: string, session = testSession()): Promise<{ json: string; types: string[] }> {
    const out = await runSql(engine, sql, session);
    return { json: out.json.slice(2, -2), types: out.plan.columns.map((c) => typeText(c.type)) };
  }
  const json = async (sql: string, session?: ReturnType<typeof testSession>) => (await row(sql, session)).json;

  describe('arrays and maps', () => {
    it('cardinality of arrays and maps is a bigint', async () => {
      expect(await row("SELECT cardinality(ARRAY[1, 2, 3]), cardinality(MAP(ARRAY['a', 'b'], ARRAY[1, 2])), cardinality(CAST(NULL AS integer ARRAY))")).to.deep.equal({
        json: '3,2,null',
        types: ['bigint', 'bigint', 'bigint'],
      });
    });

    it('element_at: 1-based, negative from the end, NULL out of range or for a missing key', async () => {
      expect(await json("SELECT element_at(ARRAY[10, 20, 30], 1), element_at(ARRAY[10, 20, 30], -1), element_at(ARRAY[10, 20, 30], 5), element_at(MAP(ARRAY['a'], ARRAY[1]), 'a'), element_at(MAP(ARRAY['a'], ARRAY[1]), 'b')"))
        .to.equal('10,30,null,1,null');
    });

    it('transform, filter, reduce, any_match, all_match, none_match (lambdas)', async () => {
      expect(await json('SELECT transform(ARRAY[1, 2, 3], x -> x * 2), filter(ARRAY[1, 2, 3], x -> x > 1), reduce(ARRAY[1, 2, 3], 0, (s, x) -> s + x, s -> s * 10)'))
        .to.equal('[2,4,6],[2,3],60');
      expect(await json("SELECT reduce(ARRAY['a', 'b'], 'z', (s, x) -> s || x, s -> s)")).to.equal('"zab"');
      expect(await json('SELECT any_match(ARRAY[1, 2], x -> x > 1), all_match(ARRAY[1, 2], x -> x > 1), none_match(ARRAY[1, 2], x -> x > 5), any_match(CAST(ARRAY[] AS integer ARRAY), x -> x > 1)'))
        .to.equal('true,false,true,false');
    });

    it('map_filter, transform_values, transform_keys and zip_with (two-parameter lambdas)', async () => {
      expect(await json("SELECT map_filter(MAP(ARRAY['a', 'b'], ARRAY[1, 2]), (k, v) -> v > 1), transform_values(MAP(ARRAY['a'], ARRAY[1]), (k, v) -> v + 1), transform_keys(MAP(ARRAY['a'], ARRAY[1]), (k, v) -> upper(k))"))
        .to.equal('{"b":2},{"a":2},{"A":1}');
      expect(await json('SELECT zip_with(ARRAY[1, 2], ARRAY[10, 20], (x, y) -> x + y)')).to.equal('[11,22]');
    });

    it('array_join, array_distinct (order kept), array_max/min (NULL if any NULL), array_position, array_remove', async () => {
      expect(await json("SELECT array_join(ARRAY[1, NULL, 3], ','), array_join(ARRAY['a', NULL], '-', 'x'), array_distinct(ARRAY[3, 1, 3, NULL, 1, NULL])"))
        .to.equal('"1,3","a-x",[3,1,null]');
      expect(await json('SELECT array_max(ARRAY[1, 5, 2]), array_min(ARRAY[4, 2]), array_max(ARRAY[1, NULL]), array_position(ARRAY[5, 6], 6), array_position(ARRAY[5], 7), array_remove(ARRAY[1, 2, 1], 1)'))
        .to.equal('5,2,null,2,0,[2]');
    });

    it('array set operations, contains, slice, sequence, zip', async () => {
      expect(await json('SELECT array_union(ARRAY[1, 2], ARRAY[2, 3]), array_intersect(ARRAY[1, 2, 3], ARRAY[3, 2]), array_except(ARRAY[1, 2, 3], ARRAY[2]), arrays_overlap(ARRAY[1], ARRAY[1, 2]), contains(ARRAY[1, 2], 2)'))
        .to.equal('[1,2,3],[2,3],[1,3],true,true');
      expect(await row('SELECT slice(ARRAY[1, 2, 3, 4], 2, 2), slice(ARRAY[1, 2, 3, 4], -2, 2), sequence(1, 4), sequence(3, 1), sequence(1, 10, 4)')).to.deep.equal({
        json: '[2,3],[3,4],[1,2,3,4],[3,2,1],[1,5,9]',
        types: ['array(integer)', 'array(integer)', 'array(bigint)', 'array(bigint)', 'array(bigint)'],
      });
      expect(await row("SELECT sequence(DATE '2020-01-30', DATE '2020-02-01'), zip(ARRAY[1, 2], ARRAY['a'])")).to.deep.equal({
        json: '["2020-01-30","2020-01-31","2020-02-01"],[[1,"a"],[2,null]]',
        types: ['array(date)', 'array(row(integer, varchar))'],
      });
    });

    it('map_agg, map_keys, map_values, histogram', async () => {
      expect(await row("SELECT map_agg(k, v) FROM (VALUES ('a', 1), ('b', 2), (NULL, 3)) t(k, v)")).to.deep.equal({ json: '{"a":1,"b":2}', types: ['map(varchar, integer)'] });
      expect(await json("SELECT map_keys(MAP(ARRAY['a', 'b'], ARRAY[1, 2])), map_values(MAP(ARRAY['a', 'b'], ARRAY[1, 2]))")).to.equal('["a","b"],[1,2]');
      expect(await row("SELECT histogram(x) FROM (VALUES 'a', 'b', 'a') t(x)")).to.deep.equal({ json: '{"a":2,"b":1}', types: ['map(varchar, bigint)'] });
    });
  });

  describe('aggregates', () => {
    it('approx_distinct, approx_percentile (scalar and array), arbitrary, count_if, every', async () => {
      expect(await row('SELECT approx_distinct(x % 10), approx_percentile(x, 0.5), approx_percentile(x, ARRAY[0.1, 0.9]), count_if(x > 90), every(x > 0), arbitrary(1) FROM UNNEST(sequence(1, 100)) AS t(x)')).to.deep.equal({
        json: '10,50,[10,90],10,true,1',
        types: ['bigint', 'bigint', 'array(bigint)', 'bigint', 'boolean', 'integer'],
      });
    });
  });

  describe('dates and times', () => {
    it('date_add keeps dates dates and timestamps timestamps', async () => {
      expect(await row("SELECT date_add('day', 1, DATE '2020-02-28'), date_add('month', 1, DATE '2020-01-31'), date_add('hour', -2, TIMESTAMP '2020-01-01 01:00:00'), date_add('quarter', 1, DATE '2020-01-15')")).to.deep.equal({
        // A timestamp keeps its literal's precision (Trino: timestamp(0)).
        json: '"2020-02-29","2020-02-29","2019-12-31 23:00:00","2020-04-15"',
        types: ['date', 'date', 'timestamp(0)', 'date'],
      });
    });

    it('date_diff counts whole units elapsed, as Presto does', async () => {
      expect(await row("SELECT date_diff('day', TIMESTAMP '2020-01-01 23:00:00', TIMESTAMP '2020-01-02 01:00:00'), date_diff('day', DATE '2020-01-01', DATE '2020-03-01'), date_diff('month', DATE '2020-01-15', DATE '2020-03-14')")).to.deep.equal({
        json: '0,60,1',
        types: ['bigint', 'bigint', 'bigint'],
      });
    });

    it('date_format and date_parse take MySQL format specifiers', async () => {
      expect(await json("SELECT date_format(TIMESTAMP '2020-01-02 13:04:05.123', '%Y-%m-%d %H:%i:%s'), date_format(TIMESTAMP '2020-01-02 13:04:05.123', '%M %e %l%p %% %W %f %T')"))
        .to.equal('"2020-01-02 13:04:05","January 2 1PM % Thursday 123000 13:04:05"');
      // A computed format goes through the macro's translation.
      expect(await json("SELECT date_format(DATE '2020-03-04', concat('%d', '.%m.%Y'))")).to.equal('"04.03.2020"');
      expect(await row("SELECT date_parse('2020/01/02 13:04', '%Y/%m/%d %H:%i')")).to.deep.equal({ json: '"2020-01-02 13:04:00.000000"', types: ['timestamp(6)'] });
    });

    it('date_trunc of a date is a date', async () => {
      expect(await row("SELECT date_trunc('month', DATE '2020-05-17'), date_trunc('hour', TIMESTAMP '2020-05-17 10:30:00')")).to.deep.equal({
        json: '"2020-05-01","2020-05-17 10:00:00"',
        types: ['date', 'timestamp(0)'],
      });
    });

    it('from_unixtime is a timestamp with time zone in the session zone; to_unixtime a double', async () => {
      expect(await row('SELECT from_unixtime(1.5), to_unixtime(from_unixtime(1700000000))', testSession({ timeZone: 'America/New_York' }))).to.deep.equal({
        json: '"1969-12-31 19:00:01.500 America/New_York",1.7E9',
        types: ['timestamp(3) with time zone', 'double'],
      });
    });

    it('current_timezone, at_timezone, with_timezone, day_of_week, last_day_of_month, from_iso8601_date', async () => {
      expect(await json('SELECT current_timezone()', testSession({ timeZone: 'Europe/Paris' }))).to.equal('"Europe/Paris"');
      expect(await json("SELECT at_timezone(TIMESTAMP '2020-01-01 12:00:00 UTC', 'Asia/Tokyo') = TIMESTAMP '2020-01-01 12:00:00 UTC', with_timezone(TIMESTAMP '2020-01-01 12:00:00', 'Asia/Tokyo')"))
        .to.equal('true,"2020-01-01 12:00:00 Asia/Tokyo"');
      expect(await json("SELECT day_of_week(DATE '2020-01-05'), day_of_year(DATE '2020-02-01'), last_day_of_month(DATE '2020-02-10'), from_iso8601_date('2020-03-04')"))
        .to.equal('7,32,"2020-02-29","2020-03-04"');
    });

    it('DATE +/- INTERVAL stays a date; timestamps stay timestamps', async () => {
      expect(await row("SELECT DATE '2020-01-31' + INTERVAL '1' DAY, DATE '2020-03-01' - INTERVAL '1' MONTH, INTERVAL '2' DAY + DATE '2020-01-01', TIMESTAMP '2020-01-01 00:00:00' + INTERVAL '1' HOUR")).to.deep.equal({
        json: '"2020-02-01","2020-02-01","2020-01-03","2020-01-01 01:00:00.000000"',
        types: ['date', 'date', 'date', 'timestamp(6)'],
      });
    });
  });

  describe('strings, regular expressions, binary, JSON', () => {
    it('regexp_like, regexp_extract (NULL without a match), regexp_replace (all matches, $1 groups), regexp_count', async () => {
      expect(await json("SELECT regexp_like('abc123', '\\d+'), regexp_extract('abc123def456', '\\d+'), regexp_extract('abc', '\\d+'), regexp_extract('a1b2', '([a-z])(\\d)', 2)"))
        .to.equal('true,"123",null,"1"');
      expect(await json("SELECT regexp_replace('a1b2', '\\d'), regexp_replace('a1b2', '([a-z])(\\d)', '$2$1'), regexp_count('a1b2c3', '\\d'), regexp_extract_all('a1b2', '\\d')"))
        .to.equal('"ab","1a2b",3,["1","2"]');
    });

    it('split (with limit), strpos, length, substr, codepoint, chr, concat_ws, format', async () => {
      expect(await json("SELECT split('a,b,c', ','), split('a,b,c', ',', 2), strpos('hello', 'l'), length('héllo'), substr('hello', 2, 3), substr('hello', -3), codepoint('é'), chr(233)"))
        .to.equal('["a","b","c"],["a","b,c"],3,5,"ell","llo",233,"é"');
      expect(await json("SELECT concat_ws('-', 'a', NULL, 'b'), format('%s=%d %.2f', 'x', 42, 3.14159)")).to.equal('"a-b","x=42 3.14"');
      // A huge width would build the string while DuckDB plans: refused; digits outside a conversion are text.
      expect(await json("SELECT format('order 20201231235959: %5s|%-3d', 'ab', 7)")).to.equal('"order 20201231235959:    ab|7  "');
      for (const f of ['%2000000000d', '%.99999999f', '%1$-1000001s']) {
        expect(await failure(engine.plan(`SELECT format('${f}', 1)`, testSession())), f).to.include({ errorName: 'INVALID_FUNCTION_ARGUMENT' });
      }
    });

    it('X literals, to_utf8 and from_utf8 are varbinary <-> varchar', async () => {
      expect(await row("SELECT X'DEADBEEF', to_utf8('hé'), from_utf8(X'68C3A9'), 'X''41''' AS s, X'' AS empty")).to.deep.equal({
        json: '"3q2+7w==","aMOp","hé","X\'41\'",""',
        types: ['varbinary', 'varbinary', 'varchar', 'varchar', 'varbinary'],
      });
    });

    it('json_parse, json_format, json_extract, json_extract_scalar, json_array_length, json_array_get', async () => {
      expect(await row('SELECT json_parse(\'{"a": [1, 2], "b": "x"}\'), json_format(json_parse(\'[1, 2]\')), json_extract(\'{"a": {"b": 1}}\', \'$.a\')')).to.deep.equal({
        json: '"{\\"a\\":[1,2],\\"b\\":\\"x\\"}","[1,2]","{\\"b\\":1}"',
        types: ['json', 'varchar', 'json'],
      });
      expect(await row('SELECT json_extract_scalar(\'{"a": 1.0, "b": "x", "c": [1]}\', \'$.a\'), json_extract_scalar(\'{"b": "x"}\', \'$.b\'), json_extract_scalar(\'{"c": [1]}\', \'$.c\'), json_array_length(\'[1, 2, 3]\'), json_array_get(\'[1, 2, 3]\', -1)')).to.deep.equal({
        json: '"1.0","x",null,3,"3"',
        types: ['varchar', 'varchar', 'varchar', 'bigint', 'json'],
      });
    });

    it('url_extract_*', async () => {
      const url = "'https://user@example.com:8080/a/b?x=1&y=2#frag'";
      expect(await json(`SELECT url_extract_protocol(${url}), url_extract_host(${url}), url_extract_port(${url}), url_extract_path(${url}), url_extract_query(${url}), url_extract_fragment(${url}), url_extract_parameter(${url}, 'y'), url_extract_port('http://a.com/')`))
        .to.equal('"https","example.com",8080,"/a/b","x=1&y=2","frag","2",null');
    });
  });

  describe('conditionals, math and types', () => {
    it('if, try (including division by zero), try_cast, typeof', async () => {
      expect(await json("SELECT if(1 > 2, 'a', 'b'), try(1 / 0), try(CAST('x' AS integer)), try_cast('7' AS integer), 10 / 4")).to.equal('"b",null,null,7,2');
      // Presto's two-argument if is NULL when false; commas inside nested calls and strings don't count.
      expect(await json("SELECT if(1 > 2, 'a'), if(1 < 2, concat('x', ','), NULL), IF (true, if(false, 1)), 'if(a, b)'")).to.equal('null,"x,",null,"if(a, b)"');
      expect(await json("SELECT typeof(1), typeof(1.5), typeof('a'), typeof(ARRAY[1]), typeof(1e0), typeof(CAST(1 AS real)), typeof(X'00'), typeof(DATE '2020-01-01')"))
        .to.equal('"integer","decimal(2,1)","varchar(1)","array(integer)","double","real","varbinary","date"');
      // Trino types string literals varchar(n), and what is built of them (the Trino Python client's dict parameter).
      expect(await json("SELECT typeof(MAP(ARRAY['foo'], ARRAY['bar'])), typeof(ARRAY['a', 'bcd', '']), typeof(ARRAY[ARRAY['ab']]), typeof(ARRAY['a', NULL])"))
        .to.equal('"map(varchar(3), varchar(3))","array(varchar(3))","array(array(varchar(2)))","array(varchar(1))"');
      expect(await json("SELECT typeof(TIMESTAMP '2020-01-01 00:00:00'), typeof(from_unixtime(0)), typeof(MAP(ARRAY['a'], ARRAY[1])), typeof(ARRAY[ARRAY[1]]), typeof(CAST(1 AS bigint)), typeof(INTERVAL '1' DAY)"))
        .to.equal('"timestamp(0)","timestamp(3) with time zone","map(varchar, integer)","array(array(integer))","bigint","interval day to second"');
    });

    it('is_nan, infinity(), nan(), e(), truncate, bitwise_*', async () => {
      expect(await json('SELECT is_nan(nan()), infinity(), is_infinite(-infinity()), is_finite(1e0), e(), truncate(-2.7e0), bitwise_and(12, 10), bitwise_or(12, 10), bitwise_xor(12, 10), bitwise_not(0)'))
        .to.equal('true,"Infinity",true,true,2.718281828459045,-2.0,8,14,6,-1');
    });
  });

  describe('syntax', () => {
    it('VALUES without parentheses is one column per row', async () => {
      const out = await runSql(engine, 'SELECT x * 2 FROM (VALUES 1, 2, 3) t(x)');
      expect(out.rows).to.deep.equal([[2], [4], [6]]);
      expect((await runSql(engine, "VALUES 'a', 'b'")).rows).to.deep.equal([['a'], ['b']]);
      expect((await runSql(engine, "SELECT 'VALUES 1, 2' AS s")).rows).to.deep.equal([['VALUES 1, 2']]);
    });

    it('TABLESAMPLE BERNOULLI (p) samples p percent, not p rows', async () => {
      const all = await runSql(engine, 'SELECT count(*) FROM UNNEST(sequence(1, 10000)) AS t(x) TABLESAMPLE BERNOULLI (100)');
      const none = await runSql(engine, 'SELECT count(*) FROM UNNEST(sequence(1, 10000)) AS t(x) TABLESAMPLE BERNOULLI (0)');
      expect([all.rows, none.rows]).to.deep.equal([[[10000]], [[0]]]);
    });

    it('integer division still truncates and a failing rewritten query points into the SQL as written', async () => {
      expect(await json('SELECT 7 / 2, transform(ARRAY[7], x -> x / 2)')).to.equal('3,[3]');
      const err = await runSql(engine, 'SELECT transform(ARRAY[x], y -> y + 1), no_such_column FROM (VALUES 1) t(x)').catch((e: unknown) => e as Error & { errorName?: string });
      expect((err as { errorName?: string }).errorName).to.equal('COLUMN_NOT_FOUND');
    });
  });
});
