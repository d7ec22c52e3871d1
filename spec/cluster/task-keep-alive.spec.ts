// A statement whose client pauses longer than the worker's abandonment timeout (two minutes) between pages:
// the coordinator's status requests keep its task, so the next page comes, as Trino's continuous task status
// fetching does. Real worker over HTTP; the worker's and the coordinator's clocks are one simulated clock,
// advanced by hand, and both sweeps are run by the spec.
import { expect } from 'chai';
import { TaskKeepAlive } from '../../lib/cluster/task-keep-alive.js';
import type { WorkerClient } from '../../lib/cluster/worker-client.js';
import { remoteEngine, session, startTestWorker, WorkerList, type TestWorker } from './cluster-harness.js';
import type { RemoteEngine } from '../../lib/cluster/remote-engine.js';
import { taskStatusPath } from '../../lib/cluster/task-protocol.js';
import { request } from '../support/http.js';

const MINUTE = 60_000;
/** Many pages: 300 rows of text ~30 bytes each, read 1 kB at a time. */
const MANY_PAGES = "SELECT x, repeat('v', 20) AS v FROM UNNEST(sequence(1, 300)) AS t(x)";

describe('task keep-alive: a slow client\'s task outlives the worker\'s abandonment timeout', function () {
  this.timeout(60_000);
  let t = 0;
  let worker: TestWorker;
  let workers: WorkerList;
  let engine: RemoteEngine;

  before(async () => {
    worker = await startTestWorker('w0', { registry: { now: () => t, abandonedAfterMs: 2 * MINUTE } });
    workers = new WorkerList([worker]);
  });
  after(async () => {
    await worker?.stop();
  });
  afterEach(async () => {
    await engine?.close();
  });

  /** Runs the clock `ms` forward in 10 s steps, each with the coordinator's keep-alive sweep, then the worker's sweep. */
  async function pause(ms: number, keepAlive: boolean): Promise<void> {
    for (let step = 0; step < ms; step += 10_000) {
      t += 10_000;
      if (keepAlive) await engine.keptTasks.sweep();
      worker.worker.registry.sweep();
    }
  }

  async function firstPageThenPause(keepAlive: boolean): Promise<{ rows: number; error?: string }> {
    engine = remoteEngine(workers, { now: () => t, firstBatchBytes: 1024, watchIntervalMs: 3_600_000 });
    const plan = await engine.plan(MANY_PAGES, session());
    const execution = plan.execute();
    let rows = (await execution.next(1024))?.rows ?? 0;
    expect(execution.exhausted, 'more pages to come').to.not.equal(true);
    // The client reads nothing for 4 minutes (within Trino's query.client.timeout of 5).
    await pause(4 * MINUTE, keepAlive);
    try {
      for (;;) {
        const batch = await execution.next(1024);
        if (batch === null) break;
        rows += batch.rows;
        if (execution.exhausted === true) break;
      }
      return { rows };
    } catch (err) {
      return { rows, error: (err as Error).message };
    }
  }

  it('with the coordinator asking for its status every 30 s of silence, every page comes after a 4-minute pause, and the task is let go at the end', async () => {
    expect(await firstPageThenPause(true)).to.deep.equal({ rows: 300 });
    expect(engine.keptTasks.size, 'nothing kept once exhausted').to.equal(0);
  });

  it('GET /v1/task/{taskId}/status of a task the worker does not have answers 404 NOT_FOUND, and the worker answers the next statement', async () => {
    const gone = await request('GET', `${worker.url}${taskStatusPath('no-such.0.0.0')}`);
    expect(gone.status).to.equal(404);
    expect(gone.body.errorName).to.equal('NOT_FOUND');
    engine = remoteEngine(workers, { now: () => t });
    const plan = await engine.plan('SELECT 1', session());
    expect((await plan.execute().next(1024))?.rows).to.equal(1);
  });

  it('without it (what happened before), the worker swept the task as abandoned and the next page failed', async () => {
    const result = await firstPageThenPause(false);
    expect(result.error).to.include('Unknown task');
  });
});

describe('TaskKeepAlive', () => {
  const client = {} as WorkerClient;

  it('asks only for tasks idle past idleMs, one request at a time, and forgets a task the worker no longer has', async () => {
    let now = 0;
    const asked: string[] = [];
    let answer = 200;
    const keepAlive = new TaskKeepAlive({ idleMs: 30_000, now: () => now, status: (_c, taskId) => (asked.push(taskId), Promise.resolve({ status: answer })) });
    const a = keepAlive.keep(client, 'a');
    keepAlive.keep(client, 'b');
    now = 20_000;
    a.touch();
    now = 30_000;
    await keepAlive.sweep();
    expect(asked).to.deep.equal(['b']); // a was touched 10 s ago
    now = 50_000;
    await keepAlive.sweep();
    expect(asked).to.deep.equal(['b', 'a']);
    answer = 404;
    now = 90_000;
    await keepAlive.sweep();
    expect(keepAlive.size, 'both gone from the worker').to.equal(0);
    a.release(); // releasing a forgotten task is harmless
  });

  it('a failed status request is tried again after another idle period, not at every sweep', async () => {
    let now = 0;
    let calls = 0;
    const keepAlive = new TaskKeepAlive({ idleMs: 30_000, now: () => now, status: () => (calls++, Promise.reject(new Error('ECONNREFUSED'))) });
    const kept = keepAlive.keep(client, 'a');
    now = 30_000;
    await keepAlive.sweep();
    now = 31_000;
    await keepAlive.sweep();
    expect(calls).to.equal(1);
    now = 60_000;
    await keepAlive.sweep();
    expect(calls).to.equal(2);
    kept.release();
    now = 120_000;
    await keepAlive.sweep();
    expect(calls).to.equal(2);
  });
});
