import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QueryHistoryStore } from '../../lib/history/history-store.js';
import { BIGINT_COLUMN, FakeEngine } from '../support/fake-engine.js';
import { request, runStatement, startTestServer, type TestServer } from '../support/http.js';
import { validateResponse } from '../support/schema-validator.js';
import { RulesFiles } from '../security/rules-fixtures.js';

const RULES = { queries: [{ user: 'admin', allow: ['execute', 'view', 'kill'] }, { allow: ['execute'] }] };
const as = (user: string) => ({ headers: { 'X-Trino-User': user } });

/** Lets the tracker take its pending events (query.finished is sent on setImmediate). */
async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !condition(); i++) await new Promise((resolve) => setImmediate(resolve));
  expect(condition()).to.equal(true);
}

describe('GET /v1/query/{id} from the query history', () => {
  let dir: string;
  let rules: RulesFiles;
  let server: TestServer | undefined;

  const start = async (batchSize: number) => {
    const history = new QueryHistoryStore({ directory: join(dir, 'history'), maxAgeMs: 3_600_000, maxSizeBytes: 1 << 20, batchSize, now: Date.now });
    server = await startTestServer({
      engine: new FakeEngine({ 'SELECT 1': { columns: [BIGINT_COLUMN('_col0')], rows: [[1]] } }),
      accessControl: rules.control(RULES),
      history,
      // One finished query in memory: the previous one leaves it as the next one ends.
      config: { longPollMs: 50, maxHistory: 1, maxHistoryHard: 1, minExpireAgeMs: 0 },
    });
    return server;
  };
  /** Runs `sql` as `user` and another query after it, so the first one has left the in-memory history. */
  const finished = async (running: TestServer, user: string): Promise<string> => {
    const { final } = await runStatement(running.url, 'SELECT 1', { 'X-Trino-User': user });
    await until(() => running.coordinator.lookup(final.id)?.final !== undefined);
    return final.id;
  };
  const expired = async (running: TestServer, user: string, id?: string): Promise<string> => {
    const final = { id: id ?? (await finished(running, user)) };
    const next = await runStatement(running.url, 'SELECT 1', { 'X-Trino-User': 'admin' });
    await until(() => running.coordinator.lookup(next.final.id)?.final !== undefined && !running.coordinator.lookup(final.id));
    return final.id;
  };
  const denied = async (url: string, user: string) => {
    const res = await request('GET', url, as(user));
    expect(res.status).to.equal(403);
    validateResponse('error', res.body);
    expect(res.body).to.include({ errorName: 'PERMISSION_DENIED', message: 'Access Denied: Cannot view query' });
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'vivace-history-routes-'));
    rules = new RulesFiles();
  });
  afterEach(async () => {
    await server?.stop();
    server = undefined;
    rules.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers with the stored info, schema-valid, under the rules of a live query (alice, not bob)', async () => {
    const running = await start(1);
    const id = await finished(running, 'alice');
    const inMemory = (await request('GET', `${running.url}/v1/query/${id}`, as('alice'))).body;
    await expired(running, 'alice', id);
    expect(running.coordinator.lookup(id)).to.equal(undefined);

    const stored = await request('GET', `${running.url}/v1/query/${id}`, as('alice'));
    expect(stored.status).to.equal(200);
    validateResponse('query-info', stored.body);
    // The same body as the in-memory one gave once the query had ended.
    expect(stored.body).to.deep.equal(inMemory);
    expect(Object.keys(stored.body)).to.deep.equal(Object.keys(inMemory));
    expect(stored.body).to.include({ queryId: id, state: 'FINISHED', query: 'SELECT 1', self: `${running.url}/v1/query/${id}` });

    await denied(`${running.url}/v1/query/${id}`, 'bob');
    expect((await request('GET', `${running.url}/v1/query/${id}`, as('admin'))).status).to.equal(200);
    const unknown = await request('GET', `${running.url}/v1/query/20200101_000000_00000_aaaaa`, as('admin'));
    expect(unknown.status).to.equal(410);
    validateResponse('error', unknown.body);
  });

  it('answers from the batch held in memory, and after a restart on the same data directory', async () => {
    const first = await start(10);
    const id = await expired(first, 'alice');
    expect(first.coordinator.history?.pending).to.equal(2);
    expect((await request('GET', `${first.url}/v1/query/${id}`, as('alice'))).status).to.equal(200);
    await denied(`${first.url}/v1/query/${id}`, 'bob');
    await first.stop(); // writes the batch it held
    server = undefined;

    const second = await start(10);
    expect(second.coordinator.lookup(id)).to.equal(undefined);
    const res = await request('GET', `${second.url}/v1/query/${id}`, as('alice'));
    expect(res.status).to.equal(200);
    validateResponse('query-info', res.body);
    expect(res.body).to.include({ queryId: id, state: 'FINISHED', self: `${second.url}/v1/query/${id}` });
    expect(res.body.session.user).to.equal('alice');
    await denied(`${second.url}/v1/query/${id}`, 'bob');
  });
});
