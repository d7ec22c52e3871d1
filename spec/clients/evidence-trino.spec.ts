// @evidence-dev/trino (Evidence's Trino data source: runQuery, getRunner, testConnection) against a real
// coordinator on DuckDB, with tpch.tiny. It drives presto-client with engine 'trino' (X-Trino-*) or, when told,
// 'presto' (X-Presto-*), and maps each column's type string to an Evidence type by Trino's type names, so
// the type strings must be Trino's exactly: Evidence itself maps only a bare `varchar`, so `varchar(25)` and
// `timestamp(3)`, as Trino types them, get no Evidence type, and the expectations below say so.
//
// Evidence gives presto-client no checkInterval, and presto-client then pauses 800 ms before every nextUri
// GET. So that no spec waits on that timer, the spec hands Evidence a presto-client whose Client defaults to
// a 1 ms pause (the only change; the presto-client spec runs with the same pause). Evidence exposes no
// cancel, so there is no cancel case.
import { createRequire } from 'node:module';
import { expect } from 'chai';
import { MANY_ROWS, MANY_SQL, useClientServer } from './client-server.js';

const require = createRequire(import.meta.url);

interface EvidenceColumn {
  name: string;
  evidenceType?: string;
  typeFidelity: string;
}
type RunQuery = ((sql: string, options: object) => Promise<{ rows: Array<Record<string, unknown>>; columnTypes: EvidenceColumn[] }>) & {
  getRunner(options: object): Promise<(sql: string, path: string) => Promise<unknown>>;
  testConnection(options: object): Promise<true | { reason: string }>;
};

/** A literal of each type, with the type Trino gives it and the value as Evidence hands it on. */
const TYPED: Array<[sql: string, trinoType: string, value: unknown]> = [
  ['true', 'boolean', true],
  ['CAST(1 AS tinyint)', 'tinyint', 1],
  ['CAST(2 AS smallint)', 'smallint', 2],
  ['3', 'integer', 3],
  ['CAST(4 AS bigint)', 'bigint', 4],
  ['CAST(1.5 AS real)', 'real', 1.5],
  ['2.5e0', 'double', 2.5],
  ["DECIMAL '1.10'", 'decimal(3,2)', '1.10'],
  ["'x'", 'varchar(1)', 'x'],
  ["CAST('x' AS varchar)", 'varchar', 'x'],
  ["CAST('ab' AS char(3))", 'char(3)', 'ab '],
  ["DATE '2020-01-02'", 'date', '2020-01-02'],
  ["TIMESTAMP '2020-01-02 03:04:05'", 'timestamp(0)', '2020-01-02 03:04:05'],
  ["CAST(TIMESTAMP '2020-01-02 03:04:05' AS timestamp)", 'timestamp(3)', '2020-01-02 03:04:05.000'],
  ["TIMESTAMP '2020-01-02 03:04:05 UTC'", 'timestamp(0) with time zone', '2020-01-02 03:04:05 UTC'],
  ['ARRAY[1, 2]', 'array(integer)', '1,2'],
  ["CAST(ROW(1, 'a') AS ROW(x integer, y varchar))", 'row(x integer, y varchar)', '1,a'],
  ["INTERVAL '3' MONTH", 'interval year to month', '0-3'],
  ["INTERVAL '2' DAY", 'interval day to second', '2 00:00:00.000'],
  ["X'0102'", 'varbinary', 'AQI='],
  ['JSON \'{"a":1}\'', 'json', '{"a":1}'],
];

/** Evidence's own mapping of a Trino type string (index.cjs, mapTrinoTypeToEvidenceType), written out. */
function evidenceType(trinoType: string): string | undefined {
  if (['tinyint', 'smallint', 'integer', 'bigint', 'real', 'double'].includes(trinoType)) return 'number';
  if (trinoType === 'boolean') return 'boolean';
  if (['date', 'time', 'time with time zone', 'timestamp', 'timestamp with time zone'].includes(trinoType)) return 'date';
  if (['varchar', 'varbinary', 'json', 'interval year to month', 'interval day to second'].includes(trinoType)) return 'string';
  if (/^(?:decimal|char|array|map|row)/.test(trinoType)) return 'string';
  return undefined;
}

describe('@evidence-dev/trino against the coordinator', function () {
  this.timeout(60_000);
  const server = useClientServer();
  let runQuery: RunQuery;
  const options = (extra: object = {}) => ({ host: server().host, port: server().port, user: 'evidence', catalog: 'tpch', schema: 'tiny', ...extra });

  before(() => {
    const presto = require('presto-client');
    const Client = presto.Client;
    presto.Client = class extends Client {
      constructor(args: object) {
        super({ checkInterval: 1, ...args });
      }
    };
    after(() => {
      presto.Client = Client;
    });
    runQuery = require('@evidence-dev/trino');
  });

  it('testConnection answers true', async () => {
    expect(await runQuery.testConnection(options())).to.equal(true);
  });

  it('reads the 25 nations with their column types, as Trino types tpch.tiny.nation', async () => {
    const { rows, columnTypes } = await runQuery('SELECT * FROM nation ORDER BY nationkey', options());
    expect(rows).to.have.length(25);
    expect(rows[0]).to.deep.equal({ nationkey: 0, name: 'ALGERIA', regionkey: 0, comment: ' haggle. carefully final deposits detect slyly agai' });
    expect(rows.map((r) => r.nationkey)).to.deep.equal([...Array(25).keys()]);
    // Trino types name varchar(25) and comment varchar(152), which Evidence leaves without a type.
    const trinoTypes = { nationkey: 'bigint', name: 'varchar(25)', regionkey: 'bigint', comment: 'varchar(152)' };
    expect(columnTypes).to.deep.equal(Object.entries(trinoTypes).map(([name, type]) => ({ name, evidenceType: evidenceType(type), typeFidelity: 'precise' })));
  });

  it('reports the column type and value of a literal of each type as Trino sends them', async () => {
    const sql = `SELECT ${TYPED.map(([expr], i) => `${expr} AS "C ${i}"`).join(', ')}`;
    const { rows, columnTypes } = await runQuery(sql, options());
    // Evidence lower-cases names and replaces spaces.
    expect(columnTypes).to.deep.equal(TYPED.map(([, type], i) => ({ name: `c_${i}`, evidenceType: evidenceType(type), typeFidelity: 'precise' })));
    expect(rows).to.deep.equal([Object.fromEntries(TYPED.map(([, , value], i) => [`c_${i}`, value]))]);
  });

  it('counts 60,175 lineitem rows and buckets orders by month', async () => {
    expect((await runQuery('SELECT count(*) AS n FROM lineitem', options())).rows).to.deep.equal([{ n: 60175 }]);
    const { rows, columnTypes } = await runQuery(
      "SELECT date_trunc('month', orderdate) AS month, count(*) AS orders FROM orders WHERE orderdate >= DATE '1995-01-01' AND orderdate < DATE '1995-04-01' GROUP BY 1 ORDER BY 1",
      options(),
    );
    expect(columnTypes.map((c) => [c.name, c.evidenceType])).to.deep.equal([['month', 'date'], ['orders', 'number']]);
    const { rows: dates } = await runQuery(
      "SELECT CAST(orderdate AS varchar) AS d FROM orders WHERE orderdate BETWEEN DATE '1994-12-01' AND DATE '1995-04-30'",
      options(),
    );
    const expected = new Map<string, number>();
    for (const d of dates.map((r) => r.d as string).sort()) {
      if (d >= '1995-01-01' && d < '1995-04-01') expected.set(`${d.slice(0, 7)}-01`, (expected.get(`${d.slice(0, 7)}-01`) ?? 0) + 1);
    }
    expect(rows).to.deep.equal([...expected].map(([month, orders]) => ({ month, orders })));
  });

  it(`delivers ${MANY_ROWS} rows over many pages, each once`, async () => {
    server().traffic.clear();
    const { rows } = await runQuery(MANY_SQL, options());
    expect(rows).to.have.length(MANY_ROWS);
    expect(rows.every((r, i) => r.i === i && r.s === `row-${i}`)).to.equal(true);
    const [queryId] = server().traffic.queryIds();
    expect(server().traffic.of(queryId).filter((r) => r.rows > 0).length).to.be.greaterThan(1);
  });

  it("runs through getRunner for .sql files only, and with engine 'presto' (X-Presto headers)", async () => {
    const runner = await runQuery.getRunner(options());
    expect(await runner('SELECT 1 AS one', 'queries/one.sql')).to.deep.equal({ rows: [{ one: 1 }], columnTypes: [{ name: 'one', evidenceType: 'number', typeFidelity: 'precise' }] });
    expect(await runner('SELECT 1 AS one', 'pages/index.md')).to.equal(null);
    const presto = await runQuery('SELECT name FROM nation WHERE nationkey = 3', options({ engine: 'presto' }));
    expect(presto.rows).to.deep.equal([{ name: 'CANADA' }]);
  });

  it("throws Trino's message for a missing table and for a syntax error", async () => {
    const failure = (sql: string) => runQuery(sql, options()).then(() => undefined, (e: unknown) => e);
    expect(await failure('SELECT * FROM no_such_table')).to.equal("line 1:15: Table 'tpch.tiny.no_such_table' does not exist");
    expect(await failure('SELEC 1')).to.be.a('string').and.match(/^line 1:1: mismatched input 'SELEC'\. Expecting: /);
    expect(await failure("SELECT CAST('x' AS integer)")).to.equal("Cannot cast 'x' to INT");
  });
});
