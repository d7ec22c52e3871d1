// The `system` catalog over HTTP: a real coordinator and DuckDB engine, the engine's system tables bound
// to the coordinator's actors. Every statement response is validated (runStatement).
import { expect } from 'chai';
import { createTestEngine } from '../support/duckdb.js';
import { request, runStatement, startTestServer, type TestServer } from '../support/http.js';
import { SystemTablesBinding } from '../../lib/connectors/system/system-tables.js';

const sqlString = (s: string) => `'${s.replace(/'/g, "''")}'`;

describe('system catalog over HTTP', () => {
  let server: TestServer;
  const alice = { 'X-Trino-User': 'alice', 'X-Trino-Source': 'system-spec' };
  before(async () => {
    const system = new SystemTablesBinding();
    const engine = await createTestEngine(4, { system, tpch: false });
    server = await startTestServer({ engine, system, config: { longPollMs: 200 } });
  });
  after(() => server.stop());

  it('system.runtime.queries lists a finished query with its user, and the running query itself', async () => {
    const { final } = await runStatement(server.url, 'SELECT 42 AS answer', alice);
    const id = final.id as string;
    const { rows } = await runStatement(server.url, `SELECT query_id, state, "user", source, query, error_code FROM system.runtime.queries WHERE query_id = ${sqlString(id)}`, { 'X-Trino-User': 'bob' });
    expect(rows).to.deep.equal([[id, 'FINISHED', 'alice', 'system-spec', 'SELECT 42 AS answer', null]]);
    const self = await runStatement(server.url, `SELECT state, "user" FROM system.runtime.queries WHERE query LIKE '%self-marker%'`, { 'X-Trino-User': 'carol' });
    expect(self.rows).to.deep.equal([['RUNNING', 'carol']]);
    const times = await runStatement(server.url, `SELECT created <= started AND started <= "end", queued_time_ms >= 0 FROM system.runtime.queries WHERE query_id = ${sqlString(id)}`);
    expect(times.rows).to.deep.equal([[true, true]]);
  });

  it('system.runtime.queries shows a failed query with its error', async () => {
    const { final } = await runStatement(server.url, 'SELECT * FROM memory.default.no_such_table', alice);
    expect(final.error.errorName).to.equal('TABLE_NOT_FOUND');
    const { rows } = await runStatement(server.url, `SELECT state, error_type, error_code FROM system.runtime.queries WHERE query_id = ${sqlString(final.id)}`);
    expect(rows).to.deep.equal([['FAILED', 'USER_ERROR', 'TABLE_NOT_FOUND']]);
  });

  it('system.runtime.tasks has one task per stage on the coordinator', async () => {
    const { final } = await runStatement(server.url, 'SELECT 1', alice);
    const info = await request('GET', `${server.url}/v1/info`);
    const { rows } = await runStatement(server.url, `SELECT node_id, task_id, stage_id, state, output_rows FROM system.runtime.tasks WHERE query_id = ${sqlString(final.id)}`);
    expect(rows).to.deep.equal([[info.body.nodeId, `${final.id}.0.0.0`, `${final.id}.0`, 'FINISHED', 1]]);
  });

  it('system.runtime.nodes has the coordinator (as /v1/info names it) and announced workers', async () => {
    const info = await request('GET', `${server.url}/v1/info`);
    const { rows } = await runStatement(server.url, 'SELECT node_id, http_uri, node_version, coordinator, state FROM system.runtime.nodes WHERE coordinator');
    expect(rows).to.deep.equal([[info.body.nodeId, server.url, info.body.nodeVersion.version, true, 'active']]);
    server.coordinator.announceNode('worker-1', 'http://127.0.0.1:9');
    const workers = await runStatement(server.url, 'SELECT node_id, http_uri, coordinator FROM system.runtime.nodes WHERE NOT coordinator');
    expect(workers.rows).to.deep.equal([['worker-1', 'http://127.0.0.1:9', false]]);
    server.coordinator.forgetNode('worker-1');
  });

  it('joins system tables with each other and with a memory table', async () => {
    await runStatement(server.url, 'SELECT 7', alice);
    const joined = await runStatement(server.url, 'SELECT count(*) > 0 FROM system.runtime.queries q JOIN system.runtime.nodes n ON n.coordinator');
    expect(joined.rows).to.deep.equal([[true]]);
    await runStatement(server.url, `CREATE TABLE memory.default.teams AS SELECT * FROM (VALUES ('alice', 'red')) AS t(usr, team)`);
    const teams = await runStatement(server.url, `SELECT DISTINCT t.team FROM memory.default.teams t JOIN system.runtime.queries q ON q."user" = t.usr`);
    expect(teams.rows).to.deep.equal([['red']]);
  });

  it('is listed by SHOW CATALOGS and usable as the session catalog', async () => {
    const catalogs = await runStatement(server.url, 'SHOW CATALOGS');
    expect(catalogs.rows.map((r) => r[0])).to.include('system');
    const use = await runStatement(server.url, 'USE system.runtime');
    expect(use.final.stats.state).to.equal('FINISHED');
    const inSession = await runStatement(server.url, 'SELECT count(*) FROM nodes WHERE coordinator', { 'X-Trino-Catalog': 'system', 'X-Trino-Schema': 'runtime' });
    expect(inSession.rows).to.deep.equal([[1]]);
    const tables = await runStatement(server.url, 'SHOW TABLES FROM system.runtime');
    expect(tables.rows).to.deep.equal([['completed_queries'], ['nodes'], ['queries'], ['tasks']]);
  });
});
