// What the coordinator of an e2e cluster (bench/cluster-process.ts) says of its workers: /v1/node and
// /v1/node/failed, each answer checked against its schema.
import { expect } from 'chai';
import type { ClusterProcess } from '../../bench/cluster-process.js';
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
