// Reliability of the statement protocol on the real engine: idempotent tokens, many concurrent clients,
// abandoned clients, and no leak after many queries.
import { expect } from 'chai';
import { SimulatedClock } from 'xstate';
import { createTestEngine } from '../support/duckdb.js';
import { pagesFetchedTwice, request, runStatement, startTestServer, type TestServer } from '../support/http.js';

describe('statement protocol reliability (DuckDB)', function () {
  this.timeout(120_000);

  describe('with the real clock', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ engine: await createTestEngine(), config: { targetResultBytes: 64 * 1024, maxHistory: 100, maxHistoryHard: 200 } });
    });
    after(() => server.stop());

    it('gives identical pages for a token fetched twice, through a multi-page result', async () => {
      // 20,000 rows of 50 characters (20 x 1,000: a sequence has at most 10,000 entries).
      const sql = "SELECT a * 1000 + b AS i, rpad('x', 50, 'x') AS s FROM UNNEST(sequence(0, 19)) AS x(a) CROSS JOIN UNNEST(sequence(0, 999)) AS y(b)";
      const post = await request('POST', `${server.url}/v1/statement`, { body: sql });
      const pages = (await pagesFetchedTwice(post.body.nextUri)).filter((p) => p.body.data);
      expect(pages.reduce((n, p) => n + p.body.data.length, 0)).to.equal(20000);
      expect(pages.length).to.be.greaterThan(3);
    });

    it('200 concurrent clients running 20 queries each lose no row and no query', async () => {
      const clients = Array.from({ length: 200 }, async (_, c) => {
        for (let q = 0; q < 20; q++) {
          const base = c * 1000 + q * 10;
          const { rows, final } = await runStatement(server.url, `SELECT ${base} + i AS v FROM UNNEST(sequence(0, 9)) AS t(i) ORDER BY v`);
          expect(final.stats.state).to.equal('FINISHED');
          expect(rows.map((r) => r[0])).to.deep.equal(Array.from({ length: 10 }, (_, i) => base + i));
        }
        return 20;
      });
      const done = await Promise.all(clients);
      expect(done.reduce((a, b) => a + b, 0)).to.equal(4000);
      expect(server.coordinator.liveQueryCount()).to.equal(0);
    });

    it('after 10,000 sequential queries the actor count is back to its start and history holds its bound', async () => {
      const before = server.coordinator.liveQueryCount();
      for (let i = 0; i < 10_000; i++) {
        const { final } = await runStatement(server.url, 'SELECT 1');
        if (final.stats.state !== 'FINISHED') throw new Error(`query ${i} ended ${final.stats.state}`);
      }
      expect(server.coordinator.liveQueryCount()).to.equal(before);
      expect(server.coordinator.list().length).to.be.at.most(200);
    });
  });

  describe('with a simulated clock', () => {
    let server: TestServer;
    let clock: SimulatedClock;
    before(async () => {
      clock = new SimulatedClock();
      clock.set(Date.now());
      server = await startTestServer({
        engine: await createTestEngine(2),
        clock,
        now: () => clock.now(),
        config: { clientTimeoutMs: 300_000, trackerIntervalMs: 1000, maxRunningQueries: 2 },
      });
    });
    after(() => server.stop());

    it('fails a query abandoned by its client with ABANDONED_QUERY and frees its connection', async () => {
      // Long enough to still run when the clock is advanced; interrupted by the abandonment.
      const sql =
        'SELECT count(*) FROM UNNEST(sequence(1, 10000)) AS x(a) CROSS JOIN UNNEST(sequence(1, 10000)) AS y(b) CROSS JOIN UNNEST(sequence(1, 10000)) AS z(c)';
      const post = await request('POST', `${server.url}/v1/statement`, { body: sql });
      expect(post.body.stats.state).to.equal('RUNNING');
      clock.increment(301_000);
      const info = await waitForState(server, post.body.id, 'FAILED');
      expect(info.errorCode.name).to.equal('ABANDONED_QUERY');
      expect(server.coordinator.liveQueryCount()).to.equal(0);
      // Both connections of the pool are usable again.
      const results = await Promise.all([runStatement(server.url, 'SELECT 1'), runStatement(server.url, 'SELECT 2')]);
      expect(results.map((r) => r.rows)).to.deep.equal([[[1]], [[2]]]);
    });
  });
});

/** Polls /v1/query/{id} (bounded) until the query reaches `state`. */
async function waitForState(server: TestServer, id: string, state: string): Promise<any> {
  for (let i = 0; i < 200; i++) {
    const res = await request('GET', `${server.url}/v1/query/${id}`);
    if (res.body.state === state) return res.body;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`query ${id} never reached ${state}`);
}
