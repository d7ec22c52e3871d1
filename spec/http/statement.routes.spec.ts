import { expect } from 'chai';
import { BIGINT_COLUMN, FakeEngine } from '../support/fake-engine.js';
import { request, runStatement, startTestServer, type TestServer, validateStatement } from '../support/http.js';
import { validateResponse } from '../support/schema-validator.js';
import { expectTrinoPaging } from '../support/statement-paging.js';
import { VivaceError } from '../../lib/protocol/vivace-error.js';

const many = Array.from({ length: 5000 }, (_, i) => [i, `row-${i}`]);

function engine(): FakeEngine {
  return new FakeEngine({
    'SELECT 1': { columns: [BIGINT_COLUMN('_col0')], rows: [[1]] },
    'SELECT many': { columns: [BIGINT_COLUMN('n'), { name: 's', type: { base: 'varchar' } }], rows: many, batchRows: 500 },
    'SELECT slow': { columns: [BIGINT_COLUMN('n')], rows: [[1], [2]], gated: true },
    'SELECT failing': { columns: [BIGINT_COLUMN('n')], rows: many.map(([n]) => [n]), batchRows: 500, failAtBatch: { index: 3, error: new VivaceError('DIVISION_BY_ZERO', 'Division by zero') } },
    'CREATE TABLE t': { columns: [], rows: [], updateType: 'CREATE TABLE' },
    'USE tpch.tiny': { columns: [], rows: [], updateType: 'USE', sessionUpdates: { setCatalog: 'tpch', setSchema: 'tiny', setSessionProperties: { query_max_run_time: '1 m' } } },
    'SELECT bad': { columns: [BIGINT_COLUMN('x')], rows: [], planError: new VivaceError('TABLE_NOT_FOUND', "line 1:15: Table 'memory.default.nope' does not exist", { location: { lineNumber: 1, columnNumber: 15 } }) },
  });
}

describe('statement routes', () => {
  let server: TestServer;
  let fake: FakeEngine;
  beforeEach(async () => {
    fake = engine();
    server = await startTestServer({ engine: fake, config: { targetResultBytes: 16 * 1024, longPollMs: 200 } });
  });
  afterEach(() => server.stop());

  it('answers the POST with the planned query: RUNNING, not scheduled, root stage 0 SCHEDULED, no data', async () => {
    fake = engine();
    const res = await request('POST', `${server.url}/v1/statement`, { body: 'SELECT slow', headers: { 'X-Service-User': 'alice' } });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('application/json');
    validateStatement(res.body, true);
    expect(res.body.stats.state).to.equal('RUNNING');
    expect(res.body.stats.scheduled).to.equal(false);
    expect(res.body.stats.rootStage).to.include({ stageId: '0', state: 'SCHEDULED', done: false });
    // Token 1 and stage 0, each with the query's slug ('y' and 40 hex digits).
    expect(res.body.nextUri).to.match(new RegExp(`^${server.url}/v1/statement/${res.body.id}/1\\.y[0-9a-f]{40}$`));
    expect(res.body.partialCancelUri).to.match(new RegExp(`^${server.url}/v1/stage/${res.body.id}\\.0/y[0-9a-f]{40}$`));
    expect(res.body.infoUri).to.equal(`${server.url}/ui/query.html?${res.body.id}`);
    expect(res.body).not.to.have.property('data');
  });

  it('follows nextUri to the rows, which link on; the final response is FINISHED with rootStage.done, no rows and no nextUri', async () => {
    const { rows, final, responses } = await runStatement(server.url, 'SELECT 1');
    expectTrinoPaging(responses);
    expect(rows).to.deep.equal([[1]]);
    expect(responses.map((r) => r.data)).to.deep.equal([undefined, [[1]], undefined]);
    expect(responses[1].nextUri).to.match(new RegExp(`^${server.url}/v1/statement/${final.id}/2\\.y[0-9a-f]{40}$`));
    expect(final.stats.state).to.equal('FINISHED');
    expect(final.stats.scheduled).to.equal(true);
    expect(final.stats.rootStage.done).to.equal(true);
    expect(final).not.to.have.property('nextUri');
  });

  it('pages a large result without losing or repeating a row', async () => {
    const { rows, responses } = await runStatement(server.url, 'SELECT many');
    expectTrinoPaging(responses);
    expect(rows).to.deep.equal(many);
    expect(responses.filter((r) => r.data).length).to.be.greaterThan(3);
    for (const r of responses) if (r.data) expect(r.columns.map((c: any) => c.name)).to.deep.equal(['n', 's']);
  });

  it('a query failing after it handed out rows ends on a FAILED response without rows', async () => {
    const { rows, responses, final } = await runStatement(server.url, 'SELECT failing');
    expectTrinoPaging(responses);
    expect(final.stats.state).to.equal('FAILED');
    expect(final.error.errorName).to.equal('DIVISION_BY_ZERO');
    // The rows before the failure arrived once each, in order.
    expect(rows.length).to.be.greaterThan(0);
    expect(rows.every((row, i) => row[0] === i)).to.equal(true);
  });

  it('returns the identical body for a repeated token, 410 for an older one and 404 for unknown or finished ones', async () => {
    const post = await request('POST', `${server.url}/v1/statement`, { body: 'SELECT many' });
    const first = await request('GET', post.body.nextUri);
    const again = await request('GET', post.body.nextUri);
    expect(again.status).to.equal(200);
    expect(again.text).to.equal(first.text);
    const second = await request('GET', first.body.nextUri);
    expect(second.status).to.equal(200);
    const old = await request('GET', post.body.nextUri);
    expect(old.status).to.equal(410);
    validateResponse('error', old.body);
    const skipped = await request('GET', `${server.url}/v1/statement/${post.body.id}/99.${'y'.padEnd(41, '0')}`);
    expect(skipped.status).to.equal(404);
    validateResponse('error', skipped.body);
    const unknownQuery = await request('GET', `${server.url}/v1/statement/20200101_000000_00000_xxxxx/1`);
    expect(unknownQuery.status).to.equal(404);
  });

  it('reports a planning error on the first GET: FAILED, status 200, error, no nextUri', async () => {
    const post = await request('POST', `${server.url}/v1/statement`, { body: 'SELECT bad' });
    expect(post.status).to.equal(200);
    validateStatement(post.body, true);
    expect(post.body.stats.state).to.equal('QUEUED'); // as submitted, like upstream's POST
    expect(post.body).not.to.have.property('error');
    const res = await request('GET', post.body.nextUri);
    expect(res.status).to.equal(200);
    validateStatement(res.body, false);
    expect(res.body.stats.state).to.equal('FAILED');
    expect(res.body.error).to.include({ errorName: 'TABLE_NOT_FOUND', errorCode: 46, errorType: 'USER_ERROR' });
    expect(res.body.error.errorLocation).to.deep.equal({ lineNumber: 1, columnNumber: 15 });
    expect(res.body).not.to.have.property('nextUri');
  });

  it('a query failing at once (bad Session header, full queue) still answers the POST with a nextUri', async () => {
    const bad = await request('POST', `${server.url}/v1/statement`, { body: 'SELECT 1', headers: { 'X-Presto-Session': 'no_such_property=1' } });
    expect(bad.status).to.equal(200);
    validateStatement(bad.body, true);
    expect(bad.body.stats.state).to.equal('QUEUED');
    const failed = await request('GET', bad.body.nextUri);
    validateStatement(failed.body, false);
    expect(failed.body.error.errorName).to.equal('INVALID_SESSION_PROPERTY');

    const busy = await startTestServer({ engine: engine(), config: { maxRunningQueries: 1, maxQueuedQueries: 0, longPollMs: 50 } });
    try {
      const running = await request('POST', `${busy.url}/v1/statement`, { body: 'SELECT slow' });
      expect(running.body.stats.state).to.equal('RUNNING');
      const rejected = await request('POST', `${busy.url}/v1/statement`, { body: 'SELECT 1' });
      expect(rejected.status).to.equal(200);
      validateStatement(rejected.body, true);
      const full = await request('GET', rejected.body.nextUri);
      validateStatement(full.body, false);
      expect(full.body.error).to.include({ errorName: 'QUERY_QUEUE_FULL', errorType: 'INSUFFICIENT_RESOURCES' });
    } finally {
      await busy.stop();
    }
  });

  it('answers DDL with updateType (on the GETs, not the POST) and an empty column list', async () => {
    const { final, responses } = await runStatement(server.url, 'CREATE TABLE t');
    expectTrinoPaging(responses);
    expect(responses).to.have.length(2);
    expect(final.updateType).to.equal('CREATE TABLE');
    expect(final.columns).to.deep.equal([]);
    expect(final).not.to.have.property('data');
  });

  it('cancels with DELETE on nextUri: 204, then FAILED with USER_CANCELED', async () => {
    const post = await request('POST', `${server.url}/v1/statement`, { body: 'SELECT slow' });
    const del = await request('DELETE', post.body.nextUri);
    expect(del.status).to.equal(204);
    const next = await request('GET', post.body.nextUri);
    validateStatement(next.body, false);
    expect(next.body.stats.state).to.equal('FAILED');
    expect(next.body.error.errorName).to.equal('USER_CANCELED');
    expect(next.body).not.to.have.property('data');
    expect(fake.cancels).to.equal(1);
    const info = await request('GET', `${server.url}/v1/query/${post.body.id}`);
    validateResponse('query-info', info.body);
    expect(info.body.state).to.equal('FAILED');
    expect(info.body.errorCode.name).to.equal('USER_CANCELED');
  });

  it('a cancel after a page ends on a FAILED response without rows: the page taken before is not sent again', async () => {
    const post = await request('POST', `${server.url}/v1/statement`, { body: 'SELECT many' });
    const page = await request('GET', post.body.nextUri);
    expect(page.body.data.length).to.be.greaterThan(0);
    expect((await request('DELETE', page.body.nextUri)).status).to.equal(204);
    const next = await request('GET', page.body.nextUri);
    validateStatement(next.body, false);
    expect(next.body.stats.state).to.equal('FAILED');
    expect(next.body).not.to.have.property('data');
    expect(next.body).not.to.have.property('nextUri');
  });

  it('rejects empty SQL with 400 and an oversized statement with 413, and keeps serving', async () => {
    const empty = await request('POST', `${server.url}/v1/statement`, { body: '  ' });
    expect(empty.status).to.equal(400);
    validateResponse('error', empty.body);
    const huge = await request('POST', `${server.url}/v1/statement`, { body: 'x'.repeat(1_000_001) });
    expect(huge.status).to.equal(413);
    validateResponse('error', huge.body);
    const { rows } = await runStatement(server.url, 'SELECT 1');
    expect(rows).to.deep.equal([[1]]);
  });

  it('writes session-change headers with the prefix the request used', async () => {
    for (const prefix of ['X-Service-', 'X-Presto-', 'X-Trino-']) {
      const post = await request('POST', `${server.url}/v1/statement`, { body: 'USE tpch.tiny', headers: { [`${prefix}User`]: 'u' } });
      // a nextUri GET without family headers answers in the family of the query's POST
      const final = await request('GET', post.body.nextUri);
      expect(final.body.updateType).to.equal('USE');
      expect(final.headers.get(`${prefix}Set-Catalog`)).to.equal('tpch');
      expect(final.headers.get(`${prefix}Set-Schema`)).to.equal('tiny');
      expect(final.headers.get(`${prefix}Set-Session`)).to.equal('query_max_run_time=1+m');
      const others = ['X-Service-', 'X-Presto-', 'X-Trino-'].filter((p) => p !== prefix);
      for (const other of others) expect(final.headers.get(`${other}Set-Catalog`)).to.equal(null);
      // A client retrying the final token (its response was lost) gets the headers again with the body.
      const repeat = await request('GET', post.body.nextUri);
      expect(repeat.text).to.equal(final.text);
      for (const name of ['Set-Catalog', 'Set-Schema', 'Set-Session']) {
        expect(repeat.headers.get(`${prefix}${name}`)).to.equal(final.headers.get(`${prefix}${name}`));
      }
    }
  });

  it('rejects a mix of header families with 400', async () => {
    const res = await request('POST', `${server.url}/v1/statement`, { body: 'SELECT 1', headers: { 'X-Presto-User': 'a', 'X-Trino-User': 'b' } });
    expect(res.status).to.equal(400);
    validateResponse('error', res.body);
  });

  it('answers unknown routes with 404 and wrong methods with 405, as JSON', async () => {
    const missing = await request('GET', `${server.url}/v1/nothing`);
    expect(missing.status).to.equal(404);
    validateResponse('error', missing.body);
    const wrong = await request('PATCH', `${server.url}/v1/statement`);
    expect(wrong.status).to.equal(405);
    validateResponse('error', wrong.body);
  });
});
