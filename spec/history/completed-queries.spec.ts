import { expect } from 'chai';
import sinon from 'sinon';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SystemTablesBinding } from '../../lib/connectors/system/system-tables.js';
import { QueryHistoryStore } from '../../lib/history/history-store.js';
import { SystemSnapshots } from '../../lib/worker/system-snapshot.js';
import { createTestEngine } from '../support/duckdb.js';
import { startTestServer, type TestServer } from '../support/http.js';
import { PrestoSession } from '../support/presto-session.js';
import { RulesFiles } from '../security/rules-fixtures.js';

const RULES = { queries: [{ user: 'admin', allow: ['execute', 'view', 'kill'] }, { allow: ['execute'] }] };
const SELECT = 'SELECT query_id, "user", state, query, error_code, error_message, output_rows, cpu_time_ms, peak_memory_bytes, resource_group_id FROM system.runtime.completed_queries';

describe('system.runtime.completed_queries', function () {
  this.timeout(60_000);
  let dir: string;
  let rules: RulesFiles;
  let server: TestServer;
  const as = (user: string) => new PrestoSession(server.url, { prefix: 'X-Trino-', user });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vivace-completed-'));
    rules = new RulesFiles();
    const access = rules.control(RULES);
    const system = new SystemTablesBinding();
    const history = new QueryHistoryStore({ directory: join(dir, 'history'), maxAgeMs: 3_600_000, maxSizeBytes: 1 << 20, batchSize: 2, now: Date.now });
    server = await startTestServer({ engine: await createTestEngine(2, { system, access }), system, accessControl: access, history, config: { longPollMs: 100 } });
  });
  after(async () => {
    await server?.stop();
    rules.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists the stored queries with their error, rows, CPU and peak memory, under the rules of /v1/query', async () => {
    await as('alice').ok('SELECT 42');
    await as('bob').execute('SELECT * FROM no_such_table');
    await as('alice').ok('SELECT 43');
    // The last two queries' ends are recorded after their responses: wait for them to be stored (one file, one held).
    for (let i = 0; i < 1000 && (await server.coordinator.history!.recentRows(10)).rows.length < 3; i++) await new Promise((resolve) => setImmediate(resolve));
    await server.coordinator.history!.settled();
    expect(server.coordinator.history!.filePaths()).to.have.length(1);

    const seen = (await as('alice').ok(`${SELECT} ORDER BY created`)).rows;
    expect(seen.map((r) => r[3])).to.deep.equal(['SELECT 42', 'SELECT 43']);
    expect((await server.coordinator.history!.find(seen[0]![0] as string))?.info).to.include({ query: 'SELECT 42', state: 'FINISHED' });
    expect(seen[0]!.slice(1, 7)).to.deep.equal(['alice', 'FINISHED', 'SELECT 42', null, null, 1]);
    expect(seen[0]![7]).to.be.a('number');
    expect(seen[0]![8]).to.equal(0);
    expect(seen[0]![9]).to.deep.equal(['global']);

    const all = (await as('admin').ok(`${SELECT} WHERE query NOT LIKE '%completed_queries%' ORDER BY created`)).rows;
    expect(all.map((r) => r[1])).to.deep.equal(['alice', 'bob', 'alice']);
    const failed = all[1]!;
    expect(failed.slice(2, 5)).to.deep.equal(['FAILED', 'SELECT * FROM no_such_table', 'MISSING_CATALOG_NAME']);
    expect(failed[5]).to.be.a('string').and.to.contain('catalog');

    expect((await as('bob').ok(`SELECT count(*) FROM system.runtime.completed_queries WHERE "user" = 'alice'`)).rows).to.deep.equal([[0]]);
  });

  it('serves the stored rows whatever spelling names the table: quoted, upper case, in a subquery, EXECUTE', async () => {
    await as('carol').ok('SELECT 44');
    for (let i = 0; i < 1000 && !(await server.coordinator.history!.recentRows(50)).rows.some((r) => r.user === 'carol'); i++) await new Promise((resolve) => setImmediate(resolve));
    const mine = `WHERE "user" = 'carol' AND query = 'SELECT 44'`;
    for (const name of ['system.runtime."COMPLETED_QUERIES"', 'SYSTEM.RUNTIME.Completed_Queries', '"system"."runtime"."completed_queries"', '(SELECT * FROM system.runtime.completed_queries) AS c']) {
      expect((await as('carol').ok(`SELECT count(*) FROM ${name} ${mine}`)).rows, name).to.deep.equal([[1]]);
    }
    const session = as('carol');
    await session.ok(`PREPARE stored FROM SELECT count(*) FROM system.runtime.completed_queries ${mine}`);
    expect((await session.ok('EXECUTE stored')).rows).to.deep.equal([[1]]);
    await session.ok(`CREATE VIEW memory.default.stored_view AS SELECT * FROM system.runtime.completed_queries`);
    expect((await session.ok(`SELECT count(*) FROM memory.default.stored_view ${mine}`)).rows).to.deep.equal([[1]]);
    // Through a view the tree does not name the table: another user's first read still finds the rows.
    expect((await as('admin').ok(`SELECT count(*) FROM memory.default.stored_view ${mine}`)).rows).to.deep.equal([[1]]);
    expect((await session.ok(`EXECUTE IMMEDIATE 'SELECT count(*) FROM system.runtime."Completed_Queries" ${mine.replaceAll("'", "''")}'`)).rows).to.deep.equal([[1]]);
  });

  it('reads the history files only for a statement whose tree names the table, not for its name in a literal, a comment or a column', async () => {
    const reads = sinon.spy(server.coordinator.history!, 'recentRows');
    try {
      const session = as('carol');
      for (const sql of [`SELECT 'system.runtime.completed_queries'`, 'SELECT 1 /* FROM system.runtime.completed_queries */', 'SELECT completed_queries FROM (VALUES 1) AS t(completed_queries)', `SELECT count(*) FROM system.runtime.queries WHERE query LIKE '%completed_queries%'`]) {
        await session.ok(sql);
        expect(reads.callCount, sql).to.equal(0);
      }
      await session.ok('SELECT count(*) FROM system.runtime.completed_queries');
      expect(reads.callCount).to.equal(1);
    } finally {
      reads.restore();
    }
  });

  it('keeps a worker\'s rows per user, read field by field', () => {
    const snapshots = new SystemSnapshots();
    snapshots.accept({ completedQueries: [{ queryId: 'q1', user: 'alice', state: 'FAILED', errorMessage: 'boom', cpuTimeMs: 7, outputRows: 'x' }] }, 'alice');
    snapshots.accept({ queries: [] }, 'alice'); // a statement that names no completed_queries leaves them
    expect(snapshots.completedQueries('alice')).to.have.length(1);
    expect(snapshots.completedQueries('alice')[0]).to.include({ queryId: 'q1', errorMessage: 'boom', cpuTimeMs: 7, outputRows: 0 });
    expect(snapshots.completedQueries('bob')).to.deep.equal([]);
    expect(snapshots.completedQueries()).to.deep.equal([]);
  });
});
