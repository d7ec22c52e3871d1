// The server watches its own event loop: a stall over 100 ms is logged as one JSON line naming the
// statements in flight, and /v1/status shows the delay since start and over the last minute. The stalls
// here are real: the server runs in this process and the spec blocks the loop with a busy wait.
import { expect } from 'chai';
import { performance } from 'node:perf_hooks';
import sinon from 'sinon';
import { BIGINT_COLUMN, FakeEngine } from '../support/fake-engine.js';
import { request, startTestServer, type TestServer } from '../support/http.js';
import { validateResponse } from '../support/schema-validator.js';

function blockFor(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // the event loop is stalled on purpose
  }
}

interface StallLine {
  level: string;
  event: string;
  at: string;
  delayMs: number;
  thresholdMs: number;
  statements: { queryId: string; state: string; user: string; query: string }[];
}

/** Resolves with the first stall line console.warn receives that names `queryId`. */
function stallNaming(warn: sinon.SinonStub, queryId: string): Promise<StallLine> {
  return new Promise((resolve) => {
    warn.callsFake((line: string) => {
      const parsed = JSON.parse(line) as StallLine;
      if (parsed.event === 'event_loop_stall' && parsed.statements.some((s) => s.queryId === queryId)) resolve(parsed);
    });
  });
}

describe('event loop monitor', function () {
  this.timeout(20_000);
  let server: TestServer;
  let fake: FakeEngine;
  let warn: sinon.SinonStub;

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
    warn = sinon.stub(console, 'warn');
    server = await startTestServer({ engine: fake, config: { longPollMs: 200 } });
  });
  afterEach(async () => {
    sinon.restore();
    fake.openGates();
    await server.stop();
  });

  it('logs a stall over 100 ms as one JSON line naming the statement running at the time, and /v1/status shows it', async () => {
    const post = await request('POST', `${server.url}/v1/statement`, { body: 'SELECT slow', headers: { 'X-Presto-User': 'alice' } });
    const queryId = post.body.id as string;
    const logged = stallNaming(warn, queryId);
    blockFor(200);
    const line = await logged;
    expect(line).to.include({ level: 'warn', event: 'event_loop_stall', thresholdMs: 100 });
    expect(line.delayMs).to.be.within(150, 5000);
    expect(Date.parse(line.at)).to.be.closeTo(Date.now(), 5000);
    expect(line.statements.find((s) => s.queryId === queryId)).to.deep.equal({ queryId, state: 'RUNNING', user: 'alice', query: 'SELECT slow' });
    expect(warn.getCalls().every((call) => call.args.length === 1 && !String(call.args[0]).includes('\n')), 'one line each').to.equal(true);

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
    const logged = warn.getCalls().map((call) => JSON.parse(call.args[0] as string) as StallLine);
    const line = logged.find((l) => l.statements.some((s) => s.queryId === queryId)) ?? (await stallNaming(warn, queryId));
    expect(line.delayMs).to.be.at.least(150);
    expect(line.statements.find((s) => s.queryId === queryId)).to.include({ user: 'bob', query: 'SELECT stall' });
  });

  it('answers HEAD /v1/status; every stall it counts was logged', async () => {
    expect((await request('HEAD', `${server.url}/v1/status`)).status).to.equal(200);
    const status = await request('GET', `${server.url}/v1/status`);
    validateResponse('status', status.body);
    expect(status.body).to.include({ coordinator: true });
    // A busy machine may stall this server on its own: whatever was counted was logged.
    const logged = warn.getCalls().filter((call) => String(call.args[0]).includes('"event_loop_stall"')).length;
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
