// What the coordinator of an e2e cluster (bench/cluster-process.ts) says of its workers: /v1/node and
// /v1/node/failed, each answer checked against its schema.
import { expect } from 'chai';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startClusterProcess, until, type ClusterProcess } from '../../bench/cluster-process.js';
import { workerPids } from '../../bench/process-cpu.js';
import { internalBearer } from '../../lib/cluster/cluster-auth.js';
import { INTERNAL_BEARER_HEADER, TASK_PATH, type TaskInfo } from '../../lib/cluster/task-protocol.js';
import { createDuckDbEngine, type DuckDbEngine } from '../../lib/engine/duckdb-engine.js';
import { request, runStatement } from '../support/http.js';
import { validateResponse } from '../support/schema-validator.js';

export const USER = { 'X-Trino-User': 'alice' };

export async function nodes(cluster: ClusterProcess, path: '/v1/node' | '/v1/node/failed'): Promise<{ uri: string }[]> {
  const res = await request('GET', `${cluster.url}${path}`, { headers: USER });
  expect(res.status).to.equal(200);
  validateResponse('node-list', res.body);
  return res.body;
}

/** `count` workers said where they listen, /v1/node lists just them at those addresses, and none failed. */
export async function healthy(cluster: ClusterProcess, count = 2): Promise<boolean> {
  const urls = [...cluster.workerUrls.values()].map((u) => `${u}/v1/status`);
  if (urls.length < count) return false;
  const [all, failed] = await Promise.all([nodes(cluster, '/v1/node'), nodes(cluster, '/v1/node/failed')]);
  return all.length === urls.length && urls.every((u) => all.some((n) => n.uri === u)) && failed.length === 0;
}

/** Runs a statement as USER to its end on the cluster and expects it to have finished (its error shown otherwise). */
export async function finishedStatement(cluster: ClusterProcess, sql: string): Promise<Awaited<ReturnType<typeof runStatement>>> {
  const result = await runStatement(cluster.url, sql, USER);
  expect(result.final.stats.state, `${sql}: ${JSON.stringify(result.final.error)}`).to.equal('FINISHED');
  return result;
}

/** A two-worker cluster over the shared tpch cache, every table size staged, and an in-process DuckDB for reference answers. */
export interface TpchCluster {
  dir: string;
  cluster: ClusterProcess;
  local: DuckDbEngine;
}

/**
 * `vivace serve --workers 2` as real processes, its data directory a fresh one linking the shared tpch
 * cache (so sf1 is not generated here), with the internal secret `secret` and
 * vivace.distributed-tpch-min-rows=0; resolves once both workers listen and none failed.
 */
export async function startTpchCluster(sharedTpch: string, secret: string, prefix: string): Promise<TpchCluster> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  symlinkSync(sharedTpch, join(dir, 'tpch'));
  const cluster = await startClusterProcess({
    workers: 2,
    dataDirectory: dir,
    properties: { 'shutdown.grace-period': '1s', 'internal-communication.shared-secret': secret, 'vivace.distributed-tpch-min-rows': '0' },
    captureOutput: true,
  });
  await until('two workers listen and are not failed', 60_000, () => healthy(cluster), 50);
  const local = await createDuckDbEngine({ tempDirectory: join(dir, 'local'), threads: 1, tpch: { directory: sharedTpch, log: () => {} } });
  return { dir, cluster, local };
}

export async function stopTpchCluster(started: Partial<TpchCluster>): Promise<void> {
  await started.local?.close();
  await started.cluster?.stop();
  if (started.dir) rmSync(started.dir, { recursive: true, force: true });
}

/** The tasks a worker holds (GET /v1/task with the internal bearer); none when it does not answer. */
export async function workerTasks(workerUrl: string, secret: string): Promise<TaskInfo[]> {
  const res = await request('GET', `${workerUrl}${TASK_PATH}`, { headers: { [INTERNAL_BEARER_HEADER]: await internalBearer(secret, 'e2e-spec') } }).catch(() => undefined);
  return res?.status === 200 ? (res.body as TaskInfo[]) : [];
}

/** Waits (polling every 20 ms, up to `timeoutMs`) for a task `running` picks on a worker, then kills that worker with SIGKILL: its node id. */
export async function killWorkerRunning(cluster: ClusterProcess, secret: string, what: string, running: (task: TaskInfo) => boolean, timeoutMs = 120_000): Promise<string> {
  const [victim] = await until(what, timeoutMs, async () => {
    for (const [nodeId, url] of cluster.workerUrls) if ((await workerTasks(url, secret)).some(running)) return [nodeId];
    return undefined;
  }, 20);
  const pid = workerPids(cluster.pid).get(victim!);
  expect(pid, `pid of ${victim}`).to.be.a('number');
  process.kill(pid!, 'SIGKILL');
  return victim!;
}

/**
 * Mocha hooks holding a startTpchCluster for a describe block (skipped without the shared tiny cache):
 * the getter answers the cluster and the in-process engine.
 */
export function withTpchCluster(sharedTpch: string, secret: string, prefix: string): () => TpchCluster {
  let started: Partial<TpchCluster> = {};
  before(async function () {
    if (!existsSync(join(sharedTpch, 'tiny', 'manifest.json'))) this.skip();
    started = await startTpchCluster(sharedTpch, secret, prefix);
  });
  after(() => stopTpchCluster(started));
  return () => started as TpchCluster;
}
