// Trino's sketch functions through a server (issue 20): the Trino Python client's test_digest row byte for
// byte, Trino's own expectations (AbstractTestQueries over tpch.tiny.orders, setdigest.md's examples),
// cardinality(approx_set(x)) against approx_distinct, and the refusals. Every body is validated (PrestoSession).
import { expect } from 'chai';
import { createTestEngine } from '../support/duckdb.js';
import { startTestServer, type TestServer } from '../support/http.js';
import { PrestoSession } from '../support/presto-session.js';

const plain = (rawType: string) => ({ rawType, arguments: [] });

describe('sketch functions over HTTP', function () {
  this.timeout(120_000);
  let server: TestServer;
  let trino: PrestoSession;

  before(async () => {
    server = await startTestServer({ engine: await createTestEngine(2) });
    trino = new PrestoSession(server.url, { prefix: 'X-Trino-', catalog: 'tpch', schema: 'tiny', timeZone: 'UTC' });
  });
  after(() => server.stop());

  async function rows(sql: string): Promise<unknown[][]> {
    const out = await trino.ok(sql);
    return JSON.parse(out.dataText) as unknown[][];
  }

  it("answers the Trino Python client's test_digest as Trino, byte for byte", async () => {
    const out = await trino.ok(
      'SELECT CAST(null AS HyperLogLog), CAST(null AS P4HyperLogLog), CAST(null AS SetDigest), CAST(null AS QDigest(BIGINT)), CAST(null AS TDigest), ' +
        'approx_set(1), CAST(approx_set(1) AS P4HyperLogLog), make_set_digest(1), tdigest_agg(1)',
    );
    expect(JSON.parse(out.dataText)).to.deep.equal([[
      null, null, null, null, null,
      'AgwBAIADRAA=',
      'AwwAAAAg' + 'A'.repeat(2730) + '==',
      'AQgAAAACCwEAgANEAAAgAAABAAAASsQF+7cDRAABAA==',
      'AAAAAAAAAPA/AAAAAAAA8D8AAAAAAABZQAAAAAAAAPA/AQAAAAAAAAAAAPA/AAAAAAAA8D8=',
    ]]);
    expect(out.columns!.slice(5).map((c) => [c.type, c.typeSignature])).to.deep.equal([
      ['HyperLogLog', plain('HyperLogLog')],
      ['P4HyperLogLog', plain('P4HyperLogLog')],
      ['SetDigest', plain('SetDigest')],
      ['tdigest', plain('tdigest')],
    ]);
  });

  it("counts tpch.tiny.orders' customers as Trino's AbstractTestQueries expects", async () => {
    expect(await rows('SELECT cardinality(approx_set(custkey)), cardinality(approx_set(CAST(custkey AS VARCHAR))), cardinality(approx_set(CAST(custkey AS DOUBLE))) FROM orders'))
      .to.deep.equal([[1002, 1024, 1014]]);
    const grouped = await rows(
      'SELECT orderstatus, cardinality(approx_set(custkey)), cardinality(approx_set(CAST(custkey AS VARCHAR))), cardinality(approx_set(CAST(custkey AS DOUBLE))), ' +
        'cardinality(CAST(approx_set(custkey) AS P4HYPERLOGLOG)), cardinality(CAST(approx_set(CAST(custkey AS VARCHAR)) AS P4HYPERLOGLOG)), ' +
        'cardinality(CAST(approx_set(CAST(custkey AS DOUBLE)) AS P4HYPERLOGLOG)), cardinality(approx_set(IF(custkey % 2 <> 0, custkey))), ' +
        'cardinality(CAST(approx_set(IF(custkey % 2 <> 0, custkey)) AS P4HYPERLOGLOG)), cardinality(approx_set(IF(orderstatus != \'O\', custkey))) ' +
        'FROM orders GROUP BY orderstatus ORDER BY orderstatus',
    );
    expect(grouped).to.deep.equal([
      ['F', 998, 1019, 1011, 998, 1019, 1011, 496, 491, 998],
      ['O', 1001, 1021, 1011, 1001, 1021, 1011, 499, 495, null],
      ['P', 304, 304, 304, 308, 302, 306, 153, 153, 304],
    ]);
    expect(await rows("SELECT cardinality(approx_set(IF(orderstatus = 'O', custkey))), cardinality(approx_set(null)), cardinality(empty_approx_set()), cardinality(merge(empty_approx_set())) FROM orders"))
      .to.deep.equal([[1001, null, 0, 0]]);
    expect(await rows('SELECT cardinality(merge(CAST(null AS HyperLogLog))) FROM orders')).to.deep.equal([[null]]);
    expect(await rows('SELECT cardinality(merge(c)) FROM (SELECT approx_set(custkey) c FROM orders UNION ALL SELECT empty_approx_set())')).to.deep.equal([[1002]]);
  });

  it('agrees with approx_distinct within the error of a HyperLogLog of 4096 buckets', async () => {
    const [[...counts]] = await rows(
      'SELECT cardinality(approx_set(partkey)), approx_distinct(partkey), cardinality(approx_set(orderkey)), approx_distinct(orderkey), ' +
        'cardinality(approx_set(comment)), approx_distinct(comment), cardinality(approx_set(extendedprice)), approx_distinct(extendedprice) FROM lineitem',
    ) as [number[]];
    for (let i = 0; i < counts.length; i += 2) {
      // 1.625% standard error: four of them.
      expect(Math.abs(counts[i]! - counts[i + 1]!) / counts[i + 1]!, String(i)).to.be.below(0.065);
    }
  });

  it('takes DISTINCT, FILTER and OVER as any aggregate does', async () => {
    expect(await rows(
      "SELECT cardinality(approx_set(DISTINCT custkey)), cardinality(approx_set(custkey) FILTER (WHERE orderstatus = 'P')), " +
        "hash_counts(make_set_digest(DISTINCT x))[19144387141682250] FROM orders CROSS JOIN (VALUES 1, 1) t(x)",
    )).to.deep.equal([[1002, 304, 1]]);
    // Over a window each row builds its frame's sketch (DuckDB's list per row): a small input.
    expect(await rows('SELECT g, x, cardinality(approx_set(x) OVER (PARTITION BY g ORDER BY x)) FROM (VALUES (1, 5), (1, 6), (1, 6), (2, 7)) t(g, x) ORDER BY 1, 2'))
      .to.deep.equal([[1, 5, 1], [1, 6, 2], [1, 6, 2], [2, 7, 1]]);
  });

  it('merges sketches kept in a table, typed by the column', async () => {
    const out = await trino.ok('SELECT orderstatus, merge(h) AS m, cardinality(merge(h)) AS n FROM (SELECT orderstatus, orderpriority, approx_set(custkey) AS h FROM orders GROUP BY 1, 2) GROUP BY 1 ORDER BY 1');
    expect((JSON.parse(out.dataText) as unknown[][]).map((r) => r[2])).to.deep.equal([998, 1001, 304]);
    expect(out.columns!.map((c) => c.type)).to.deep.equal(['varchar(1)', 'HyperLogLog', 'bigint']);
    const memory = new PrestoSession(server.url, { prefix: 'X-Trino-', catalog: 'memory', schema: 'default', timeZone: 'UTC' });
    await memory.ok('CREATE TABLE hlls (g integer, h HyperLogLog)');
    await memory.ok('INSERT INTO hlls SELECT custkey % 3, approx_set(custkey) FROM tpch.tiny.orders GROUP BY 1');
    const merged = await memory.ok('SELECT merge(h), cardinality(merge(h)), cardinality(merge(CAST(h AS P4HyperLogLog))) FROM hlls');
    expect(merged.columns!.map((c) => c.type)).to.deep.equal(['HyperLogLog', 'bigint', 'bigint']);
    expect((JSON.parse(merged.dataText) as unknown[][])[0]!.slice(1)).to.deep.equal([1002, 1002]);
  });

  it("answers setdigest.md's examples", async () => {
    expect(await rows('SELECT cardinality(make_set_digest(value)) FROM (VALUES 1, 2, 2, 3, 3, 3, 4, 4, 4, 4, 5) T(value)')).to.deep.equal([[5]]);
    expect(await rows('SELECT intersection_cardinality(make_set_digest(v1), make_set_digest(v2)) FROM (VALUES (1, 1), (NULL, 2), (2, 3), (3, 4)) T(v1, v2)')).to.deep.equal([[3]]);
    expect(await rows('SELECT jaccard_index(make_set_digest(v1), make_set_digest(v2)) FROM (VALUES (1, 1), (NULL, 2), (2, 3), (NULL, 4)) T(v1, v2)')).to.deep.equal([[0.5]]);
    const counts = await trino.ok('SELECT hash_counts(make_set_digest(value)) FROM (VALUES 1, 1, 1, 2, 2) T(value)');
    expect(JSON.parse(counts.dataText)).to.deep.equal([[{ '-2447670524089286488': 2, '19144387141682250': 3 }]]);
    expect(counts.columns![0]!.type).to.equal('map(bigint, smallint)');
    const [[digest, merged, n]] = await rows("SELECT make_set_digest(v), merge_set_digest(d), cardinality(merge_set_digest(d)) FROM (SELECT v, make_set_digest(v) d FROM (VALUES 'Trino', 'SQL', 'on', 'everything') T(v) GROUP BY v)") as [string, string, number][];
    expect([typeof digest, typeof merged, n]).to.deep.equal(['string', 'string', 4]);
  });

  it('reads quantiles off a tdigest, merges tdigests, and refuses what Trino refuses', async () => {
    expect(await rows('SELECT value_at_quantile(tdigest_agg(x), 0.5), values_at_quantiles(tdigest_agg(x), ARRAY[0, 0.5, 1]), value_at_quantile(tdigest_agg(x, 3), 1) FROM (VALUES 1, 2, 3, 4, 5) T(x)'))
      .to.deep.equal([[3, [1, 3, 5], 5]]);
    const [[merged]] = await rows('SELECT value_at_quantile(merge(t), 0.5) FROM (SELECT tdigest_agg(x) t FROM (VALUES 1, 2, 3, 4, 5, 6, 7) T(x) GROUP BY x % 2)') as number[][];
    expect(merged).to.equal(4);
    const refusals: [string, string, string][] = [
      ['SELECT tdigest_agg(1, 0.5)', 'INVALID_FUNCTION_ARGUMENT', 'weight must be >= 1, was 0.5'],
      ['SELECT tdigest_agg(nan())', 'INVALID_FUNCTION_ARGUMENT', 'value is NaN'],
      ["SELECT approx_set(DATE '2020-01-01')", 'FUNCTION_NOT_FOUND', 'Unexpected parameters (date) for function approx_set. Expected: approx_set(bigint), approx_set(double), approx_set(varchar(x))'],
      ["SELECT cardinality(CAST(X'01' AS HyperLogLog))", 'INVALID_FUNCTION_ARGUMENT', 'Cannot deserialize HyperLogLog'],
      ['SELECT values_at_quantiles(tdigest_agg(1), ARRAY[0.5, 0.1])', 'INVALID_FUNCTION_ARGUMENT', 'percentiles must be sorted in increasing order'],
      ['SELECT merge(1)', 'FUNCTION_NOT_FOUND', 'Unexpected parameters (integer) for function merge. Expected: merge(HyperLogLog), merge(qdigest(T)), merge(tdigest)'],
    ];
    for (const [sql, errorName, message] of refusals) expect((await trino.execute(sql)).error, sql).to.include({ errorName, message });
    expect((await trino.execute('SELECT qdigest_agg(1)')).error).to.include({ errorName: 'NOT_SUPPORTED' });
  });
});
