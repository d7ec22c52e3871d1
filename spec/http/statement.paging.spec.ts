// The statement protocol's pages as Trino shapes them (Query.getNextResult), on the real engine: a response
// with rows always has a nextUri, and the response without one carries no rows. So a client that reads the
// last response again (trino-client's iterator returns it once more with done: true) cannot double a page.
import { expect } from 'chai';
import type { Engine } from '../../lib/engine/engine.types.js';
import { createTestEngine } from '../support/duckdb.js';
import { request, runStatement, startTestServer, type TestServer } from '../support/http.js';
import { expectTrinoPaging } from '../support/statement-paging.js';

describe('statement paging as Trino shapes it (DuckDB)', function () {
  this.timeout(30_000);
  let server: TestServer;
  let engine: Engine;
  before(async () => {
    engine = await createTestEngine();
    server = await startTestServer({ engine, config: { targetResultBytes: 16 * 1024 } });
  });
  after(async () => {
    await server.stop();
    await engine.close();
  });

  it('SELECT 1: POST, a page with the row and a nextUri, and a last page without rows', async () => {
    const { responses, rows } = await runStatement(server.url, 'SELECT 1 AS one');
    expectTrinoPaging(responses);
    expect(rows).to.deep.equal([[1]]);
    expect(responses).to.have.length(3);
    const [post, page, last] = responses;
    expect(post).not.to.have.property('data');
    expect(page.data).to.deep.equal([[1]]);
    // The query ended when its last rows were handed out; the page says so and still links on.
    expect(page.stats.state).to.equal('FINISHED');
    expect(page.nextUri).to.match(new RegExp(`^${server.url}/v1/statement/${post.id}/2\\.y[0-9a-f]{40}$`));
    expect(page).not.to.have.property('partialCancelUri');
    expect(last.stats).to.include({ state: 'FINISHED', scheduled: true });
    expect(last.columns.map((c: any) => c.name)).to.deep.equal(['one']);
  });

  it('an empty result ends on the first GET: FINISHED, columns, no rows, no nextUri', async () => {
    const { responses, rows, final } = await runStatement(server.url, 'SELECT 1 AS one WHERE false');
    expectTrinoPaging(responses);
    expect(final.stats.state).to.equal('FINISHED');
    expect(rows).to.deep.equal([]);
    expect(responses).to.have.length(2);
    expect(responses[1].columns.map((c: any) => c.name)).to.deep.equal(['one']);
  });

  it('a multi-page result: every row once, in order, the last rows on a page with a nextUri', async () => {
    const n = 20_000; // 20 x 1,000: a sequence has at most 10,000 entries
    const { responses, rows, final } = await runStatement(
      server.url,
      "SELECT a * 1000 + b AS i, 'row-' || CAST(a * 1000 + b AS varchar) AS s FROM UNNEST(sequence(0, 19)) AS x(a) CROSS JOIN UNNEST(sequence(0, 999)) AS y(b) ORDER BY i",
    );
    expectTrinoPaging(responses);
    expect(final.stats.state).to.equal('FINISHED');
    expect(rows).to.have.length(n);
    expect(rows.every((row, i) => row[0] === i && row[1] === `row-${i}`)).to.equal(true);
    const pages = responses.filter((r) => r.data);
    expect(pages.length).to.be.greaterThan(3);
    expect(pages.reduce((sum, r) => sum + r.data.length, 0)).to.equal(n);
    const lastPage = pages[pages.length - 1];
    expect(lastPage.data[lastPage.data.length - 1]).to.deep.equal([n - 1, `row-${n - 1}`]);
    expect(lastPage.nextUri).to.be.a('string');
  });

  it('the last response read again is the identical body, still without rows; the token after it is 404', async () => {
    const post = await request('POST', `${server.url}/v1/statement`, { body: 'SELECT 7 AS seven' });
    const page = await request('GET', post.body.nextUri);
    expect(page.body.data).to.deep.equal([[7]]);
    const last = await request('GET', page.body.nextUri);
    const again = await request('GET', page.body.nextUri);
    expect(again.status).to.equal(200);
    expect(again.text).to.equal(last.text);
    expect(again.body).not.to.have.property('data');
    // The next number under the last token's slug: not an address this query handed out.
    const beyond = await request('GET', page.body.nextUri.replace(/\/(\d+)\.(y[0-9a-f]{40})$/, (_m: string, t: string, slug: string) => `/${Number(t) + 1}.${slug}`));
    expect(beyond.status).to.equal(404);
    expect((await request('GET', post.body.nextUri)).status).to.equal(410);
  });

  describe('DML and DDL, as Trino pages them', () => {
    const table = 'memory.default.paging_spec';
    before(async () => {
      await runStatement(server.url, `DROP TABLE IF EXISTS ${table}`);
    });
    after(async () => {
      await runStatement(server.url, `DROP TABLE IF EXISTS ${table}`);
    });

    it('CREATE TABLE: updateType on the GETs (not the POST), no rows, no updateCount', async () => {
      const { responses, rows } = await runStatement(server.url, `CREATE TABLE ${table} (a bigint)`);
      expectTrinoPaging(responses);
      expect(rows).to.deep.equal([]);
      expect(responses).to.have.length(2);
      expect(responses[1]).to.include({ updateType: 'CREATE TABLE' });
      expect(responses[1].stats.state).to.equal('FINISHED');
      expect(responses[1]).not.to.have.property('updateCount');
      expect(responses[1].columns).to.deep.equal([]);
    });

    it('INSERT: the count row comes on a page with a nextUri; the last page has updateType and updateCount, no rows', async () => {
      const { responses, rows } = await runStatement(server.url, `INSERT INTO ${table} VALUES (1), (2), (3)`);
      expectTrinoPaging(responses);
      expect(rows).to.deep.equal([[3]]);
      expect(responses).to.have.length(3);
      const [, page, last] = responses;
      expect(page).to.include({ updateType: 'INSERT', updateCount: 3 });
      expect(page.data).to.deep.equal([[3]]);
      expect(page.columns.map((c: any) => [c.name, c.type])).to.deep.equal([['rows', 'bigint']]);
      expect(last).to.include({ updateType: 'INSERT', updateCount: 3 });
      expect(last.stats.state).to.equal('FINISHED');
    });

    it('DELETE and CREATE TABLE AS: the same pages, with their own counts', async () => {
      const deleted = await runStatement(server.url, `DELETE FROM ${table} WHERE a > 1`);
      expectTrinoPaging(deleted.responses);
      expect(deleted.rows).to.deep.equal([[2]]);
      expect(deleted.final).to.include({ updateType: 'DELETE', updateCount: 2 });
      const copy = `${table}_copy`;
      try {
        const created = await runStatement(server.url, `CREATE TABLE ${copy} AS SELECT a FROM ${table}`);
        expectTrinoPaging(created.responses);
        expect(created.rows).to.deep.equal([[1]]);
        expect(created.final).to.include({ updateType: 'CREATE TABLE', updateCount: 1 });
      } finally {
        await runStatement(server.url, `DROP TABLE IF EXISTS ${copy}`);
      }
    });
  });

  it('a failed query: FAILED with its error, no rows and no nextUri', async () => {
    const syntax = await runStatement(server.url, 'SELEC 1');
    expectTrinoPaging(syntax.responses);
    expect(syntax.final.error.errorName).to.equal('SYNTAX_ERROR');
    const missing = await runStatement(server.url, 'SELECT * FROM memory.default.no_such_table');
    expectTrinoPaging(missing.responses);
    expect(missing.final.stats.state).to.equal('FAILED');
    expect(missing.rows).to.deep.equal([]);
  });
});
