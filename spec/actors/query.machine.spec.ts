import { expect } from 'chai';
import type { PlanAbort } from '../../lib/engine/plan-abort.js';
import { createActor, SimulatedClock } from 'xstate';
import { QUERY_CONTEXT_MAX_KEYS, queryMachine } from '../../lib/actors/query.machine.js';
import { hasResultsReady, queryStateOf, toQueryView } from '../../lib/actors/query-view.js';
import { VivaceError } from '../../lib/protocol/vivace-error.js';
import { BIGINT_COLUMN, FakeEngine } from '../support/fake-engine.js';
import { settle, testSession, TEST_LIMITS } from '../support/actors.js';
import { batchText } from '../../lib/engine/row-batch.js';

const rows = (n: number) => Array.from({ length: n }, (_, i) => [i]);

function startQuery(engine: FakeEngine, sql: string, clock = new SimulatedClock(), limits = TEST_LIMITS) {
  return createActor(queryMachine, {
    clock,
    input: { queryId: 'q1', sql, session: testSession(), engine, limits, now: () => clock.now() },
  }).start();
}

describe('queryMachine', () => {
  it('plans, runs, buffers pages and finishes when the client has taken the last one', async () => {
    const engine = new FakeEngine({ 'SELECT n': { columns: [BIGINT_COLUMN('n')], rows: rows(300), batchRows: 100 } });
    const query = startQuery(engine, 'SELECT n');
    expect(queryStateOf(query.getSnapshot())).to.equal('PLANNING');
    await settle();
    const running = toQueryView(query.getSnapshot());
    expect(running.columns).to.deep.equal([BIGINT_COLUMN('n')]);
    expect(running.rootStage.state).to.equal('RUNNING');
    expect(running.done).to.equal(false);

    const taken: unknown[] = [];
    for (let i = 0; i < 10 && query.getSnapshot().status === 'active'; i++) {
      await settle();
      expect(hasResultsReady(query.getSnapshot())).to.equal(true);
      query.send({ type: 'results.take' });
      const page = query.getSnapshot().context.page;
      if (page) taken.push(...JSON.parse(`[${batchText(page)}]`));
    }
    const final = toQueryView(query.getSnapshot());
    expect(taken).to.deep.equal(rows(300));
    expect(final.state).to.equal('FINISHED');
    expect(final.done).to.equal(true);
    expect(final.scheduled).to.equal(true);
    expect(final.rootStage).to.include({ state: 'FINISHED', done: true });
    expect(final.outputRows).to.equal(300);
    expect(engine.openExecutions).to.equal(0);
  });

  it(`keeps its context within ${QUERY_CONTEXT_MAX_KEYS} keys in every state (V8 copies larger ones slowly)`, async () => {
    const engine = new FakeEngine({
      'SELECT n': { columns: [BIGINT_COLUMN('n')], rows: rows(30), batchRows: 10 },
      bad: { columns: [BIGINT_COLUMN('n')], rows: rows(30), batchRows: 10, failAtBatch: { index: 1, error: new VivaceError('DIVISION_BY_ZERO', 'Division by zero') } },
    });
    const sizes: number[] = [];
    for (const sql of ['SELECT n', 'bad']) {
      const query = startQuery(engine, sql);
      query.subscribe((snapshot) => sizes.push(Object.keys(snapshot.context).length));
      for (let i = 0; i < 10 && query.getSnapshot().status === 'active'; i++) {
        await settle();
        query.send({ type: 'query.heartbeat' });
        query.send({ type: 'results.take' });
      }
      expect(query.getSnapshot().status).to.equal('done');
    }
    expect(sizes.length).to.be.greaterThan(10);
    expect(Math.max(...sizes)).to.be.at.most(QUERY_CONTEXT_MAX_KEYS);
  });

  it('never fetches more than the prefetch window ahead of the client', async () => {
    const engine = new FakeEngine({ 'SELECT n': { columns: [BIGINT_COLUMN('n')], rows: rows(1000), batchRows: 10 } });
    const query = startQuery(engine, 'SELECT n');
    await settle(20);
    expect(query.getSnapshot().context.results.buffer.length).to.equal(TEST_LIMITS.prefetchPages);
    query.send({ type: 'results.take' });
    await settle(20);
    expect(query.getSnapshot().context.results.buffer.length).to.be.at.most(TEST_LIMITS.prefetchPages);
  });

  it('fails with the planning error and never executes', async () => {
    const error = new VivaceError('TABLE_NOT_FOUND', "Table 'memory.default.x' does not exist");
    const engine = new FakeEngine({ bad: { columns: [], rows: [], planError: error } });
    const query = startQuery(engine, 'bad');
    await settle();
    const view = toQueryView(query.getSnapshot());
    expect(view.state).to.equal('FAILED');
    expect(view.error).to.include({ errorName: 'TABLE_NOT_FOUND', errorCode: 46 });
    expect(view.rootStage.state).to.equal('ABORTED');
    expect(engine.openExecutions).to.equal(0);
  });

  it('fails the same way when the engine throws from plan() instead of rejecting', async () => {
    const engine = new FakeEngine({});
    engine.plan = () => {
      throw new VivaceError('GENERIC_INTERNAL_ERROR', 'engine is closed');
    };
    const query = startQuery(engine, 'SELECT 1');
    await settle();
    const view = toQueryView(query.getSnapshot());
    expect(view.state).to.equal('FAILED');
    expect(view.error).to.include({ errorName: 'GENERIC_INTERNAL_ERROR', message: 'engine is closed' });
  });

  it('a query ended while planning aborts the engine\'s plan with its error, and releases a plan that settles later', async () => {
    const engine = new FakeEngine({});
    let signal: PlanAbort | undefined;
    let settlePlan: (() => void) | undefined;
    let released = 0;
    engine.plan = (_sql, _session, s) => {
      signal = s;
      return new Promise((resolve) => {
        settlePlan = () => resolve({ columns: [], execute: () => { throw new Error('never executed'); }, release: () => { released++; } });
      });
    };
    const query = startQuery(engine, 'SELECT 1');
    await settle();
    expect(queryStateOf(query.getSnapshot())).to.equal('PLANNING');
    expect(signal?.aborted).to.equal(false);
    query.send({ type: 'query.fail', error: new VivaceError('EXCEEDED_TIME_LIMIT', 'Query exceeded the maximum planning time limit of 1.00s') });
    expect(toQueryView(query.getSnapshot()).state).to.equal('FAILED');
    expect(signal?.aborted).to.equal(true);
    expect((signal?.reason as VivaceError).errorName).to.equal('EXCEEDED_TIME_LIMIT');
    settlePlan!();
    await settle();
    expect(released).to.equal(1);
  });

  it('cancel interrupts the engine and ends FAILED with USER_CANCELED, stages CANCELED', async () => {
    const engine = new FakeEngine({ slow: { columns: [BIGINT_COLUMN('n')], rows: rows(5), gated: true } });
    const query = startQuery(engine, 'slow');
    await settle();
    expect(queryStateOf(query.getSnapshot())).to.equal('RUNNING');
    query.send({ type: 'query.cancel' });
    engine.openGates();
    await settle();
    const view = toQueryView(query.getSnapshot());
    expect(view.state).to.equal('FAILED');
    expect(view.error?.errorName).to.equal('USER_CANCELED');
    expect(view.rootStage.state).to.equal('CANCELED');
    expect(engine.cancels).to.equal(1);
    expect(engine.openExecutions).to.equal(0);
  });

  it('a cancel during planning releases the plan once it arrives', async () => {
    const engine = new FakeEngine({ q: { columns: [BIGINT_COLUMN('n')], rows: rows(1) } });
    const query = startQuery(engine, 'q');
    query.send({ type: 'query.cancel' });
    await settle();
    expect(queryStateOf(query.getSnapshot())).to.equal('FAILED');
    expect(engine.releases).to.equal(1);
    expect(engine.openExecutions).to.equal(0);
  });

  it('an engine failure mid-stream fails the query with that error', async () => {
    const error = new VivaceError('DIVISION_BY_ZERO', 'Division by zero');
    const engine = new FakeEngine({ q: { columns: [BIGINT_COLUMN('n')], rows: rows(50), batchRows: 10, failAtBatch: { index: 1, error } } });
    const query = startQuery(engine, 'q');
    await settle();
    expect(toQueryView(query.getSnapshot()).error?.errorName).to.equal('DIVISION_BY_ZERO');
  });

  it('a failure after a take drops the page it handed out: a failed query has no rows to send again', async () => {
    const engine = new FakeEngine({ q: { columns: [BIGINT_COLUMN('n')], rows: rows(1000), batchRows: 10, gated: true } });
    const query = startQuery(engine, 'q');
    await settle();
    engine.openGates();
    await settle();
    query.send({ type: 'results.take' });
    expect(toQueryView(query.getSnapshot()).page?.rows).to.be.greaterThan(0);
    query.send({ type: 'query.cancel' });
    expect(queryStateOf(query.getSnapshot())).to.equal('FAILED');
    expect(toQueryView(query.getSnapshot()).page).to.equal(undefined);
  });

  it('partial cancel stops production and finishes with the rows already produced', async () => {
    const engine = new FakeEngine({ q: { columns: [BIGINT_COLUMN('n')], rows: rows(1000), batchRows: 10 } });
    const query = startQuery(engine, 'q');
    await settle();
    query.send({ type: 'query.partialCancel', stageId: '0' });
    expect(queryStateOf(query.getSnapshot())).to.equal('FINISHING');
    expect(engine.cancels).to.equal(1);
    for (let i = 0; i < 5 && query.getSnapshot().status === 'active'; i++) query.send({ type: 'results.take' });
    expect(queryStateOf(query.getSnapshot())).to.equal('FINISHED');
    expect(toQueryView(query.getSnapshot()).outputRows).to.equal(20);
  });

  it('records client heartbeats with the injected clock', async () => {
    const engine = new FakeEngine({ slow: { columns: [BIGINT_COLUMN('n')], rows: rows(1), gated: true } });
    const clock = new SimulatedClock();
    const query = startQuery(engine, 'slow', clock);
    clock.increment(1234);
    query.send({ type: 'query.heartbeat' });
    expect(query.getSnapshot().context.times.lastHeartbeat).to.equal(1234);
  });
});
