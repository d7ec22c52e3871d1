// @cubejs-backend/trino-driver (Cube's TrinoDriver, used directly as Cube's query orchestrator uses it:
// testConnection, tablesSchema, query with parameters, stream) against a real coordinator on DuckDB, with
// tpch.tiny. The driver runs on presto-client with engine 'trino' (X-Trino-*).
//
// The month buckets run the SQL Cube itself writes: @cubejs-backend/schema-compiler compiles a small data
// model and its PrestodbQuery (TrinoDriver's dialect) builds the query, with Cube's JavaScript SQL planner
// (useNativeSqlPlanner: false). Not the whole Cube server: the compiler always asks
// @cubejs-backend/native for a Jinja engine, and that package's binary comes from a postinstall download
// (not from the npm registry), so the spec hands the compiler a stand-in for the Jinja engine, which a
// JavaScript model never uses. The buckets are computed independently with luxon.
//
// The driver is configured as Cube's documentation says, through CUBEJS_DB_* variables (set for the spec
// only), plus presto-client's checkInterval: without it presto-client pauses 800 ms before every nextUri GET.
// The driver exposes no cancel (only queryTimeout, a timer in presto-client), so there is no cancel case.
import { expect } from 'chai';
import { DateTime } from 'luxon';
import { TrinoDriver } from '@cubejs-backend/trino-driver';
import { prepareCompiler, PrestodbQuery } from '@cubejs-backend/schema-compiler';
import { MANY_ROWS, MANY_SQL, useClientServer } from './client-server.js';

/** Trino's tpch connector's columns of three tables, as information_schema.columns answers them. */
const TPCH_COLUMNS: Record<string, Record<string, string>> = {
  nation: { nationkey: 'bigint', name: 'varchar(25)', regionkey: 'bigint', comment: 'varchar(152)' },
  region: { regionkey: 'bigint', name: 'varchar(25)', comment: 'varchar(152)' },
  orders: {
    orderkey: 'bigint',
    custkey: 'bigint',
    orderstatus: 'varchar(1)',
    totalprice: 'double',
    orderdate: 'date',
    orderpriority: 'varchar(15)',
    clerk: 'varchar(15)',
    shippriority: 'integer',
    comment: 'varchar(79)',
  },
};

const ORDERS_CUBE = `
cube('orders', {
  sql_table: 'tpch.tiny.orders',
  measures: { count: { type: 'count' } },
  dimensions: {
    orderkey: { sql: 'orderkey', type: 'number', primary_key: true },
    orderdate: { sql: 'orderdate', type: 'time' },
  },
});
`;

const ENV = {
  CUBEJS_DB_TYPE: 'trino',
  CUBEJS_DB_HOST: '127.0.0.1',
  CUBEJS_DB_USER: 'cube',
  CUBEJS_DB_PRESTO_CATALOG: 'tpch',
  CUBEJS_DB_NAME: 'tiny',
};

describe('@cubejs-backend/trino-driver against the coordinator', function () {
  this.timeout(60_000);
  const server = useClientServer();
  let driver: TrinoDriver;
  const saved: Record<string, string | undefined> = {};

  before(() => {
    for (const [name, value] of Object.entries({ ...ENV, CUBEJS_DB_PORT: String(server().port) })) {
      saved[name] = process.env[name];
      process.env[name] = value;
    }
    driver = new TrinoDriver({ checkInterval: 1 } as object);
  });
  after(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it('testConnection reads /v1/info, and with useSelectTestConnection runs SELECT 1', async () => {
    await driver.testConnection();
    await new TrinoDriver({ checkInterval: 1, useSelectTestConnection: true } as object).testConnection();
  });

  it("tablesSchema lists tpch.tiny's tables with the columns and types of Trino's tpch connector", async () => {
    const schema = await driver.tablesSchema();
    expect(Object.keys(schema)).to.deep.equal(['tiny']);
    expect(Object.keys(schema.tiny).sort()).to.deep.equal(['customer', 'lineitem', 'nation', 'orders', 'part', 'partsupp', 'region', 'supplier']);
    for (const [table, columns] of Object.entries(TPCH_COLUMNS)) {
      const listed = schema.tiny[table].map((c: any) => [c.name, c.type, c.attributes]);
      expect(listed.sort(), table).to.deep.equal(Object.entries(columns).map(([name, type]) => [name, type, []]).sort());
    }
  });

  it('runs a query with parameters (Cube inlines them as ANSI literals)', async () => {
    const rows = await driver.query('SELECT nationkey, name FROM nation WHERE nationkey = ? OR name = ? ORDER BY nationkey', [3, "PERU"]);
    expect(rows).to.deep.equal([{ nationkey: 3, name: 'CANADA' }, { nationkey: 17, name: 'PERU' }]);
    expect(await driver.query('SELECT count(*) AS n FROM lineitem', [])).to.deep.equal([{ n: 60175 }]);
    // A quote inside a parameter stays inside the literal.
    expect(await driver.query('SELECT ? AS s', ["it's"])).to.deep.equal([{ s: "it's" }]);
  });

  it(`query delivers ${MANY_ROWS} rows over many pages, each once (Cube puts later pages first)`, async () => {
    const rows = (await driver.query(MANY_SQL, [])) as Array<{ i: number; s: string }>;
    expect(rows).to.have.length(MANY_ROWS);
    const sorted = rows.map((r) => r.i).sort((a, b) => a - b);
    expect(sorted.every((i, n) => i === n)).to.equal(true);
    expect(rows.every((r) => r.s === `row-${r.i}`)).to.equal(true);
  });

  it('streams rows in order, with the column types Trino sends', async () => {
    const { rowStream, types } = (await driver.stream('SELECT nationkey, name FROM nation WHERE regionkey = ? ORDER BY nationkey', [1], { highWaterMark: 10 })) as any;
    expect(types).to.deep.equal([
      { name: 'nationkey', type: 'bigint', typeSignature: { rawType: 'bigint', arguments: [] } },
      { name: 'name', type: 'varchar(25)', typeSignature: { rawType: 'varchar', arguments: [{ kind: 'LONG', value: 25 }] } },
    ]);

    const rows: unknown[] = [];
    for await (const row of rowStream) rows.push(row);
    expect(rows).to.deep.equal([
      { nationkey: 1, name: 'ARGENTINA' },
      { nationkey: 2, name: 'BRAZIL' },
      { nationkey: 3, name: 'CANADA' },
      { nationkey: 17, name: 'PERU' },
      { nationkey: 24, name: 'UNITED STATES' },
    ]);

    const many = (await driver.stream(MANY_SQL, [], { highWaterMark: 1000 })) as any;
    let count = 0;
    for await (const row of many.rowStream) {
      if (row.i !== count) throw new Error(`row ${count} arrived as ${JSON.stringify(row)}`);
      count++;
    }
    expect(count).to.equal(MANY_ROWS);
  });

  for (const zone of ['America/New_York', 'Asia/Kolkata']) {
    it(`answers the month buckets of Cube's own SQL in ${zone} as Trino does`, async () => {
      const repository = { localPath: () => '/', dataSchemaFiles: async () => [{ fileName: 'orders.js', content: ORDERS_CUBE }] };
      const compilers = prepareCompiler(repository as any, { nativeInstance: { newJinjaEngine: () => ({}) } as any });
      await compilers.compiler.compile();
      const query = new PrestodbQuery(compilers as any, {
        measures: ['orders.count'],
        timeDimensions: [{ dimension: 'orders.orderdate', granularity: 'month', dateRange: ['1995-01-01', '1995-03-31'] }],
        timezone: zone,
        useNativeSqlPlanner: false,
      } as any);
      const [sql, params] = query.buildSqlAndParams();
      expect(sql).to.contain(`AT TIME ZONE '${zone}'`).and.to.contain("date_trunc('month'");

      // Independently: a date is midnight in the session's zone; Cube shifts it into the zone, keeps the
      // wall clock, and buckets it by month; the range is the zone's 1995-01-01 to 1995-03-31.
      const [{ zone: sessionZone }] = (await driver.query('SELECT current_timezone() AS zone', [])) as Array<{ zone: string }>;
      const dates = (await driver.query("SELECT CAST(orderdate AS varchar) AS d FROM orders WHERE orderdate BETWEEN DATE '1994-12-01' AND DATE '1995-04-30'", [])) as Array<{ d: string }>;
      const from = DateTime.fromISO('1995-01-01', { zone });
      const to = DateTime.fromISO('1995-03-31', { zone }).endOf('day');
      const expected = new Map<string, number>();
      for (const { d } of dates) {
        const local = DateTime.fromISO(d, { zone: sessionZone }).setZone(zone);
        if (local < from || local > to) continue;
        const bucket = local.startOf('month').toFormat('yyyy-MM-dd HH:mm:ss.SSS');
        expected.set(bucket, (expected.get(bucket) ?? 0) + 1);
      }
      expect(expected.size).to.equal(3);

      const rows = (await driver.query(sql, params)) as Array<{ orders__orderdate_month: string; orders__count: number }>;
      // Trino types date_trunc('month', CAST(... AS TIMESTAMP)) timestamp(3): '1995-01-01 00:00:00.000'.
      expect(rows).to.deep.equal([...expected].sort().map(([month, count]) => ({ orders__orderdate_month: month, orders__count: count })));
    });
  }

  it("rejects a missing table with Trino's message", async () => {
    const failure = await driver.query('SELECT * FROM no_such_table', []).then(() => undefined, (e: Error) => e);
    expect(failure).to.be.an('error');
    expect(failure!.message).to.equal("line 1:15: Table 'tpch.tiny.no_such_table' does not exist");
    const streamed = await driver.stream('SELECT * FROM tpch.tiny.no_such_table', [], { highWaterMark: 1 }).then(() => undefined, (e: Error) => e);
    expect(streamed!.message).to.equal("line 1:15: Table 'tpch.tiny.no_such_table' does not exist");
  });
});
