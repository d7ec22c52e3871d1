// Runaway work is refused or contained: a statement that would build a huge value fails at once, and a
// cancelled heavy statement stops using CPU; resident memory stays bounded throughout.
import { expect } from 'chai';
import { setTimeout as delay } from 'node:timers/promises';
import { createTestEngine } from '../support/duckdb.js';
import { request, startTestServer, type TestServer } from '../support/http.js';
import { PrestoSession } from '../support/presto-session.js';

/** Share of one core this process used over `windowMs` (DuckDB's threads included). */
async function cpuShare(windowMs: number): Promise<number> {
  const before = process.cpuUsage();
  const started = performance.now();
  await delay(windowMs); // a measurement window, not a wait for the server's timer
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / (performance.now() - started);
}

describe('security: runaway statements', function () {
  this.timeout(60_000);
  let server: TestServer;

  before(async () => {
    server = await startTestServer({ engine: await createTestEngine(4) });
  });
  after(() => server?.stop());

  it('refuses a sequence of 100 million entries at once, before anything is built', async () => {
    const rss = process.memoryUsage.rss();
    const started = performance.now();
    const out = await new PrestoSession(server.url).execute('SELECT count(*) FROM UNNEST(sequence(1, 100000000))');
    expect(performance.now() - started).to.be.below(2000);
    expect(out.error).to.include({ errorName: 'INVALID_FUNCTION_ARGUMENT', message: 'result of sequence function must not have more than 10000 entries' });
    expect(process.memoryUsage.rss() - rss).to.be.below(200 << 20);
  });

  it('stops using CPU within a second or two of a cancel', async () => {
    const heavy = 'SELECT count(*) FROM UNNEST(sequence(1, 10000)) a, UNNEST(sequence(1, 10000)) b, UNNEST(sequence(1, 10000)) c';
    const first = await request('POST', `${server.url}/v1/statement`, { body: heavy, headers: { 'X-Trino-User': 'spec' } });
    expect(first.status).to.equal(200);
    // Busy: the engine's threads work on it (at least half a core).
    let busy = 0;
    for (let i = 0; i < 20 && busy < 0.5; i++) busy = await cpuShare(250);
    expect(busy, 'CPU share while running').to.be.at.least(0.5);
    const rssRunning = process.memoryUsage.rss();
    const cancel = await request('DELETE', first.body.nextUri);
    expect(cancel.status).to.equal(204);
    let idle = 1;
    for (let i = 0; i < 12 && idle > 0.2; i++) idle = await cpuShare(250);
    expect(idle, 'CPU share after the cancel').to.be.below(0.2);
    expect(process.memoryUsage.rss() - rssRunning).to.be.below(200 << 20);
    const state = await request('GET', `${server.url}/v1/query/${first.body.id}`);
    expect(state.body.state).to.equal('FAILED');
    expect(state.body.errorCode.name).to.equal('USER_CANCELED');
  });
});
