// `vivace serve --workers 2` with two stages on (the default; vivace.distributed-tpch-min-rows=0 so tiny's
// small tables split too), as real processes: the 22 TPC-H queries
// at tiny answer as DuckDB in process does (Q1 and Q6 in two stages, leaves on both workers), and a
// worker killed with SIGKILL while its leaf of Q1 at sf1 runs leaves the answer right (the leaf runs
// again on the other).
// The workers read the shared tpch cache (a link from this run's data directory), so sf1 is not
// generated here; the spec skips what needs sf1 when the cache has none.
import { expect } from 'chai';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startClusterProcess, until, type ClusterProcess } from '../../bench/cluster-process.js';
import { internalBearer } from '../../lib/cluster/cluster-auth.js';
import { INTERNAL_BEARER_HEADER, TASK_PATH, type TaskInfo } from '../../lib/cluster/task-protocol.js';
import { defaultConfig } from '../../lib/config.js';
import { createDuckDbEngine, type DuckDbEngine } from '../../lib/engine/duckdb-engine.js';
import { TPCH_QUERIES } from '../../lib/tpch/queries/tpch-queries.js';
import { request, runStatement } from '../support/http.js';
import { runOn, session } from '../cluster/cluster-harness.js';
import { expectSameRows } from '../cluster/same-rows.js';
import { healthy } from './cluster-nodes.js';
import { workerPids } from '../../bench/process-cpu.js';

const SHARED_TPCH = join(defaultConfig().dataDirectory, 'tpch');
const SECRET = 'two-stage-e2e-secret';
const headersFor = (schema: string) => ({ 'X-Trino-User': 'alice', 'X-Trino-Catalog': 'tpch', 'X-Trino-Schema': schema });
const Q1 = TPCH_QUERIES[0]!.sql;
const Q6 = TPCH_QUERIES[5]!.sql;

async function tasksOf(workerUrl: string): Promise<TaskInfo[]> {
  const res = await request('GET', `${workerUrl}${TASK_PATH}`, { headers: { [INTERNAL_BEARER_HEADER]: await internalBearer(SECRET, 'e2e-spec') } }).catch(() => undefined);
  return res?.status === 200 ? (res.body as TaskInfo[]) : [];
}

describe('e2e: two stages across two worker processes (the default, every table size)', function () {
  this.timeout(180_000);
  let dir: string;
  let cluster: ClusterProcess;
  let local: DuckDbEngine;

  before(async function () {
    if (!existsSync(join(SHARED_TPCH, 'tiny', 'manifest.json'))) this.skip();
    dir = mkdtempSync(join(tmpdir(), 'vivace-e2e-two-stage-'));
    symlinkSync(SHARED_TPCH, join(dir, 'tpch'));
    cluster = await startClusterProcess({
      workers: 2,
      dataDirectory: dir,
      properties: { 'shutdown.grace-period': '1s', 'internal-communication.shared-secret': SECRET, 'vivace.distributed-tpch-min-rows': '0' },
      captureOutput: true,
    });
    await until('two workers listen and are not failed', 60_000, () => healthy(cluster), 50);
    local = await createDuckDbEngine({ tempDirectory: join(dir, 'local'), threads: 1, tpch: { directory: SHARED_TPCH, log: () => {} } });
  });
  after(async () => {
    await local?.close();
    await cluster?.stop();
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
      for (const [nodeId, url] of cluster.workerUrls) if ((await tasksOf(url)).some((t) => t.taskId.includes('.1.'))) seen.add(nodeId);
    }
    const result = await running;
    expect(result.final.stats.state, JSON.stringify(result.final.error)).to.equal('FINISHED');
    expect([...seen].sort()).to.deep.equal([...cluster.workerUrls.keys()].sort());
  });

  it('Q1 at sf1 stays right when the worker of a running leaf is killed with SIGKILL', async function () {
    if (!existsSync(join(SHARED_TPCH, 'sf1', 'manifest.json'))) this.skip();
    const reference = await runStatement(cluster.url, Q1, headersFor('sf1'));
    expect(reference.final.stats.state, JSON.stringify(reference.final.error)).to.equal('FINISHED');
    const running = runStatement(cluster.url, Q1, headersFor('sf1'));
    const [victim] = await until('a leaf of the second Q1 running', 60_000, async () => {
      for (const [nodeId, url] of cluster.workerUrls) {
        const leaf = (await tasksOf(url)).find((t) => t.queryId !== reference.final.id && t.taskId.includes('.1.') && t.state === 'RUNNING');
        if (leaf) return [nodeId];
      }
      return undefined;
    }, 50);
    const pid = workerPids(cluster.pid).get(victim!);
    expect(pid, `pid of ${victim}`).to.be.a('number');
    process.kill(pid!, 'SIGKILL');
    const result = await running;
    expect(result.final.stats.state, JSON.stringify(result.final.error)).to.equal('FINISHED');
    expectSameRows(result.rows, reference.rows, 'Q1 sf1 after a kill');
  });
});
