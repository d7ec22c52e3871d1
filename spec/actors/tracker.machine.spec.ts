import { expect } from 'chai';
import type { PlanAbort } from '../../lib/engine/plan-abort.js';
import { SimulatedClock } from 'xstate';
import { createCoordinator } from '../../lib/actors/coordinator.js';
import { BIGINT_COLUMN, FakeEngine } from '../support/fake-engine.js';
import { settle, testSession } from '../support/actors.js';

function setup(config: Record<string, number> = {}, readRss?: () => number) {
  const clock = new SimulatedClock();
  clock.set(1_700_000_000_000);
  const engine = new FakeEngine({
    'SELECT 1': { columns: [BIGINT_COLUMN('_col0')], rows: [[1]] },
    slow: { columns: [BIGINT_COLUMN('n')], rows: [[1]], gated: true },
    wide: { columns: [{ name: 's', type: { base: 'varchar' } }], rows: [['x'.repeat(500)], ['y'.repeat(500)]], batchRows: 1 },
  });
  const coordinator = createCoordinator({ engine, clock, now: () => clock.now(), config: { trackerIntervalMs: 1000, ...config }, ...(readRss ? { readRss } : {}) });
  return { clock, engine, coordinator };
}

/** SimulatedClock runs a due timer at the end of an increment, so sweeps are stepped one interval at a time. */
function advanceBySweeps(clock: SimulatedClock, sweeps: number, intervalMs = 1000): void {
  for (let i = 0; i < sweeps; i++) clock.increment(intervalMs);
}

/** Runs a query to the end the way the statement route does: take pages until done. */
/** Runs a query to its end; `readFinal`: its client also fetches the final response (as statement.routes records it). */
async function drain(coordinator: ReturnType<typeof setup>['coordinator'], queryId: string, readFinal = true) {
  const tracked = coordinator.lookup(queryId)!;
  for (let i = 0; i < 10 && tracked.ref; i++) {
    await settle();
    tracked.ref?.send({ type: 'results.take' });
  }
  if (readFinal) tracked.cursor.record(tracked.cursor.upcoming ?? 0, { body: '', headers: [] }, true);
}

describe('trackerMachine (through createCoordinator)', () => {
  it('keeps a finished query as its final view and stops its actor', async () => {
    const { coordinator } = setup();
    const id = coordinator.submit('SELECT 1', testSession());
    expect(coordinator.liveQueryCount()).to.equal(1);
    await drain(coordinator, id);
    const tracked = coordinator.lookup(id)!;
    expect(tracked.ref).to.equal(undefined);
    expect(tracked.final?.state).to.equal('FINISHED');
    expect(coordinator.liveQueryCount()).to.equal(0);
  });

  it('bounds the history: entries beyond max-history expire once older than min-expire-age', async () => {
    const { coordinator, clock } = setup({ maxHistory: 3, minExpireAgeMs: 60_000, maxHistoryHard: 5 });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      ids.push(coordinator.submit('SELECT 1', testSession()));
      await drain(coordinator, ids[i]);
    }
    expect(coordinator.list()).to.have.length(4); // young entries are kept past max-history
    clock.increment(61_000);
    expect(coordinator.list().map((t) => t.queryId)).to.deep.equal(ids.slice(1));
    for (let i = 0; i < 6; i++) await drain(coordinator, coordinator.submit('SELECT 1', testSession()));
    expect(coordinator.list()).to.have.length(5); // the hard bound holds even for young entries
  });

  it('keeps a finished query whose client has not fetched its final response past the hard bound, up to twice it', async () => {
    const { coordinator } = setup({ maxHistory: 3, minExpireAgeMs: 60_000, maxHistoryHard: 5 });
    const waiting = coordinator.submit('SELECT 1', testSession());
    await drain(coordinator, waiting, false);
    for (let i = 0; i < 6; i++) await drain(coordinator, coordinator.submit('SELECT 1', testSession()));
    // Its client would get 404 for the final response its last rows link to: it stays.
    expect(coordinator.lookup(waiting)).not.to.equal(undefined);
    for (let i = 0; i < 10; i++) await drain(coordinator, coordinator.submit('SELECT 1', testSession()), false);
    expect(coordinator.lookup(waiting)).to.equal(undefined); // abandoned clients stay bounded (2 x 5)
    expect(coordinator.list().length).to.be.at.most(10);
  });

  it('fails a query whose client stopped polling with ABANDONED_QUERY and frees it', async () => {
    const { coordinator, clock, engine } = setup({ clientTimeoutMs: 300_000 });
    const id = coordinator.submit('slow', testSession());
    await settle();
    clock.increment(200_000);
    coordinator.lookup(id)!.ref!.send({ type: 'query.heartbeat' });
    clock.increment(299_000);
    expect(coordinator.lookup(id)!.ref).not.to.equal(undefined);
    clock.increment(2_000);
    await settle();
    const tracked = coordinator.lookup(id)!;
    expect(tracked.final?.state).to.equal('FAILED');
    expect(tracked.final?.error?.errorName).to.equal('ABANDONED_QUERY');
    expect(engine.cancels).to.equal(1);
    expect(coordinator.liveQueryCount()).to.equal(0);
  });

  it('queues past max-concurrent-queries and admits in order as queries finish', async () => {
    const { coordinator } = setup({ maxRunningQueries: 1 });
    const first = coordinator.submit('slow', testSession());
    const second = coordinator.submit('SELECT 1', testSession());
    await settle();
    expect(coordinator.view(coordinator.lookup(second)!).state).to.equal('QUEUED');
    coordinator.lookup(first)!.ref!.send({ type: 'query.cancel' });
    await settle();
    expect(coordinator.view(coordinator.lookup(second)!).state).to.be.oneOf(['RUNNING', 'FINISHING']);
  });

  it("applies the session's query_max_run_time (simulated clock) and fails on an invalid session property", async () => {
    const { coordinator, clock } = setup();
    const limited = coordinator.submit('slow', testSession({ properties: { query_max_run_time: '10s' } }));
    await settle();
    advanceBySweeps(clock, 9); // the tracker sweeps every second
    expect(coordinator.view(coordinator.lookup(limited)!).state).to.equal('RUNNING');
    advanceBySweeps(clock, 1);
    await settle();
    expect(coordinator.view(coordinator.lookup(limited)!).error?.errorName).to.equal('EXCEEDED_TIME_LIMIT');

    const invalid = coordinator.submit('SELECT 1', testSession({ properties: { no_such_property: 'x' } }));
    await settle();
    const view = coordinator.view(coordinator.lookup(invalid)!);
    expect(view.state).to.equal('FAILED');
    expect(view.error?.errorName).to.equal('INVALID_SESSION_PROPERTY');
  });

  it('applies query_max_memory to what the coordinator holds: smaller pages, and a row too large fails', async () => {
    const { coordinator } = setup();
    const fits = coordinator.submit('wide', testSession({ properties: { query_max_memory: '2kB' } }));
    await drain(coordinator, fits);
    expect(coordinator.view(coordinator.lookup(fits)!).state).to.equal('FINISHED');

    const tooSmall = coordinator.submit('wide', testSession({ properties: { query_max_memory: '300B' } }));
    await drain(coordinator, tooSmall);
    const view = coordinator.view(coordinator.lookup(tooSmall)!);
    expect(view.state).to.equal('FAILED');
    expect(view.error?.errorName).to.equal('EXCEEDED_LOCAL_MEMORY_LIMIT');
    expect(view.error?.message).to.equal('Query exceeded per-node memory limit of 300B');
  });

  it('fails a query past query.max-run-time with EXCEEDED_TIME_LIMIT at the next sweep and interrupts the engine', async () => {
    const { coordinator, clock, engine } = setup({ maxRunTimeMs: 10_000 });
    const id = coordinator.submit('slow', testSession());
    await settle();
    advanceBySweeps(clock, 9);
    expect(coordinator.view(coordinator.lookup(id)!).state).to.equal('RUNNING');
    advanceBySweeps(clock, 1);
    await settle();
    const view = coordinator.view(coordinator.lookup(id)!);
    expect(view.state).to.equal('FAILED');
    expect(view.error).to.include({ errorName: 'EXCEEDED_TIME_LIMIT', message: 'Query exceeded maximum time limit of 10.00s' });
    expect(view.endTime! - view.createTime).to.equal(10_000);
    expect(engine.cancels).to.equal(1);
  });

  it('fails a query still planning after query.max-planning-time, interrupting the engine\'s plan', async () => {
    const { coordinator, clock, engine } = setup({ maxPlanningTimeMs: 3000 });
    let signal: PlanAbort | undefined;
    engine.plan = (_sql, _session, s) => {
      signal = s;
      return new Promise(() => {}); // DuckDB busy planning, say a constant it folds
    };
    const id = coordinator.submit('stuck', testSession());
    await settle();
    advanceBySweeps(clock, 2);
    expect(coordinator.lookup(id)!.ref?.getSnapshot().value).to.equal('PLANNING');
    advanceBySweeps(clock, 2);
    await settle();
    const final = coordinator.lookup(id)!.final!;
    expect(final.state).to.equal('FAILED');
    expect(final.error).to.include({ errorName: 'EXCEEDED_TIME_LIMIT', message: 'Query exceeded the maximum planning time limit of 3.00s' });
    expect(signal?.aborted).to.equal(true);
  });

  it('fails a query past query_max_execution_time (the session may only tighten the server\'s limit)', async () => {
    const { coordinator, clock } = setup({ maxExecutionTimeMs: 60_000 });
    const id = coordinator.submit('slow', testSession({ properties: { query_max_execution_time: '5s' } }));
    await settle();
    advanceBySweeps(clock, 6);
    await settle();
    expect(coordinator.lookup(id)!.final?.error).to.include({ errorName: 'EXCEEDED_TIME_LIMIT', message: 'Query exceeded the maximum execution time limit of 5.00s' });
    const loose = coordinator.submit('slow', testSession({ properties: { query_max_execution_time: '1h' } }));
    await settle();
    advanceBySweeps(clock, 61);
    await settle();
    expect(coordinator.lookup(loose)!.final?.error).to.include({ message: 'Query exceeded the maximum execution time limit of 1.00m' });
  });

  it('past the resident-memory limit fails the query holding the most and admits nothing until memory is back', async () => {
    let rss = 100;
    const { coordinator, clock } = setup({ maxResidentMemoryBytes: 1000, maxRunningQueries: 3 }, () => rss);
    const small = coordinator.submit('slow', testSession());
    const wide = coordinator.submit('wide', testSession()); // buffers 1,000 bytes of rows for its client
    await settle();
    rss = 5000;
    advanceBySweeps(clock, 1);
    await settle();
    expect(coordinator.lookup(wide)!.final?.error).to.include({
      errorName: 'EXCEEDED_GLOBAL_MEMORY_LIMIT',
      message: "Query killed because the server's resident memory (5000B) exceeded its limit of 1000B",
    });
    expect(coordinator.lookup(small)!.ref).not.to.equal(undefined);
    // Held: a new query waits in QUEUED however many slots are free.
    const waiting = coordinator.submit('SELECT 1', testSession());
    await settle();
    expect(coordinator.view(coordinator.lookup(waiting)!).state).to.equal('QUEUED');
    advanceBySweeps(clock, 1); // still over: the next largest goes
    await settle();
    expect(coordinator.lookup(small)!.final?.error).to.include({ errorName: 'EXCEEDED_GLOBAL_MEMORY_LIMIT' });
    expect(coordinator.view(coordinator.lookup(waiting)!).state).to.equal('QUEUED');
    rss = 500;
    advanceBySweeps(clock, 1);
    await settle();
    expect(coordinator.view(coordinator.lookup(waiting)!).state).not.to.equal('QUEUED');
  });

  it('says in the query\'s info when the engine went on planning it a second or more after it ended', async () => {
    const { coordinator, clock, engine } = setup();
    const settles: (() => void)[] = [];
    engine.plan = () => new Promise((resolve) => settles.push(() => resolve({ columns: [], execute: () => { throw new Error('never'); }, release: () => {} })));
    const slow = coordinator.submit('stuck', testSession());
    const quick = coordinator.submit('stuck', testSession());
    await settle();
    coordinator.lookup(slow)!.ref!.send({ type: 'query.cancel' });
    coordinator.lookup(quick)!.ref!.send({ type: 'query.cancel' });
    settles[1]!(); // given up at once: nothing to say
    await settle();
    clock.increment(2500);
    settles[0]!(); // DuckDB folding a constant 2.5 s past the cancel
    await settle();
    expect(coordinator.lookup(quick)!.final!.warnings ?? []).to.deep.equal([]);
    expect(coordinator.lookup(slow)!.final!.warnings).to.deep.equal([{
      warningCode: { code: 1001, name: 'ENGINE_WORK_AFTER_END' },
      message: 'The engine went on planning this query for 2.5 s after it ended: DuckDB could not interrupt that work (the coordinator did not wait for it)',
    }]);
  });

  it('names a worker lost with spooled segments of a query in its info, whether the query had ended or not', async () => {
    const { coordinator, engine } = setup();
    const ended = coordinator.submit('SELECT 1', testSession());
    await drain(coordinator, ended);
    await settle();
    const live = coordinator.submit('slow', testSession());
    await settle();
    coordinator.spooledSegmentsLost(ended, 'worker-1');
    coordinator.spooledSegmentsLost(live, 'worker-0');
    coordinator.spooledSegmentsLost('no-such-query', 'worker-0');
    const warning = (nodeId: string) => ({
      warningCode: { code: 1002, name: 'SPOOLED_SEGMENTS_LOST' },
      message: `Worker ${nodeId} is gone, and with it the spooled segments of this query it held: downloading one of them fails`,
    });
    expect(coordinator.lookup(ended)!.final!.warnings).to.deep.equal([warning('worker-1')]);
    expect(coordinator.spooledSegmentsLostOn(ended, 'worker-1')).to.equal(true);
    expect(coordinator.spooledSegmentsLostOn(ended, 'worker-0')).to.equal(false);
    expect(coordinator.spooledSegmentsLostOn('no-such-query', 'worker-0')).to.equal(false);
    expect(coordinator.spooledSegmentsLostOn(live, 'worker-0')).to.equal(true);
    for (let i = 0; i < 10 && coordinator.lookup(live)!.ref; i++) {
      engine.openGates();
      await settle();
      coordinator.lookup(live)!.ref?.send({ type: 'results.take' });
    }
    await settle();
    expect(coordinator.lookup(live)!.final!.warnings).to.deep.equal([warning('worker-0')]);
  });
});
