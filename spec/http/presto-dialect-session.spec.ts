// Session state through the protocol headers, driven the way the Java clients drive it: the client keeps
// catalog, schema, session properties, prepared statements and the transaction id, sends them on every
// POST and applies the Set-*/Clear-*/Added-*/Deallocated-*/…-Transaction-Id response headers.
import { expect } from 'chai';
import { createTestEngine } from '../support/duckdb.js';
import { startTestServer, type TestServer } from '../support/http.js';
import { PrestoSession, javaDecode, javaEncode } from '../support/presto-session.js';

describe('Presto dialect over HTTP: session', function () {
  this.timeout(30_000);
  let server: TestServer;

  before(async () => {
    // A short tracker sweep, so query_max_run_time is enforced within the test (upstream sweeps every 1 s).
    server = await startTestServer({ engine: await createTestEngine(2), config: { trackerIntervalMs: 100 } });
    const setup = new PrestoSession(server.url);
    await setup.ok('CREATE TABLE memory.default.ledger (v integer)');
    // Generates tpch.tiny once for the file (a few seconds).
    await setup.ok('SELECT count(*) FROM tpch.tiny.region');
  });
  after(() => server.stop());

  it('the client codec is Java URLEncoder/URLDecoder', () => {
    expect(javaEncode("a b+c,d=é'~*")).to.equal('a+b%2Bc%2Cd%3D%C3%A9%27%7E*');
    expect(javaDecode('a+b%2Bc%2Cd%3D%C3%A9%27%7E*')).to.equal("a b+c,d=é'~*");
  });

  describe('USE', () => {
    it('USE tpch.tiny answers Set-Catalog/Set-Schema; the next query resolves nation in tpch.tiny', async () => {
      const presto = new PrestoSession(server.url);
      const use = await presto.ok('USE tpch.tiny');
      const last = use.headers[use.headers.length - 1]!;
      expect([last.get('X-Presto-Set-Catalog'), last.get('X-Presto-Set-Schema')]).to.deep.equal(['tpch', 'tiny']);
      expect(use.final.updateType).to.equal('USE');
      expect([presto.catalog, presto.schema]).to.deep.equal(['tpch', 'tiny']);
      const count = await presto.ok('SELECT count(*) FROM nation');
      expect(count.rows).to.deep.equal([[25]]);
      expect(count.columns!.map((c) => c.type)).to.deep.equal(['bigint']);
      expect((await presto.ok('SHOW TABLES')).rows).to.have.length(8);
      expect((await presto.ok("SELECT name FROM region WHERE regionkey = 1")).rows).to.deep.equal([['AMERICA']]);
    });

    it('USE with X-Trino- headers answers X-Trino-Set-* and nothing in another family', async () => {
      const trino = new PrestoSession(server.url, { prefix: 'X-Trino-' });
      const use = await trino.ok('USE tpch.tiny');
      const last = use.headers[use.headers.length - 1]!;
      expect([last.get('X-Trino-Set-Catalog'), last.get('X-Trino-Set-Schema')]).to.deep.equal(['tpch', 'tiny']);
      expect([last.get('X-Presto-Set-Catalog'), last.get('X-Presto-Set-Schema')]).to.deep.equal([null, null]);
      expect((await trino.ok('SELECT count(*) FROM customer')).rows).to.deep.equal([[1500]]);
      // USE s keeps the catalog.
      await trino.ok('USE sf1');
      expect([trino.catalog, trino.schema]).to.deep.equal(['tpch', 'sf1']);
    });

    it('a failed USE leaves the client session as it was', async () => {
      const presto = new PrestoSession(server.url, { catalog: 'tpch', schema: 'tiny' });
      const out = await presto.execute('USE tpch.nope');
      expect(out.error.errorName).to.equal('SCHEMA_NOT_FOUND');
      for (const h of out.headers) expect(h.get('X-Presto-Set-Schema')).to.equal(null);
      expect([presto.catalog, presto.schema]).to.deep.equal(['tpch', 'tiny']);
    });
  });

  describe('SET SESSION / RESET SESSION', () => {
    it('SET SESSION answers Set-Session; the client sends it back and SHOW SESSION shows the value', async () => {
      const presto = new PrestoSession(server.url);
      const set = await presto.ok("SET SESSION query_max_run_time = '1m'");
      expect(set.final.updateType).to.equal('SET SESSION');
      expect(set.headers[set.headers.length - 1]!.get('X-Presto-Set-Session')).to.equal('query_max_run_time=1m');
      expect([...presto.properties]).to.deep.equal([['query_max_run_time', '1m']]);
      expect(presto.requestHeaders().get('X-Presto-Session')).to.equal('query_max_run_time=1m');
      const shown = await presto.ok("SHOW SESSION LIKE 'query_max_run%'");
      expect(shown.rows.map((r) => r.slice(0, 4))).to.deep.equal([['query_max_run_time', '1m', '100.00d', 'varchar']]);
    });

    it('values needing URL encoding round-trip: Set-Session is name=urlenc(value)', async () => {
      const presto = new PrestoSession(server.url);
      await presto.ok("SET SESSION query_max_run_time = '90 s'");
      await presto.ok("SET SESSION query_max_memory = '1GB'");
      expect(Object.fromEntries(presto.properties)).to.deep.equal({ query_max_run_time: '90 s', query_max_memory: '1GB' });
      // Two properties: two Session headers (fetch joins them with ", "; the server splits on ',').
      expect(presto.requestHeaders().get('X-Presto-Session')).to.equal('query_max_run_time=90+s, query_max_memory=1GB');
      const shown = await presto.ok("SHOW SESSION LIKE 'query_max_%'");
      // Presto's other query_max_* properties are listed too (kept, not acted on); query_max_memory is hidden
      // upstream, so SHOW SESSION leaves it out even when set.
      expect(shown.rows.map((r) => [r[0], r[1]])).to.deep.include.members([
        ['query_max_execution_time', '100.00d'],
        ['query_max_planning_time', '10.00m'],
        ['query_max_run_time', '90 s'],
      ]);
      expect(shown.rows.map((r) => r[0])).not.to.include('query_max_memory');
    });

    it('a session property changes behaviour: query_max_run_time fails a long query with EXCEEDED_TIME_LIMIT', async () => {
      const presto = new PrestoSession(server.url);
      await presto.ok("SET SESSION query_max_run_time = '1s'");
      // 10^12 rows to count: minutes of work.
      const out = await presto.execute(
        'SELECT count(*) FROM UNNEST(sequence(1, 10000)) AS x(a) CROSS JOIN UNNEST(sequence(1, 10000)) AS y(b) CROSS JOIN UNNEST(sequence(1, 10000)) AS z(c)',
      );
      expect(out.error).to.include({ errorName: 'EXCEEDED_TIME_LIMIT', errorType: 'INSUFFICIENT_RESOURCES' });
      expect((await presto.ok('SELECT 1')).rows).to.deep.equal([[1]]);
    });

    it('RESET SESSION answers Clear-Session and the client stops sending the property', async () => {
      const presto = new PrestoSession(server.url);
      await presto.ok("SET SESSION query_max_run_time = '1m'");
      const reset = await presto.ok('RESET SESSION query_max_run_time');
      expect(reset.final.updateType).to.equal('RESET SESSION');
      expect(reset.headers[reset.headers.length - 1]!.get('X-Presto-Clear-Session')).to.equal('query_max_run_time');
      expect(presto.properties.size).to.equal(0);
      expect(presto.requestHeaders().has('X-Presto-Session')).to.equal(false);
      const shown = await presto.ok("SHOW SESSION LIKE 'query_max_run%'");
      expect(shown.rows.map((r) => [r[0], r[1]])).to.deep.equal([['query_max_run_time', '100.00d']]);
    });

    it('an unknown property is INVALID_SESSION_PROPERTY, and the client session is unchanged', async () => {
      const presto = new PrestoSession(server.url);
      const out = await presto.execute("SET SESSION no_such_property = 'x'");
      expect(out.error).to.include({ errorName: 'INVALID_SESSION_PROPERTY', errorCode: 14, errorType: 'USER_ERROR' });
      expect(out.error.message).to.equal("Session property 'no_such_property' does not exist");
      expect(presto.properties.size).to.equal(0);
    });

    it('an unknown property sent in the Session header fails the query with INVALID_SESSION_PROPERTY', async () => {
      const presto = new PrestoSession(server.url);
      presto.properties.set('no_such_property', 'x');
      const out = await presto.execute('SELECT 1');
      expect(out.error).to.include({ errorName: 'INVALID_SESSION_PROPERTY' });
    });
  });

  describe('SET ROLE', () => {
    it('SET ROLE ALL / NONE answers Set-Role for the system role, as Trino without roles of its own', async () => {
      const trino = new PrestoSession(server.url, { prefix: 'X-Trino-' });
      const all = await trino.ok('SET ROLE ALL');
      expect([all.final.updateType, all.headers[all.headers.length - 1]!.get('X-Trino-Set-Role')]).to.deep.equal(['SET ROLE', 'system=ALL']);
      const none = await trino.ok('set role none');
      expect(none.headers[none.headers.length - 1]!.get('X-Trino-Set-Role')).to.equal('system=NONE');
    });

    it('a named role does not exist, and no catalog manages roles', async () => {
      const trino = new PrestoSession(server.url, { prefix: 'X-Trino-' });
      expect((await trino.execute('SET ROLE admin')).error).to.include({ errorName: 'ROLE_NOT_FOUND', message: "line 1:1: Role 'admin' does not exist" });
      expect((await trino.execute('SET ROLE ALL IN memory')).error).to.include({ errorName: 'NOT_SUPPORTED', message: "line 1:1: Catalog 'memory' does not support role management" });
      expect((await trino.execute('SET ROLE ALL IN nope')).error).to.include({ errorName: 'CATALOG_NOT_FOUND', message: "line 1:1: Catalog 'nope' not found" });
    });
  });

  describe('PREPARE / EXECUTE / DEALLOCATE', () => {
    it('PREPARE answers Added-Prepare; EXECUTE ... USING resolves it from the Prepared-Statement header', async () => {
      const presto = new PrestoSession(server.url);
      const prepared = await presto.ok('PREPARE q FROM SELECT ? + 1');
      expect(prepared.final.updateType).to.equal('PREPARE');
      expect(prepared.headers[prepared.headers.length - 1]!.get('X-Presto-Added-Prepare')).to.equal('q=SELECT+%3F+%2B+1');
      expect([...presto.preparedStatements]).to.deep.equal([['q', 'SELECT ? + 1']]);
      expect(presto.requestHeaders().get('X-Presto-Prepared-Statement')).to.equal('q=SELECT+%3F+%2B+1');
      const out = await presto.ok('EXECUTE q USING 41');
      expect(out.rows).to.deep.equal([[42]]);
      expect(out.columns!.map((c) => [c.name, c.type])).to.deep.equal([['_col0', 'integer']]);
    });

    it('DESCRIBE INPUT lists parameter positions and types (Trino docs example)', async () => {
      const presto = new PrestoSession(server.url, { catalog: 'tpch', schema: 'tiny' });
      await presto.ok('PREPARE my_select1 FROM SELECT ? FROM nation WHERE regionkey = ? AND name < ?');
      const out = await presto.ok('DESCRIBE INPUT my_select1');
      expect(out.columns!.map((c) => [c.name, c.type])).to.deep.equal([['Position', 'bigint'], ['Type', 'varchar']]);
      expect(out.rows).to.deep.equal([[0, 'unknown'], [1, 'bigint'], [2, 'varchar']]);
      const output = await presto.ok('DESCRIBE OUTPUT my_select1');
      expect(output.columns!.map((c) => c.name)).to.deep.equal(['Column Name', 'Catalog', 'Schema', 'Table', 'Type', 'Type Size', 'Aliased']);
    });

    // DuckDB leaves the parameter of `? + 1` untyped; the dialect types it from the literal beside it.
    it('DESCRIBE INPUT of SELECT ? + 1 types the parameter integer, as Presto coerces it', async () => {
      const presto = new PrestoSession(server.url);
      await presto.ok('PREPARE q FROM SELECT ? + 1');
      expect((await presto.ok('DESCRIBE INPUT q')).rows).to.deep.equal([[0, 'integer']]);
    });

    it('a statement with commas, quotes and newlines survives the header round trip', async () => {
      const presto = new PrestoSession(server.url);
      await presto.ok("PREPARE \"two words\" FROM SELECT concat(?, ', ', 'it''s')\n  AS s");
      expect(presto.preparedStatements.get('two words')).to.equal("SELECT concat(?, ', ', 'it''s')\n  AS s");
      expect((await presto.ok("EXECUTE \"two words\" USING 'a=b'")).rows).to.deep.equal([["a=b, it's"]]);
    });

    it('DEALLOCATE PREPARE answers Deallocated-Prepare; EXECUTE of the name is then NOT_FOUND', async () => {
      const presto = new PrestoSession(server.url);
      await presto.ok('PREPARE q FROM SELECT 1');
      await presto.ok('PREPARE r FROM SELECT 2');
      const out = await presto.ok('DEALLOCATE PREPARE q');
      expect(out.final.updateType).to.equal('DEALLOCATE');
      expect(out.headers[out.headers.length - 1]!.get('X-Presto-Deallocated-Prepare')).to.equal('q');
      expect([...presto.preparedStatements.keys()]).to.deep.equal(['r']);
      const missing = await presto.execute('EXECUTE q');
      expect(missing.error).to.include({ errorName: 'NOT_FOUND', errorCode: 5, message: 'Prepared statement not found: q' });
      expect((await presto.ok('EXECUTE r')).rows).to.deep.equal([[2]]);
    });

    it('EXECUTE of a name the client never prepared is NOT_FOUND', async () => {
      const out = await new PrestoSession(server.url).execute('EXECUTE never_prepared USING 1');
      expect(out.error).to.include({ errorName: 'NOT_FOUND', errorType: 'USER_ERROR', message: 'Prepared statement not found: never_prepared' });
    });
  });

  describe('transactions', () => {
    const count = async (presto: PrestoSession) => (await presto.ok('SELECT count(*) FROM memory.default.ledger')).rows[0]![0] as number;

    it('START TRANSACTION / ROLLBACK: the id goes back and forth, and the transaction reads one snapshot', async () => {
      const presto = new PrestoSession(server.url);
      const other = new PrestoSession(server.url);
      const before = await count(other);
      const start = await presto.ok('START TRANSACTION');
      expect(start.final.updateType).to.equal('START TRANSACTION');
      const id = start.headers[start.headers.length - 1]!.get('X-Presto-Started-Transaction-Id');
      expect(id).to.be.a('string').and.not.equal('');
      expect(presto.transactionId).to.equal(id);
      expect(presto.requestHeaders().get('X-Presto-Transaction-Id')).to.equal(id);
      expect(await count(presto)).to.equal(before);
      await other.ok('INSERT INTO memory.default.ledger VALUES (1), (2), (3)');
      expect(await count(presto)).to.equal(before);
      const rollback = await presto.ok('ROLLBACK');
      expect(rollback.final.updateType).to.equal('ROLLBACK');
      expect(rollback.headers[rollback.headers.length - 1]!.get('X-Presto-Clear-Transaction-Id')).to.equal('true');
      expect(presto.transactionId).to.equal(undefined);
      expect(presto.requestHeaders().get('X-Presto-Transaction-Id')).to.equal('NONE');
      expect(await count(presto)).to.equal(before + 3);
    });

    it('a write in a transaction fails as in Trino (the memory catalog writes only in autocommit); ROLLBACK ends it', async () => {
      const presto = new PrestoSession(server.url);
      await presto.ok('START TRANSACTION');
      const write = await presto.execute('CREATE TABLE memory.default.nation AS SELECT * FROM tpch.tiny.nation');
      expect(write.error).to.include({ errorName: 'AUTOCOMMIT_WRITE_CONFLICT', errorCode: 25, errorType: 'USER_ERROR', message: 'Catalog only supports writes using autocommit: memory' });
      const rollback = await presto.ok('ROLLBACK');
      expect(rollback.headers[rollback.headers.length - 1]!.get('X-Presto-Clear-Transaction-Id')).to.equal('true');
      expect(presto.transactionId).to.equal(undefined);
    });

    it('START TRANSACTION without the Transaction-Id header is INCOMPATIBLE_CLIENT', async () => {
      const presto = new PrestoSession(server.url, { supportsTransactions: false });
      expect(presto.requestHeaders().has('X-Presto-Transaction-Id')).to.equal(false);
      const out = await presto.execute('START TRANSACTION');
      expect(out.error).to.include({ errorName: 'INCOMPATIBLE_CLIENT', errorCode: 27, message: 'Client does not support transactions' });
      expect(presto.transactionId).to.equal(undefined);
    });
  });
});
