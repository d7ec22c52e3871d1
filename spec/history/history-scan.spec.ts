// Reading the stored history never blocks the event loop and never reads more than
// query.history.max-scan-size bytes (lib/history/history-store.ts): system.runtime.completed_queries, the
// UI's search and GET /v1/query/{id} past memory read the files with awaits between chunks (no synchronous
// fs call on their path: a sinon spy on node:fs), newest first, and a search that reaches the bound stops,
// answering what it found (the UI's list says so in X-Vivace-History-Partial). Real files in a temp dir.
import { expect } from 'chai';
import fs, { mkdtempSync, rmSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sinon from 'sinon';
import type { QueryView } from '../../lib/actors/query-view.js';
import { SystemTablesBinding } from '../../lib/connectors/system/system-tables.js';
import { QueryHistoryStore } from '../../lib/history/history-store.js';
import { HISTORY_PARTIAL_HEADER } from '../../lib/http/ui-query.routes.js';
import { createTestEngine } from '../support/duckdb.js';
import { request, startTestServer, type TestServer } from '../support/http.js';
import { PrestoSession } from '../support/presto-session.js';
import { copiesOf, finishedViews } from './fixtures/finished-views.js';

const SYNC_CALLS = ['readFileSync', 'readSync', 'openSync', 'readdirSync', 'statSync', 'fstatSync', 'existsSync'] as const;

/** Spies on node:fs's synchronous calls (the named imports too); `calls()` lists those made since. */
function syncFsSpy(): { calls: () => string[]; restore: () => void } {
  const spies = SYNC_CALLS.map((name) => [name, sinon.spy(fs, name)] as const);
  syncBuiltinESMExports();
  return {
    calls: () => spies.filter(([, spy]) => spy.called).map(([name, spy]) => `${name}(${String(spy.firstCall.args[0])})`),
    restore: () => {
      for (const [, spy] of spies) spy.restore();
      syncBuiltinESMExports();
    },
  };
}

describe('history: reading the stored history', function () {
  this.timeout(60_000);
  let dir: string;
  let view: QueryView;
  const at = Date.UTC(2026, 10, 29, 6, 0, 0);

  before(async () => {
    [view] = await finishedViews(1);
  });
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'vivace-history-scan-'))));
  afterEach(() => {
    sinon.restore();
    syncBuiltinESMExports();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A store of `files` files of 10 queries each (ids from 0, oldest file first), all written. */
  async function filled(files: number, options: Partial<ConstructorParameters<typeof QueryHistoryStore>[0]> = {}) {
    const store = new QueryHistoryStore({ directory: join(dir, 'history'), maxAgeMs: 365 * 86_400_000, maxSizeBytes: 1 << 30, batchSize: 10, now: () => at, ...options });
    for (let f = 0; f < files; f++) {
      for (const copy of copiesOf(view, 10, at + f * 1000, f * 10)) store.append(copy);
      await store.settled();
    }
    return store;
  }

  it('reads without a synchronous fs call, yielding to the event loop between chunks, with the same answers', async () => {
    const store = await filled(40);
    const spy = syncFsSpy();
    let ticks = 0;
    let ticking = true;
    const tick = () => {
      ticks++;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const none = await store.recentRows(10, () => true, (row) => row.query === 'nothing matches');
    ticking = false;
    expect(none).to.deep.equal({ rows: [], complete: true });
    // Forty files read one by one: the loop turned while they were read.
    expect(ticks).to.be.greaterThan(20);
    const newest = await store.recentRows(3);
    expect(newest.rows.map((r) => r.query)).to.deep.equal(['SELECT 399 AS copy_399', 'SELECT 398 AS copy_398', 'SELECT 397 AS copy_397']);
    const records = await store.recentRecords(2, () => true, (row) => row.query.endsWith('_5'));
    expect(records.rows.map((r) => [r.query, r.info.query])).to.deep.equal([['SELECT 5 AS copy_5', 'SELECT 5 AS copy_5']]);
    const id = copiesOf(view, 1, at + 7000, 75)[0]!.queryId;
    expect((await store.find(id))?.query).to.equal('SELECT 75 AS copy_75');
    expect(spy.calls()).to.deep.equal([]);
    // The spy sees the store's own named imports: its start lists the directory synchronously.
    new QueryHistoryStore({ directory: store.directory, maxAgeMs: 365 * 86_400_000, maxSizeBytes: 1 << 30, batchSize: 10, now: () => at });
    expect(spy.calls()).to.include(`readdirSync(${store.directory})`);
    spy.restore();
  });

  it('keeps the newest rows whose JSON fits in maxRowBytes (the rows a worker\'s plan request carries), in memory and in files', async () => {
    const store = await filled(3);
    for (const copy of copiesOf(view, 5, at + 5000, 30)) store.append(copy); // 5 held in memory, not yet written
    const all = (await store.recentRows(100)).rows;
    expect(all).to.have.length(35);
    const sizes = all.map((row) => Buffer.byteLength(JSON.stringify(row)) + 1);
    for (const keep of [0, 1, 5, 6, 17, 35]) {
      const bound = sizes.slice(0, keep).reduce((a, b) => a + b, 0) + (keep < 35 ? sizes[keep]! - 1 : 0);
      const { rows, complete } = await store.recentRows(100, undefined, undefined, bound);
      expect(rows, `within ${bound} bytes`).to.deep.equal(all.slice(0, keep));
      expect(complete).to.equal(true);
    }
  });

  it('stops a read at query.history.max-scan-size, answering what it found and saying it stopped', async () => {
    const probe = await filled(1, { writerId: 'probe', directory: join(dir, 'probe') });
    const fileBytes = fs.statSync(probe.filePaths()[0]!).size;
    // Room for three files and a half: the fourth newest is cut, and lines cut by the bound are not read.
    const store = await filled(10, { maxScanBytes: Math.floor(fileBytes * 3.5) });
    const none = await store.recentRows(10, () => true, () => false);
    expect(none).to.deep.equal({ rows: [], complete: false });
    const all = await store.recentRows(1000);
    expect(all.complete).to.equal(false);
    expect(all.rows).to.have.length.within(30, 35);
    expect(all.rows[0]!.query).to.equal('SELECT 99 AS copy_99');
    // Found within the bound: complete, as a search whose limit is reached.
    expect(await store.recentRows(5)).to.include({ complete: true });
    const recent = copiesOf(view, 1, at + 9000, 95)[0]!.queryId;
    const old = copiesOf(view, 1, at, 5)[0]!.queryId;
    expect((await store.find(recent))?.query).to.equal('SELECT 95 AS copy_95');
    expect((await store.find(old))?.query).to.equal('SELECT 5 AS copy_5'); // one file holds that second
    const wide = await filled(0, { maxScanBytes: fileBytes });
    expect(await wide.recentRows(1000)).to.include({ complete: false });
  });

  describe('through the coordinator', () => {
    let server: TestServer;
    afterEach(async () => server?.stop());

    it('system.runtime.completed_queries, the UI search and GET /v1/query/{id} read with no synchronous fs call; the search says when it stopped', async () => {
      const history = await filled(6, { maxScanBytes: 32 << 10 });
      const system = new SystemTablesBinding();
      server = await startTestServer({ engine: await createTestEngine(2, { system }), system, history, config: { longPollMs: 100 } });
      const id = copiesOf(view, 1, at + 5000, 55)[0]!.queryId;
      const spy = syncFsSpy();
      const count = await new PrestoSession(server.url, { prefix: 'X-Trino-', user: 'alice' }).ok("SELECT count(*) FROM system.runtime.completed_queries WHERE query LIKE 'SELECT 5_ AS %'");
      const search = await request('GET', `${server.url}/ui/api/queryHistory?search=nothing_like_this`, { headers: { 'X-Trino-User': 'alice' } });
      const found = await request('GET', `${server.url}/ui/api/queryHistory?search=copy_59&limit=1`, { headers: { 'X-Trino-User': 'alice' } });
      const info = await request('GET', `${server.url}/v1/query/${id}`, { headers: { 'X-Trino-User': 'alice' } });
      const calls = spy.calls().filter((call) => call.includes(history.directory));
      spy.restore();
      expect(calls).to.deep.equal([]);
      expect(count.rows[0]![0]).to.equal(10);
      expect(search.body).to.deep.equal([]);
      expect(search.headers.get(HISTORY_PARTIAL_HEADER)).to.equal('max-scan-size');
      expect(found.body.map((q: { query: string }) => q.query)).to.deep.equal(['SELECT 59 AS copy_59']);
      expect(found.headers.get(HISTORY_PARTIAL_HEADER)).to.equal(null);
      expect(info.status).to.equal(200);
      expect(info.body.query).to.equal('SELECT 55 AS copy_55');
    });
  });
});
