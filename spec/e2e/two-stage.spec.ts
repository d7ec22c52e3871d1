// `vivace serve --workers 2` with two stages on (the default; vivace.distributed-tpch-min-rows=0 so tiny's
// small tables split too), as real processes: the 22 TPC-H queries
// at tiny answer as DuckDB in process does (Q1 and Q6 in two stages, leaves on both workers), and a
// worker killed with SIGKILL while its leaf of Q1 at sf1 runs leaves the answer right (the leaf runs
// again on the other).
// The workers read the shared tpch cache (a link from this run's data directory), so sf1 is not
// generated here; the spec skips what needs sf1 when the cache has none.
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { internalBearer } from '../../lib/cluster/cluster-auth.js';
import { INTERNAL_BEARER_HEADER, TASK_PATH, type TaskInfo } from '../../lib/cluster/task-protocol.js';
import { defaultConfig } from '../../lib/config.js';
import { createDuckDbEngine, type DuckDbEngine } from '../../lib/engine/duckdb-engine.js';
import { TPCH_QUERIES } from '../../lib/tpch/queries/tpch-queries.js';
import { request, runStatement } from '../support/http.js';
import { runOn, session } from '../cluster/cluster-harness.js';
import { expectSameRows } from '../cluster/same-rows.js';
import { workerPids } from './worker-processes.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SHARED_TPCH = join(defaultConfig().dataDirectory, 'tpch');
const SECRET = 'two-stage-e2e-secret';
const headersFor = (schema: string) => ({ 'X-Trino-User': 'alice', 'X-Trino-Catalog': 'tpch', 'X-Trino-Schema': schema });
const Q1 = TPCH_QUERIES[0]!.sql;
const Q6 = TPCH_QUERIES[5]!.sql;

interface Running {
  child: ChildProcess;
  url: string;
  /** worker node id -> URL */
  workers: Map<string, string>;
}

async function until<T>(what: string, timeoutMs: number, probe: () => T | undefined | Promise<T | undefined>): Promise<T> {
  const start = Date.now();
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() - start > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function tasksOf(workerUrl: string): Promise<TaskInfo[]> {
  const res = await request('GET', `${workerUrl}${TASK_PATH}`, { headers: { [INTERNAL_BEARER_HEADER]: await internalBearer(SECRET, 'e2e-spec') } }).catch(() => undefined);
  return res?.status === 200 ? (res.body as TaskInfo[]) : [];
}

describe('e2e: two stages across two worker processes (the default, every table size)', function () {
  this.timeout(180_000);
  let dir: string;
  let cluster: Running;
  let local: DuckDbEngine;

  before(async function () {
    if (!existsSync(join(SHARED_TPCH, 'tiny', 'manifest.json'))) this.skip();
    dir = mkdtempSync(join(tmpdir(), 'vivace-e2e-two-stage-'));
    symlinkSync(SHARED_TPCH, join(dir, 'tpch'));
    writeFileSync(join(dir, 'config.properties'), `data.directory=${dir}\nshutdown.grace-period=1s\ninternal-communication.shared-secret=${SECRET}\nvivace.distributed-tpch-min-rows=0\n`);
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'lib/cli/main.ts'), 'serve', '--port', '0', '--workers', '2', '--config', join(dir, 'config.properties')], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    cluster = { child, url: '', workers: new Map() };
    for (const stream of [child.stdout!, child.stderr!]) {
      stream.setEncoding('utf8');
      let pending = '';
      stream.on('data', (chunk: string) => {
        const lines = (pending + chunk).split('\n');
        pending = lines.pop()!;
        for (const line of lines) {
          const at = line.indexOf(' listening on ');
          if (line.startsWith('vivace coordinator listening on ')) cluster.url = line.slice(at + 14).split(' ')[0]!;
          else if (line.startsWith('[worker-') && at > 0) cluster.workers.set(line.slice(1, line.indexOf(']')), line.slice(at + 14).trim());
        }
      });
    }
    await until('two workers listen and are not failed', 60_000, async () => {
      if (cluster.url === '' || cluster.workers.size < 2) return undefined;
      const [all, failed] = await Promise.all(['/v1/node', '/v1/node/failed'].map((p) => request('GET', `${cluster.url}${p}`, { headers: headersFor('tiny') })));
      return (all!.body as unknown[]).length === 2 && (failed!.body as unknown[]).length === 0 ? true : undefined;
    });
    local = await createDuckDbEngine({ tempDirectory: join(dir, 'local'), threads: 1, tpch: { directory: SHARED_TPCH, log: () => {} } });
  });
  after(async () => {
    await local?.close();
    if (cluster) {
      cluster.child.kill('SIGTERM');
      await new Promise((r) => cluster.child.once('exit', r));
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the 22 TPC-H queries at tiny: the answers DuckDB gives in process (Q1 and Q6 with a leaf stage on both workers)', async () => {
    for (const q of TPCH_QUERIES) {
      const result = await runStatement(cluster.url, q.sql, headersFor('tiny'));
      expect(result.final.stats.state, `Q${q.number}: ${JSON.stringify(result.final.error)}`).to.equal('FINISHED');
      expectSameRows(result.rows, (await runOn(local, q.sql, session({ catalog: 'tpch', schema: 'tiny' }))).rows, `Q${q.number}`);
      const leaf = result.final.stats.rootStage.subStages[0] as { nodes: number; completedSplits: number } | undefined;
      if (q.sql === Q1 || q.sql === Q6) expect(leaf, `Q${q.number} leaf stage`).to.include({ nodes: 2, completedSplits: 2 });
      else expect(leaf, `Q${q.number} runs as one task`).to.equal(undefined);
    }
  });

  it('Q6 at sf1: leaves run on both workers at once', async function () {
    if (!existsSync(join(SHARED_TPCH, 'sf1', 'manifest.json'))) this.skip();
    const running = runStatement(cluster.url, Q6, headersFor('sf1'));
    const seen = new Set<string>();
    // Leaf tasks are released once the root has their outputs: look while the query runs.
    let done = false;
    void running.finally(() => (done = true));
    while (!done && seen.size < 2) {
      for (const [nodeId, url] of cluster.workers) if ((await tasksOf(url)).some((t) => t.taskId.includes('.1.'))) seen.add(nodeId);
    }
    const result = await running;
    expect(result.final.stats.state, JSON.stringify(result.final.error)).to.equal('FINISHED');
    expect([...seen].sort()).to.deep.equal([...cluster.workers.keys()].sort());
  });

  it('Q1 at sf1 stays right when the worker of a running leaf is killed with SIGKILL', async function () {
    if (!existsSync(join(SHARED_TPCH, 'sf1', 'manifest.json'))) this.skip();
    const reference = await runStatement(cluster.url, Q1, headersFor('sf1'));
    expect(reference.final.stats.state, JSON.stringify(reference.final.error)).to.equal('FINISHED');
    const running = runStatement(cluster.url, Q1, headersFor('sf1'));
    const [victim] = await until('a leaf of the second Q1 running', 60_000, async () => {
      for (const [nodeId, url] of cluster.workers) {
        const leaf = (await tasksOf(url)).find((t) => t.queryId !== reference.final.id && t.taskId.includes('.1.') && t.state === 'RUNNING');
        if (leaf) return [nodeId];
      }
      return undefined;
    });
    const pid = workerPids(cluster.child.pid!).get(victim!);
    expect(pid, `pid of ${victim}`).to.be.a('number');
    process.kill(pid!, 'SIGKILL');
    const result = await running;
    expect(result.final.stats.state, JSON.stringify(result.final.error)).to.equal('FINISHED');
    expectSameRows(result.rows, reference.rows, 'Q1 sf1 after a kill');
  });
});
