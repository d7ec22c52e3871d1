// The server watches its own event loop: a stall over 100 ms is logged as one JSON line naming the
// statements in flight (their SQL on a second line, at debug only), and /v1/status shows the delay since start and over the last minute. The stalls
// here are real: the server runs in this process and the spec blocks the loop with a busy wait.
import { expect } from 'chai';
import { performance } from 'node:perf_hooks';
import sinon from 'sinon';
import { BIGINT_COLUMN, FakeEngine } from '../support/fake-engine.js';
import { request, startTestServer, type TestServer } from '../support/http.js';
import { captureLog, type CapturedLog, type LogLine } from '../support/log-capture.js';
import { validateResponse } from '../support/schema-validator.js';

function blockFor(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // the event loop is stalled on purpose
  }
}

/** The first stall line that names `queryId`. */
function stallNaming(log: CapturedLog, queryId: string): Promise<LogLine> {
  return log.waitFor((line) => line.event === 'event_loop_stall' && (line.statements as { queryId: string }[]).some((s) => s.queryId === queryId));
}

/** The debug line with the SQL of the statements a stall at `at` found. */
function stallQueries(log: CapturedLog, at: string): Promise<LogLine> {
  return log.waitFor((line) => line.event === 'event_loop_stall_queries' && line.at === at);
}

describe('event loop monitor', function () {
  this.timeout(20_000);
  let server: TestServer;
  let fake: FakeEngine;
  let log: CapturedLog;

  beforeEach(async () => {
    fake = new FakeEngine({
      'SELECT slow': { columns: [BIGINT_COLUMN('n')], rows: [[1]], gated: true },
      'SELECT stall': { columns: [BIGINT_COLUMN('n')], rows: [[2]] },
    });
    // A statement whose planning holds the loop, as a backtracking pattern or a huge constant would.
    const plan = fake.plan.bind(fake);
    fake.plan = (sql, session) => {
      if (sql === 'SELECT stall') blockFor(200);
      return plan(sql, session);
    };
    log = captureLog('debug');
    server = await startTestServer({ engine: fake, config: { longPollMs: 200 }, logger: log.logger });
  });
  afterEach(async () => {
    sinon.restore();
    fake.openGates();
    await server.stop();
  });

  it('logs a stall over 100 ms as one JSON line naming the statement running at the time, and /v1/status shows it', async () => {
    const post = await request('POST', `${server.url}/v1/statement`, { body: 'SELECT slow', headers: { 'X-Presto-User': 'alice' } });
    const queryId = post.body.id as string;
    const logged = stallNaming(log, queryId);
    blockFor(200);
    const line = await logged;
    expect(line).to.include({ level: 'warn', event: 'event_loop_stall', thresholdMs: 100 });
    expect(line.delayMs).to.be.within(150, 5000);
    expect(Date.parse(line.at)).to.be.closeTo(Date.now(), 5000);
    expect(line.statements.find((s: { queryId: string }) => s.queryId === queryId)).to.deep.equal({ queryId, state: 'RUNNING', user: 'alice' });
    const queries = await stallQueries(log, line.at);
    expect(queries).to.include({ level: 'debug' });
    expect(queries.statements).to.deep.include({ queryId, query: 'SELECT slow' });
    expect(log.chunks().every((chunk) => chunk.indexOf('\n') === chunk.length - 1), 'one line each').to.equal(true);

    const status = await request('GET', `${server.url}/v1/status`);
    expect(status.status).to.equal(200);
    validateResponse('status', status.body);
    const { delay, stalls } = status.body.eventLoop;
    // (monitorEventLoopDelay may not have sampled yet this soon after start; its max counts the detector's.)
    expect(delay.sinceStart.maxMs).to.be.at.least(150);
    expect(delay.sinceStart.p50Ms).to.be.at.most(delay.sinceStart.p99Ms);
    expect(delay.sinceStart.p99Ms).to.be.at.most(delay.sinceStart.maxMs);
    expect(delay.lastMinute.maxMs).to.be.at.least(150);
    expect(stalls.count).to.be.at.least(1);
    expect(stalls.thresholdMs).to.equal(100);
    expect(stalls.last.queryIds).to.include(queryId);
  });

  it('names the statement whose planning stalled the loop, even when it is past planning by the time the stall is seen', async () => {
    const post = await request('POST', `${server.url}/v1/statement`, { body: 'SELECT stall', headers: { 'X-Presto-User': 'bob' } });
    const queryId = post.body.id as string;
    // The detector's tick after the stall may have run before the POST answered: look at what was logged.
    const line = await stallNaming(log, queryId);
    expect(line.delayMs).to.be.at.least(150);
    expect(line.statements.find((s: { queryId: string }) => s.queryId === queryId)).to.include({ user: 'bob' });
    expect((await stallQueries(log, line.at)).statements).to.deep.include({ queryId, query: 'SELECT stall' });
  });

  it('answers HEAD /v1/status; every stall it counts was logged', async () => {
    expect((await request('HEAD', `${server.url}/v1/status`)).status).to.equal(200);
    const status = await request('GET', `${server.url}/v1/status`);
    validateResponse('status', status.body);
    expect(status.body).to.include({ coordinator: true });
    // A busy machine may stall this server on its own: whatever was counted was logged.
    const logged = log.lines().filter((line) => line.event === 'event_loop_stall').length;
    expect(status.body.eventLoop.stalls.count).to.equal(logged);
  });
});

describe('event loop monitor timers', () => {
  afterEach(() => sinon.restore());

  it('its stall detector never keeps the process alive and stops with the server', async () => {
    const setIntervalSpy = sinon.spy(globalThis, 'setInterval');
    const clearIntervalSpy = sinon.spy(globalThis, 'clearInterval');
    const server = await startTestServer({ engine: new FakeEngine({}) });
    const detector = setIntervalSpy.getCalls().find((call) => call.args[1] === 20);
    expect(detector, 'the 20 ms stall detector').not.to.equal(undefined);
    const timer = detector!.returnValue as NodeJS.Timeout;
    expect(timer.hasRef(), 'unref-ed').to.equal(false);
    await server.stop();
    expect(clearIntervalSpy.calledWith(timer), 'cleared on close').to.equal(true);
  });
});
