// `vivace serve --workers 2` as real processes on free ports: the coordinator lists both workers, runs
// queries on them, sees a worker killed with SIGKILL as failed within 7 s and has it back and healthy
// within 30 s, keeps memory tables across the memory worker's death, fails queries cleanly (and stays up)
// with every worker dead, and takes its workers with it when it is killed itself.
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request, runStatement } from '../support/http.js';
import { validateResponse } from '../support/schema-validator.js';
import { workerPids } from './worker-processes.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const USER = { 'X-Trino-User': 'alice' };

interface Cluster {
  process: ChildProcess;
  url: string;
  /** worker node id -> its URL, from the lines the coordinator forwards */
  workerUrls: Map<string, string>;
  output: string[];
}

async function startCluster(dataDirectory: string, workers = 2): Promise<Cluster> {
  const config = join(dataDirectory, 'config.properties');
  writeFileSync(config, `data.directory=${dataDirectory}\nshutdown.grace-period=1s\n`);
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'lib/cli/main.ts'), 'serve', '--port', '0', '--workers', String(workers), '--config', config], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const cluster: Cluster = { process: child, url: '', workerUrls: new Map(), output: [] };
  const onLine = (line: string) => {
    cluster.output.push(line);
    const coordinator = 'vivace coordinator listening on ';
    if (line.startsWith(coordinator)) cluster.url = line.slice(coordinator.length).split(' ')[0]!;
    // "[worker-1] vivace worker worker-1 listening on http://127.0.0.1:40123"
    const listening = line.indexOf(' listening on ');
    if (line.startsWith('[worker-') && listening > 0) cluster.workerUrls.set(line.slice(1, line.indexOf(']')), line.slice(listening + ' listening on '.length).trim());
  };
  for (const stream of [child.stdout!, child.stderr!]) {
    let pending = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop()!;
      lines.forEach(onLine);
    });
  }
  await eventually('the coordinator listens', 30_000, () => cluster.url !== '');
  return cluster;
}

/** Polls observable state until `check` holds; fails after `timeoutMs` saying what was awaited. */
async function eventually(what: string, timeoutMs: number, check: () => boolean | Promise<boolean>): Promise<number> {
  const start = Date.now();
  for (;;) {
    if (await check()) return Date.now() - start;
    if (Date.now() - start > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function nodes(cluster: Cluster, path: '/v1/node' | '/v1/node/failed'): Promise<{ uri: string }[]> {
  const res = await request('GET', `${cluster.url}${path}`, { headers: USER });
  expect(res.status).to.equal(200);
  validateResponse('node-list', res.body);
  return res.body;
}

/** Both workers listed, at their current addresses, and not failed. */
async function healthy(cluster: Cluster): Promise<boolean> {
  const urls = [...cluster.workerUrls.values()].map((u) => `${u}/v1/status`);
  if (urls.length < 2) return false;
  const [all, failed] = await Promise.all([nodes(cluster, '/v1/node'), nodes(cluster, '/v1/node/failed')]);
  return urls.every((u) => all.some((n) => n.uri === u)) && failed.length === 0;
}

/** Runs a statement to its end and expects it to have finished (the error shown otherwise). */
async function query(cluster: Cluster, sql: string) {
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
  let cluster: Cluster;

  before(async () => {
    dataDirectory = mkdtempSync(join(tmpdir(), 'vivace-e2e-'));
    cluster = await startCluster(dataDirectory);
    await eventually('both workers healthy', 40_000, () => healthy(cluster));
  });
  after(async () => {
    if (cluster && cluster.process.exitCode === null && cluster.process.signalCode === null) {
      cluster.process.kill('SIGKILL');
      await new Promise((r) => cluster.process.once('exit', r));
    }
    rmSync(dataDirectory, { recursive: true, force: true });
  });

  it('lists both workers in /v1/node (schema-valid), none failed', async () => {
    const all = await nodes(cluster, '/v1/node');
    expect(all.map((n) => n.uri).sort()).to.deep.equal([...cluster.workerUrls.values()].map((u) => `${u}/v1/status`).sort());
    expect(await nodes(cluster, '/v1/node/failed')).to.deep.equal([]);
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

  it('a worker killed with SIGKILL shows in /v1/node/failed within 7 s, and is back and healthy within 30 s', async () => {
    const pid = workerPids(cluster.process.pid!).get('worker-1')!;
    const before = cluster.workerUrls.get('worker-1')!;
    process.kill(pid, 'SIGKILL');
    // Failed at its old address, or already back at a new one and warming up: either way listed as failed.
    const detected = await eventually('worker-1 failed', 7_000, async () => (await nodes(cluster, '/v1/node/failed')).length > 0);
    const recovered = await eventually('worker-1 restarted and healthy', 30_000, async () => cluster.workerUrls.get('worker-1') !== before && (await healthy(cluster)));
    if (process.env.VIVACE_E2E_TIMES) console.log(`detected in ${detected} ms, healthy again in ${recovered} ms`);
    expect(detected).to.be.below(7_000);
    expect(recovered).to.be.below(30_000);
    expect((await query(cluster, 'SELECT count(*) FROM tpch.tiny.region')).rows).to.deep.equal([[5]]);
    // The supervisor says so on the coordinator's log, and every line there is a JSON object except what
    // a worker printed that is not one (its listening line, prefixed with its id).
    const exited = cluster.output.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.event === 'worker_exited');
    expect(exited).to.include({ component: 'local_workers', nodeId: 'worker-1', exit: 'SIGKILL' });
    expect(cluster.output.filter((l) => !l.startsWith('{') && !l.startsWith('[worker-') && !l.startsWith('vivace coordinator listening'))).to.deep.equal([]);
  });

  it('memory tables survive the memory worker\'s death', async () => {
    const before = cluster.workerUrls.get('worker-0')!;
    process.kill(workerPids(cluster.process.pid!).get('worker-0')!, 'SIGKILL');
    await eventually('worker-0 restarted and healthy', 30_000, async () => cluster.workerUrls.get('worker-0') !== before && (await healthy(cluster)));
    const { rows } = await query(cluster, 'SELECT name FROM memory.default.kept ORDER BY regionkey');
    expect(rows).to.deep.equal([['AFRICA'], ['AMERICA'], ['ASIA'], ['EUROPE'], ['MIDDLE EAST']]);
  });

  it('with every worker dead a query fails cleanly and the coordinator stays up', async () => {
    const pids = workerPids(cluster.process.pid!);
    const before = [...cluster.workerUrls.values()];
    for (const pid of pids.values()) process.kill(pid, 'SIGKILL');
    await eventually('both workers gone', 5_000, () => [...pids.values()].every((pid) => !alive(pid)));
    const { final } = await runStatement(cluster.url, 'SELECT count(*) FROM tpch.tiny.nation', USER);
    expect(final.stats.state).to.equal('FAILED');
    expect(final.error.errorName).to.be.oneOf(['NO_NODES_AVAILABLE', 'REMOTE_TASK_ERROR']);
    const info = await request('GET', `${cluster.url}/v1/info`);
    expect(info.status).to.equal(200);
    validateResponse('server-info', info.body);
    await eventually('workers back', 45_000, async () => [...cluster.workerUrls.values()].every((url) => !before.includes(url)) && (await healthy(cluster)));
  });

  it('its workers do not outlive a coordinator killed with SIGKILL', async () => {
    const pids = [...workerPids(cluster.process.pid!).values()];
    expect(pids).to.have.length(2);
    cluster.process.kill('SIGKILL');
    await eventually('workers stopped', 15_000, () => pids.every((pid) => !alive(pid)));
  });
});

describe('e2e: stopping a coordinator with local workers', function () {
  this.timeout(60_000);

  it('SIGTERM stops its workers and then itself', async () => {
    const dataDirectory = mkdtempSync(join(tmpdir(), 'vivace-e2e-stop-'));
    try {
      const cluster = await startCluster(dataDirectory, 1);
      await eventually('the worker listens', 30_000, () => cluster.workerUrls.size === 1);
      const pids = [...workerPids(cluster.process.pid!).values()];
      expect(pids).to.have.length(1);
      const exited = new Promise<number | null>((r) => cluster.process.once('exit', (code) => r(code)));
      cluster.process.kill('SIGTERM');
      expect(await exited).to.equal(0);
      expect(pids.filter(alive)).to.deep.equal([]);
    } finally {
      rmSync(dataDirectory, { recursive: true, force: true });
    }
  });
});
