// @malloydata/db-trino (Malloy's Trino and Presto connections) against a real coordinator on DuckDB, with
// tpch.tiny: schema reads, runSQL, a small Malloy model compiled by @malloydata/malloy, and errors, each
// checked against what Trino answers. TrinoConnection runs on trino-client (X-Trino-*), PrestoConnection on
// @prestodb/presto-js-client (X-Presto-*, with `X-Presto-Session: legacy_unnest=true` on every request).
//
// The schema of a SELECT is read differently by each: TrinoConnection through PREPARE and DESCRIBE OUTPUT,
// PrestoConnection from the root line of EXPLAIN (`- Output[...] => [name:varchar(25), ...]`).
// Neither connection exposes a cancel (runSQL takes an abortSignal and ignores it), so there is no cancel case.
//
// A nested query (`nest:`) reads back through TrinoConnection only; through PrestoConnection it fails in Malloy
// itself, as it would against prestodb. The evidence, checked by the PrestoConnection case below:
// - Malloy's presto dialect (PrestoDialect inherits TrinoDialect.sqlAggregateTurtle, @malloydata/malloy
//   dist/dialect/trino/trino.js) packs a nest as `ARRAY_AGG(CAST(ROW(...) AS ROW(...)))`: an array(row(...))
//   column, with no cast to json anywhere in the statement.
// - prestodb writes every cell as `type.getObjectValue(...)` (presto-main server/protocol RowIterable), and both
//   ArrayType.getObjectValue and RowType.getObjectValue (presto-common) return Java lists, so the cell goes out
//   as a JSON array of arrays, `[["ALGERIA"],["ETHIOPIA"]]`, never as text (only a `json` typed value is text).
// - presto-js-client JSON.parse()s the response, and PrestoConnection.unpackArray JSON.parse()s the cell again
//   (db-trino dist/trino_connection.js): String() of the array is `ALGERIA,ETHIOPIA`, a SyntaxError. No wire form
//   could pass: were the cell text, result-to-querydata's convertRecord would unpack each row, an array, again.
import { expect } from 'chai';
import type { TrinoPrestoConnection } from '@malloydata/db-trino';
import { SingleConnectionRuntime } from '@malloydata/malloy';
import { runStatement } from '../support/http.js';
import { expectTrinoPagingThrough, queryInfo, useClientServer, type ClientOutcome } from './client-server.js';
import { importMalloyTrino } from '../support/trino-client-loader.js';

/** DESCRIBE tpch.tiny.nation and lineitem as Trino's tpch connector answers them (column, type). */
const NATION_COLUMNS = [
  ['nationkey', 'bigint'],
  ['name', 'varchar(25)'],
  ['regionkey', 'bigint'],
  ['comment', 'varchar(152)'],
];
const LINEITEM_COLUMNS = [
  ['orderkey', 'bigint'],
  ['partkey', 'bigint'],
  ['suppkey', 'bigint'],
  ['linenumber', 'integer'],
  ['quantity', 'double'],
  ['extendedprice', 'double'],
  ['discount', 'double'],
  ['tax', 'double'],
  ['returnflag', 'varchar(1)'],
  ['linestatus', 'varchar(1)'],
  ['shipdate', 'date'],
  ['commitdate', 'date'],
  ['receiptdate', 'date'],
  ['shipinstruct', 'varchar(25)'],
  ['shipmode', 'varchar(10)'],
  ['comment', 'varchar(44)'],
];

/** The Malloy field Malloy's type parser makes of a Trino type (trino_connection.js, TrinoPrestoSchemaParser). */
function malloyField([name, type]: string[]): Record<string, string> {
  if (type.startsWith('varchar')) return { name, type: 'string' };
  if (type === 'bigint' || type === 'integer') return { name, type: 'number', numberType: type };
  if (type === 'double') return { name, type: 'number', numberType: 'float' };
  return { name, type };
}

/** The `nested` query's answer: every region with its five nations, and the first two of them by name. */
const FIRST_TWO_NATIONS: Record<string, [string, string]> = {
  AFRICA: ['ALGERIA', 'ETHIOPIA'],
  AMERICA: ['ARGENTINA', 'BRAZIL'],
  ASIA: ['CHINA', 'INDIA'],
  EUROPE: ['FRANCE', 'GERMANY'],
  'MIDDLE EAST': ['EGYPT', 'IRAN'],
};

const fieldsOf = (struct: any) => struct.fields.map((f: any) => ({ name: f.name, type: f.type, ...(f.numberType ? { numberType: f.numberType } : {}) }));

const MODEL = (c: string) => `
source: nation is ${c}.table('tpch.tiny.nation') extend {
  join_one: region is ${c}.table('tpch.tiny.region') on regionkey = region.regionkey
  measure: nation_count is count()
}
source: orders is ${c}.table('tpch.tiny.orders') extend { measure: order_count is count() }
query: per_region is nation -> { group_by: region_name is region.name; aggregate: nation_count; order_by: region_name }
query: nested is nation -> {
  group_by: region_name is region.name
  aggregate: nation_count
  nest: nations is { group_by: name; order_by: name; limit: 2 }
  order_by: region_name
}
query: per_month is orders -> {
  where: orderdate ? @1995-01 to @1995-04
  group_by: order_month is orderdate.month
  aggregate: order_count
  order_by: order_month
}
`;

describe('@malloydata/db-trino against the coordinator', function () {
  this.timeout(60_000);
  const server = useClientServer();
  let TrinoConnection: typeof import('@malloydata/db-trino').TrinoConnection;
  let PrestoConnection: typeof import('@malloydata/db-trino').PrestoConnection;

  before(async () => {
    // Loaded here (not when mocha reads the spec files), with the user every spec expects of trino-client.
    ({ TrinoConnection, PrestoConnection } = await importMalloyTrino());
  });

  const connections: Record<string, () => TrinoPrestoConnection> = {
    TrinoConnection: () => new TrinoConnection('trino', {}, { server: server().url, catalog: 'tpch', schema: 'tiny', user: 'malloy-trino' }),
    PrestoConnection: () =>
      new PrestoConnection('presto', {}, { server: 'http://127.0.0.1', port: server().port, catalog: 'tpch', schema: 'tiny', user: 'malloy-presto' }),
  };

  for (const [kind, connect] of Object.entries(connections)) {
    describe(kind, () => {
      it('reads the schemas of tpch.tiny.nation and lineitem: each column once, in order, typed as Trino types them', async () => {
        const { schemas, errors } = await connect().fetchSchemaForTables({ nation: 'tpch.tiny.nation', lineitem: 'tpch.tiny.lineitem' }, {});
        expect(errors).to.deep.equal({});
        expect(fieldsOf(schemas.nation)).to.deep.equal(NATION_COLUMNS.map(malloyField));
        expect(fieldsOf(schemas.lineitem)).to.deep.equal(LINEITEM_COLUMNS.map(malloyField));
      });

      it('reads DESCRIBE with the types of Trino\'s tpch connector (bounded varchar lengths)', async () => {
        // Malloy's schema read is DESCRIBE <table> through runSQL; the Type column is what it parses.
        for (const [table, columns] of [['nation', NATION_COLUMNS], ['lineitem', LINEITEM_COLUMNS]] as const) {
          const { rows } = await connect().runSQL(`DESCRIBE tpch.tiny.${table}`, {});
          expect(rows.map((r: any) => [r.Column, r.Type]), table).to.deep.equal(columns);
          expect(rows.every((r: any) => r.Extra === '' && r.Comment === '')).to.equal(true);
        }
      });

      it('runSQL returns the 25 nations, each once', async () => {
        const { rows, totalRows } = await connect().runSQL('SELECT * FROM tpch.tiny.nation ORDER BY nationkey', { rowLimit: 1000 });
        expect(totalRows).to.equal(25);
        expect(rows.map((r: any) => r.nationkey)).to.deep.equal([...Array(25).keys()]);
        expect(rows[0]).to.deep.equal({ nationkey: 0, name: 'ALGERIA', regionkey: 0, comment: ' haggle. carefully final deposits detect slyly agai' });
        expect(rows[24]).to.deep.include({ nationkey: 24, name: 'UNITED STATES', regionkey: 1 });
      });

      it('counts 60,175 lineitem rows, and fetches all 60,175 over many pages without doubling any', async () => {
        const count = await connect().runSQL('SELECT count(*) AS n FROM tpch.tiny.lineitem', {});
        expect(count.rows).to.deep.equal([{ n: 60175 }]);
        server().traffic.clear();
        const all = await connect().runSQL('SELECT orderkey, linenumber FROM tpch.tiny.lineitem', { rowLimit: 100_000 });
        expect(all.totalRows).to.equal(60175);
        expect(new Set(all.rows.map((r: any) => `${r.orderkey}/${r.linenumber}`)).size).to.equal(60175);
        const [queryId] = server().traffic.queryIds();
        expect(server().traffic.of(queryId).filter((r) => r.rows > 0).length, 'pages with rows').to.be.greaterThan(1);
      });

      it('pages as Trino through runSQL: SELECT, empty, many pages, DDL, DML and a failure, every row once', async () => {
        const conn = connect();
        const run = async (sql: string): Promise<ClientOutcome> => {
          try {
            // No rowLimit: PrestoConnection would wrap the statement in SELECT * FROM (...) LIMIT n.
            return { rows: (await conn.runSQL(sql, {})).totalRows ?? -1 };
          } catch (e) {
            // TrinoConnection throws the error object as JSON; PrestoConnection throws its message only.
            const message = (e as Error).message;
            return { rows: 0, error: message.startsWith('{') ? JSON.parse(message).errorName : /^Error: line 1:1: mismatched input/.test(message) ? 'SYNTAX_ERROR' : message };
          }
        };
        await expectTrinoPagingThrough(server(), `memory.default.paging_malloy_${kind.toLowerCase()}`, run);
      });

      it('fails a missing table with Trino\'s TABLE_NOT_FOUND message, in runSQL and in a schema read', async () => {
        const conn = connect();
        let message = '';
        try {
          await conn.runSQL('SELECT * FROM tpch.tiny.no_such_table', {});
        } catch (e) {
          message = (e as Error).message;
        }
        if (kind === 'TrinoConnection') {
          const error = JSON.parse(message);
          expect(error).to.deep.include({ message: "line 1:15: Table 'tpch.tiny.no_such_table' does not exist", errorName: 'TABLE_NOT_FOUND', errorType: 'USER_ERROR', errorCode: 46 });
        } else {
          expect(message).to.equal("Error: line 1:15: Table 'tpch.tiny.no_such_table' does not exist");
        }
        const { errors } = await conn.fetchSchemaForTables({ missing: 'tpch.tiny.no_such_table' }, {});
        expect(errors.missing).to.contain('Could not fetch schema for table tpch.tiny.no_such_table').and.to.contain("Table 'tpch.tiny.no_such_table' does not exist");
      });

      it(`reads the schema of a SELECT (${kind === 'TrinoConnection' ? 'PREPARE and DESCRIBE OUTPUT' : 'the root line of EXPLAIN'})`, async () => {
        const conn = connect();
        const { structDef, error } = await conn.fetchSchemaForSQLStruct(
          { connection: conn.name, selectStr: 'SELECT name, nationkey * 2 AS twice, CAST(1.5 AS decimal(10,2)) AS d, shipdate FROM tpch.tiny.nation CROSS JOIN (SELECT shipdate FROM tpch.tiny.lineitem LIMIT 1)' },
          {},
        );
        expect(error).to.equal(undefined);
        expect(fieldsOf(structDef)).to.deep.equal([
          { name: 'name', type: 'string' },
          { name: 'twice', type: 'number', numberType: 'bigint' },
          { name: 'd', type: 'number', numberType: 'float' },
          { name: 'shipdate', type: 'date' },
        ]);
      });

      it('runs a small Malloy model: a join, a measure and month buckets of a date', async () => {
        const conn = connect();
        const model = new SingleConnectionRuntime({ connection: conn }).loadModel(MODEL(conn.name));
        const perRegion = (await model.loadQueryByName('per_region').run()).data.toObject();
        expect(perRegion).to.deep.equal(['AFRICA', 'AMERICA', 'ASIA', 'EUROPE', 'MIDDLE EAST'].map((region_name) => ({ region_name, nation_count: 5 })));

        // The buckets computed here from the order dates themselves.
        const { rows: dates } = await conn.runSQL(
          `SELECT CAST(orderdate AS varchar) AS d FROM tpch.tiny.orders WHERE orderdate BETWEEN DATE '1994-12-01' AND DATE '1995-04-30'`,
          { rowLimit: 100_000 },
        );
        const expected = new Map<string, number>();
        for (const { d } of dates as Array<{ d: string }>) {
          if (d >= '1995-01-01' && d < '1995-04-01') expected.set(`${d.slice(0, 7)}-01`, (expected.get(`${d.slice(0, 7)}-01`) ?? 0) + 1);
        }
        expect(expected.size).to.equal(3);
        const perMonth = (await model.loadQueryByName('per_month').run()).data.toObject();
        expect(perMonth.map((r: any) => [(r.order_month as Date).toISOString().slice(0, 10), r.order_count])).to.deep.equal([...expected].sort());
      });

      if (kind === 'TrinoConnection') {
        it('runs a nested Malloy query (arrays of rows)', async () => {
          const conn = connect();
          const model = new SingleConnectionRuntime({ connection: conn }).loadModel(MODEL(conn.name));
          const nested = (await model.loadQueryByName('nested').run()).data.toObject();
          expect(nested).to.deep.equal(
            Object.entries(FIRST_TWO_NATIONS).map(([region_name, names]) => ({ region_name, nation_count: 5, nations: names.map((name) => ({ name })) })),
          );
        });

        it('sends the connection user on every query', async () => {
          server().traffic.clear();
          await connect().runSQL('SELECT 1', {});
          const [queryId] = server().traffic.queryIds();
          expect((await queryInfo(server().url, queryId)).session.user).to.equal('malloy-trino');
        });
      } else {
        it('sends a nested Malloy query\'s rows as prestodb does (arrays of row arrays), which Malloy\'s own unpack rejects', async () => {
          const conn = connect();
          const query = new SingleConnectionRuntime({ connection: conn }).loadModel(MODEL(conn.name)).loadQueryByName('nested');
          const sql = await query.getSQL();
          expect(sql).to.contain('ARRAY_AGG(CAST(ROW(').and.not.match(/\bjson\b/i);

          // The statement as PrestoConnection sends it (its headers), every response checked against its schema.
          const headers = { 'X-Presto-User': 'malloy-presto', 'X-Presto-Catalog': 'tpch', 'X-Presto-Schema': 'tiny', 'X-Presto-Time-Zone': 'UTC', 'X-Presto-Session': 'legacy_unnest=true' };
          const { responses, rows, final } = await runStatement(server().url, sql, headers);
          expect(final.stats.state).to.equal('FINISHED');
          const columns = responses.find((r) => r.columns)!.columns.map((c: any) => [c.name, c.type]);
          // region_name is region.name through three WITH queries, varchar(25) as prestodb types it.
          expect(columns).to.deep.equal([['region_name', 'varchar(25)'], ['nation_count', 'bigint'], ['nations', 'array(row(name varchar))']]);
          // RowIterable's getObjectValue: a row is a list of its field values, an array a list of its elements.
          expect(rows).to.deep.equal(Object.entries(FIRST_TWO_NATIONS).map(([region, names]) => [region, 5, names.map((name) => [name])]));

          // PrestoConnection gets the same cells and JSON.parse()s the first one: String(array) is not JSON.
          let failure: unknown;
          try {
            await query.run();
          } catch (e) {
            failure = e;
          }
          expect(failure).to.be.instanceOf(SyntaxError);
          expect((failure as Error).message).to.contain('"ALGERIA,ETHIOPIA" is not valid JSON');
        });

        it('runs with the session property it always sends, legacy_unnest=true, kept as prestodb keeps it', async () => {
          const conn = connect();
          const { rows } = await conn.runSQL('SELECT x FROM UNNEST(ARRAY[1, 2, 3]) AS t(x)', {});
          expect(rows).to.deep.equal([{ x: 1 }, { x: 2 }, { x: 3 }]);
          const { rows: shown } = await conn.runSQL("SHOW SESSION LIKE 'legacy_unnest'", {});
          expect(shown.map((r: any) => [r.Name, r.Value, r.Default, r.Type])).to.deep.equal([['legacy_unnest', 'true', 'false', 'boolean']]);
          // And in the query's info, with the zone presto-js-client sends as TimeZoneKey's numeric key.
          server().traffic.clear();
          await conn.runSQL('SELECT 1', {});
          const [queryId] = server().traffic.queryIds();
          const info = await queryInfo(server().url, queryId);
          expect(info.session.user).to.equal('malloy-presto');
          expect(info.session.systemProperties).to.include({ legacy_unnest: 'true' });
          expect(info.session.timeZoneKey).to.be.a('number');
        });
      }
    });
  }
});
