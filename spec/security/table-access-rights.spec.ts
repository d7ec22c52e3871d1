// Trino's tables and schemas rules through a real server: every path a statement can take to a masked
// column or a filtered row (plain, *, subqueries, WITH, views, self-joins, UNION, CTAS, INSERT ... SELECT,
// EXPLAIN ANALYZE, PREPARE / EXECUTE, EXECUTE IMMEDIATE, quoting and case, session defaults from headers,
// listings) meets the mask and the filter; every statement a privilege guards is refused with Trino's message.
import { expect } from 'chai';
import type { TestServer } from '../support/http.js';
import { PrestoSession } from '../support/presto-session.js';
import { startRulesServer, type RulesServer } from './rules-fixtures.js';

const ALL = ['SELECT', 'INSERT', 'DELETE', 'UPDATE', 'OWNERSHIP', 'GRANT_SELECT'];
const PEOPLE = { catalog: 'memory', schema: 'default', table: 'people' };

const RULES = {
  schemas: [
    { user: 'admin', owner: true },
    { user: 'alice', schema: 'alice_.*', owner: true },
    { owner: false },
  ],
  tables: [
    { user: 'admin', privileges: ALL },
    {
      user: 'alice', ...PEOPLE, privileges: ['select'],
      columns: [{ name: 'ssn', allow: false }, { name: 'salary', mask: '0' }, { name: 'name', mask: 'upper(name)' }, { name: 'absent', mask: "'x'" }],
      filter: "region = 'eu'",
    },
    { user: 'alice', catalog: 'memory', schema: 'default', table: 'people_view', privileges: ['SELECT'], filter: "region = 'us'" },
    { user: 'alice', catalog: 'memory', table: 'scratch.*', privileges: ['SELECT', 'INSERT', 'DELETE', 'OWNERSHIP'] },
    { user: 'alice', catalog: 'memory', schema: 'alice_.*', privileges: ALL },
    { user: 'alice', catalog: 'tpch', table: 'nation', privileges: ['SELECT'], columns: [{ name: 'comment', mask: "'***'" }], filter: 'regionkey = 1' },
    { user: 'alice', catalog: 'tpch', privileges: ['SELECT'] },
    { user: 'alice', catalog: 'system', privileges: ['SELECT'] },
    { user: 'bob', ...PEOPLE, privileges: ['INSERT'] },
    { user: 'carol', ...PEOPLE, privileges: ['SELECT'], columns: [{ name: 'salary', mask: "'hidden'" }] },
    { user: 'dave', ...PEOPLE, privileges: ['SELECT'], columns: [{ name: 'salary', mask: '(SELECT max(regionkey) FROM tpch.tiny.region)', mask_environment: { user: 'admin' } }] },
    { user: 'erin', ...PEOPLE, privileges: ['SELECT'], filter: 'id + 1' },
    { user: 'judy', ...PEOPLE, privileges: ['SELECT'], columns: [{ name: 'salary', mask: '(SELECT max(regionkey) FROM tpch.tiny.region)' }] },
    { user: 'henry', ...PEOPLE, privileges: ['SELECT'], filter: 'id IN (SELECT id FROM people)' },
    { user: 'ivan', ...PEOPLE, privileges: ['SELECT'], columns: ['id', 'name', 'ssn', 'salary', 'region'].map((name) => ({ name, allow: false })) },
    { user: 'frank', catalog: 'memory', table: 'scratch_dml', privileges: ALL, filter: "region = 'eu'" },
    { user: 'grace', catalog: 'memory', table: 'scratch_dml', privileges: ALL, columns: [{ name: 'region', mask: "'x'" }] },
  ],
};

describe('security: table access rules through the server (masks, row filters, privileges)', function () {
  this.timeout(120_000);
  let running: RulesServer;
  let server: TestServer;
  const session = (user: string, options: { catalog?: string; schema?: string } = {}) => new PrestoSession(server.url, { prefix: 'X-Trino-', user, ...options });
  const rows = async (user: string, sql: string, options: { catalog?: string; schema?: string } = {}) => (await session(user, options).ok(sql)).rows;
  const failsWith = async (user: string, sql: string, message: string, errorName = 'PERMISSION_DENIED', options: { catalog?: string; schema?: string } = {}) => {
    const out = await session(user, options).execute(sql);
    expect(out.error, sql).to.not.equal(undefined);
    expect(out.error, sql).to.include({ errorName, message });
  };

  before(async () => {
    running = await startRulesServer(RULES, { longPollMs: 200 });
    server = running.server;
    const admin = session('admin');
    await admin.ok('CREATE TABLE memory.default.people (id integer, name varchar, ssn varchar, salary bigint, region varchar)');
    await admin.ok("INSERT INTO memory.default.people VALUES (1, 'ann', '111', 100, 'eu'), (2, 'ben', '222', 200, 'us'), (3, 'cat', '333', 300, 'eu')");
    await admin.ok('CREATE VIEW memory.default.people_view AS SELECT id, name, ssn, region FROM memory.default.people');
  });
  after(async () => {
    await running?.stop();
  });

  const masked = [[1, 'ANN', 0], [3, 'CAT', 0]];

  it('masks columns and filters rows in every way a query reads the table', async () => {
    const defaults = { catalog: 'memory', schema: 'default' };
    expect(await rows('alice', 'SELECT id, name, salary FROM memory.default.people ORDER BY id')).to.deep.equal(masked);
    // Session defaults from X-Trino-Catalog / X-Trino-Schema, quoting and case.
    expect(await rows('alice', 'SELECT id, name, salary FROM people ORDER BY id', defaults)).to.deep.equal(masked);
    expect(await rows('alice', 'SELECT ID, "NAME", Salary FROM "People" ORDER BY 1', defaults)).to.deep.equal(masked);
    expect(await rows('alice', 'SELECT id, name, salary FROM "MEMORY"."DEFAULT"."PEOPLE" ORDER BY id')).to.deep.equal(masked);
    expect(await rows('alice', 'SELECT id, name, salary FROM default.people ORDER BY id', { catalog: 'memory' })).to.deep.equal(masked);
    expect(await rows('alice', 'SELECT count(*), sum(salary), max(name) FROM memory.default.people')).to.deep.equal([[2, 0, 'CAT']]);
    // Aliases, subqueries, WITH, self-join, UNION.
    expect(await rows('alice', 'SELECT p.id, p.name, p.salary FROM memory.default.people AS p ORDER BY 1')).to.deep.equal(masked);
    expect(await rows('alice', 'SELECT (SELECT max(salary) FROM memory.default.people), (SELECT count(*) FROM memory.default.people)')).to.deep.equal([[0, 2]]);
    expect(await rows('alice', 'SELECT * FROM (SELECT id, name, salary FROM memory.default.people) ORDER BY id')).to.deep.equal(masked);
    expect(await rows('alice', 'WITH p AS (SELECT id, name, salary FROM memory.default.people) SELECT * FROM p ORDER BY id')).to.deep.equal(masked);
    expect(await rows('alice', 'SELECT a.id, b.name, a.salary FROM memory.default.people a JOIN memory.default.people b ON a.id = b.id ORDER BY 1')).to.deep.equal(masked);
    expect(await rows('alice', 'SELECT id FROM memory.default.people WHERE salary > 50 OR id = 2')).to.deep.equal([]);
    expect(await rows('alice', 'SELECT salary FROM memory.default.people UNION ALL SELECT salary FROM people', defaults)).to.deep.equal([[0], [0], [0], [0]]);
    expect(await rows('alice', 'SELECT id FROM memory.default.people WHERE id IN (SELECT id FROM memory.default.people WHERE name = \'BEN\')')).to.deep.equal([]);
    // A mask on a column the table does not have is ignored, as Trino asks for masks of existing columns only.
    expect(await rows('alice', 'SELECT region FROM memory.default.people ORDER BY id')).to.deep.equal([['eu'], ['eu']]);
  });

  it('leaves denied columns out of the read itself: a row read whole (DuckDB\'s table-as-row) has only what the user may see', async () => {
    const whole = JSON.stringify(await rows('alice', 'SELECT p FROM memory.default.people p'));
    for (const raw of ['111', '333', 'ann', '"us"']) expect(whole, raw).not.to.include(raw);
    expect(whole).to.include('ANN');
    // Every column denied: the rows still count, no value comes out.
    const [[count]] = await rows('admin', 'SELECT count(*) FROM memory.default.people');
    expect(await rows('ivan', 'SELECT count(*) FROM memory.default.people')).to.deep.equal([[count]]);
    await failsWith('ivan', 'SELECT id FROM memory.default.people', 'Access Denied: Cannot select from columns [id] in table or view memory.default.people');
  });

  it('refuses a row filter that reads its own table as the same user (Trino\'s recursion error)', async () => {
    await failsWith('henry', 'SELECT count(*) FROM memory.default.people', "Row filter for 'memory.default.people' is recursive", 'INVALID_ROW_FILTER');
  });

  it('applies masks and filters through PREPARE / EXECUTE and EXECUTE IMMEDIATE', async () => {
    const s = session('alice');
    await s.ok('PREPARE p FROM SELECT name, salary FROM memory.default.people WHERE id = ?');
    expect((await s.ok('EXECUTE p USING 1')).rows).to.deep.equal([['ANN', 0]]);
    expect((await s.ok('EXECUTE p USING 2')).rows).to.deep.equal([]);
    expect((await s.ok("EXECUTE IMMEDIATE 'SELECT salary FROM memory.default.people WHERE id = ?' USING 3")).rows).to.deep.equal([[0]]);
    await s.ok('PREPARE q FROM SELECT ssn FROM memory.default.people');
    const out = await s.execute('EXECUTE q');
    expect(out.error).to.include({ errorName: 'PERMISSION_DENIED', message: 'Access Denied: Cannot select from columns [ssn] in table or view memory.default.people' });
  });

  it('writes only masked values and visible rows into the tables a user creates (CTAS, INSERT ... SELECT)', async () => {
    await rows('alice', 'CREATE TABLE memory.default.scratch_ctas AS SELECT id, name, salary FROM memory.default.people');
    expect(await rows('admin', 'SELECT * FROM memory.default.scratch_ctas ORDER BY id')).to.deep.equal(masked);
    await rows('alice', 'CREATE TABLE memory.default.scratch_insert (id integer, name varchar, salary bigint)');
    await rows('alice', 'INSERT INTO memory.default.scratch_insert SELECT id, name, salary FROM memory.default.people');
    expect(await rows('admin', 'SELECT * FROM memory.default.scratch_insert ORDER BY id')).to.deep.equal(masked);
  });

  it('runs EXPLAIN ANALYZE over the guarded read, and denies what it would deny to the query', async () => {
    const out = await session('alice').ok('EXPLAIN ANALYZE SELECT salary FROM memory.default.people');
    expect(JSON.stringify(out.rows)).to.not.include('111');
    await failsWith('alice', 'EXPLAIN ANALYZE SELECT ssn FROM memory.default.people', 'Access Denied: Cannot select from columns [ssn] in table or view memory.default.people');
  });

  it('reads a view with its own rule; the view reads its table with its creator\'s rights', async () => {
    // admin created the view (all privileges, no mask), alice's rule on the view filters it.
    expect(await rows('alice', 'SELECT id, name, ssn FROM memory.default.people_view')).to.deep.equal([[2, 'ben', '222']]);
    await failsWith('alice', 'CREATE VIEW memory.default.scratch_view AS SELECT id FROM memory.default.people', "Access Denied: View owner 'alice' cannot create view that selects from memory.default.people");
  });

  it('refuses denied columns however they are named, and SELECT * over them', async () => {
    const denied = 'Access Denied: Cannot select from columns [ssn] in table or view memory.default.people';
    for (const sql of [
      'SELECT ssn FROM memory.default.people',
      'SELECT * FROM memory.default.people',
      'SELECT p.* FROM memory.default.people p',
      'SELECT "SSN" FROM memory.default."People"',
      'SELECT count(ssn) FROM memory.default.people',
      'SELECT id FROM memory.default.people WHERE ssn = \'111\'',
      'SELECT x FROM (SELECT * FROM memory.default.people) AS t(a, b, c, d, x)',
      'WITH p AS (SELECT * FROM memory.default.people) SELECT id FROM p',
      'TABLE memory.default.people',
      'SELECT (SELECT max(ssn) FROM memory.default.people)',
      'CREATE TABLE memory.default.scratch_leak AS SELECT ssn FROM memory.default.people',
    ]) {
      await failsWith('alice', sql, denied);
    }
    await failsWith('alice', 'SELECT * FROM people', denied, 'PERMISSION_DENIED', { catalog: 'memory', schema: 'default' });
  });

  it('answers Trino\'s denials for statements without their privilege', async () => {
    const t = 'memory.default.people';
    await failsWith('eve', `SELECT id FROM ${t}`, `Access Denied: Cannot select from table ${t}`);
    await failsWith('bob', `SELECT id FROM ${t}`, `Access Denied: Cannot select from table ${t}`);
    await rows('bob', `INSERT INTO ${t} (id, region) VALUES (4, 'us')`);
    await failsWith('alice', `INSERT INTO ${t} (id) VALUES (5)`, `Access Denied: Cannot insert into table ${t}`);
    await failsWith('alice', `DELETE FROM ${t} WHERE id = 1`, `Access Denied: Cannot delete from table ${t}`);
    await failsWith('alice', `UPDATE ${t} SET salary = 1`, `Access Denied: Cannot update columns [salary] in table ${t}`);
    await failsWith('alice', `DROP TABLE ${t}`, `Access Denied: Cannot drop table ${t}`);
    await failsWith('alice', `ALTER TABLE ${t} ADD COLUMN x integer`, `Access Denied: Cannot add a column to table ${t}`);
    await failsWith('alice', `ALTER TABLE ${t} RENAME TO scratch_people`, `Access Denied: Cannot rename table from ${t} to memory.default.scratch_people`);
    await failsWith('alice', `COMMENT ON TABLE ${t} IS 'x'`, `Access Denied: Cannot comment table to ${t}`);
    await failsWith('alice', 'CREATE TABLE memory.default.other (a integer)', 'Access Denied: Cannot create table memory.default.other');
    await failsWith('alice', `SHOW CREATE TABLE ${t}`, `Access Denied: Cannot show create table for ${t}`);
    await failsWith('eve', `SHOW COLUMNS FROM ${t}`, `Access Denied: Cannot show columns of table ${t}`);
    await failsWith('eve', 'DESCRIBE people', `Access Denied: Cannot show columns of table ${t}`, 'PERMISSION_DENIED', { catalog: 'memory', schema: 'default' });
    await failsWith('alice', 'CREATE SCHEMA memory.team', 'Access Denied: Cannot create schema memory.team');
    await failsWith('alice', 'DROP SCHEMA memory.team', 'Access Denied: Cannot drop schema memory.team');
    await rows('alice', 'CREATE SCHEMA memory.alice_work');
    await rows('alice', 'CREATE TABLE memory.alice_work.t AS SELECT 1 AS x');
    expect(await rows('alice', 'SELECT x FROM memory.alice_work.t')).to.deep.equal([[1]]);
    await rows('alice', 'DROP TABLE memory.alice_work.t');
    await rows('alice', 'DROP SCHEMA memory.alice_work');
    // information_schema is exempt from the tables rules.
    expect(await rows('eve', 'SELECT count(*) FROM memory.information_schema.schemata')).to.deep.equal([[1]]);
  });

  it('lists only the tables a user has a privilege on, and hides denied columns from a reader', async () => {
    const defaults = { catalog: 'memory', schema: 'default' };
    await failsWith('eve', 'SHOW TABLES FROM memory.default', 'Access Denied: Cannot show tables of schema memory.default');
    await failsWith('eve', 'SHOW TABLES', 'Access Denied: Cannot show tables of schema memory.default', 'PERMISSION_DENIED', defaults);
    expect(await rows('bob', 'SHOW TABLES FROM memory.default')).to.deep.equal([['people']]);
    // Schemas: those some rule gives the user something in (Trino's filterSchemas), information_schema always.
    expect(await rows('eve', 'SHOW SCHEMAS FROM memory')).to.deep.equal([['information_schema']]);
    expect((await rows('bob', 'SHOW SCHEMAS FROM memory')).map((r) => r[0]).sort()).to.deep.equal(['default', 'information_schema']);
    expect(await rows('eve', "SELECT schema_name FROM memory.information_schema.schemata")).to.deep.equal([['information_schema']]);
    expect(await rows('alice', "SELECT table_schem FROM system.jdbc.schemas WHERE table_catalog = 'memory' ORDER BY 1")).to.deep.equal([['default'], ['information_schema']]);
    expect((await rows('alice', 'SHOW TABLES', defaults)).map((r) => r[0])).to.include.members(['people', 'people_view', 'scratch_ctas']);
    expect((await rows('alice', 'SHOW COLUMNS FROM memory.default.people')).map((r) => r[0])).to.deep.equal(['id', 'name', 'salary', 'region']);
    expect((await rows('alice', 'DESCRIBE people', defaults)).map((r) => r[0])).to.deep.equal(['id', 'name', 'salary', 'region']);
    // bob's INSERT is more than SELECT: he sees every column (FileBasedSystemAccessControl.filterColumns).
    expect((await rows('bob', 'SHOW COLUMNS FROM memory.default.people')).map((r) => r[0])).to.include('ssn');
    const listed = "SELECT column_name FROM memory.information_schema.columns WHERE table_name = 'people' ORDER BY ordinal_position";
    expect((await rows('alice', listed)).map((r) => r[0])).to.deep.equal(['id', 'name', 'salary', 'region']);
    expect(await rows('eve', listed)).to.deep.equal([]);
    expect((await rows('eve', "SELECT count(*) FROM memory.information_schema.tables WHERE table_schema = 'default'"))[0]).to.deep.equal([0]);
    const jdbc = "SELECT column_name FROM system.jdbc.columns WHERE table_cat = 'memory' AND table_name = 'people' ORDER BY ordinal_position";
    expect((await rows('alice', jdbc)).map((r) => r[0])).to.deep.equal(['id', 'name', 'salary', 'region']);
    expect((await rows('admin', jdbc)).map((r) => r[0])).to.deep.equal(['id', 'name', 'ssn', 'salary', 'region']);
  });

  it('keeps DELETE and UPDATE to the rows the filter shows, and refuses them over a mask', async () => {
    await rows('admin', 'CREATE TABLE memory.default.scratch_dml AS SELECT id, region FROM memory.default.people WHERE id <= 3');
    await rows('frank', 'UPDATE memory.default.scratch_dml SET id = id * 10');
    await rows('frank', 'DELETE FROM memory.default.scratch_dml WHERE id > 10');
    expect(await rows('admin', 'SELECT id, region FROM memory.default.scratch_dml ORDER BY id')).to.deep.equal([[2, 'us'], [10, 'eu']]);
    await rows('frank', 'DELETE FROM memory.default.scratch_dml');
    expect(await rows('admin', 'SELECT id FROM memory.default.scratch_dml')).to.deep.equal([[2]]);
    await failsWith('grace', "DELETE FROM memory.default.scratch_dml WHERE region = 'us'", 'Delete from table with column mask', 'NOT_SUPPORTED');
    await failsWith('grace', 'UPDATE memory.default.scratch_dml SET id = 1', 'Updating a table with column masks is not supported', 'NOT_SUPPORTED');
  });

  it('runs a mask as its environment\'s user, and checks mask and filter types as Trino', async () => {
    expect(await rows('dave', 'SELECT DISTINCT salary FROM memory.default.people')).to.deep.equal([[4]]);
    await failsWith('dave', 'SELECT max(regionkey) FROM tpch.tiny.region', 'Access Denied: Cannot select from table tpch.tiny.region');
    // Without an environment the mask reads as the query's user, who may not read region.
    await failsWith('judy', 'SELECT salary FROM memory.default.people', 'Access Denied: Cannot select from table tpch.tiny.region');
    await failsWith('carol', 'SELECT salary FROM memory.default.people', "line 1:20: Expected column mask for 'memory.default.people.salary' to be of type bigint, but was varchar", 'TYPE_MISMATCH');
    await failsWith('erin', 'SELECT id FROM memory.default.people', "line 1:16: Expected row filter for 'memory.default.people' to be of type BOOLEAN, but was integer", 'TYPE_MISMATCH');
  });

  it('masks and filters tpch tables too', async () => {
    const nation = await rows('alice', 'SELECT name, comment FROM tpch.tiny.nation ORDER BY nationkey');
    expect(nation).to.have.length(5);
    expect(nation.every((r) => r[1] === '***')).to.equal(true);
    expect(await rows('alice', 'SELECT count(*) FROM tpch.tiny.region')).to.deep.equal([[5]]);
  });
});
