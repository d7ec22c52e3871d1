// The coordinator's side of a scattered scan over stand-in workers: the splits spread over the alive
// workers, one root task each, every task's pages fetched at once (one ahead each) and handed out in the
// order they come; a task's failure, a cancel or a failed plan ends every task.
import { expect } from 'chai';
import type { Execution, ExecutionProgress, Plan, RowBatch } from '../../lib/engine/engine.types.js';
import { VivaceError } from '../../lib/protocol/vivace-error.js';
import { planScattered, scatteredQuery } from '../../lib/cluster/scattered-query.js';
import type { StagedQuery, StageHost } from '../../lib/cluster/staged-query.js';
import type { TaskPlanRequest } from '../../lib/cluster/task-protocol.js';
import { scatteredPlanOf } from '../../lib/spooling/scattered-scan.js';
import type { WorkerClient } from '../../lib/cluster/worker-client.js';
import { builtInConnectors, session } from './cluster-harness.js';

const SQL = 'SELECT * FROM tpch.sf1.lineitem';
const spooling = session({ catalog: 'tpch', schema: 'sf1', queryDataEncoding: 'json' });

/** A stand-in task: each next() waits until the spec answers it. */
class FakeTask implements Execution {
  exhausted?: boolean;
  canceled = false;
  released = false;
  readonly asked: { resolve: (b: RowBatch | null) => void; reject: (e: unknown) => void }[] = [];
  constructor(readonly node: string, readonly request: TaskPlanRequest, readonly taskId: string) {}
  next(): Promise<RowBatch | null> {
    return new Promise((resolve, reject) => this.asked.push({ resolve, reject }));
  }
  /** Answers the oldest next() with `rows` rows (the last page when `last`). */
  page(rows: number, last = false): void {
    if (last) this.exhausted = true;
    this.asked.shift()!.resolve({ json: `${this.node}:${rows}`, rows, bytes: rows });
  }
  fail(err: unknown): void {
    this.asked.shift()!.reject(err);
  }
  cancel(): void {
    this.canceled = true;
    for (const a of this.asked.splice(0)) a.reject(new VivaceError('USER_CANCELED', 'Query was canceled'));
  }
  progress(): ExecutionProgress {
    return { processedRows: 10, processedBytes: 100, cpuTimeMillis: 1 };
  }
}

function fakeHost(nodes: string[], failPlanOn?: string): { host: StageHost; tasks: FakeTask[]; deleted: string[] } {
  const tasks: FakeTask[] = [];
  const deleted: string[] = [];
  const host: StageHost = {
    aliveWorkers: () => nodes.map((n) => ({ nodeId: n, uri: `http://${n}` })),
    clientOf: (node) => ({ nodeId: node.nodeId }) as unknown as WorkerClient,
    headers: async () => ({}),
    deleteTask: (client, taskId) => deleted.push(`${client.nodeId}:${taskId}`),
    planRoot: () => Promise.reject(new Error('no root')),
    workTimeoutMs: 1000,
    planRootOn: async (node, request, taskId) => {
      if (node.nodeId === failPlanOn) throw new VivaceError('COLUMN_NOT_FOUND', 'no such column');
      const task = new FakeTask(node.nodeId, request, taskId);
      tasks.push(task);
      const plan: Plan = { columns: [{ name: 'x', type: 'bigint', typeSignature: { rawType: 'bigint', arguments: [] } } as never], execute: () => task, release: () => { task.released = true; } };
      return plan;
    },
  };
  return { host, tasks, deleted };
}

const staged = (names: string[]): StagedQuery => ({ plan: scatteredPlanOf(SQL, spooling, new Set(['tpch']))!, splits: new Map([[0, { names }]]) });

/** A scattered scan over splits a and b on w0 and w1, executing. */
async function executing(): Promise<{ execution: Execution; tasks: FakeTask[]; deleted: string[] }> {
  const { host, tasks, deleted } = fakeHost(['w0', 'w1']);
  const execution = (await planScattered(host, { queryId: 'q', sql: SQL, session: spooling }, staged(['a', 'b']))).execute();
  return { execution, tasks, deleted };
}

/** Lets the promise callbacks run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('scattered scan: the coordinator', () => {
  it('is planned only for a client of the spooling protocol, over the connector\'s splits', () => {
    const connectors = builtInConnectors(undefined, { tpchMinRows: 0 });
    expect(scatteredQuery(SQL, session({ catalog: 'tpch', schema: 'sf1' }), connectors)).to.equal(undefined);
    const planned = scatteredQuery(SQL, spooling, connectors)!;
    expect(planned.plan.choices.scattered).to.equal(true);
    expect(planned.splits.get(0)!.names!.length).to.be.greaterThan(1);
  });

  it('spreads the splits round-robin, one root task per worker carrying the scattered choices', async () => {
    const { host, tasks } = fakeHost(['w0', 'w1']);
    const plan = await planScattered(host, { queryId: 'q', sql: SQL, session: spooling, targetBytes: 1000 }, staged(['a', 'b', 'c']));
    expect(plan.columns.map((c) => c.name)).to.deep.equal(['x']);
    expect(tasks.map((t) => [t.node, t.taskId, t.request.stage])).to.deep.equal([
      ['w0', 'q.0.0.0', { kind: 'fragment', fragmentId: 0, splits: [{ file: 'a', slice: 0, slices: 1 }, { file: 'c', slice: 0, slices: 1 }], inputs: [], choices: staged([]).plan.choices }],
      ['w1', 'q.0.1.0', { kind: 'fragment', fragmentId: 0, splits: [{ file: 'b', slice: 0, slices: 1 }], inputs: [], choices: staged([]).plan.choices }],
    ]);
    expect(tasks.every((t) => t.request.execute === true && t.request.targetBytes === 1000)).to.equal(true);
    plan.release();
    expect(tasks.every((t) => t.released)).to.equal(true);
  });

  it('fetches every task\'s page at once and hands the pages out as they come, ending with the last', async () => {
    const { execution, tasks } = await executing();
    const [w0, w1] = tasks as [FakeTask, FakeTask];
    const first = execution.next(100);
    await settle();
    expect([w0.asked.length, w1.asked.length]).to.deep.equal([1, 1]);
    w1.page(5);
    expect((await first)!.json).to.equal('w1:5');
    await settle();
    // w1 fetches its next page; w0's first is still coming.
    expect([w0.asked.length, w1.asked.length]).to.deep.equal([1, 1]);
    w0.page(3);
    w1.page(4, true);
    await settle();
    // Both pages wait here: w0 fetches no more until its page is handed out, w1 has ended.
    expect([w0.asked.length, w1.asked.length]).to.deep.equal([0, 0]);
    expect((await execution.next(100))!.json).to.equal('w0:3');
    expect([w0.asked.length, w1.asked.length]).to.deep.equal([1, 0]);
    expect((await execution.next(100))!.json).to.equal('w1:4');
    expect(execution.exhausted).to.not.equal(true);
    w0.page(2, true);
    expect((await execution.next(100))!.json).to.equal('w0:2');
    expect(execution.exhausted).to.equal(true);
    expect(await execution.next(100)).to.equal(null);
    const progress = execution.progress();
    expect(progress).to.deep.include({ processedRows: 20, processedBytes: 200, cpuTimeMillis: 2 });
    // The root stage's own tasks: one per worker, with its splits, its scan's figures and the rows it handed out.
    expect(progress.tasks!.map(({ wallTimeMillis: _wall, ...task }) => task)).to.deep.equal([
      { taskId: 'q.0.0.0', fragmentId: 0, partition: 0, nodeId: 'w0', state: 'FINISHED', splits: 1, outputRows: 5, outputBytes: 5, processedRows: 10, processedBytes: 100, cpuTimeMillis: 1, peakMemoryBytes: 0 },
      { taskId: 'q.0.1.0', fragmentId: 0, partition: 1, nodeId: 'w1', state: 'FINISHED', splits: 1, outputRows: 9, outputBytes: 9, processedRows: 10, processedBytes: 100, cpuTimeMillis: 1, peakMemoryBytes: 0 },
    ]);
    expect(tasks.some((t) => t.canceled)).to.equal(false);
  });

  it('reports a running task as RUNNING, and a task run again under its new attempt\'s id and worker', async () => {
    const { host, tasks } = fakeHost(['w0', 'w1']);
    const execution = (await planScattered(host, { queryId: 'q', sql: SQL, session: spooling }, staged(['a', 'b']))).execute();
    const first = execution.next(100);
    await settle();
    tasks[0]!.fail(new VivaceError('REMOTE_TASK_ERROR', 'Lost worker w0'));
    tasks[1]!.page(2);
    await first;
    await settle();
    expect(execution.progress().tasks!.map((t) => [t.taskId, t.nodeId, t.state, t.outputRows])).to.deep.equal([['q.0.0.1', 'w1', 'RUNNING', 0], ['q.0.1.0', 'w1', 'RUNNING', 2]]);
    execution.cancel();
  });

  it('a task that ends without rows ends the scan once the others did', async () => {
    const { execution, tasks } = await executing();
    const [w0, w1] = tasks as [FakeTask, FakeTask];
    const first = execution.next(100);
    await settle();
    w0.asked.shift()!.resolve(null);
    w1.page(7, true);
    expect((await first)!.json).to.equal('w1:7');
    expect(execution.exhausted).to.equal(true);
  });

  it('a task failing with the statement\'s own error fails the scan and ends every task (their segments go with them)', async () => {
    const { execution, tasks } = await executing();
    const [w0, w1] = tasks as [FakeTask, FakeTask];
    const first = execution.next(100);
    await settle();
    w0.fail(new VivaceError('DIVISION_BY_ZERO', 'Division by zero'));
    const err = await first.then(() => undefined, (e: unknown) => e);
    expect(err).to.be.instanceOf(VivaceError).with.property('errorName', 'DIVISION_BY_ZERO');
    expect([w0.canceled, w1.canceled]).to.deep.equal([true, true]);
    expect(tasks).to.have.length(2);
    const again = await execution.next(100).then(() => undefined, (e: unknown) => e);
    expect(again).to.equal(err);
  });

  it('a task lost before any of its pages came runs again on another worker, as its next attempt with the same splits', async () => {
    const { execution, tasks, deleted } = await executing();
    const [w0, w1] = tasks as [FakeTask, FakeTask];
    const first = execution.next(100);
    await settle();
    w0.fail(new VivaceError('REMOTE_TASK_ERROR', 'Lost worker w0'));
    await settle();
    expect(tasks).to.have.length(3);
    const again = tasks[2]!;
    expect([again.node, again.taskId, again.request.stage]).to.deep.equal(['w1', 'q.0.0.1', w0.request.stage]);
    expect(deleted).to.deep.equal(['w0:q.0.0.0']);
    again.page(2, true);
    expect((await first)!.json).to.equal('w1:2');
    w1.page(3, true);
    expect((await execution.next(100))!.json).to.equal('w1:3');
    expect(execution.exhausted).to.equal(true);
    expect(tasks.some((t) => t.canceled)).to.equal(false);
  });

  it('a task lost after one of its pages came fails the scan (its rows were handed out)', async () => {
    const late = await executing();
    const [w0, w1] = late.tasks as [FakeTask, FakeTask];
    const first = late.execution.next(100);
    await settle();
    w0.page(1);
    await first;
    await settle();
    w0.fail(new VivaceError('REMOTE_TASK_ERROR', 'Lost worker w0'));
    expect(await late.execution.next(100).then(() => undefined, (e: unknown) => e)).to.have.property('errorName', 'REMOTE_TASK_ERROR');
    expect(late.tasks).to.have.length(2);
    expect(w1.canceled).to.equal(true);
  });

  it('a cancel ends every task, and a next() waiting then rejects USER_CANCELED', async () => {
    const { execution, tasks } = await executing();
    const waiting = execution.next(100);
    await settle();
    execution.cancel();
    const err = await waiting.then(() => undefined, (e: unknown) => e);
    expect(err).to.be.instanceOf(VivaceError).with.property('errorName', 'USER_CANCELED');
    expect(tasks.every((t) => t.canceled)).to.equal(true);
  });

  it('a task that fails to plan fails the query with its error, the other tasks released; no worker: NO_NODES_AVAILABLE', async () => {
    const { host, tasks } = fakeHost(['w0', 'w1'], 'w1');
    const err = await planScattered(host, { queryId: 'q', sql: SQL, session: spooling }, staged(['a', 'b'])).then(() => undefined, (e: unknown) => e);
    expect(err).to.be.instanceOf(VivaceError).with.property('errorName', 'COLUMN_NOT_FOUND');
    expect(tasks.map((t) => [t.node, t.released])).to.deep.equal([['w0', true]]);
    const none = await planScattered(fakeHost([]).host, { queryId: 'q', sql: SQL, session: spooling }, staged(['a'])).then(() => undefined, (e: unknown) => e);
    expect(none).to.be.instanceOf(VivaceError).with.property('errorName', 'NO_NODES_AVAILABLE');
  });
});
