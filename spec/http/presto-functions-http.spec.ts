// Every function and syntax row of README's "Presto SQL support" table, through the HTTP protocol with
// X-Presto- headers: the value Presto answers, as the JSON text of `data` (so 1.0 stays 1.0), and the
// column type (prestodb spelling) where it matters. Where README lists a known difference from Presto,
// the expectation is our documented answer and the comment says what Presto answers.
import { expect } from 'chai';
import { createTestEngine } from '../support/duckdb.js';
import { startTestServer, type TestServer } from '../support/http.js';
import { PrestoSession } from '../support/presto-session.js';

interface Case {
  sql: string;
  /** The raw JSON text of the single row, without the outer brackets: `3,"a",[1,2]`. */
  row: string;
  /** Column types, prestodb spelling; unchecked when absent. */
  types?: string[];
}

describe('Presto dialect over HTTP: functions and literals', function () {
  this.timeout(30_000);
  let server: TestServer;
  let presto: PrestoSession;

  before(async () => {
    server = await startTestServer({ engine: await createTestEngine(2) });
    presto = new PrestoSession(server.url, { timeZone: 'UTC' });
  });
  after(() => server.stop());

  /** The data of a one-row result as raw JSON text without the outer `[[`/`]]`, and its column types. */
  async function one(sql: string, session = presto): Promise<{ row: string; types: string[] }> {
    const out = await session.ok(sql);
    expect(out.rows, sql).to.have.length(1);
    return { row: out.dataText.slice(2, -2), types: out.columns!.map((c) => c.type) };
  }

  function check(title: string, cases: Case[]): void {
    it(title, async () => {
      // Every case runs; the mismatches are reported together.
      const mismatches: string[] = [];
      for (const c of cases) {
        const got = await one(c.sql);
        if (got.row !== c.row) mismatches.push(`${c.sql}\n    row:   ${got.row}\n    want:  ${c.row}`);
        if (c.types && JSON.stringify(got.types) !== JSON.stringify(c.types)) {
          mismatches.push(`${c.sql}\n    types: ${got.types.join(', ')}\n    want:  ${c.types.join(', ')}`);
        }
      }
      expect(mismatches, mismatches.join('\n')).to.deep.equal([]);
    });
  }

  describe('arrays, maps and lambdas', () => {
    check('cardinality is a bigint for arrays and maps', [
      { sql: 'SELECT cardinality(ARRAY[1, 2, 3])', row: '3', types: ['bigint'] },
      { sql: "SELECT cardinality(MAP(ARRAY['a', 'b'], ARRAY[1, 2]))", row: '2', types: ['bigint'] },
    ]);

    check('element_at: 1-based, negative from the end, map lookup, NULL for a missing key', [
      { sql: 'SELECT element_at(ARRAY[10, 20, 30], 2), element_at(ARRAY[10, 20, 30], -1), element_at(ARRAY[10, 20, 30], 4)', row: '20,30,null', types: ['integer', 'integer', 'integer'] },
      { sql: "SELECT element_at(MAP(ARRAY['a'], ARRAY[1]), 'a'), element_at(MAP(ARRAY['a'], ARRAY[1]), 'b')", row: '1,null' },
    ]);

    check('transform, reduce, any_match, all_match, none_match', [
      { sql: 'SELECT transform(ARRAY[1, 2], x -> x * 2)', row: '[2,4]', types: ['array(integer)'] },
      { sql: 'SELECT reduce(ARRAY[1, 2, 3], 0, (s, x) -> s + x, s -> s)', row: '6' },
      { sql: 'SELECT any_match(ARRAY[1, 2], x -> x > 1), all_match(ARRAY[1, 2], x -> x > 1), none_match(ARRAY[1, 2], x -> x > 5)', row: 'true,false,true', types: ['boolean', 'boolean', 'boolean'] },
    ]);

    check('map_filter, transform_keys, transform_values, zip_with', [
      { sql: "SELECT map_filter(MAP(ARRAY['a', 'b'], ARRAY[1, 2]), (k, v) -> v > 1)", row: '{"b":2}' },
      { sql: "SELECT transform_keys(MAP(ARRAY['a'], ARRAY[1]), (k, v) -> upper(k)), transform_values(MAP(ARRAY['a'], ARRAY[1]), (k, v) -> v + 1)", row: '{"A":1},{"a":2}' },
      { sql: 'SELECT zip_with(ARRAY[1, 2], ARRAY[10, 20], (x, y) -> x + y)', row: '[11,22]', types: ['array(integer)'] },
    ]);

    check('functions DuckDB has as is: filter, contains, concat_ws, strpos, length, substr, chr, split_part, map_keys, map_values, map_from_entries, try_cast, if, json_extract, regexp_extract_all, flatten, array_sort, max_by, min_by', [
      { sql: 'SELECT filter(ARRAY[1, 2, 3], x -> x > 1), contains(ARRAY[1, 2], 2)', row: '[2,3],true' },
      { sql: "SELECT concat_ws('-', 'a', 'b'), strpos('hello', 'l'), length('hello'), substr('hello', 2, 3), chr(65), split_part('a,b,c', ',', 2)", row: '"a-b",3,5,"ell","A","b"', types: ['varchar', 'bigint', 'bigint', 'varchar', 'varchar', 'varchar'] },
      { sql: "SELECT map_keys(MAP(ARRAY['a', 'b'], ARRAY[1, 2])), map_values(MAP(ARRAY['a', 'b'], ARRAY[1, 2])), map_from_entries(ARRAY[ROW('a', 1)])", row: '["a","b"],[1,2],{"a":1}' },
      { sql: "SELECT try_cast('7' AS integer), try_cast('x' AS integer), if(1 > 2, 'a', 'b')", row: '7,null,"b"' },
      { sql: 'SELECT json_extract(\'{"a": {"b": 1}}\', \'$.a\')', row: '"{\\"b\\":1}"', types: ['json'] },
      { sql: "SELECT regexp_extract_all('a1b2', '\\d'), flatten(ARRAY[ARRAY[1], ARRAY[2, 3]]), array_sort(ARRAY[3, 1, 2])", row: '["1","2"],[1,2,3],[1,2,3]' },
      { sql: "SELECT max_by(k, v), min_by(k, v) FROM (VALUES ('a', 1), ('b', 3), ('c', 2)) t(k, v)", row: '"b","a"' },
    ]);

    check('array_join, array_distinct, array_max/min, array_position, array_remove, set operations, slice, sequence, zip, split, histogram', [
      { sql: "SELECT array_join(ARRAY[1, NULL, 3], ','), array_join(ARRAY['a', NULL], '-', 'x')", row: '"1,3","a-x"', types: ['varchar', 'varchar'] },
      { sql: 'SELECT array_distinct(ARRAY[3, 1, 3, 1]), array_max(ARRAY[1, 5, 2]), array_min(ARRAY[4, 2]), array_position(ARRAY[5, 6], 6), array_remove(ARRAY[1, 2, 1], 1)', row: '[3,1],5,2,2,[2]' },
      { sql: 'SELECT array_union(ARRAY[1, 2], ARRAY[2, 3]), array_except(ARRAY[1, 2, 3], ARRAY[2]), arrays_overlap(ARRAY[1], ARRAY[1, 2])', row: '[1,2,3],[1,3],true' },
      { sql: 'SELECT array_sort(array_intersect(ARRAY[1, 2, 3], ARRAY[3, 2]))', row: '[2,3]' },
      { sql: 'SELECT slice(ARRAY[1, 2, 3, 4], 2, 2), sequence(1, 4), sequence(1, 10, 4)', row: '[2,3],[1,2,3,4],[1,5,9]', types: ['array(integer)', 'array(bigint)', 'array(bigint)'] },
      { sql: "SELECT sequence(DATE '2020-01-30', DATE '2020-02-01')", row: '["2020-01-30","2020-01-31","2020-02-01"]', types: ['array(date)'] },
      { sql: "SELECT zip(ARRAY[1, 2], ARRAY['a', 'b'])", row: '[[1,"a"],[2,"b"]]' },
      { sql: "SELECT split('a,b,c', ','), split('a,b,c', ',', 2)", row: '["a","b","c"],["a","b,c"]', types: ['array(varchar)', 'array(varchar)'] },
      { sql: "SELECT histogram(x) FROM (VALUES 'a', 'b', 'a') t(x)", row: '{"a":2,"b":1}', types: ['map(varchar,bigint)'] },
    ]);

    check('map_agg builds a map of the first value per key, skipping NULL keys', [
      { sql: "SELECT map_agg(k, v) FROM (VALUES ('a', 1), ('b', 2), (NULL, 3)) t(k, v)", row: '{"a":1,"b":2}', types: ['map(varchar,integer)'] },
    ]);
  });

  describe('aggregates', () => {
    check('approx_distinct, approx_percentile, arbitrary, every, count_if', [
      { sql: 'SELECT approx_distinct(x % 10), approx_percentile(x, 0.5), count_if(x > 90), every(x > 0) FROM UNNEST(sequence(1, 100)) t(x)', row: '10,50,10,true', types: ['bigint', 'bigint', 'bigint', 'boolean'] },
      { sql: 'SELECT arbitrary(x) FROM (VALUES 7) t(x)', row: '7', types: ['integer'] },
    ]);
  });

  describe('dates and times', () => {
    check('date_add keeps a date a date', [
      { sql: "SELECT date_add('day', 1, DATE '2020-01-31'), date_add('month', 1, DATE '2020-01-31')", row: '"2020-02-01","2020-02-29"', types: ['date', 'date'] },
    ]);

    check('date_diff counts whole units; date_trunc of a date is a date', [
      { sql: "SELECT date_diff('day', DATE '2020-01-01', DATE '2020-03-01'), date_trunc('month', DATE '2020-05-17')", row: '60,"2020-05-01"', types: ['bigint', 'date'] },
    ]);

    check('date_format and date_parse take MySQL specifiers', [
      { sql: "SELECT date_format(TIMESTAMP '2020-01-02 13:04:05', '%Y-%m-%d %H:%i:%s')", row: '"2020-01-02 13:04:05"', types: ['varchar'] },
      // Presto: timestamp(3) "2020-01-02 13:04:00.000"; our timestamps are DuckDB's microseconds.
      { sql: "SELECT date_parse('2020/01/02 13:04', '%Y/%m/%d %H:%i')", row: '"2020-01-02 13:04:00.000"', types: ['timestamp'] },
    ]);

    check('from_unixtime is a timestamp with time zone in the session zone; to_unixtime a double', [
      // Presto: "1970-01-01 00:00:00.000 UTC" (precision 3; README lists precision 6).
      { sql: 'SELECT from_unixtime(0)', row: '"1970-01-01 00:00:00.000 UTC"', types: ['timestamp with time zone'] },
      { sql: "SELECT to_unixtime(TIMESTAMP '1970-01-01 00:00:10 UTC'), to_unixtime(from_unixtime(1700000000))", row: '10.0,1.7E9', types: ['double', 'double'] },
    ]);

    it('at_timezone and with_timezone name the same instant; current_timezone is the session zone', async () => {
      const tokyo = new PrestoSession(server.url, { timeZone: 'Asia/Tokyo' });
      // As Presto, at_timezone's value renders in its own zone, whatever the session zone, in milliseconds
      // (prestodb's timestamps carry no precision).
      expect(await one("SELECT at_timezone(TIMESTAMP '2020-01-01 12:00:00 UTC', 'Asia/Tokyo')")).to.deep.equal({
        row: '"2020-01-01 21:00:00.000 Asia/Tokyo"',
        types: ['timestamp with time zone'],
      });
      expect((await one("SELECT at_timezone(TIMESTAMP '2020-01-01 12:00:00 UTC', 'Asia/Tokyo') = TIMESTAMP '2020-01-01 12:00:00 UTC'")).row).to.equal('true');
      expect((await one("SELECT with_timezone(TIMESTAMP '2020-01-01 12:00:00', 'Asia/Tokyo') = TIMESTAMP '2020-01-01 03:00:00 UTC'")).row).to.equal('true');
      expect((await one('SELECT current_timezone()', tokyo)).row).to.equal('"Asia/Tokyo"');
    });

    check('day_of_week, day_of_year, week_of_year, year_of_week, last_day_of_month, ISO 8601', [
      { sql: "SELECT day_of_week(DATE '2020-01-05'), dow(DATE '2020-01-06'), day_of_year(DATE '2020-02-01'), doy(DATE '2020-12-31')", row: '7,1,32,366', types: ['bigint', 'bigint', 'bigint', 'bigint'] },
      { sql: "SELECT week_of_year(DATE '2021-01-01'), year_of_week(DATE '2021-01-01'), yow(DATE '2020-06-01')", row: '53,2020,2020' },
      { sql: "SELECT last_day_of_month(DATE '2020-02-10'), from_iso8601_date('2020-03-04'), to_iso8601(DATE '2020-03-04')", row: '"2020-02-29","2020-03-04","2020-03-04"', types: ['date', 'date', 'varchar'] },
      { sql: "SELECT from_iso8601_timestamp('2020-03-04T05:06:07Z') = TIMESTAMP '2020-03-04 05:06:07 UTC'", row: 'true' },
    ]);

    check('DATE +/- INTERVAL stays a date', [
      { sql: "SELECT DATE '2020-01-31' + INTERVAL '1' DAY, DATE '2020-03-31' - INTERVAL '1' MONTH", row: '"2020-02-01","2020-02-29"', types: ['date', 'date'] },
    ]);
  });

  describe('strings, regular expressions, binary, URLs, JSON', () => {
    check('regexp_like, regexp_extract, regexp_replace, regexp_count, regexp_split', [
      { sql: "SELECT regexp_like('abc123', '\\d+'), regexp_extract('abc123', '\\d+'), regexp_extract('abc', '\\d+')", row: 'true,"123",null', types: ['boolean', 'varchar', 'varchar'] },
      { sql: "SELECT regexp_replace('a1b2', '\\d', '#'), regexp_replace('a1b2', '([a-z])(\\d)', '$2$1'), regexp_count('a1b2c3', '\\d'), regexp_split('a1b2c', '\\d')", row: '"a#b#","1a2b",3,["a","b","c"]' },
    ]);

    check('codepoint, to_utf8 (varbinary as base64), from_utf8, levenshtein_distance, hamming_distance', [
      { sql: "SELECT codepoint('A'), to_utf8('abc'), from_utf8(X'616263')", row: '65,"YWJj","abc"', types: ['integer', 'varbinary', 'varchar'] },
      { sql: "SELECT levenshtein_distance('kitten', 'sitting'), hamming_distance('abc', 'abd')", row: '3,1', types: ['bigint', 'bigint'] },
    ]);

    check('url_extract_*', [
      {
        sql: "SELECT url_extract_protocol(u), url_extract_host(u), url_extract_port(u), url_extract_path(u), url_extract_query(u), url_extract_fragment(u), url_extract_parameter(u, 'y') FROM (VALUES 'https://example.com:8080/a/b?x=1&y=2#frag') t(u)",
        row: '"https","example.com",8080,"/a/b","x=1&y=2","frag","2"',
        types: ['varchar', 'varchar', 'bigint', 'varchar', 'varchar', 'varchar', 'varchar'],
      },
    ]);

    check('json_parse, json_format, json_extract_scalar, json_array_length, json_array_get, json_size', [
      { sql: "SELECT json_parse('[1, 2]'), json_format(json_parse('{\"a\": 1}'))", row: '"[1,2]","{\\"a\\":1}"', types: ['json', 'varchar'] },
      { sql: 'SELECT json_extract_scalar(\'{"a": {"b": 7}}\', \'$.a.b\'), json_extract_scalar(\'{"a": [1]}\', \'$.a\')', row: '"7",null', types: ['varchar', 'varchar'] },
      { sql: "SELECT json_array_length('[1, 2, 3]'), json_array_get('[1, 2, 3]', 0), json_size('{\"a\": {\"b\": 1, \"c\": 2}}', '$.a')", row: '3,"1",2', types: ['bigint', 'json', 'bigint'] },
    ]);

    check('format', [{ sql: "SELECT format('%s-%d', 'a', 1)", row: '"a-1"', types: ['varchar'] }]);
  });

  describe('conditionals, math and types', () => {
    check('try returns NULL for a division by zero and a bad cast', [{ sql: "SELECT try(1 / 0), try(CAST('x' AS integer))", row: 'null,null' }]);

    check('typeof names Presto types', [
      { sql: "SELECT typeof(1), typeof(1.5), typeof('a'), typeof(ARRAY[1]), typeof(1e0), typeof(X'00'), typeof(DATE '2020-01-01')", row: '"integer","decimal(2,1)","varchar(1)","array(integer)","double","varbinary","date"' },
    ]);

    check('is_nan, is_finite, is_infinite, infinity(), nan(), e(), truncate, bitwise_*', [
      { sql: 'SELECT is_nan(nan()), is_finite(1e0), is_infinite(infinity()), infinity(), nan(), e(), truncate(-2.7e0)', row: 'true,true,true,"Infinity","NaN",2.718281828459045,-2.0' },
      { sql: 'SELECT bitwise_and(12, 10), bitwise_or(12, 10), bitwise_xor(12, 10), bitwise_not(0)', row: '8,14,6,-1', types: ['bigint', 'bigint', 'bigint', 'bigint'] },
    ]);
  });

  describe('literals and syntax', () => {
    check("X'..' is a varbinary, encoded base64", [
      { sql: "SELECT X'DEADBEEF', X''", row: '"3q2+7w==",""', types: ['varbinary', 'varbinary'] },
    ]);

    it('VALUES 1, 2, 3 is one integer column of three rows', async () => {
      const out = await presto.ok('VALUES 1, 2, 3');
      expect(out.columns!.map((c) => [c.name, c.type])).to.deep.equal([['_col0', 'integer']]);
      expect(out.dataText).to.equal('[[1],[2],[3]]');
      expect((await presto.ok('SELECT sum(x) FROM (VALUES 1, 2, 3) t(x)')).rows).to.have.length(1);
    });

    it('TABLESAMPLE BERNOULLI (p) samples p percent', async () => {
      expect((await presto.ok('SELECT count(*) FROM UNNEST(sequence(1, 1000)) TABLESAMPLE BERNOULLI (100)')).dataText).to.equal('[[1000]]');
      expect((await presto.ok('SELECT count(*) FROM UNNEST(sequence(1, 1000)) TABLESAMPLE BERNOULLI (0)')).dataText).to.equal('[[0]]');
    });

    check('integer division truncates toward zero and stays integer', [
      { sql: 'SELECT 7 / 2, -7 / 2, CAST(7 AS bigint) / 2, 7 % 3', row: '3,-3,3,1', types: ['integer', 'integer', 'bigint', 'integer'] },
      { sql: 'SELECT 7.0E0 / 2', row: '3.5', types: ['double'] },
    ]);

    check('DOUBLE values are encoded as Java Double.toString, non-finite as strings', [
      {
        sql: 'SELECT 1.0E0, 1.0E10, nan(), infinity(), -infinity(), 0.1E0 + 0.2E0, 1e-5, 12345678.9E0, 0.001E0, CAST(1 AS double)',
        row: '1.0,1.0E10,"NaN","Infinity","-Infinity",0.30000000000000004,1.0E-5,1.23456789E7,0.001,1.0',
        types: Array(10).fill('double'),
      },
      { sql: 'SELECT CAST(1.5 AS real), 2.50, CAST(2 AS decimal(10, 2))', row: '1.5,"2.50","2.00"', types: ['real', 'decimal(3,2)', 'decimal(10,2)'] },
    ]);
  });
});
