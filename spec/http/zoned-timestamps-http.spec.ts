// timestamp with time zone through HTTP, as a Trino or Presto client reads it: each row in its own zone,
// typed timestamp(p) with time zone (prestodb: milliseconds, its client reads `.SSS`), a zone per row kept by
// a memory table, and the catalog listing the column as Trino does. Every body is validated against its schema.
import { expect } from 'chai';
import { createTestEngine } from '../support/duckdb.js';
import { startTestServer, type TestServer } from '../support/http.js';
import { PrestoSession } from '../support/presto-session.js';

const ROWS = "(VALUES (1, TIMESTAMP '2020-01-02 03:04:05.678 America/New_York'), (2, TIMESTAMP '2020-01-02 03:04:05.678 Asia/Kolkata'), (3, TIMESTAMP '2020-01-02 03:04:05.678 -08:00')) t(id, ts)";

describe('timestamp with time zone over HTTP', function () {
  this.timeout(60_000);
  let server: TestServer;
  let trino: PrestoSession;
  let presto: PrestoSession;

  before(async () => {
    server = await startTestServer({ engine: await createTestEngine(2, { tpch: false }) });
    trino = new PrestoSession(server.url, { prefix: 'X-Trino-', catalog: 'memory', schema: 'default', timeZone: 'Europe/Paris' });
    presto = new PrestoSession(server.url, { prefix: 'X-Presto-', catalog: 'memory', schema: 'default', timeZone: 'Europe/Paris' });
  });
  after(() => server.stop());

  it('sends each row in its own zone, whatever the session zone', async () => {
    const out = await trino.ok(`SELECT ts, timezone_hour(ts) FROM ${ROWS} ORDER BY id`);
    expect(out.columns!.map((c) => c.type)).to.deep.equal(['timestamp(3) with time zone', 'bigint']);
    expect(out.columns![0]!.typeSignature).to.deep.equal({ rawType: 'timestamp with time zone', arguments: [{ kind: 'LONG', value: 3 }] });
    expect(out.dataText).to.equal('[["2020-01-02 03:04:05.678 America/New_York",-5],["2020-01-02 03:04:05.678 Asia/Kolkata",5],["2020-01-02 03:04:05.678 -08:00",-8]]');
  });

  it('answers a Presto client in milliseconds, zones kept', async () => {
    const out = await presto.ok(`SELECT CAST(ts AS timestamp(6) with time zone) FROM ${ROWS} ORDER BY id`);
    expect(out.columns![0]!.type).to.equal('timestamp with time zone');
    expect(out.rows).to.deep.equal([['2020-01-02 03:04:05.678 America/New_York'], ['2020-01-02 03:04:05.678 Asia/Kolkata'], ['2020-01-02 03:04:05.678 -08:00']]);
  });

  it('keeps the zone per row in a table, and lists the column as Trino does', async () => {
    await trino.ok(`CREATE TABLE zoned_http AS SELECT * FROM ${ROWS}`);
    await trino.ok("INSERT INTO zoned_http VALUES (4, at_timezone(TIMESTAMP '2020-01-02 03:04:05.678 UTC', 'Australia/Sydney'))");
    const out = await trino.ok('SELECT ts FROM zoned_http ORDER BY id');
    expect(out.rows.map(([v]) => v)).to.deep.equal([
      '2020-01-02 03:04:05.678 America/New_York', '2020-01-02 03:04:05.678 Asia/Kolkata', '2020-01-02 03:04:05.678 -08:00', '2020-01-02 14:04:05.678 Australia/Sydney',
    ]);
    expect((await trino.ok('SHOW COLUMNS FROM zoned_http')).rows[1]!.slice(0, 2)).to.deep.equal(['ts', 'timestamp(3) with time zone']);
    expect((await trino.ok("SELECT data_type FROM information_schema.columns WHERE table_name = 'zoned_http' AND column_name = 'ts'")).rows).to.deep.equal([['timestamp(3) with time zone']]);
    // Equal instants in other zones are one value.
    expect((await trino.ok("SELECT id FROM zoned_http WHERE ts = TIMESTAMP '2020-01-02 08:04:05.678 UTC'")).rows).to.deep.equal([[1]]);
  });

  it('fails a zone Trino does not know with its error, as a 400-class answer', async () => {
    const failed = await trino.execute("SELECT at_timezone(TIMESTAMP '2020-01-02 03:04:05 UTC', 'Mars/Olympus')");
    expect(failed.error).to.include({ errorName: 'INVALID_FUNCTION_ARGUMENT', message: 'line 1:57: Time zone not supported: Mars/Olympus' });
  });
});
