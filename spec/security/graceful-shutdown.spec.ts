// PUT /v1/info/state "SHUTTING_DOWN" drains: no new statements, the running ones finish and are read to
// their last row, and only then does the server stop; what is still running at the end of the grace
// period fails with SERVER_SHUTTING_DOWN.
import { expect } from 'chai';
import { createTestEngine } from '../support/duckdb.js';
import { request, startTestServer, validateStatement, type TestServer } from '../support/http.js';
import { validateResponse } from '../support/schema-validator.js';

const ROWS = 3000;
const MANY = `SELECT x FROM UNNEST(sequence(1, ${ROWS})) AS t(x)`;
const HEAVY = 'SELECT count(*) FROM UNNEST(sequence(1, 10000)) a, UNNEST(sequence(1, 10000)) b, UNNEST(sequence(1, 10000)) c';

async function shutDown(url: string) {
  const put = await request('PUT', `${url}/v1/info/state`, { body: '"SHUTTING_DOWN"', headers: { 'Content-Type': 'application/json' } });
  expect(put.status).to.equal(200);
  expect(put.body).to.equal('SHUTTING_DOWN');
}

describe('security: graceful shutdown', function () {
  this.timeout(30_000);
  let server: TestServer | undefined;
  afterEach(() => server?.stop());

  it('lets a multi-page result be read to its last row, refuses new statements meanwhile, then stops', async () => {
    server = await startTestServer({ engine: await createTestEngine(2), config: { targetResultBytes: 4 * 1024, longPollMs: 200 } });
    const url = server.url;
    const post = await request('POST', `${url}/v1/statement`, { body: MANY });
    let page = (await request('GET', post.body.nextUri)).body;
    const rows: unknown[][] = [...(page.data ?? [])];
    await shutDown(url);
    const state = server.server.state;
    let stopped = false;
    void state.stopped!.then(() => (stopped = true));

    const refused = await request('POST', `${url}/v1/statement`, { body: 'SELECT 1' });
    expect(refused.status).to.equal(503);
    validateResponse('error', refused.body);
    expect(refused.body.errorName).to.equal('SERVER_SHUTTING_DOWN');
    expect((await request('GET', `${url}/v1/info/state`)).body).to.equal('SHUTTING_DOWN');

    while (page.nextUri) {
      expect(stopped, 'stopped before the last page was read').to.equal(false);
      const next = await request('GET', page.nextUri);
      expect(next.status).to.equal(200);
      validateStatement(next.body, false);
      page = next.body;
      rows.push(...(page.data ?? []));
    }
    expect(page.stats.state).to.equal('FINISHED');
    expect(rows.length).to.equal(ROWS);
    expect(rows[ROWS - 1]).to.deep.equal([ROWS]);
    await state.stopped;
  });

  it('fails what still runs at the end of the grace period with SERVER_SHUTTING_DOWN, and its client reads that', async () => {
    server = await startTestServer({ engine: await createTestEngine(2), config: { longPollMs: 100, shutdownGracePeriodMs: 300 } });
    const url = server.url;
    const post = await request('POST', `${url}/v1/statement`, { body: HEAVY });
    await shutDown(url);
    let page = post.body;
    while (page.nextUri) page = (await request('GET', page.nextUri)).body;
    validateStatement(page, false);
    expect(page.stats.state).to.equal('FAILED');
    expect(page.error.errorName).to.equal('SERVER_SHUTTING_DOWN');
    await server.server.state.stopped;
  });

  it('stops at once when nothing runs, and a second PUT changes nothing', async () => {
    server = await startTestServer({ engine: await createTestEngine(1) });
    await shutDown(server.url);
    await shutDown(server.url);
    await server.server.state.stopped;
    const back = await request('PUT', `${server.url}/v1/info/state`, { body: '"ACTIVE"', headers: { 'Content-Type': 'application/json' } });
    expect(back.status).to.equal(400);
  });
});
