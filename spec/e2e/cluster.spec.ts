// `vivace serve --workers 2` as real processes, started as `make run` starts it (bench/cluster-process.ts):
// the coordinator lists both workers, runs queries on them, sees a worker killed with SIGKILL as failed
// within 7 s and has it back and healthy within 30 s, keeps memory tables across the memory worker's death,
// fails queries cleanly (and stays up) with every worker dead, and takes its workers with it when it is
// killed itself.
import { expect } from 'chai';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { getPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startClusterProcess, until, type ClusterProcess } from '../../bench/cluster-process.js';
import { request, runStatement } from '../support/http.js';
import { validateResponse } from '../support/schema-validator.js';
import { healthy, nodes, USER } from './cluster-nodes.js';
import { workerPids } from '../../bench/process-cpu.js';

// A statement waits at most 1 s for a worker (query-manager.required-workers-max-wait, 5m by default), so that
// with every worker dead it fails rather than waits for their restart.
const startCluster = (dataDirectory: string, workers = 2) =>
  startClusterProcess({ workers, dataDirectory, properties: { 'shutdown.grace-period': '1s', 'query-manager.required-workers-max-wait': '1s' }, captureOutput: true });

/** Runs a statement to its end and expects it to have finished (the error shown otherwise). */
async function query(cluster: ClusterProcess, sql: string) {
  const result = await runStatement(cluster.url, sql, USER);
  expect(result.final.stats.state, JSON.stringify(result.final.error)).to.equal('FINISHED');
  return result;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('e2e: a coordinator with two local workers (real processes)', function () {
  this.timeout(120_000);
  let dataDirectory: string;
  let cluster: ClusterProcess;

  before(async () => {
    dataDirectory = mkdtempSync(join(tmpdir(), 'vivace-e2e-'));
    cluster = await startCluster(dataDirectory);
    await until('both workers healthy', 40_000, () => healthy(cluster));
  });
  after(async () => {
    await cluster?.stop();
    rmSync(dataDirectory, { recursive: true, force: true });
  });

  it('lists both workers in /v1/node (schema-valid), none failed', async () => {
    const all = await nodes(cluster, '/v1/node');
    expect(all.map((n) => n.uri).sort()).to.deep.equal([...cluster.workerUrls.values()].map((u) => `${u}/v1/status`).sort());
    expect(await nodes(cluster, '/v1/node/failed')).to.deep.equal([]);
  });

  it('runs its workers below its own CPU priority, every thread (vivace.local-workers.nice, 10 by default)', () => {
    const own = getPriority(cluster.pid);
    const pids = [...workerPids(cluster.pid).values()];
    expect(pids).to.have.length(2);
    for (const pid of pids) {
      const threads = readdirSync(`/proc/${pid}/task`).map(Number);
      expect(threads.length).to.be.greaterThan(4); // V8's, libuv's and DuckDB's threads besides the main one
      expect(new Set(threads.map((t) => getPriority(t)))).to.deep.equal(new Set([Math.max(own, 10)]));
    }
  });

  it('refuses a stranger\'s announcement: local workers share a secret made for this start', async () => {
    const stranger = await request('PUT', `${cluster.url}/v1/announcement/intruder`, {
      body: JSON.stringify({ environment: 'vivace', services: [{ type: 'trino', properties: { http: 'http://127.0.0.1:9' } }] }),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(stranger.status).to.equal(401);
    validateResponse('error', stranger.body);
    expect(await nodes(cluster, '/v1/node')).to.have.length(2);
  });

  it('runs queries on the workers (tpch and memory)', async () => {
    const { rows } = await query(cluster, 'SELECT count(*) FROM tpch.tiny.nation');
    expect(rows).to.deep.equal([[25]]);
    const created = await query(cluster, 'CREATE TABLE memory.default.kept AS SELECT regionkey, name FROM tpch.tiny.region');
    expect(created.final.updateCount).to.equal(5);
    // system.runtime is the coordinator's view, sent with the statement to the worker that runs it.
    const nodeRows = await query(cluster, 'SELECT node_id, coordinator, state FROM system.runtime.nodes ORDER BY coordinator DESC, node_id');
    expect(nodeRows.rows.map((r) => r.slice(1))).to.deep.equal([[true, 'active'], [false, 'active'], [false, 'active']]);
    expect(nodeRows.rows.slice(1).map((r) => r[0])).to.deep.equal(['worker-0', 'worker-1']);
  });

  it('a worker killed with SIGKILL shows in /v1/node/failed (or is replaced) within 7 s, and is back and healthy within 30 s', async () => {
    const pid = workerPids(cluster.pid).get('worker-1')!;
    const before = cluster.workerUrls.get('worker-1')!;
    process.kill(pid, 'SIGKILL');
    const killed = Date.now();
    // Failed at its old address, or already back at a new one (alive at its first answer, a new node has no
    // warm-up): either way its old address is no longer a healthy worker.
    const oldStatus = `${before}/v1/status`;
    await until('worker-1 failed or replaced', 7_000, async () =>
      (await nodes(cluster, '/v1/node/failed')).some((n) => n.uri === oldStatus) || !(await nodes(cluster, '/v1/node')).some((n) => n.uri === oldStatus));
    const detected = Date.now() - killed;
    await until('worker-1 restarted and healthy', 30_000, async () => cluster.workerUrls.get('worker-1') !== before && (await healthy(cluster)));
    const recovered = Date.now() - killed - detected;
    if (process.env.VIVACE_E2E_TIMES) console.log(`detected in ${detected} ms, healthy again in ${recovered} ms`);
    expect(detected).to.be.below(7_000);
    expect(recovered).to.be.below(30_000);
    expect((await query(cluster, 'SELECT count(*) FROM tpch.tiny.region')).rows).to.deep.equal([[5]]);
    // The supervisor says so on the coordinator's log, and every line there is a JSON object except what
    // a worker printed that is not one (its listening line, prefixed with its id).
    const exited = cluster.output.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.event === 'worker_exited');
    expect(exited).to.include({ component: 'local_workers', nodeId: 'worker-1', exit: 'SIGKILL' });
    expect(cluster.output.filter((l) => !l.startsWith('{') && !l.startsWith('[worker-') && !l.startsWith('vivace coordinator listening') && !l.startsWith('vivace coordinator ready'))).to.deep.equal([]);
  });

  it('memory tables survive the memory worker\'s death', async () => {
    const before = cluster.workerUrls.get('worker-0')!;
    process.kill(workerPids(cluster.pid).get('worker-0')!, 'SIGKILL');
    await until('worker-0 restarted and healthy', 30_000, async () => cluster.workerUrls.get('worker-0') !== before && (await healthy(cluster)));
    const { rows } = await query(cluster, 'SELECT name FROM memory.default.kept ORDER BY regionkey');
    expect(rows).to.deep.equal([['AFRICA'], ['AMERICA'], ['ASIA'], ['EUROPE'], ['MIDDLE EAST']]);
  });

  it('with every worker dead a query fails cleanly and the coordinator stays up', async () => {
    const pids = workerPids(cluster.pid);
    const before = [...cluster.workerUrls.values()];
    for (const pid of pids.values()) process.kill(pid, 'SIGKILL');
    await until('both workers gone', 5_000, () => [...pids.values()].every((pid) => !alive(pid)));
    const { final } = await runStatement(cluster.url, 'SELECT count(*) FROM tpch.tiny.nation', USER);
    expect(final.stats.state).to.equal('FAILED');
    expect(final.error.errorName).to.be.oneOf(['NO_NODES_AVAILABLE', 'REMOTE_TASK_ERROR', 'GENERIC_INSUFFICIENT_RESOURCES']);
    const info = await request('GET', `${cluster.url}/v1/info`);
    expect(info.status).to.equal(200);
    validateResponse('server-info', info.body);
    await until('workers back', 45_000, async () => [...cluster.workerUrls.values()].every((url) => !before.includes(url)) && (await healthy(cluster)));
  });

  it('its workers do not outlive a coordinator killed with SIGKILL', async () => {
    const pids = [...workerPids(cluster.pid).values()];
    expect(pids).to.have.length(2);
    cluster.process.kill('SIGKILL');
    await until('workers stopped', 15_000, () => pids.every((pid) => !alive(pid)));
  });
});

describe('e2e: stopping a coordinator with local workers', function () {
  this.timeout(60_000);

  it('SIGTERM stops its workers and then itself', async () => {
    const dataDirectory = mkdtempSync(join(tmpdir(), 'vivace-e2e-stop-'));
    let cluster: ClusterProcess | undefined;
    try {
      const started = (cluster = await startCluster(dataDirectory, 1));
      await until('the worker listens', 30_000, () => started.workerUrls.size === 1);
      const pids = [...workerPids(started.pid).values()];
      expect(pids).to.have.length(1);
      const exited = new Promise<number | null>((r) => started.process.once('exit', (code) => r(code)));
      started.process.kill('SIGTERM');
      expect(await exited).to.equal(0);
      expect(pids.filter(alive)).to.deep.equal([]);
    } finally {
      await cluster?.stop();
      rmSync(dataDirectory, { recursive: true, force: true });
    }
  });
});
