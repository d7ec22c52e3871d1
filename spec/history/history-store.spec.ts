import { expect } from 'chai';
import { mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { QueryHistoryStore, historyStoreOf, queryIdSecond } from '../../lib/history/history-store.js';
import { defaultConfig, parseConfigProperties } from '../../lib/config.js';
import { finishedViews } from './fixtures/finished-views.js';


describe('history: the query history store', () => {
  let dir: string;
  let clock: number;
  const store = (overrides: Partial<ConstructorParameters<typeof QueryHistoryStore>[0]> = {}) =>
    new QueryHistoryStore({ directory: dir, maxAgeMs: 3_600_000, maxSizeBytes: 1 << 20, batchSize: 3, now: () => clock, ...overrides });
  const jsonFiles = () => readdirSync(dir).filter((n) => n.endsWith('.jsonl'));

  beforeEach(() => {
    dir = join(mkdtempSync(join(tmpdir(), 'vivace-history-')), 'history');
    clock = Date.now();
  });
  afterEach(() => rmSync(join(dir, '..'), { recursive: true, force: true }));

  it('writes whole batches of JSON lines that DuckDB reads, and never holds more than one batch', async () => {
    const views = await finishedViews(7);
    const history = store();
    for (const [i, view] of views.entries()) {
      history.append(view);
      await history.settled();
      expect(history.pending, `after ${i + 1}`).to.equal((i + 1) % 3);
    }
    expect(jsonFiles()).to.have.length(2);
    await history.close();
    expect(jsonFiles()).to.have.length(3);
    expect(history.pending).to.equal(0);

    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    const files = history.filePaths().map((p) => `'${p.replaceAll("'", "''")}'`).join(', ');
    const reader = await connection.runAndReadAll(`SELECT queryId, "user", state, query, outputRows, info.queryStats.outputPositions AS positions FROM read_json([${files}]) ORDER BY queryId`);
    const rows = reader.getRowObjectsJS();
    expect(rows.map((r) => r.queryId)).to.deep.equal(views.map((v) => v.queryId).sort());
    expect(rows[0]).to.include({ user: 'alice', state: 'FINISHED', query: 'SELECT 1', outputRows: 1n, positions: 1n });
    connection.closeSync();
    instance.closeSync();
  });

  it('survives a restart, and a killed coordinator loses at most the batch it held', async () => {
    const views = await finishedViews(5);
    const first = store();
    for (const view of views) first.append(view);
    await first.settled();
    // Killed: no close(). A batch cut short while written leaves a temporary file, which is not read: an
    // hour later it is a dead writer's and the next store removes it; a fresh one may be another
    // coordinator's write in flight, and stays.
    const dead = join(dir, `000000000000000-999999999999999-000000000000009-dead.jsonl.tmp`);
    writeFileSync(dead, '{"queryId":"half');
    utimesSync(dead, new Date(clock - 3_700_000), new Date(clock - 3_700_000));
    writeFileSync(join(dir, `000000000000000-999999999999999-000000000000001-other.jsonl.tmp`), '{"queryId":"half');
    const second = store();
    expect(readdirSync(dir).filter((n) => n.endsWith('.tmp'))).to.deep.equal(['000000000000000-999999999999999-000000000000001-other.jsonl.tmp']);
    for (const view of views.slice(0, 3)) expect((await second.find(view.queryId))?.info).to.include({ queryId: view.queryId, state: 'FINISHED', query: 'SELECT 1' });
    for (const view of views.slice(3)) expect(await second.find(view.queryId)).to.equal(undefined);
    second.append(views[3]!);
    await second.close();
    expect(jsonFiles().sort()).to.have.length(2);
    expect((await new QueryHistoryStore({ directory: dir, maxAgeMs: 3_600_000, maxSizeBytes: 1 << 20, batchSize: 3, now: () => clock }).find(views[3]!.queryId))?.queryId).to.equal(views[3]!.queryId);
  });

  it('finds a query in the batch it holds, and by its id in the right file only', async () => {
    const views = await finishedViews(4);
    const history = store();
    for (const view of views) history.append(view);
    expect((await history.find(views[3]!.queryId))?.queryId).to.equal(views[3]!.queryId);
    expect((await history.find(views[0]!.queryId))?.user).to.equal('alice');
    await history.settled();
    expect((await history.find(views[0]!.queryId))?.user).to.equal('alice');
    expect(await history.find('20260101_000000_00000_xxxxx')).to.equal(undefined);
    expect(await history.find('not an id')).to.equal(undefined);
    expect(queryIdSecond(views[0]!.queryId)).to.be.a('number');
    expect(queryIdSecond('20261129_065237_00001_abcde')).to.equal(Date.UTC(2026, 10, 29, 6, 52, 37));
    expect(queryIdSecond('2026112x_065237_00001_abcde')).to.equal(undefined);
  });

  it('removes files past query.history.max-age and the oldest beyond query.history.max-size', async () => {
    const views = await finishedViews(6);
    const history = store({ batchSize: 1 });
    for (const view of views.slice(0, 2)) history.append(view);
    await history.settled();
    expect(jsonFiles()).to.have.length(2);
    const oneFile = readFileSync(history.filePaths()[0]!).length;
    // max-age: an hour after the older query (to the millisecond) both files are kept; past the newer one's, a store
    // started on the directory removes them (as does a batch written then: the new one is as old).
    const created = views.slice(0, 2).map((v) => v.createTime);
    clock = Math.min(...created) + 3_600_000;
    expect(store().filePaths()).to.have.length(2);
    clock = Math.max(...created) + 3_600_001;
    expect(store().filePaths()).to.have.length(0);
    expect(jsonFiles()).to.deep.equal([]);
    expect(await history.find(views[0]!.queryId)).to.equal(undefined);
    clock = Date.now();
    history.append(views[2]!);
    await history.settled();
    // max-size: room for two files, the oldest go first.
    const sized = store({ batchSize: 1, maxSizeBytes: Math.floor(oneFile * 2.5) });
    for (const view of views.slice(3)) {
      sized.append(view);
      await sized.settled();
    }
    expect(sized.filePaths()).to.have.length(2);
    expect(await sized.find(views[5]!.queryId)).to.not.equal(undefined);
    expect(await sized.find(views[2]!.queryId)).to.equal(undefined);
  });

  it('drops a batch it cannot write and says so, without throwing (memory stays bounded)', async () => {
    const views = await finishedViews(2);
    const errors: string[] = [];
    const history = store({ batchSize: 1, onError: (message) => errors.push(message) });
    rmSync(dir, { recursive: true, force: true }); // the directory is gone: the write fails
    expect(() => history.append(views[0]!)).to.not.throw();
    await history.settled();
    expect(errors).to.have.length(1);
    expect(errors[0]).to.contain('could not write 1 finished queries');
    expect(history.pending).to.equal(0);
    expect(history.filePaths()).to.deep.equal([]);
  });

  it('skips a damaged line instead of failing a lookup or a scan', async () => {
    const views = await finishedViews(2);
    const history = store({ batchSize: 2 });
    for (const view of views) history.append(view);
    await history.settled();
    const [path] = history.filePaths();
    const lines = readFileSync(path!, 'utf8').split('\n');
    writeFileSync(path!, [`{"queryId":${JSON.stringify(views[0]!.queryId)},"user":alice,"info":{}}`, lines[1]].join('\n'));
    expect(await history.find(views[0]!.queryId)).to.equal(undefined);
    expect((await history.find(views[1]!.queryId))?.queryId).to.equal(views[1]!.queryId);
    expect((await history.recentRows(10)).rows.map((r) => r.queryId)).to.deep.equal([views[1]!.queryId]);
  });

  it('reads query.history.* and keeps its files under <data.directory>/history', async () => {
    const config = { ...defaultConfig(), ...parseConfigProperties('query.history.max-age=2d\nquery.history.max-size=10MB\nquery.history.batch-size=5\nquery.history.flush-interval=1s\nquery.history.batch-max-size=1MB\nquery.history.max-scan-size=8MB\n') };
    expect(config).to.include({ queryHistoryMaxAgeMs: 2 * 86_400_000, queryHistoryMaxSizeBytes: 10 * 1024 * 1024, queryHistoryBatchSize: 5, queryHistoryFlushIntervalMs: 1000, queryHistoryBatchMaxBytes: 1 << 20, queryHistoryMaxScanBytes: 8 << 20 });
    const history = historyStoreOf({ ...config, dataDirectory: join(dir, '..') });
    expect(history?.directory).to.equal(dir);
    await history?.close();
    expect(historyStoreOf({ ...config, ...parseConfigProperties('query.history.enabled=false\n') })).to.equal(undefined);
  });
});
