// The worker's share of a short query (issue 25, figure b2), counted where a spec can see it: through a
// RemoteEngine and a real worker (real DuckDB, real HTTP, the internal bearer on), a repeated `SELECT 1`
// is one HTTP exchange (the plan's POST, its only page riding on the answer), is parsed and analysed on the
// worker once, and from then on only runs its prepared render statement. A result larger than the first
// page still pages by GET, and a cancel still reaches the worker. The coordinator parses the repeated
// statement once to route it (lib/sql/statement-cache.ts).
import { expect } from 'chai';
import sinon from 'sinon';
import { statementParser } from '../../lib/sql/statement-cache.js';
import type { IncomingMessage } from 'node:http';
import type { EnginePlanStats } from '../../lib/engine/duckdb-engine.js';
import type { RemoteEngine } from '../../lib/cluster/remote-engine.js';
import { remoteEngine, runOn, session, startTestWorker, WorkerList, type TestWorker } from './cluster-harness.js';

const SECRET = 'select-one-secret';

describe('The SELECT 1 path through a real worker', function () {
  this.timeout(60_000);
  let worker: TestWorker;
  let engine: RemoteEngine;
  let requests: string[];
  const onRequest = (req: IncomingMessage) => requests.push(`${req.method} ${(req.url ?? '').replace(/\/v1\/task\/[^/?]+/, '/v1/task/{id}')}`);

  before(async () => {
    worker = await startTestWorker('w-select-one', { memory: true, sharedSecret: SECRET });
    worker.worker.server.prependListener('request', onRequest);
    engine = remoteEngine(new WorkerList([worker]), { sharedSecret: SECRET });
  });
  after(async () => {
    await engine.close();
    await worker.stop();
  });
  beforeEach(() => {
    requests = [];
  });

  const delta = (before: EnginePlanStats, after: EnginePlanStats) => ({
    parsed: after.parsed - before.parsed,
    analysed: after.analysed - before.analysed,
    reused: after.reused - before.reused,
    renderPrepares: after.renderPrepares - before.renderPrepares,
  });

  it('takes one exchange per query: the POST answers with the plan and the only page', async () => {
    for (let i = 0; i < 5; i++) expect((await runOn(engine, 'SELECT 1')).rows).to.deep.equal([[1]]);
    expect(requests).to.deep.equal(Array(5).fill('POST /v1/task/{id}'));
  });

  it('keeps its connection to the worker alive: queries one after another open none', async () => {
    await runOn(engine, 'SELECT 1');
    let opened = 0;
    const onConnection = () => opened++;
    worker.worker.server.on('connection', onConnection);
    try {
      for (let i = 0; i < 5; i++) await runOn(engine, 'SELECT 1');
    } finally {
      worker.worker.server.off('connection', onConnection);
    }
    expect(opened).to.equal(0);
    expect(requests).to.have.length(6);
  });

  it('routes a repeated statement on the coordinator from one parse (none to place it again)', async () => {
    const parses = sinon.spy(statementParser, 'parse');
    try {
      for (let i = 0; i < 5; i++) await runOn(engine, 'SELECT 3 AS routed_once');
      expect(parses.args.filter(([sql]) => sql === 'SELECT 3 AS routed_once')).to.have.length(1);
    } finally {
      parses.restore();
    }
  });

  it('parses, analyses and prepares a repeated statement once on the worker, then only runs it', async () => {
    const sql = 'SELECT 1 AS once_parsed';
    const before = worker.engine.planStats();
    for (let i = 0; i < 6; i++) expect((await runOn(engine, sql)).rows).to.deep.equal([[1]]);
    // One after another, each statement takes the pool's most recently released connection: one prepare.
    expect(delta(before, worker.engine.planStats())).to.deep.equal({ parsed: 1, analysed: 1, reused: 5, renderPrepares: 1 });
    expect(requests).to.have.length(6);
  });

  it('keeps a plan per session: another schema or user is analysed again, the text is parsed again only for another schema', async () => {
    const sql = 'SELECT 2 AS per_session';
    await runOn(engine, sql);
    const before = worker.engine.planStats();
    await runOn(engine, sql, session({ user: 'bob' }));
    await runOn(engine, sql, session({ schema: 'information_schema' }));
    expect(delta(before, worker.engine.planStats())).to.deep.include({ parsed: 1, analysed: 2, reused: 0 });
  });

  it('pages a result larger than the first page by GET after the POST', async () => {
    const result = await runOn(engine, 'SELECT a * 10000 + b, repeat(\'v\', 100) FROM UNNEST(sequence(1, 3)) AS s(a) CROSS JOIN UNNEST(sequence(1, 10000)) AS t(b)', session(), 256 << 10);
    expect(result.rows).to.have.length(30_000);
    expect(requests[0]).to.equal('POST /v1/task/{id}');
    expect(requests.slice(1).every((r) => /^GET \/v1\/task\/\{id\}\/results\/\d+\?targetBytes=\d+$/.test(r))).to.equal(true);
    expect(requests.length).to.be.greaterThan(1);
  });

  it('still reaches the worker with a cancel (DELETE) once the rows have not all come', async () => {
    const plan = await engine.plan('SELECT a * 10000 + b FROM UNNEST(sequence(1, 20)) AS s(a) CROSS JOIN UNNEST(sequence(1, 10000)) AS t(b)', session());
    const execution = plan.execute();
    expect(await execution.next(64 << 10)).to.not.equal(null);
    execution.cancel();
    await worker.worker.registry.whenIdle();
    expect(requests).to.include('DELETE /v1/task/{id}');
  });
});
