// A real worker on a real DuckDB: status endpoints, then the task protocol end to end (plan, execute,
// pages by token, retries, cancel, errors), each JSON body validated against its schema.
import { expect } from 'chai';
import { TASK_HEADERS, taskPath } from '../../lib/cluster/task-protocol.js';
import { expectValid } from '../support/schema-validator.js';
import { call, execute, exhausted, planTask, readAll, results, rowsOf, session, startTestWorker, type TestWorker } from './worker-support.js';

describe('worker app: status and info', () => {
  let w: TestWorker;
  before(async () => {
    w = await startTestWorker();
  });
  after(async () => w.stop());

  it('answers HEAD and GET /v1/status as a NodeStatus with coordinator false', async () => {
    const head = await fetch(`${w.url}/v1/status`, { method: 'HEAD' });
    expect(head.status).to.equal(200);
    const status = await call('GET', `${w.url}/v1/status`);
    expect(status.status).to.equal(200);
    expectValid('worker-status', status.body);
    expect(status.body).to.include({ nodeId: 'worker-spec', coordinator: false, environment: 'test', state: 'ACTIVE' });
  });

  it('answers /v1/info (coordinator false), /v1/info/state and 404 on /v1/info/coordinator', async () => {
    const info = await call('GET', `${w.url}/v1/info`);
    expectValid('server-info', info.body);
    expect(info.body).to.include({ coordinator: false, nodeId: 'worker-spec', state: 'ACTIVE', starting: false });
    expect((await call('GET', `${w.url}/v1/info/state`)).body).to.equal('ACTIVE');
    const coordinator = await fetch(`${w.url}/v1/info/coordinator`);
    expect(coordinator.status).to.equal(404);
  });

  it('answers an unknown path with a 404 TaskError', async () => {
    const answer = await call('GET', `${w.url}/v1/nothing`);
    expect(answer.status).to.equal(404);
    expect(answer.body.errorName).to.equal('NOT_FOUND');
  });

  it('refuses a state other than SHUTTING_DOWN or ACTIVE with a 400', async () => {
    const answer = await call('PUT', `${w.url}/v1/info/state`, '"DRAINED"');
    expect(answer.status).to.equal(400);
    expect((await call('PUT', `${w.url}/v1/info/state`, '"ACTIVE"')).body).to.equal('ACTIVE');
  });
});

describe('worker app: tasks', () => {
  let w: TestWorker;
  before(async () => {
    w = await startTestWorker({ maxConnections: 2 });
  });
  after(async () => w.stop());

  it('plans, executes and pages a query, then answers 204', async () => {
    const plan = await planTask(w.url, 't-basic', "SELECT 1 AS one, 'two' AS two");
    expect(plan.status).to.equal(200);
    expect(plan.body).to.deep.equal({ columns: [{ name: 'one', type: { base: 'integer' } }, { name: 'two', type: { base: 'varchar', length: 3 } }] });
    expect((await execute(w.url, 't-basic')).status).to.equal(204);
    const page = await results(w.url, 't-basic', 0);
    expect(page.status).to.equal(200);
    expect(rowsOf(page)).to.deep.equal([[1, 'two']]);
    expect(page.headers.get(TASK_HEADERS.rows)).to.equal('1');
    expect(exhausted(page)).to.equal(true);
    const end = await results(w.url, 't-basic', 1);
    expect(end.status).to.equal(204);
    expect(exhausted(end)).to.equal(true);
  });

  it('with execute: true, starts a query with its plan and answers token 0 from the first batch', async () => {
    const plan = await planTask(w.url, 't-fast', 'SELECT 41 + 1 AS answer', { execute: true, targetBytes: 4096 });
    expect(plan.body).to.deep.include({ executing: true });
    const page = await results(w.url, 't-fast', 0);
    expect(rowsOf(page)).to.deep.equal([[42]]);
    expect(exhausted(page)).to.equal(true);
    // Executing again is harmless (a retried request).
    expect((await execute(w.url, 't-fast')).status).to.equal(204);
  });

  it('with inlineFirstPage, answers the POST with the plan and page 0 in one body; the next GET is token 1', async () => {
    const post = (taskId: string, sql: string, targetBytes = 1 << 20) =>
      call('POST', w.url + taskPath(taskId), { queryId: 'q', sql, session: session(), execute: true, inlineFirstPage: true, targetBytes });
    const split = (answer: Awaited<ReturnType<typeof call>>) => {
      const bytes = Buffer.from(answer.text);
      const planBytes = Number(answer.headers.get(TASK_HEADERS.planBytes));
      return { plan: expectValid('task-plan-response', JSON.parse(bytes.subarray(0, planBytes).toString())), rows: bytes.subarray(planBytes).toString() };
    };
    const small = await post('t-inline', "SELECT 'é' AS accent, 2 AS two");
    expect(small.status).to.equal(200);
    const { plan, rows } = split(small);
    expect(plan.columns.map((c: { name: string }) => c.name)).to.deep.equal(['accent', 'two']);
    expect(JSON.parse(`[${rows}]`)).to.deep.equal([['é', 2]]);
    expect(small.headers.get(TASK_HEADERS.rows)).to.equal('1');
    expect(exhausted(small)).to.equal(true);
    expect((await results(w.url, 't-inline', 1)).status).to.equal(204);

    const empty = split(await post('t-inline-empty', 'SELECT 1 AS x WHERE false'));
    expect(empty.rows).to.equal('');

    const big = await post('t-inline-big', 'SELECT a.x FROM UNNEST(sequence(1, 1000)) AS a(x) CROSS JOIN UNNEST(sequence(1, 10)) AS b(y)', 4096);
    expect(exhausted(big)).to.equal(false);
    const rest = await readAll(w.url, 't-inline-big', 1 << 20, 1);
    expect(JSON.parse(`[${split(big).rows}]`).length + rest.rows.length).to.equal(10_000);

    // An update statement is not started: the body is the plan alone.
    const update = await post('t-inline-update', 'CREATE TABLE inline_t (x bigint)');
    expect(update.headers.get(TASK_HEADERS.planBytes)).to.equal(null);
    expect(update.body.updateType).to.equal('CREATE TABLE');
    await call('DELETE', w.url + taskPath('t-inline-update'));

    // A first batch that fails: the plan alone, and token 0 answers the error.
    const failing = await post('t-inline-fail', 'SELECT 1 / x FROM (VALUES 0) AS v(x)');
    expect(failing.headers.get(TASK_HEADERS.planBytes)).to.equal(null);
    expectValid('task-plan-response', failing.body);
    expect((await results(w.url, 't-inline-fail', 0)).body.errorName).to.equal('DIVISION_BY_ZERO');
  });

  it('pages a larger result by targetBytes; the same token again is the same page, an older one 410, one ahead 400', async () => {
    await planTask(w.url, 't-pages', "SELECT x, lpad('', 50, 'v') AS pad FROM (SELECT a.x * 10000 + b.x - 10000 AS x FROM UNNEST(sequence(1, 2)) AS a(x) CROSS JOIN UNNEST(sequence(1, 10000)) AS b(x)) ORDER BY x", { execute: true, targetBytes: 64 << 10 });
    const first = await results(w.url, 't-pages', 0);
    const again = await results(w.url, 't-pages', 0);
    expect(again.text).to.equal(first.text);
    expect(exhausted(first)).to.equal(false);
    const second = await results(w.url, 't-pages', 1, 64 << 10);
    expect(second.status).to.equal(200);
    expect((await results(w.url, 't-pages', 1, 64 << 10)).text).to.equal(second.text);
    const gone = await results(w.url, 't-pages', 0);
    expect(gone.status).to.equal(410);
    const ahead = await results(w.url, 't-pages', 5);
    expect(ahead.status).to.equal(400);
    const rest = await readAll(w.url, 't-pages', 64 << 10, 2);
    const rows = [...rowsOf(first), ...rowsOf(second), ...rest.rows];
    expect(rows).to.have.length(20000);
    expect(rows[0]).to.deep.equal([1, 'v'.repeat(50)]);
    expect(rows[19999]![0]).to.equal(20000);
    expect(rest.pages.length).to.be.greaterThan(2);
    for (const page of [first, second, ...rest.pages]) expect(page.text.length).to.be.lessThan(200 << 10);
    // Rows read from tables: none (UNNEST is no table).
    expect(Number(rest.pages.at(-1)!.headers.get(TASK_HEADERS.processedRows))).to.equal(0);
  });

  it('renders the next page while the current one travels (one page ahead, no more)', async () => {
    await planTask(w.url, 't-ahead', 'SELECT a.x FROM UNNEST(sequence(1, 1000)) AS a(x) CROSS JOIN UNNEST(sequence(1, 100)) AS b(y)');
    await execute(w.url, 't-ahead');
    const first = await results(w.url, 't-ahead', 0, 8192);
    const read = rowsOf(first).length;
    const processed = async () => (await call('GET', `${w.url}/v1/task`)).body.find((t: { taskId: string }) => t.taskId === 't-ahead').outputRows as number;
    // The page after it is rendered without being asked for...
    while ((await processed()) <= read);
    const ahead = await processed();
    expect(ahead).to.be.lessThan(3 * read + 2048);
    // ...and only that one: nothing more is rendered until it is read.
    expect(await processed()).to.equal(ahead);
    const second = await results(w.url, 't-ahead', 1, 8192);
    expect(read + rowsOf(second).length).to.equal(ahead);
    expect((await call('DELETE', w.url + taskPath('t-ahead'))).status).to.equal(204);
  });

  it('runs statements with an update type only on execute, and reports the update count', async () => {
    const create = await planTask(w.url, 't-create', 'CREATE TABLE spec_t AS SELECT * FROM (VALUES 1, 2, 3) AS v(x)', { execute: true });
    expect(create.body.updateType).to.equal('CREATE TABLE');
    expect(create.body.executing).to.equal(undefined);
    expect((await results(w.url, 't-create', 0)).status).to.equal(409);
    expect((await execute(w.url, 't-create')).status).to.equal(204);
    const page = await results(w.url, 't-create', 0);
    expect(rowsOf(page)).to.deep.equal([[3]]);
    expect(page.headers.get(TASK_HEADERS.updateCount)).to.equal('3');
    await planTask(w.url, 't-insert', 'INSERT INTO spec_t VALUES 4, 5');
    await execute(w.url, 't-insert');
    const inserted = await readAll(w.url, 't-insert');
    expect(inserted.rows).to.deep.equal([[2]]);
    await planTask(w.url, 't-count', 'SELECT count(*) FROM spec_t', { execute: true });
    expect(rowsOf(await results(w.url, 't-count', 0))).to.deep.equal([[5]]);
    await planTask(w.url, 't-drop', 'DROP TABLE spec_t');
    await execute(w.url, 't-drop');
    await readAll(w.url, 't-drop');
  });

  it('reports session changes with the plan', async () => {
    const plan = await planTask(w.url, 't-use', 'USE tpch.tiny');
    expect(plan.body).to.deep.include({ updateType: 'USE', sessionUpdates: { setCatalog: 'tpch', setSchema: 'tiny' } });
    await call('DELETE', w.url + taskPath('t-use'));
  });

  it("answers a statement's error as a 400 TaskError with its location", async () => {
    const syntax = await planTask(w.url, 't-syntax', 'SELECT * FRM nowhere');
    expect(syntax.status).to.equal(400);
    expect(syntax.body).to.include({ errorName: 'SYNTAX_ERROR', errorType: 'USER_ERROR', status: 400 });
    expect(syntax.body.errorLocation).to.deep.equal({ lineNumber: 1, columnNumber: 10 });
    // The same POST again (a retry) gets the same answer.
    expect((await planTask(w.url, 't-syntax', 'SELECT * FRM nowhere')).body.errorName).to.equal('SYNTAX_ERROR');
    const missing = await planTask(w.url, 't-missing', 'SELECT * FROM memory.default.no_such_table');
    expect(missing.status).to.equal(400);
    expect(missing.body.errorName).to.equal('TABLE_NOT_FOUND');
  });

  it('answers an error while executing as a 400 on the page, and again for the same token', async () => {
    await planTask(w.url, 't-div', 'SELECT 1 / x FROM (VALUES 1, 0) AS v(x)', { execute: true });
    const page = await results(w.url, 't-div', 0);
    expect(page.status).to.equal(400);
    expect(page.body.errorName).to.equal('DIVISION_BY_ZERO');
    expect((await results(w.url, 't-div', 0)).body.errorName).to.equal('DIVISION_BY_ZERO');
    expect((await results(w.url, 't-div', 1)).status).to.equal(409);
  });

  it('answers 404 for an unknown task, and 204 to its DELETE', async () => {
    expect((await results(w.url, 'nope', 0)).status).to.equal(404);
    expect((await execute(w.url, 'nope')).status).to.equal(404);
    expect((await call('DELETE', w.url + taskPath('nope'))).status).to.equal(204);
  });

  it('cancels a task mid-stream on DELETE: it is gone and its connection is free again', async () => {
    await planTask(w.url, 't-cancel', 'SELECT a.x * b.y FROM UNNEST(sequence(1, 1000)) AS a(x) CROSS JOIN UNNEST(sequence(1, 200)) AS b(y)', { execute: true, targetBytes: 4096 });
    expect((await results(w.url, 't-cancel', 0)).status).to.equal(200);
    const listed = await call('GET', `${w.url}/v1/task`);
    expectValid('task-list', listed.body);
    expect(listed.body.map((t: { taskId: string }) => t.taskId)).to.include('t-cancel');
    expect((await call('DELETE', w.url + taskPath('t-cancel'))).status).to.equal(204);
    expect((await results(w.url, 't-cancel', 1)).status).to.equal(404);
    expect(w.worker.registry.activeCount).to.equal(0);
    await planTask(w.url, 't-after', 'SELECT 7', { execute: true });
    expect(rowsOf(await results(w.url, 't-after', 0))).to.deep.equal([[7]]);
  });

  it('aborts a plan in progress on DELETE (one waiting for a connection)', async () => {
    // Two planned, unexecuted tasks hold both connections; a third plans until one is given back.
    await planTask(w.url, 't-hold1', 'SELECT 1');
    await planTask(w.url, 't-hold2', 'SELECT 2');
    const waiting = planTask(w.url, 't-waiting', 'SELECT 3');
    // The POST has arrived once the worker lists the task.
    while (!(await call('GET', `${w.url}/v1/task`)).body.some((t: { taskId: string }) => t.taskId === 't-waiting'));
    expect((await call('DELETE', w.url + taskPath('t-waiting'))).status).to.equal(204);
    await call('DELETE', w.url + taskPath('t-hold1'));
    const answer = await waiting;
    expect(answer.status).to.equal(400);
    expect(answer.body.errorName).to.equal('USER_CANCELED');
    await call('DELETE', w.url + taskPath('t-hold2'));
    // Both connections are free again.
    await planTask(w.url, 't-free1', 'SELECT 1');
    await planTask(w.url, 't-free2', 'SELECT 2', { execute: true });
    expect(rowsOf(await results(w.url, 't-free2', 0))).to.deep.equal([[2]]);
    await call('DELETE', w.url + taskPath('t-free1'));
  });

  it('serves system tables from the rows the task brings, and another user never sees them', async () => {
    const system = {
      nodes: [{ nodeId: 'n1', httpUri: 'http://10.0.0.1:8080', nodeVersion: '0.1.0', coordinator: true, state: 'active' }],
      queries: [{ queryId: 'q-secret', state: 'RUNNING', user: 'alice', query: 'SELECT 1', created: 1, queuedTimeMs: 0, analysisTimeMs: 0, planningTimeMs: 0 }],
    };
    await planTask(w.url, 't-sys', 'SELECT node_id, coordinator FROM system.runtime.nodes', { execute: true, system });
    expect(rowsOf(await results(w.url, 't-sys', 0))).to.deep.equal([['n1', true]]);
    await planTask(w.url, 't-sysq', 'SELECT query_id FROM system.runtime.queries', { execute: true });
    expect(rowsOf(await results(w.url, 't-sysq', 0))).to.deep.equal([['q-secret']]);
    const bob = await call('POST', w.url + taskPath('t-bob'), { queryId: 'q2', sql: 'SELECT query_id FROM system.runtime.queries', session: session({ user: 'bob' }), execute: true });
    expect(bob.status).to.equal(200);
    expect(rowsOf(await results(w.url, 't-bob', 0))).to.deep.equal([]);
  });
});
