// GET /ui/api/queryHistory (lib/http/ui-query.routes.ts): the stored history searched with the overview's
// filters (state, user, search, limit) beyond the in-memory list, newest first, under /v1/query's
// visibility rules (bob sees only his own), each entry shaped as /v1/query's (schema-checked); and
// /ui/api/query/{id} answering from the store once the query left memory. Hostile parameters are cut or
// fall back to defaults.
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QueryHistoryStore } from '../../lib/history/history-store.js';
import { storedRowMatches } from '../../lib/http/ui-query.routes.js';
import { createTestEngine } from '../support/duckdb.js';
import { request, startTestServer, type TestServer } from '../support/http.js';
import { PrestoSession } from '../support/presto-session.js';
import { validateResponse } from '../support/schema-validator.js';
import { RulesFiles } from '../security/rules-fixtures.js';

const RULES = { queries: [{ user: 'admin', allow: ['execute', 'view', 'kill'] }, { allow: ['execute'] }] };

describe('GET /ui/api/queryHistory', function () {
  this.timeout(60_000);
  let dir: string;
  let rules: RulesFiles;
  let server: TestServer;
  const as = (user: string) => new PrestoSession(server.url, { prefix: 'X-Trino-', user });
  const stored = async (user: string, query = '') => {
    const res = await request('GET', `${server.url}/ui/api/queryHistory${query}`, { headers: { 'X-Trino-User': user } });
    expect(res.status).to.equal(200);
    validateResponse('query-list.schema.json', res.body);
    return res.body as { queryId: string; query: string; state: string; session: { user: string } }[];
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vivace-ui-history-'));
    rules = new RulesFiles();
    const access = rules.control(RULES);
    const history = new QueryHistoryStore({ directory: join(dir, 'history'), maxAgeMs: 3_600_000, maxSizeBytes: 1 << 20, batchSize: 2, now: Date.now });
    server = await startTestServer({ engine: await createTestEngine(2, { access }), accessControl: access, history, config: { longPollMs: 100, maxHistory: 1, minExpireAgeMs: 0 } });
    await as('alice').ok('SELECT 42 AS alice_first');
    await as('bob').execute('SELECT * FROM no_such_table');
    await as('alice').ok('SELECT 43 AS alice_second');
    await as('bob').ok('SELECT 44 AS bob_last');
    for (let i = 0; i < 1000 && (await server.coordinator.history!.recentRows(10)).rows.length < 4; i++) await new Promise((resolve) => setImmediate(resolve));
  });
  after(async () => {
    await server?.stop();
    rules.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists the stored queries newest first under the visibility rules, filtered as the overview filters', async () => {
    expect((await stored('admin')).map((q) => q.query)).to.deep.equal(['SELECT 44 AS bob_last', 'SELECT 43 AS alice_second', 'SELECT * FROM no_such_table', 'SELECT 42 AS alice_first']);
    expect((await stored('bob')).map((q) => q.session.user)).to.deep.equal(['bob', 'bob']);
    expect((await stored('admin', '?state=failed')).map((q) => q.state)).to.deep.equal(['FAILED']);
    expect((await stored('admin', '?state=ACTIVE'))).to.deep.equal([]);
    expect((await stored('admin', '?user=ALI')).map((q) => q.query)).to.deep.equal(['SELECT 43 AS alice_second', 'SELECT 42 AS alice_first']);
    expect((await stored('admin', '?search=Alice_First')).map((q) => q.query)).to.deep.equal(['SELECT 42 AS alice_first']);
    expect((await stored('admin', '?search=missing_catalog')).map((q) => q.state)).to.deep.equal(['FAILED']);
    expect((await stored('admin', '?limit=1')).length).to.equal(1);
    expect((await stored('bob', '?search=alice'))).to.deep.equal([]);
  });

  it('cuts or ignores hostile parameters', async () => {
    expect((await stored('admin', `?search=${'a'.repeat(10_000)}`))).to.deep.equal([]);
    expect((await stored('admin', '?limit=abc&limit=2')).length).to.equal(4);
    expect((await stored('admin', '?limit=-5')).length).to.equal(1);
    expect((await stored('admin', '?state=%E2%80%AE&user=%E2%80%AE')).length).to.equal(0);
    // a NUL in the target is refused before any route, as everywhere
    const nul = await request('GET', `${server.url}/ui/api/queryHistory?user=%00`, { headers: { 'X-Trino-User': 'admin' } });
    expect(nul.status).to.equal(400);
    validateResponse('error', nul.body);
    expect(storedRowMatches({ state: 'FINISHED', user: 'x', query: 'q', queryId: 'id', source: null, errorCode: null } as never, { state: '', user: '', search: '  ' })).to.equal(true);
  });

  it('answers /ui/api/query/{id} from the store once the query left memory, under the same rule', async () => {
    const [oldest] = (await stored('admin', '?search=alice_first'));
    expect(server.coordinator.lookup(oldest!.queryId)).to.equal(undefined);
    const info = await request('GET', `${server.url}/ui/api/query/${oldest!.queryId}`, { headers: { 'X-Trino-User': 'alice' } });
    expect(info.status).to.equal(200);
    validateResponse('query-info.schema.json', info.body);
    expect(info.body).to.include({ queryId: oldest!.queryId, query: 'SELECT 42 AS alice_first', state: 'FINISHED' });
    expect((await request('GET', `${server.url}/ui/api/query/${oldest!.queryId}`, { headers: { 'X-Trino-User': 'bob' } })).status).to.equal(403);
  });
});
