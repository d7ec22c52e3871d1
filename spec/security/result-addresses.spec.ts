// Another client that knows only a query's id (anyone can list ids in /v1/query) can neither read its
// rows, nor cancel it, nor cut its result short: every address carries the query's slug.
import { expect } from 'chai';
import { createTestEngine } from '../support/duckdb.js';
import { request, startTestServer, validateStatement, type TestServer } from '../support/http.js';
import { validateResponse } from '../support/schema-validator.js';

const ROWS = 3000;
const SQL = `SELECT x, 'row-' || CAST(x AS varchar) AS label FROM UNNEST(sequence(1, ${ROWS})) AS t(x)`;

describe('security: result addresses nobody can guess', function () {
  this.timeout(30_000);
  let server: TestServer;

  before(async () => {
    server = await startTestServer({ engine: await createTestEngine(2), config: { targetResultBytes: 8 * 1024, longPollMs: 200 } });
  });
  after(() => server?.stop());

  /** Reads the rest of a result from `uri`, the way its rightful client does. */
  async function readAll(uri: string | undefined): Promise<{ rows: unknown[][]; final: any }> {
    const rows: unknown[][] = [];
    let body: any;
    while (uri) {
      const res = await request('GET', uri);
      expect(res.status, uri).to.equal(200);
      validateStatement(res.body, false);
      body = res.body;
      rows.push(...(body.data ?? []));
      uri = body.nextUri;
    }
    return { rows, final: body };
  }

  async function expectNotFound(method: string, url: string): Promise<void> {
    const res = await request(method, url);
    expect(res.status, `${method} ${url}`).to.equal(404);
    if (method !== 'HEAD') validateResponse('error', res.body);
  }

  it('answers 404 to every address built from the id, and the owner still reads every row', async () => {
    const post = await request('POST', `${server.url}/v1/statement`, { body: SQL, headers: { 'X-Trino-User': 'alice' } });
    validateStatement(post.body, true);
    const id: string = post.body.id;
    const first = await request('GET', post.body.nextUri);
    expect(first.status).to.equal(200);
    const validToken = first.body.nextUri.slice(first.body.nextUri.lastIndexOf('/') + 1);
    const hex = validToken.slice(validToken.indexOf('.') + 2);
    const statement = `${server.url}/v1/statement/${id}`;
    // Guesses: bare numbers (the seed's old shape), other numbers under a seen slug, altered slugs.
    for (const token of ['1', '2', '3', '0', '2.y', `3.y${hex}`, `2.Y${hex}`, `2.y${hex.toUpperCase()}`, `02.y${hex}`, '%32', `2.y${'0'.repeat(40)}`]) {
      await expectNotFound('GET', `${statement}/${token}`);
      await expectNotFound('DELETE', `${statement}/${token}`);
      await expectNotFound('HEAD', `${statement}/${token}`);
    }
    // A NUL in the path is refused before any route (400), and changes nothing either.
    expect((await request('GET', `${statement}/2.y${hex}%00`)).status).to.equal(400);
    // Another query's valid token does not open this one.
    const other = await request('POST', `${server.url}/v1/statement`, { body: 'SELECT 1', headers: { 'X-Trino-User': 'mallory' } });
    const otherToken = other.body.nextUri.slice(other.body.nextUri.lastIndexOf('/') + 1);
    await expectNotFound('GET', `${statement}/${otherToken}`);
    // Partial cancel: the id alone, a wrong slug, another stage's or another query's slug.
    const stageSlug = post.body.partialCancelUri.slice(post.body.partialCancelUri.lastIndexOf('/') + 1);
    await expectNotFound('DELETE', `${server.url}/v1/stage/${id}.0`);
    await expectNotFound('DELETE', `${server.url}/v1/stage/${id}.0/y${'0'.repeat(40)}`);
    await expectNotFound('DELETE', `${server.url}/v1/stage/${id}.1/${stageSlug}`);
    await expectNotFound('DELETE', `${server.url}/v1/stage/${other.body.id}.0/${stageSlug}`);
    await expectNotFound('DELETE', `${server.url}/v1/stage/${id}.0/${stageSlug.toUpperCase()}`);

    const { rows, final } = await readAll(first.body.nextUri);
    const all = [...(first.body.data ?? []), ...rows];
    expect(final.stats.state).to.equal('FINISHED');
    expect(all.length).to.equal(ROWS);
    expect(all[ROWS - 1]).to.deep.equal([ROWS, `row-${ROWS}`]);
  });

  it('lets the rightful client cancel with its addresses', async () => {
    const post = await request('POST', `${server.url}/v1/statement`, { body: SQL });
    const first = await request('GET', post.body.nextUri);
    const partial = await request('DELETE', post.body.partialCancelUri);
    expect(partial.status).to.equal(204);
    const cancelled = await request('POST', `${server.url}/v1/statement`, { body: SQL });
    const del = await request('DELETE', cancelled.body.nextUri);
    expect(del.status).to.equal(204);
    const after = await request('GET', cancelled.body.nextUri);
    expect(after.body.stats.state).to.equal('FAILED');
    expect(after.body.error.errorName).to.equal('USER_CANCELED');
    await readAll(first.body.nextUri);
  });
});
