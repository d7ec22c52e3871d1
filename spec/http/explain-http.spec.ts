// EXPLAIN over HTTP, as clients read it: one varchar `Query Plan` row (every body schema-validated),
// Trino's text for Trino headers and prestodb's for Presto headers, VALIDATE's boolean `Valid`, IO's JSON,
// EXPLAIN ANALYZE; and Malloy's Presto connection, which reads a query's schema off the first line of
// `EXPLAIN <query>`, against the real server.
import { expect } from 'chai';
import { createTestEngine } from '../support/duckdb.js';
import { startTestServer, type TestServer } from '../support/http.js';
import { PrestoSession, type StatementOutcome } from '../support/presto-session.js';
import { importMalloyTrino } from '../support/trino-client-loader.js';

const columns = (out: StatementOutcome) => out.columns?.map((c) => [c.name, c.type]);
const planOf = (out: StatementOutcome) => {
  expect(columns(out)).to.deep.equal([['Query Plan', 'varchar']]);
  expect(out.rows).to.have.length(1);
  return String(out.rows[0]![0]);
};

describe('EXPLAIN over HTTP', function () {
  this.timeout(60_000);
  let server: TestServer;
  let trino: PrestoSession;
  let presto: PrestoSession;

  before(async () => {
    server = await startTestServer({ engine: await createTestEngine(2) });
    trino = new PrestoSession(server.url, { prefix: 'X-Trino-', catalog: 'tpch', schema: 'tiny' });
    presto = new PrestoSession(server.url, { prefix: 'X-Presto-', catalog: 'tpch', schema: 'tiny' });
  });
  after(() => server.stop());

  it("answers Trino clients with Trino's distributed plan: the root names the columns, its Layout types them", async () => {
    const text = planOf(await trino.ok('EXPLAIN SELECT n.name, r.name AS region, n.nationkey + 1 FROM nation n JOIN region r ON n.regionkey = r.regionkey'));
    const lines = text.split('\n');
    expect(lines[0]).to.match(/^Trino version: /);
    expect(lines.slice(1, 6)).to.deep.equal([
      'Fragment 0 [SINGLE]',
      '    Output layout: [name, region, expr]',
      '    Output partitioning: SINGLE []',
      '    Output[columnNames = [name, region, _col2]]',
      '    │   Layout: [name:varchar(25), region:varchar(25), expr:bigint]',
    ]);
    expect(text).to.include('InnerJoin[criteria = ');
    const logical = planOf(await trino.ok('EXPLAIN (TYPE LOGICAL) SELECT count(*) FROM nation WHERE regionkey = 1')).split('\n');
    expect(logical[1]).to.equal('Output[columnNames = [_col0]]');
    expect(logical[2]).to.equal('│   Layout: [expr:bigint]');
    expect(logical.join('\n')).to.match(/(TableScan|ScanFilter)\[table = tpch:tiny:nation/);
  });

  it("answers Presto clients with prestodb's logical plan: names and types on the first line", async () => {
    const first = planOf(await presto.ok('EXPLAIN SELECT name, regionkey FROM nation')).split('\n')[0];
    expect(first).to.match(/^- Output\[PlanNodeId \d+\]\[name, regionkey\] => \[name:varchar\(25\), regionkey:bigint\]$/);
  });

  it('EXPLAIN (TYPE VALIDATE) answers Valid true; TYPE IO the tables as JSON; EXPLAIN ANALYZE the stats', async () => {
    const valid = await trino.ok('EXPLAIN (TYPE VALIDATE) SELECT * FROM nation');
    expect(columns(valid)).to.deep.equal([['Valid', 'boolean']]);
    expect(valid.rows).to.deep.equal([[true]]);
    const io = JSON.parse(planOf(await trino.ok('EXPLAIN (TYPE IO) SELECT * FROM nation WHERE regionkey = 1')));
    expect(io.inputTableColumnInfos.map((t: any) => t.table)).to.deep.equal([{ catalog: 'tpch', schemaTable: { schema: 'tiny', table: 'nation' } }]);
    const analyzed = planOf(await trino.ok('EXPLAIN ANALYZE SELECT regionkey, count(*) FROM nation GROUP BY regionkey')).split('\n');
    expect(analyzed[2]).to.equal('Fragment 0 [SINGLE]');
    expect(analyzed[3]).to.match(/^ {4}CPU: .*Input: 25 rows .*Output: 5 rows /);
    expect(analyzed).to.include('    Output[columnNames = [regionkey, _col1]]');
    expect(analyzed).to.include('    │   Layout: [regionkey:bigint, expr:bigint]');
    const failed = await trino.execute('EXPLAIN SELECT nope FROM nation');
    expect(failed.error).to.include({ errorName: 'COLUMN_NOT_FOUND' });
  });

  it("Malloy's Presto connection reads a query's schema from EXPLAIN", async function () {
    // The package may not be installed where this spec runs; Malloy is what the check is about.
    const malloy = await importMalloyTrino().catch(() => undefined);
    if (!malloy) this.skip();
    const { hostname, port } = new URL(server.url);
    const connection = new malloy.PrestoConnection('presto', undefined, { server: `http://${hostname}`, port: Number(port), catalog: 'tpch', schema: 'tiny', user: 'malloy' });
    const source = await connection.fetchSelectSchema({
      type: 'sql_select',
      name: 'q',
      dialect: 'presto',
      connection: 'presto',
      selectStr: 'SELECT name, nationkey, CAST(nationkey AS double) / 2 AS half, DATE \'2020-01-02\' AS day FROM nation',
      fields: [],
    } as never);
    expect(source.fields.map((f) => [f.name, f.type])).to.deep.equal([
      ['name', 'string'],
      ['nationkey', 'number'],
      ['half', 'number'],
      ['day', 'date'],
    ]);
  });
});
