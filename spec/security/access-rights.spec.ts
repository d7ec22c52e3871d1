// Trino's file-based access control through a real server: users see and kill their own queries and
// only what a rule opens; system information and shutdown need their rights; the catalogs rule holds
// for every way a statement can name a catalog.
import { expect } from 'chai';
import { startRulesServer, type RulesServer } from './rules-fixtures.js';
import { request, validateStatement, type TestServer } from '../support/http.js';
import { PrestoSession } from '../support/presto-session.js';
import { validateResponse } from '../support/schema-validator.js';

const RULES = {
  catalogs: [
    { user: 'admin', catalog: '.*', allow: 'all' },
    { user: 'bob', catalog: 'tpch', allow: 'none' },
    { user: 'bob', catalog: 'memory', allow: 'read-only' },
    { catalog: '.*', allow: 'all' },
  ],
  queries: [
    { user: 'admin', allow: ['execute', 'view', 'kill'] },
    { user: 'carol', queryOwner: 'alice', allow: ['view'] },
    { user: 'mallory', allow: [] },
    { allow: ['execute'] },
  ],
  system_information: [
    { user: 'admin', allow: ['read', 'write'] },
    { user: 'ops', allow: ['read'] },
  ],
};

const MANY = 'SELECT x FROM UNNEST(sequence(1, 3000)) AS t(x)';
const as = (user: string, extra: Record<string, string> = {}) => ({ headers: { 'X-Trino-User': user, ...extra } });

describe('security: access rights through the server (file-based rules)', function () {
  this.timeout(60_000);
  let running: RulesServer;
  let server: TestServer;

  before(async () => {
    running = await startRulesServer(RULES, { targetResultBytes: 4 * 1024, longPollMs: 200 });
    server = running.server;
  });
  after(async () => {
    await running?.stop();
  });

  async function denied(res: { status: number; body: any }, message: string) {
    expect(res.status).to.equal(403);
    validateResponse('error', res.body);
    expect(res.body).to.include({ errorName: 'PERMISSION_DENIED', message });
  }

  async function failsWith(user: string, sql: string, message: string, options: { catalog?: string; schema?: string } = {}) {
    const out = await new PrestoSession(server.url, { prefix: 'X-Trino-', user, ...options }).execute(sql);
    expect(out.error, sql).to.include({ errorName: 'PERMISSION_DENIED', message });
  }

  it('shows and ends a query only for its owner and the users a rule opens it to', async () => {
    const post = await request('POST', `${server.url}/v1/statement`, { body: MANY, ...as('alice') });
    validateStatement(post.body, true);
    const id = post.body.id;
    const listed = async (user: string) => ((await request('GET', `${server.url}/v1/query`, as(user))).body as any[]).map((q) => q.queryId);

    expect(await listed('alice')).to.include(id);
    expect(await listed('bob')).not.to.include(id);
    expect(await listed('carol')).to.include(id); // view rule on alice's queries
    expect(await listed('admin')).to.include(id);
    expect(await listed('ops')).to.include(id); // system_information read

    await denied(await request('GET', `${server.url}/v1/query/${id}`, as('bob')), 'Access Denied: Cannot view query');
    expect((await request('GET', `${server.url}/v1/query/${id}`, as('carol'))).status).to.equal(200);
    await denied(await request('DELETE', `${server.url}/v1/query/${id}`, as('bob')), 'Access Denied: Cannot view query');
    await denied(await request('DELETE', `${server.url}/v1/query/${id}`, as('carol')), 'Access Denied: Cannot view query');
    await denied(await request('PUT', `${server.url}/v1/query/${id}/killed`, { body: 'no', ...as('bob') }), 'Access Denied: Cannot view query');
    // The user header's case and the Presto and service families name other users, who are no owners.
    await denied(await request('DELETE', `${server.url}/v1/query/${id}`, as('Alice')), 'Access Denied: Cannot view query');
    await denied(await request('DELETE', `${server.url}/v1/query/${id}`, { headers: { 'X-Presto-User': 'bob' } }), 'Access Denied: Cannot view query');

    // system.runtime.queries: the same rule, through SQL.
    const seenBy = async (user: string) => (await new PrestoSession(server.url, { prefix: 'X-Trino-', user }).ok(`SELECT query_id FROM system.runtime.queries WHERE query_id = '${id}'`)).rows.length;
    expect(await seenBy('bob')).to.equal(0);
    expect(await seenBy('alice')).to.equal(1);
    expect(await seenBy('carol')).to.equal(1);
    expect(await seenBy('admin')).to.equal(1);

    // After all of that, alice's result is whole.
    let page = post.body;
    let rows = 0;
    while (page.nextUri) {
      page = (await request('GET', page.nextUri)).body;
      rows += page.data?.length ?? 0;
    }
    expect(page.stats.state).to.equal('FINISHED');
    expect(rows).to.equal(3000);
  });

  it('lets owners and admins kill, and refuses execute to a user no rule lets run queries', async () => {
    const own = await request('POST', `${server.url}/v1/statement`, { body: MANY, ...as('alice') });
    expect((await request('DELETE', `${server.url}/v1/query/${own.body.id}`, as('alice'))).status).to.equal(204);
    const other = await request('POST', `${server.url}/v1/statement`, { body: MANY, ...as('alice') });
    expect((await request('PUT', `${server.url}/v1/query/${other.body.id}/killed`, { body: 'admin says', ...as('admin') })).status).to.equal(202);
    await denied(await request('POST', `${server.url}/v1/statement`, { body: 'SELECT 1', ...as('mallory') }), 'Access Denied: Cannot view query');
  });

  it('keeps node information and shutdown to users with system_information rights', async () => {
    await denied(await request('GET', `${server.url}/v1/node`, as('alice')), 'Access Denied: Cannot read system information');
    await denied(await request('GET', `${server.url}/v1/node/failed`, as('alice')), 'Access Denied: Cannot read system information');
    expect((await request('GET', `${server.url}/v1/node`, as('ops'))).status).to.equal(200);
    const put = (user: string) => request('PUT', `${server.url}/v1/info/state`, { body: '"SHUTTING_DOWN"', headers: { 'Content-Type': 'application/json', 'X-Trino-User': user } });
    await denied(await put('alice'), 'Access Denied: Cannot write system information');
    await denied(await put('ops'), 'Access Denied: Cannot write system information');
    expect((await request('GET', `${server.url}/v1/info/state`)).body).to.equal('ACTIVE');
  });

  it('refuses a catalog the rule closes, however the statement names it', async () => {
    const closed = 'Access Denied: Cannot access catalog tpch';
    for (const sql of [
      'SELECT count(*) FROM tpch.tiny.nation',
      'SELECT count(*) FROM "TPCH"."TINY"."NATION"',
      'SELECT count(*) FROM TpCh.tiny.nation',
      'WITH n AS (SELECT * FROM tpch.tiny.nation) SELECT count(*) FROM n',
      'SELECT 1 WHERE 1 IN (SELECT n_nationkey FROM tpch.tiny.nation)',
      'SELECT (SELECT max(n_name) FROM tpch.tiny.nation)',
      'SELECT * FROM memory.information_schema.tables, tpch.tiny.region',
      'EXPLAIN SELECT * FROM tpch.tiny.nation',
      'EXPLAIN ANALYZE SELECT * FROM tpch.tiny.nation',
      'SHOW STATS FOR tpch.tiny.nation',
      'SHOW SCHEMAS FROM tpch',
      'SHOW TABLES FROM tpch.tiny',
      'SHOW COLUMNS FROM tpch.tiny.nation',
      'DESCRIBE tpch.tiny.nation',
      'SHOW CREATE TABLE tpch.tiny.nation',
      'SELECT * FROM tpch.information_schema.tables',
      'USE tpch.tiny',
      'CREATE TABLE memory.default.copied AS SELECT * FROM tpch.tiny.nation',
    ]) {
      await failsWith('bob', sql, sql.startsWith('CREATE TABLE') ? 'Access Denied: Cannot create table memory.default.copied' : closed);
    }
    // The session's catalog, unqualified names, and a prepared statement run by EXECUTE.
    await failsWith('bob', 'SELECT count(*) FROM nation', closed, { catalog: 'tpch', schema: 'tiny' });
    await failsWith('bob', 'SHOW TABLES', closed, { catalog: 'tpch', schema: 'tiny' });
    const session = new PrestoSession(server.url, { prefix: 'X-Trino-', user: 'bob' });
    await session.ok('PREPARE p FROM SELECT count(*) FROM tpch.tiny.nation');
    expect((await session.execute('EXECUTE p')).error).to.include({ errorName: 'PERMISSION_DENIED', message: closed });
    // SHOW CATALOGS leaves it out, as Trino's filterCatalogs does.
    const catalogs = async (user: string) => (await new PrestoSession(server.url, { prefix: 'X-Trino-', user }).ok('SHOW CATALOGS')).rows.flat();
    expect(await catalogs('bob')).to.deep.equal(['memory', 'system']);
    expect(await catalogs('alice')).to.include('tpch');
    // Others read it.
    expect((await new PrestoSession(server.url, { prefix: 'X-Trino-', user: 'alice' }).ok('SELECT count(*) FROM tpch.tiny.nation')).rows).to.deep.equal([[25]]);
  });

  it('lets a read-only user read a catalog and refuses every kind of write with Trino\'s message', async () => {
    const alice = new PrestoSession(server.url, { prefix: 'X-Trino-', user: 'alice' });
    await alice.ok('CREATE TABLE memory.default.shared (id integer, name varchar)');
    await alice.ok("INSERT INTO memory.default.shared VALUES (1, 'one')");
    const bob = new PrestoSession(server.url, { prefix: 'X-Trino-', user: 'bob' });
    expect((await bob.ok('SELECT * FROM memory.default.shared')).rows).to.deep.equal([[1, 'one']]);
    const t = 'memory.default.shared';
    const writes: [string, string, { catalog?: string; schema?: string }?][] = [
      ["INSERT INTO memory.default.shared VALUES (2, 'two')", `Cannot insert into table ${t}`],
      ["INSERT INTO shared VALUES (2, 'two')", `Cannot insert into table ${t}`, { catalog: 'memory', schema: 'default' }],
      ['INSERT INTO "MEMORY"."DEFAULT"."SHARED" SELECT 3, \'x\'', `Cannot insert into table ${t}`],
      ['DELETE FROM memory.default.shared', `Cannot delete from table ${t}`],
      ["UPDATE memory.default.shared SET name = 'x'", `Cannot update columns [name] in table ${t}`],
      ['DROP TABLE memory.default.shared', `Cannot drop table ${t}`],
      ['TRUNCATE TABLE memory.default.shared', `Cannot truncate table ${t}`],
      ['ALTER TABLE memory.default.shared ADD COLUMN extra integer', `Cannot add a column to table ${t}`],
      ['ALTER TABLE memory.default.shared RENAME TO memory.default.mine', `Cannot rename table from ${t} to memory.default.mine`],
      ['CREATE TABLE memory.default.bobs (id integer)', 'Cannot create table memory.default.bobs'],
      ['CREATE VIEW memory.default.v AS SELECT 1 AS one', 'Cannot create view memory.default.v'],
      ['CREATE SCHEMA memory.bobs', 'Cannot create schema memory.bobs'],
      ["COMMENT ON TABLE memory.default.shared IS 'x'", `Cannot comment table to ${t}`],
      ['EXPLAIN ANALYZE INSERT INTO memory.default.shared VALUES (9, \'nine\')', `Cannot insert into table ${t}`],
    ];
    for (const [sql, message, options] of writes) await failsWith('bob', sql, `Access Denied: ${message}`, options);
    const prepared = new PrestoSession(server.url, { prefix: 'X-Trino-', user: 'bob' });
    await prepared.ok("PREPARE w FROM INSERT INTO memory.default.shared VALUES (5, 'five')");
    expect((await prepared.execute('EXECUTE w')).error).to.include({ errorName: 'PERMISSION_DENIED', message: `Access Denied: Cannot insert into table ${t}` });
    expect((await bob.ok('SELECT count(*) FROM memory.default.shared')).rows).to.deep.equal([[1]]);
  });
});
