import { expect } from 'chai';
import { isLastResponse, renderStatement } from '../../lib/protocol/statement-response.js';
import type { QueryView } from '../../lib/protocol/query-view.types.js';
import { testSession } from '../support/actors.js';
import { TEXT_PAGE_MAX_BYTES } from '../../lib/engine/row-batch.js';

function view(overrides: Partial<QueryView> = {}): QueryView {
  return {
    queryId: '20261122_000000_00000_aaaaa',
    state: 'RUNNING',
    done: false,
    queued: false,
    scheduled: true,
    session: testSession(),
    sql: 'SELECT x',
    columns: [{ name: 'x', type: { base: 'varchar' } }],
    createTime: 1000,
    lastHeartbeat: 1000,
    planningStartTime: 1001,
    executionStartTime: 1002,
    viewTime: 1010,
    outputRows: 2,
    outputBytes: 13,
    rootStage: {
      stageId: '0', state: 'RUNNING', done: false, nodes: 1, totalSplits: 1, queuedSplits: 0, runningSplits: 1, completedSplits: 0,
      cpuTimeMillis: 0, wallTimeMillis: 8, processedRows: 2, processedBytes: 13, physicalInputRows: 2, physicalInputBytes: 13, outputRows: 2, subStages: [],
    },
    ...overrides,
  };
}

describe('renderStatement', () => {
  const links = { infoUri: 'http://h/v1/query/q', nextUri: 'http://h/v1/statement/q/2' };
  const rows = '["é"],["b"]';

  it('splices the pre-rendered rows in as data, with columns, stats and the links', () => {
    const body = JSON.parse(String(renderStatement(view(), links, 'presto', { json: rows, rows: 2, bytes: Buffer.byteLength(rows) })));
    expect(body).to.deep.include({ id: view().queryId, infoUri: links.infoUri, nextUri: links.nextUri, data: [['é'], ['b']], warnings: [] });
    expect(body.columns[0]).to.include({ name: 'x', type: 'varchar' });
    expect(body.stats).to.include({ state: 'RUNNING', scheduled: true, processedRows: 2, nodes: 1 });
    expect(body.stats.rootStage).to.include({ stageId: '0', state: 'RUNNING', done: false });
  });

  it('omits data for a page without rows, and reports an update count when there is one', () => {
    const body = JSON.parse(String(renderStatement(view({ updateType: 'INSERT', updateCount: 3 }), links, 'presto', { json: '', rows: 0, bytes: 0 })));
    expect(body).to.not.have.property('data');
    expect(body).to.include({ updateType: 'INSERT', updateCount: 3 });
  });

  it('splices a large page given as UTF-8 pieces in as pieces: the same response, never decoded', () => {
    const big = Array.from({ length: 8000 }, (_, i) => `["é${i}"]`).join(',');
    const bytes = Buffer.from(big);
    expect(bytes.length).to.be.greaterThan(TEXT_PAGE_MAX_BYTES);
    const errorView = view({ error: { message: 'ü' } as never });
    const text = renderStatement(errorView, links, 'trino', { json: big, rows: 8000, bytes: bytes.length });
    // Cut inside a character, as a socket may.
    const pieces = renderStatement(errorView, links, 'trino', { json: [bytes.subarray(0, 3), bytes.subarray(3)], rows: 8000, bytes: bytes.length });
    expect(pieces).to.be.an('array');
    expect(typeof text).to.equal('string');
    expect(Buffer.concat(pieces as Buffer[]).equals(Buffer.from(text as string, 'utf8'))).to.equal(true);
  });

  it('splices a small page given as pieces in as text (one string body is the cheaper write)', () => {
    const small = renderStatement(view(), links, 'trino', { json: [Buffer.from(rows).subarray(0, 2), Buffer.from(rows).subarray(2)], rows: 2, bytes: Buffer.byteLength(rows) });
    expect(small).to.equal(renderStatement(view(), links, 'trino', { json: rows, rows: 2, bytes: Buffer.byteLength(rows) }));
  });

  it('never renders data as an empty list: a page without rows omits it', () => {
    const body = JSON.parse(String(renderStatement(view({ state: 'FINISHED', done: true }), { infoUri: links.infoUri }, 'trino', { json: '', rows: 0, bytes: 0 })));
    expect(body).to.not.have.property('data');
    expect(body).to.not.have.property('nextUri');
  });
});

describe('isLastResponse (Trino: rows always link to a next response)', () => {
  const page = { json: '[1]', rows: 1, bytes: 3 };
  const empty = { json: '', rows: 0, bytes: 0 };

  it('a running query links on, with or without rows', () => {
    expect(isLastResponse(view(), page)).to.equal(false);
    expect(isLastResponse(view(), undefined)).to.equal(false);
  });

  it('a finished query links on while the response carries rows, and ends on the response without', () => {
    const finished = view({ state: 'FINISHED', done: true });
    expect(isLastResponse(finished, page)).to.equal(false);
    expect(isLastResponse(finished, empty)).to.equal(true);
    expect(isLastResponse(finished, undefined)).to.equal(true);
  });

  it('a failed query ends at once', () => {
    expect(isLastResponse(view({ state: 'FAILED', done: true }), undefined)).to.equal(true);
  });
});
