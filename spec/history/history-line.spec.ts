import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sinon from 'sinon';
import type { QueryView, StageView } from '../../lib/actors/query-view.js';
import type { SubStageTask } from '../../lib/engine/engine.types.js';
import { historyLine } from '../../lib/history/history-line.js';
import { historyRow } from '../../lib/history/history-row.js';
import { QueryHistoryStore } from '../../lib/history/history-store.js';
import { renderQueryInfo } from '../../lib/protocol/query-info.js';
import { BIGINT_COLUMN, FakeEngine } from '../support/fake-engine.js';
import { runStatement, startTestServer } from '../support/http.js';

/** What a history line held before history-line.ts: the row and the info built as objects, then stringified. */
function recordText(view: QueryView): string {
  const { self: _self, ...info } = renderQueryInfo(view, '');
  return JSON.stringify({ ...historyRow(view), info });
}

function task(taskId: string, nodeId: string, state: SubStageTask['state'], n: number): SubStageTask {
  return {
    taskId, fragmentId: 1, partition: 0, nodeId, state, splits: n, outputRows: 10 * n, outputBytes: 100 * n + 0.5,
    processedRows: 7 * n, processedBytes: 70 * n, cpuTimeMillis: 1.2345 * n, wallTimeMillis: 1500.5 * n, peakMemoryBytes: 1000 * n,
  } as SubStageTask;
}

function stage(root: StageView, id: number, overrides: Partial<StageView> = {}): StageView {
  return { ...root, stageId: String(id), subStages: [], outputRows: 3 * id, cpuTimeMillis: 61_000.25, wallTimeMillis: 12.3456, processedRows: 5, processedBytes: 1e22, ...overrides };
}

/** Variations of a real final view: each field the line writes on its own, in the shapes a query can leave. */
function variations(finished: QueryView, failed: QueryView): QueryView[] {
  const root = finished.rootStage;
  const distributed: StageView = {
    ...root,
    subStages: [
      stage(root, 1, { tasks: [task('q.1.0', 'w1', 'FINISHED', 2), task('q.1.1', 'w2', 'RUNNING', 3), task('q.1.2', 'w1', 'PLANNED', 1)], subStages: [stage(root, 3, { tasks: [] })] }),
      stage(root, 2, { tasks: [task('q.2.0', 'w2', 'FINISHED', 4)] }),
    ],
    tasks: [task('q.0.0', 'coordinator', 'FINISHED', 1)],
  };
  return [
    finished,
    failed,
    { ...finished, rootStage: distributed, outputBytes: 123_456_789, outputRows: 42 },
    { ...finished, done: false, state: 'RUNNING', scheduled: false, endTime: undefined, executionStartTime: undefined, planningStartTime: undefined },
    { ...finished, resourceGroupId: ['global', 'adhoc', 'user_"bob"'], warnings: [{ warningCode: { code: 1, name: 'DEPRECATED' }, message: 'a "quoted"\nwarning \u2028' }] },
    { ...finished, resourceGroupId: undefined, columns: undefined, updateType: 'SET SESSION', sessionUpdates: { setCatalog: 'hive', setSchema: 'web', setSessionProperties: { a: '1' }, resetSessionProperties: ['b'], addedPreparedStatements: { p: 'SELECT ?' }, deallocatedPreparedStatements: ['q'] } },
    {
      ...finished,
      sql: 'SELECT \'\u00e9\u{1F600}\\\u0000\' -- "x"\t',
      session: { ...finished.session, user: 'b\u00f6b "x"', source: 'trino-cli\u2028\u007f\u00ff', catalog: 'tpch', schema: 'sf1', timeZone: 'America/New_York', userAgent: 'agent/1', clientInfo: '{"k":1}', clientTags: ['a', 'b"'], properties: { query_max_run_time: '1m' } },
    },
    { ...finished, session: { ...finished.session, timeZone: '+05:30' }, createTime: 1, lastHeartbeat: 86_400_000 * 365 * 9000, outputRows: Number.NaN, outputBytes: -5 },
    { ...failed, error: { ...failed.error!, errorName: 'NOT_A_KNOWN_ERROR', errorCode: 65_536, errorLocation: undefined, message: 'a lone \ud800 surrogate,\r\n a "quote"' } },
    // Values that break their types at run time are written as JSON.stringify writes them.
    { ...finished, session: { ...finished.session, source: null, remoteUserAddress: undefined, startTime: Number.POSITIVE_INFINITY } as unknown as QueryView['session'], lastHeartbeat: -0 },
  ];
}

describe('history: one line per finished query, written straight from its view', () => {
  let views: QueryView[];
  let dir: string;

  before(async () => {
    const server = await startTestServer({ engine: new FakeEngine({ 'SELECT 1': { columns: [BIGINT_COLUMN('_col0')], rows: [[1]] } }), config: { longPollMs: 50 } });
    const final = async (sql: string) => {
      const { final } = await runStatement(server.url, sql, { 'X-Trino-User': 'alice' });
      return server.coordinator.waitFor(server.coordinator.lookup(final.id)!, () => false, 5000);
    };
    const finished = await final('SELECT 1');
    const failed = await final('SELECT no_such_thing');
    await server.stop();
    expect(finished.state).to.equal('FINISHED');
    expect(failed.state).to.equal('FAILED');
    views = variations(finished, failed);
  });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'vivace-history-line-'));
  });
  afterEach(() => {
    sinon.restore();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is, character for character, the row and /v1/query/{id} info stringified as objects', () => {
    for (const [i, view] of views.entries()) expect(historyLine(view), `variation ${i}`).to.equal(recordText(view));
  });

  it('is what the store writes and what its readers parse back', async () => {
    const store = new QueryHistoryStore({ directory: join(dir, 'history'), maxAgeMs: 3_600_000, maxSizeBytes: 1 << 20, batchSize: 100, now: Date.now });
    for (const view of views) store.append(view);
    await store.close();
    const lines = store.filePaths().flatMap((path) => readFileSync(path, 'utf8').split('\n').filter((l) => l.length > 0));
    expect(lines).to.deep.equal(views.map(recordText));
    // The variations share their ids: an id stored twice answers its newest line.
    const newest = [...views].reverse().find((v) => v.queryId === views[1]!.queryId)!;
    const { self: _self, ...info } = renderQueryInfo(newest, '');
    expect((await store.find(views[1]!.queryId))?.info).to.deep.equal(JSON.parse(JSON.stringify(info)));
  });

  it('builds no record object to stringify: the saving figure q measures', async () => {
    // Reverting to JSON.stringify({ ...historyRow(view), info }) walks the whole record (an object with `info`)
    // once per query; the line only stringifies strings and values of no fixed shape.
    const stringify = sinon.spy(JSON, 'stringify');
    const store = new QueryHistoryStore({ directory: join(dir, 'history'), maxAgeMs: 3_600_000, maxSizeBytes: 1 << 20, batchSize: 100, now: Date.now });
    for (const view of views) store.append(view);
    const walked = stringify.getCalls().filter((call) => {
      const value: unknown = call.args[0];
      return value !== null && typeof value === 'object' && ('info' in value || 'queryStats' in value || 'outputStage' in value || 'queryId' in value);
    });
    stringify.restore();
    await store.close();
    expect(walked).to.have.length(0);
  });
});
