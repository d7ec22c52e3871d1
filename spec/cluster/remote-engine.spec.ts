// The RemoteEngine against real workers (lib/worker over real DuckDB, real HTTP on free ports): the same
// rows as the in-process engine, errors with their names and locations, cancel, routing (memory vs tpch,
// transactions pinned), and every way a worker can fail turned into a clear error, never a hang.
import { expect } from 'chai';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SimulatedClock } from 'xstate';
import { createCoordinator } from '../../lib/actors/coordinator.js';
import { FakeEngine } from '../support/fake-engine.js';
import { ClusterSizeMonitor } from '../../lib/cluster/cluster-size-monitor.js';
import { clusterWorkers, type RemoteEngineOptions } from '../../lib/cluster/remote-engine.js';
import { PlanAbortController } from '../../lib/engine/plan-abort.js';
import type { Engine } from '../../lib/engine/engine.types.js';
import { VivaceError } from '../../lib/protocol/vivace-error.js';
import { createTestEngine } from '../support/duckdb.js';
import { request, runStatement, startTestServer, validateStatement } from '../support/http.js';
import { validateResponse } from '../support/schema-validator.js';
import { remoteEngine, runOn, session, startTestWorker, temporaryDirectory, WorkerList, type TestWorker } from './cluster-harness.js';
import { TEXT_PAGE_MAX_BYTES } from '../../lib/engine/row-batch.js';
import { TASK_HEADERS } from '../../lib/cluster/task-protocol.js';

async function rejection(promise: Promise<unknown>): Promise<VivaceError> {
  try {
    await promise;
  } catch (err) {
    expect(err).to.be.instanceOf(VivaceError);
    return err as VivaceError;
  }
  throw new Error('expected a rejection');
}

/** A statement that runs for many seconds on one DuckDB thread (3.6 billion joined rows). */
const LONG_QUERY = 'SELECT count(*) FROM tpch.tiny.lineitem a CROSS JOIN tpch.tiny.lineitem b WHERE a.quantity + b.quantity > 1000';

/** A RemoteEngine whose one worker ('stub') is a bare HTTP server answering with `handler`. */
async function withStubWorker(
  handler: (res: ServerResponse, req: IncomingMessage) => void,
  alive: () => boolean,
  options: Partial<RemoteEngineOptions>,
  body: (engine: Engine) => Promise<void>,
): Promise<void> {
  const server = createServer((req, res) => {
    req.resume();
    handler(res, req);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const uri = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const engine = remoteEngine(() => [{ nodeId: 'stub', uri, memory: false, alive: alive() }], options);
  try {
    await body(engine);
  } finally {
    await engine.close();
    server.closeAllConnections();
    server.close();
  }
}

describe('RemoteEngine with real workers', function () {
  this.timeout(60_000);
  let w0: TestWorker;
  let w1: TestWorker;
  let list: WorkerList;
  let engine: Engine;
  let local: Engine;
  const tpch = temporaryDirectory('vivace-cluster-tpch-');

  before(async () => {
    // tpch.tiny is generated once, by the first worker, and read by the others.
    w0 = await startTestWorker('w0', { memory: true, tpchDirectory: tpch.path });
    await w0.engine.plan('SELECT 1 FROM tpch.tiny.region', session()).then((plan) => plan.release());
    w1 = await startTestWorker('w1', { tpchDirectory: tpch.path });
    list = new WorkerList([w0, w1]);
    engine = remoteEngine(list);
    local = await createTestEngine(2, { tpch: { directory: tpch.path, log: () => {} } });
  });
  after(async () => {
    await engine.close();
    await local.close();
    await Promise.all([w0.stop(), w1.stop()]);
    tpch.remove();
  });
  beforeEach(() => {
    list.dead.clear();
    list.workers = [w0, w1];
    w0.planned.length = 0;
    w1.planned.length = 0;
  });

  describe('results', () => {
    const statements = [
      'SELECT 1 AS one, \'two\' AS two',
      'SELECT * FROM tpch.tiny.nation ORDER BY nationkey',
      'SELECT count(*), sum(quantity), avg(extendedprice) FROM tpch.tiny.lineitem',
      'SELECT DATE \'2024-02-29\', TIMESTAMP \'2024-01-01 12:34:56.789\', DECIMAL \'12.345\', ARRAY[1, 2, NULL], MAP(ARRAY[\'a\'], ARRAY[1.5e0]), CAST(ROW(1, \'x\') AS ROW(a bigint, b varchar)), X\'0102\', NULL',
      'SELECT orderkey, comment FROM tpch.tiny.orders ORDER BY orderkey LIMIT 3000',
    ];
    for (const sql of statements) {
      it(`equal the in-process engine's: ${sql.slice(0, 60)}`, async () => {
        const [remote, inProcess] = await Promise.all([runOn(engine, sql, session(), 8192), runOn(local, sql, session(), 8192)]);
        expect(remote.columns).to.deep.equal(inProcess.columns);
        expect(remote.rows).to.deep.equal(inProcess.rows);
      });
    }

    it('come in several pages of about the target size when the result is larger', async () => {
      // A session that sizes its pages has every page sized by the query (not only the later ones).
      const sized = session({ properties: { target_result_size: '8kB' } });
      const result = await runOn(engine, 'SELECT orderkey, comment FROM tpch.tiny.orders ORDER BY orderkey LIMIT 3000', sized, 8192);
      expect(result.rows).to.have.length(3000);
      expect(result.batches).to.be.greaterThan(10);
      // Otherwise the first page comes with the plan, at the engine's first-batch size.
      const small = remoteEngine(list, { firstBatchBytes: 8192 });
      try {
        const paged = await runOn(small, 'SELECT orderkey, comment FROM tpch.tiny.orders ORDER BY orderkey LIMIT 3000', session(), 8192);
        expect(paged.rows).to.deep.equal(result.rows);
        expect(paged.batches).to.be.greaterThan(10);
        // A query without tables gets its first page with the plan, the rest by token from 1.
        const sql = 'SELECT x, CAST(x AS varchar) FROM UNNEST(sequence(1, 5000)) t(x)';
        const [inline, inProcess] = await Promise.all([runOn(small, sql, session(), 8192), runOn(local, sql, session(), 8192)]);
        expect(inline.rows).to.deep.equal(inProcess.rows);
        expect(inline.batches).to.be.greaterThan(5);
      } finally {
        await small.close();
      }
    });

    it('carry the update type and count of DML (on the memory worker)', async () => {
      await runOn(engine, 'CREATE TABLE memory.default.counted (x bigint)');
      const insert = await runOn(engine, 'INSERT INTO memory.default.counted VALUES (1), (2), (3)');
      expect(insert.updateType).to.equal('INSERT');
      expect(insert.updateCount).to.equal(3);
      expect((await runOn(engine, 'SELECT sum(x) FROM memory.default.counted')).rows).to.deep.equal([[6]]);
      await runOn(engine, 'DROP TABLE memory.default.counted');
      expect(w1.planned.filter((s) => s.includes('counted'))).to.deep.equal([]);
    });
  });

  describe('errors', () => {
    it('keep the name and location the worker gave', async () => {
      const syntax = await rejection(engine.plan('SELECT 1 FROM\n  WHERE', session()));
      expect(syntax.errorName).to.equal('SYNTAX_ERROR');
      expect(syntax.errorLocation).to.deep.equal({ lineNumber: 2, columnNumber: 3 });
      const missing = await rejection(engine.plan('SELECT * FROM tpch.tiny.nope', session()));
      const inProcess = await rejection(local.plan('SELECT * FROM tpch.tiny.nope', session()));
      expect(missing.errorName).to.equal('TABLE_NOT_FOUND');
      expect(missing.message).to.equal(inProcess.message).and.to.equal("line 1:15: Table 'tpch.tiny.nope' does not exist");
      expect(missing.errorLocation).to.deep.equal({ lineNumber: 1, columnNumber: 15 });
    });

    it('of execution arrive on the results call', async () => {
      const err = await rejection(runOn(engine, 'SELECT 1 / (nationkey - nationkey) FROM tpch.tiny.nation'));
      expect(err.errorName).to.equal('DIVISION_BY_ZERO');
    });
  });

  describe('cancel', () => {
    it('of an execution rejects the pending page with USER_CANCELED and ends the task on the worker', async () => {
      list.workers = [w1];
      const plan = await engine.plan(LONG_QUERY, session());
      const execution = plan.execute();
      const pending = execution.next(1 << 20);
      execution.cancel();
      expect((await rejection(pending)).errorName).to.equal('USER_CANCELED');
      expect((await rejection(execution.next(1 << 20))).errorName).to.equal('USER_CANCELED');
      await eventually(() => w1.worker.registry.list().every((t) => t.state !== 'RUNNING' && t.state !== 'PLANNED'));
    });

    it('while planning rejects with the abort reason', async () => {
      const abort = new PlanAbortController();
      const planning = engine.plan('SELECT 1', session(), abort);
      abort.abort(new VivaceError('USER_CANCELED', 'Query was canceled'));
      expect((await rejection(planning)).errorName).to.equal('USER_CANCELED');
    });

    it('release of a plan never executed deletes its task', async () => {
      const plan = await engine.plan('CREATE TABLE memory.default.never (x bigint)', session());
      plan.release();
      await eventually(() => !w0.worker.registry.list().some((t) => t.state === 'PLANNED'));
      expect((await runOn(engine, "SELECT count(*) FROM memory.information_schema.tables WHERE table_name = 'never'")).rows).to.deep.equal([[0]]);
    });
  });

  describe('routing', () => {
    it('keeps read-only queries sent one after another on one worker, the one used last', async () => {
      for (let i = 0; i < 4; i++) await runOn(engine, `SELECT ${i} FROM tpch.tiny.region LIMIT 1`);
      expect([w0.planned.length, w1.planned.length].sort()).to.deep.equal([0, 4]);
    });

    it('sends a read-only query to the worker with fewer calls in flight, whichever was used last', async () => {
      for (const busy of [w0, w1]) {
        const idle = busy === w0 ? w1 : w0;
        w0.planned.length = w1.planned.length = 0;
        // The long statement on `busy` alone, then both alive: its results request stays in flight.
        list.workers = [busy];
        const execution = (await engine.plan(LONG_QUERY, session())).execute();
        const pending = execution.next(1 << 20).catch((err: unknown) => err);
        // The results request has reached the worker (it holds the task until the page is rendered).
        const running = () => busy.worker.registry.list().find((t) => t.state === 'RUNNING');
        await eventually(() => (busy.worker.registry.get(running()?.taskId ?? '')?.inFlight ?? 0) > 0);
        list.workers = [w0, w1];
        for (let i = 0; i < 3; i++) await runOn(engine, `SELECT ${i} FROM tpch.tiny.nation LIMIT 1`);
        execution.cancel();
        expect(await pending).to.be.instanceOf(VivaceError);
        await eventually(() => busy.worker.registry.list().every((t) => t.state !== 'RUNNING' && t.state !== 'PLANNED'));
        expect(idle.planned).to.have.length(3);
        expect(busy.planned).to.deep.equal([LONG_QUERY]);
      }
    });

    it('spreads queries sent at once (each in its own turn of the event loop) over the workers', async () => {
      const plans = [];
      for (let i = 0; i < 4; i++) {
        plans.push(engine.plan(`SELECT ${i} FROM tpch.tiny.region LIMIT 1`, session()));
        await new Promise((resolve) => setImmediate(resolve));
      }
      for (const plan of await Promise.all(plans)) await drain(plan);
      expect(w0.planned.length + w1.planned.length).to.equal(4);
      expect(w0.planned.length, 'w0').to.be.greaterThan(0);
      expect(w1.planned.length, 'w1').to.be.greaterThan(0);
    });

    it('sends memory, DDL, DML, metadata, session and prepared statements to the memory worker', async () => {
      const statements = [
        'CREATE TABLE memory.default.routed AS SELECT * FROM tpch.tiny.region',
        'SELECT count(*) FROM routed',
        'SELECT r.name FROM tpch.tiny.region r JOIN memory.default.routed m ON r.regionkey = m.regionkey',
        'SHOW TABLES FROM memory.default',
        'SELECT * FROM system.jdbc.tables',
        'USE tpch.tiny',
        'PREPARE p FROM SELECT 1',
        'DROP TABLE memory.default.routed',
      ];
      for (const sql of statements) await runOn(engine, sql);
      expect(w0.planned).to.deep.equal(statements);
      expect(w1.planned).to.deep.equal([]);
    });

    it('pins a transaction to the worker that started it', async () => {
      const start = await engine.plan('START TRANSACTION', session({ transactionId: 'NONE' }));
      const transactionId = start.sessionUpdates?.startedTransactionId;
      expect(transactionId).to.be.a('string');
      await drain(start);
      const inTransaction = session({ transactionId: transactionId! });
      for (let i = 0; i < 3; i++) await runOn(engine, 'SELECT count(*) FROM tpch.tiny.nation', inTransaction);
      await runOn(engine, 'COMMIT', inTransaction);
      expect(w1.planned).to.deep.equal([]);
      expect(w0.planned).to.have.length(5);
      // Committed: a read may go to another worker again.
      list.dead.add('w0');
      await runOn(engine, 'SELECT 1 FROM tpch.tiny.nation LIMIT 1');
      expect(w1.planned).to.have.length(1);
    });

    it('fails a statement of a transaction whose worker is gone with REMOTE_HOST_GONE', async () => {
      const start = await engine.plan('START TRANSACTION', session({ transactionId: 'NONE' }));
      await drain(start);
      list.dead.add('w0');
      const err = await rejection(engine.plan('SELECT 1', session({ transactionId: start.sessionUpdates!.startedTransactionId! })));
      expect(err.errorName).to.equal('REMOTE_HOST_GONE');
      list.dead.clear();
      await runOn(engine, 'ROLLBACK', session({ transactionId: start.sessionUpdates!.startedTransactionId! }));
    });

    it('sends text that does not parse to any worker, which answers the syntax error', async () => {
      const err = await rejection(engine.plan('SELEC 1', session()));
      expect(err.errorName).to.equal('SYNTAX_ERROR');
      expect(w0.planned.length + w1.planned.length).to.equal(1);
    });

    it('sends the coordinator\'s system.runtime rows with a statement that reads them', async () => {
      const seen: string[] = [];
      const withSystem = remoteEngine(list, {
        // Async, as serve's: the stored history is read from files before the task goes.
        systemSnapshot: async (viewer, completed) => {
          seen.push(viewer);
          await new Promise((resolve) => setImmediate(resolve));
          if (completed) return { completedQueries: [{ queryId: 'q-stored', user: viewer, state: 'FAILED', query: 'SELECT 1', errorMessage: 'boom', cpuTimeMs: 12, peakMemoryBytes: 4096 }] };
          return { nodes: [{ nodeId: 'coordinator-x', httpUri: 'http://127.0.0.1:1', nodeVersion: '1', coordinator: true, state: 'active' }], queries: [], tasks: [] };
        },
      });
      try {
        const result = await runOn(withSystem, 'SELECT node_id, coordinator FROM system.runtime.nodes', session({ user: 'bob' }));
        expect(result.rows).to.deep.equal([['coordinator-x', true]]);
        expect(seen).to.deep.equal(['bob']);
        await runOn(withSystem, 'SELECT 1', session());
        expect(seen).to.have.length(1); // not sent with statements that do not read them
        // system.runtime.completed_queries: the stored rows go with the statement that names the table.
        const stored = await runOn(withSystem, 'SELECT query_id, state, error_message, cpu_time_ms, peak_memory_bytes FROM system.runtime.completed_queries', session({ user: 'bob' }));
        expect(stored.rows).to.deep.equal([['q-stored', 'FAILED', 'boom', 12, 4096]]);
      } finally {
        await withSystem.close();
      }
    });
  });

  describe('dynamic catalogs', () => {
    it("carries the catalog set with every task; a worker not started with catalog.management=dynamic refuses it clearly", async () => {
      let asked = 0;
      const dynamic = remoteEngine(list, { catalogSync: () => (asked++, { catalogs: [] }) });
      try {
        const err = await runOn(dynamic, 'SELECT 1', session()).then(() => undefined, (e: VivaceError) => e);
        // The cluster's trouble, not the statement's: the worker is named.
        expect(err?.errorName).to.equal('REMOTE_TASK_ERROR');
        expect(err?.message).to.match(/^Worker w\d .* answered HTTP 409: This worker was not started with catalog.management=dynamic/);
        expect(asked).to.equal(1);
      } finally {
        await dynamic.close();
      }
    });
  });

  describe('failures', () => {
    it('NO_NODES_AVAILABLE without workers, with every worker failed, or with the memory worker failed', async () => {
      list.workers = [];
      expect((await rejection(engine.plan('SELECT 1', session()))).message).to.equal('No worker nodes available: none has announced itself');
      list.workers = [w0, w1];
      list.dead.add('w0').add('w1');
      expect((await rejection(engine.plan('SELECT 1', session()))).errorName).to.equal('NO_NODES_AVAILABLE');
      list.dead.delete('w1');
      const memory = await rejection(engine.plan('SELECT * FROM memory.default.anything', session()));
      expect(memory.errorName).to.equal('NO_NODES_AVAILABLE');
      expect(memory.message).to.contain('memory catalog (w0)');
      expect((await runOn(engine, 'SELECT count(*) FROM tpch.tiny.region')).rows).to.deep.equal([[5]]);
    });

    it('waits for its required workers (query-manager.required-workers), and past the max wait fails with Trino\'s GENERIC_INSUFFICIENT_RESOURCES', async () => {
      const clock = new SimulatedClock();
      const monitor = new ClusterSizeMonitor({ activeWorkers: () => list.list().filter((w) => w.alive).length, requiredWorkers: 1, maxWaitMs: 300_000, clock });
      const starting = remoteEngine(list, { waitForWorkers: (abort) => monitor.waitForMinimumWorkers(abort) });
      try {
        list.dead.add('w0').add('w1');
        const answer = runOn(starting, 'SELECT 1');
        clock.increment(1_000);
        list.dead.clear(); // a worker comes alive while the statement waits
        clock.increment(100);
        expect((await answer).rows).to.deep.equal([[1]]);
        list.dead.add('w0').add('w1');
        const failed = rejection(starting.plan('SELECT 1', session()));
        clock.increment(300_000);
        const err = await failed;
        expect(err.errorName).to.equal('GENERIC_INSUFFICIENT_RESOURCES');
        expect(err.message).to.equal('Insufficient active worker nodes. Waited 5.00m for at least 1 workers, but only 0 workers are active');
        // A statement cancelled while it waits ends with its own reason, not the wait's.
        const abort = new PlanAbortController();
        const cancelled = rejection(starting.plan('SELECT 1', session(), abort));
        abort.abort(new VivaceError('USER_CANCELED', 'Query was canceled'));
        expect((await cancelled).errorName).to.equal('USER_CANCELED');
      } finally {
        monitor.stop();
        await starting.close();
      }
    });

    it('a worker killed mid-query fails it with REMOTE_TASK_ERROR at once', async () => {
      const victim = await startTestWorker('victim', { tpchDirectory: tpch.path });
      list.workers = [victim];
      try {
        const execution = (await engine.plan(LONG_QUERY, session())).execute();
        const pending = execution.next(1 << 20);
        await eventually(() => victim.worker.registry.list().some((t) => t.state === 'RUNNING'));
        await victim.kill();
        const err = await rejection(pending);
        expect(err.errorName).to.equal('REMOTE_TASK_ERROR');
        expect(err.message).to.match(/^Lost worker victim \(http:\/\/127\.0\.0\.1:\d+\) during the results request: /);
      } finally {
        await victim.stop();
      }
    });

    it('a query whose worker is lost before its first rows runs again on another alive worker, and its answer is right', async () => {
      // The stub takes the plan and starts "running", then dies on the results request (its socket is cut).
      const plan = JSON.stringify({ columns: [{ name: '_col0', type: 'bigint', typeSignature: { rawType: 'bigint', arguments: [] } }], executing: true });
      const seen: string[] = [];
      const stub = createServer((req, res) => {
        req.resume();
        seen.push(`${req.method} ${req.url}`);
        if (req.method === 'POST') res.writeHead(200, { 'Content-Type': 'application/json' }).end(plan);
        else if (req.method === 'GET') req.socket.destroy();
        else res.writeHead(204).end();
      });
      await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
      const uri = `http://127.0.0.1:${(stub.address() as AddressInfo).port}`;
      const stubFirst = remoteEngine(() => [{ nodeId: 'stub', uri, memory: false, alive: true }, { nodeId: w1.nodeId, uri: w1.url, memory: false, alive: true }]);
      try {
        const result = await runOn(stubFirst, 'SELECT count(*) FROM tpch.tiny.lineitem');
        expect(result.rows).to.deep.equal([[60175]]);
        // Its page asked for (again, once, on a fresh socket: a kept-alive one may just have been closed idle).
        expect(seen.filter((r) => r.startsWith('GET')).length).to.be.within(1, 2);
        expect(w1.planned).to.include('SELECT count(*) FROM tpch.tiny.lineitem');
        // Not a statement that may run anywhere (a memory worker's, DML): lost is lost.
        const memoryFirst = remoteEngine(() => [{ nodeId: 'stub', uri, memory: true, alive: true }, { nodeId: w1.nodeId, uri: w1.url, memory: false, alive: true }]);
        try {
          const err = await rejection(runOn(memoryFirst, 'SELECT count(*) FROM memory.default.nothing_here'));
          expect(err.errorName).to.equal('REMOTE_TASK_ERROR');
        } finally {
          await memoryFirst.close();
        }
      } finally {
        await stubFirst.close();
        stub.closeAllConnections();
        stub.close();
      }
    });

    it('a worker that stops answering fails the query once the failure detector marks it failed', async () => {
      let held: ServerResponse | undefined;
      let alive = true;
      await withStubWorker((res) => (held = res), () => alive, { watchIntervalMs: 20 }, async (watched) => {
        const planning = watched.plan('SELECT 1', session());
        await eventually(() => held !== undefined);
        alive = false;
        const err = await rejection(planning);
        expect(err.errorName).to.equal('REMOTE_TASK_ERROR');
        expect(err.message).to.contain('marked failed by the failure detector');
      });
    });

    it('a worker that does not answer within the deadline fails the query', async () => {
      await withStubWorker(() => {}, () => true, { workTimeoutMs: 100 }, async (timed) => {
        const err = await rejection(timed.plan('SELECT 1', session()));
        expect(err.errorName).to.equal('REMOTE_TASK_ERROR');
        expect(err.message).to.contain('no answer within 100 ms');
      });
    });

    it('a worker answering garbage fails the query with REMOTE_TASK_ERROR', async () => {
      const answers: [number, string][] = [
        [200, 'not json'], [200, '{"rows":1}'], [500, '<html>oops</html>'], [418, '{"errorName":"NO_SUCH_ERROR","message":"x"}'],
        // Known names, but not a statement's error: the worker lost the task or failed itself.
        [404, '{"errorName":"NOT_FOUND","message":"Unknown task"}'], [500, '{"errorName":"GENERIC_INTERNAL_ERROR","message":"boom"}'],
      ];
      for (const [status, body] of answers) {
        await withStubWorker((res) => res.writeHead(status, { 'Content-Type': 'application/json' }).end(body), () => true, {}, async (garbage) => {
          const err = await rejection(garbage.plan('SELECT 1', session()));
          expect(err.errorName, body).to.equal('REMOTE_TASK_ERROR');
          expect(err.message).to.match(/^Worker stub \(http:\/\/127\.0\.0\.1:\d+\) answered/);
        });
      }
    });

    it('a task lost between plan and results (worker restarted at the same address) fails with REMOTE_TASK_ERROR', async () => {
      const plan = JSON.stringify({ columns: [{ name: '_col0', type: 'integer', typeSignature: { rawType: 'integer', arguments: [] } }], executing: true });
      await withStubWorker((res, req) => {
        if (req.method === 'POST') res.writeHead(200, { 'Content-Type': 'application/json' }).end(plan);
        else res.writeHead(404, { 'Content-Type': 'application/json' }).end('{"errorName":"NOT_FOUND","message":"Unknown task x"}');
      }, () => true, {}, async (stubbed) => {
        const err = await rejection(runOn(stubbed, 'SELECT 1'));
        expect(err.errorName).to.equal('REMOTE_TASK_ERROR');
        expect(err.message).to.match(/answered HTTP 404: Unknown task x to the results request$/);
      });
    });

    it('takes the task\'s final figures from the end (204) too: a streamed statement\'s scans are known only then', async () => {
      const plan = JSON.stringify({ columns: [{ name: '_col0', type: 'integer', typeSignature: { rawType: 'integer', arguments: [] } }], executing: true });
      await withStubWorker((res, req) => {
        if (req.method === 'POST') res.writeHead(200, { 'Content-Type': 'application/json' }).end(plan);
        else if (req.url?.includes('/results/0')) res.writeHead(200, { [TASK_HEADERS.rows]: '1', [TASK_HEADERS.processedRows]: '0', [TASK_HEADERS.processedBytes]: '0' }).end('[1]');
        else if (req.url?.includes('/results/1')) res.writeHead(204, { [TASK_HEADERS.processedRows]: '60175', [TASK_HEADERS.processedBytes]: '1444200', [TASK_HEADERS.cpuTimeMillis]: '7' }).end();
        else res.writeHead(204).end();
      }, () => true, {}, async (stubbed) => {
        const execution = (await stubbed.plan('SELECT 1', session())).execute();
        while (await execution.next(1 << 20)) { /* drain */ }
        expect(execution.progress()).to.include({ processedRows: 60_175, processedBytes: 1_444_200, cpuTimeMillis: 7 });
      });
    });

    it('a table-free query takes one round trip: its first page comes with the plan', async () => {
      const plan = Buffer.from(JSON.stringify({ columns: [{ name: '_col0', type: 'integer', typeSignature: { rawType: 'integer', arguments: [] } }], executing: true }));
      const requests: string[] = [];
      await withStubWorker((res, req) => {
        requests.push(`${req.method} ${req.url}`);
        res.writeHead(200, { 'Content-Type': 'application/json', 'x-vivace-plan-bytes': String(plan.length), 'x-vivace-rows': '1', 'x-vivace-exhausted': 'true' }).end(Buffer.concat([plan, Buffer.from('[1]')]));
      }, () => true, {}, async (stubbed) => {
        expect((await runOn(stubbed, 'SELECT 1')).rows).to.deep.equal([[1]]);
        expect(requests).to.have.length(1);
        expect(requests[0]).to.match(/^POST \/v1\/task\//);
      });
      await withStubWorker((res) => {
        res.writeHead(200, { 'Content-Type': 'application/json', 'x-vivace-plan-bytes': String(plan.length + 10), 'x-vivace-rows': '1' }).end(plan);
      }, () => true, {}, async (stubbed) => {
        const err = await rejection(stubbed.plan('SELECT 1', session()));
        expect(err.errorName).to.equal('REMOTE_TASK_ERROR');
        expect(err.message).to.contain('a plan length that does not fit its body');
      });
    });

    it('a worker unreachable before the plan was accepted: the plan is retried once on another worker', async () => {
      const gone = await startTestWorker('gone');
      await gone.stop();
      list.workers = [gone, w1];
      for (let i = 0; i < 2; i++) expect((await runOn(engine, 'SELECT 42')).rows).to.deep.equal([[42]]);
      expect(w1.planned).to.have.length(2);
    });

    it('with a shared secret: works with the same secret, a clear error with another', async () => {
      const guarded = await startTestWorker('guarded', { sharedSecret: 's3cret' });
      const guardedList = new WorkerList([guarded]);
      const good = remoteEngine(guardedList, { sharedSecret: 's3cret' });
      const bad = remoteEngine(guardedList, { sharedSecret: 'other' });
      try {
        expect((await runOn(good, 'SELECT 7')).rows).to.deep.equal([[7]]);
        const err = await rejection(bad.plan('SELECT 7', session()));
        expect(err.errorName).to.equal('REMOTE_TASK_ERROR');
        expect(err.message).to.contain('refused the internal bearer');
      } finally {
        await good.close();
        await bad.close();
        await guarded.stop();
      }
    });
  });

  it('serves the statement protocol through a coordinator with no engine of its own', async () => {
    const server = await startTestServer({ engine: remoteEngine(list) });
    try {
      const { rows, final } = await runStatement(server.url, 'SELECT name FROM tpch.tiny.region ORDER BY regionkey', { 'X-Trino-User': 'alice' });
      expect(final.stats.state).to.equal('FINISHED');
      expect(rows).to.deep.equal([['AFRICA'], ['AMERICA'], ['ASIA'], ['EUROPE'], ['MIDDLE EAST']]);
      const failed = await runStatement(server.url, 'SELECT * FROM tpch.tiny.nope', { 'X-Trino-User': 'alice' });
      expect(failed.final.error.errorName).to.equal('TABLE_NOT_FOUND');
    } finally {
      await server.stop();
    }
  });

  it('forwards pages larger than TEXT_PAGE_MAX_BYTES as the worker\'s bytes: the same rows over HTTP, multi-byte text intact', async () => {
    const server = await startTestServer({ engine: remoteEngine(list) });
    try {
      // About 2 MB of rows with 2-, 3- and 4-byte characters, cut by the sockets wherever they fall.
      const sql = "SELECT orderkey, comment || ' é€😀' AS c FROM tpch.tiny.orders ORDER BY orderkey";
      const { raw, rows, final } = await runStatement(server.url, sql, { 'X-Trino-User': 'alice' });
      expect(final.stats.state).to.equal('FINISHED');
      expect(raw.some((r) => Buffer.byteLength(r.text) > TEXT_PAGE_MAX_BYTES && r.body.data)).to.equal(true);
      expect(rows).to.deep.equal((await runOn(local, sql)).rows);
    } finally {
      await server.stop();
    }
  });

  it('a client\'s DELETE of a running query ends its task on the worker', async () => {
    list.workers = [w1];
    const server = await startTestServer({ engine: remoteEngine(list) });
    try {
      const posted = await request('POST', `${server.url}/v1/statement`, { body: LONG_QUERY, headers: { 'X-Trino-User': 'alice' } });
      validateStatement(posted.body, true);
      await eventually(() => w1.worker.registry.list().some((t) => t.state === 'RUNNING'));
      expect((await request('DELETE', posted.body.nextUri)).status).to.equal(204);
      await eventually(() => !w1.worker.registry.list().some((t) => t.state === 'RUNNING' || t.state === 'PLANNED'));
      const info = await request('GET', `${server.url}/v1/query/${posted.body.id}`, { headers: { 'X-Trino-User': 'alice' } });
      validateResponse('query-info', info.body);
      expect(info.body.errorCode.name).to.equal('USER_CANCELED');
    } finally {
      await server.stop();
    }
  });
});

async function drain(plan: import('../../lib/engine/engine.types.js').Plan): Promise<void> {
  const execution = plan.execute();
  while ((await execution.next(1 << 20)) !== null && execution.exhausted !== true);
}

/** Polls observable state (no fixed sleeps): resolves once `check` holds, fails after 10 s. */
async function eventually(check: () => boolean): Promise<void> {
  for (let waited = 0; !check(); waited += 10) {
    if (waited > 10_000) throw new Error('condition not reached within 10 s');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('clusterWorkers', () => {
  it('joins discovery with the failure detector: alive only when monitored and not failed, rebuilt when the version moves', () => {
    let version = 0;
    const discovered = [{ nodeId: 'a', uri: 'http://a:1', memory: true }, { nodeId: 'b', uri: 'http://b:1', memory: false }, { nodeId: 'c', uri: 'http://c:1', memory: false }];
    let health = [{ nodeId: 'a', failed: false }, { nodeId: 'b', failed: true }];
    let healthReads = 0;
    const workers = clusterWorkers(() => discovered, () => (healthReads++, health), () => version);
    expect(workers().map((w) => [w.nodeId, w.memory, w.alive])).to.deep.equal([['a', true, true], ['b', false, false], ['c', false, false]]);
    expect(workers()).to.equal(workers()); // reused while nothing changed
    expect(healthReads).to.equal(1);
    health = [{ nodeId: 'a', failed: true }];
    version++;
    expect(workers()[0]!.alive).to.equal(false);
  });

  it('on a coordinator\'s detector (simulated clock): never disagrees with /v1/node, at every step of an outage and a recovery', async () => {
    const clock = new SimulatedClock();
    const down = new Set<string>();
    const coordinator = createCoordinator({
      engine: new FakeEngine({}), clock, now: () => Date.UTC(2024, 4, 1) + clock.now(),
      pingTransport: (uri) => (down.has(uri) ? Promise.reject(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' })) : Promise.resolve(200)),
    });
    try {
      const uris = new Map([['a', 'http://10.0.0.1:8080'], ['b', 'http://10.0.0.2:8080']]);
      for (const [id, uri] of uris) coordinator.announceNode(id, uri);
      const workers = clusterWorkers(() => [...uris].map(([nodeId, uri]) => ({ nodeId, uri, memory: nodeId === 'a' })), () => coordinator.nodes(), () => coordinator.nodesVersion());
      const seen = new Set<string>();
      const step = async () => {
        clock.increment(100);
        await new Promise<void>((resolve) => setImmediate(resolve));
        const detector = coordinator.nodes().map((n) => `${n.nodeId}:${n.failed ? 'failed' : 'alive'}`).join(' ');
        const listed = workers().map((w) => `${w.nodeId}:${w.alive ? 'alive' : 'failed'}`).join(' ');
        expect(listed, `at ${clock.now()} ms`).to.equal(detector);
        seen.add(detector);
      };
      for (let t = 0; t < 8_000; t += 100) await step();
      down.add('http://10.0.0.1:8080/v1/status');
      for (let t = 0; t < 8_000; t += 100) await step();
      down.clear();
      for (let t = 0; t < 60_000 && !workers().every((w) => w.alive); t += 100) await step();
      // Every phase was seen: warming up, both alive, the memory holder failed, and back.
      expect([...seen]).to.include.members(['a:failed b:failed', 'a:alive b:alive', 'a:failed b:alive']);
      expect(workers().every((w) => w.alive)).to.equal(true);
    } finally {
      await coordinator.stop();
    }
  });
});
