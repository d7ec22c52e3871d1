// The 22 TPC-H queries through `vivace serve --workers 2` as real processes, every table split
// (vivace.distributed-tpch-min-rows=0), over the shared tpch cache (a link from this run's data
// directory: sf0.1 is generated there when missing, what needs sf1 skips when the cache has none):
// - at "sf0.1", each answer equals DuckDB's in process, each query runs in stages with tasks on both
//   workers (GET /v1/query/{id}, checked against its schema), and the rows and bytes the stages exchanged
//   are the query's internalNetworkInput totals and its query_finished log line's exchangedRows/Bytes;
// - at tiny, join_distribution_type=BROADCAST and =PARTITIONED give those same answers (the partitioned
//   join plans in more stages: a HASH stage per join);
// - at sf1, a worker killed with SIGKILL while a task of a non-leaf stage of Q9, Q18 or Q21 runs leaves the
//   answer the one a run before the kill gave.
import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { until, type ClusterProcess } from '../../bench/cluster-process.js';
import { defaultConfig } from '../../lib/config.js';
import type { DuckDbEngine } from '../../lib/engine/duckdb-engine.js';
import { parseDataSize } from '../../lib/protocol/data-size.js';
import { TPCH_QUERIES } from '../../lib/tpch/queries/tpch-queries.js';
import { request, runStatement } from '../support/http.js';
import { validateResponse } from '../support/schema-validator.js';
import { runOn, session } from '../cluster/cluster-harness.js';
import { expectSameRows } from '../cluster/same-rows.js';
import { healthy, killWorkerRunning, startTpchCluster, stopTpchCluster, type TpchCluster } from './cluster-nodes.js';

const SHARED_TPCH = join(defaultConfig().dataDirectory, 'tpch');
const SECRET = 'distributed-tpch-e2e-secret';
const cached = (schema: string) => existsSync(join(SHARED_TPCH, schema, 'manifest.json'));
const headersFor = (schema: string, joinDistribution?: string) => ({
  'X-Trino-User': 'alice', 'X-Trino-Catalog': 'tpch', 'X-Trino-Schema': schema,
  ...(joinDistribution === undefined ? {} : { 'X-Trino-Session': `join_distribution_type=${joinDistribution}` }),
});
/** The queries the join planner takes (lib/planner, spec/planner/tpch-plans.spec.ts); the others are gathered. */
const JOIN_PLANNED = new Set([2, 3, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15, 17, 19, 20, 21]);

interface StageJson {
  stageId: string; outputPositions?: number; outputDataSize?: string; subStages: StageJson[];
  tasks?: { taskStatus: { nodeId: string; state: string } }[];
}
const flatten = (s: StageJson): StageJson[] => [s, ...s.subStages.flatMap(flatten)];

describe('e2e: the 22 TPC-H queries in distributed plans on two worker processes', function () {
  this.timeout(600_000);
  let started: Partial<TpchCluster> = {};
  let cluster: ClusterProcess;
  let local: DuckDbEngine;

  before(async function () {
    if (!cached('tiny')) this.skip();
    started = await startTpchCluster(SHARED_TPCH, SECRET, 'vivace-e2e-distributed-tpch-');
    ({ cluster, local } = started as TpchCluster);
  });
  after(() => stopTpchCluster(started));

  /** The query's info (validated), its stages flattened root first. */
  async function queryInfo(queryId: string, schema: string): Promise<{ body: any; stages: StageJson[] }> {
    const info = await request('GET', `${cluster.url}/v1/query/${queryId}`, { headers: headersFor(schema) });
    expect(info.status).to.equal(200);
    validateResponse('query-info', info.body);
    return { body: info.body, stages: flatten(info.body.outputStage as StageJson) };
  }

  /** The coordinator's query_finished log line of `queryId`, once written. */
  function finishedLine(queryId: string): Record<string, unknown> | undefined {
    for (const text of cluster.output) {
      if (!text.startsWith('{') || !text.includes('"query_finished"')) continue;
      const line = JSON.parse(text) as Record<string, unknown>;
      if (line.event === 'query_finished' && line.queryId === queryId) return line;
    }
    return undefined;
  }

  /** Whether the coordinator logged `nodeId` failed, then alive, in its output lines from `from` on. */
  function failedAndBack(nodeId: string, from: number): boolean {
    let failed = false;
    for (const text of cluster.output.slice(from)) {
      if (!text.startsWith('{') || !text.includes('"node_state"')) continue;
      const line = JSON.parse(text) as { nodeId?: string; state?: string };
      if (line.nodeId !== nodeId) continue;
      if (line.state === 'failed') failed = true;
      else if (failed && line.state === 'alive') return true;
    }
    return false;
  }

  async function finished(sql: string, headers: Record<string, string>, label: string) {
    const result = await runStatement(cluster.url, sql, headers);
    expect(result.final.stats.state, `${label}: ${JSON.stringify(result.final.error)}`).to.equal('FINISHED');
    return result;
  }

  it('at "sf0.1": each answer is DuckDB\'s in process, in two stages or more with tasks on both workers, the exchanged rows and bytes in queryStats', async function () {
    // Generated into the shared cache when missing (about 5 s; 1/10 of sf1), by the cluster's first query on it.
    if (!cached('sf0.1')) await finished('SELECT count(*) FROM region', headersFor('sf0.1'), 'sf0.1 generated');
    for (const q of TPCH_QUERIES) {
      const label = `Q${q.number} sf0.1`;
      const result = await finished(q.sql, headersFor('sf0.1'), label);
      expectSameRows(result.rows, (await runOn(local, q.sql, session({ catalog: 'tpch', schema: 'sf0.1' }))).rows, label);
      const { body, stages } = await queryInfo(result.final.id as string, 'sf0.1');
      expect(stages.length, `${label} stages`).to.be.at.least(2);
      const nodes = new Set(stages.flatMap((s) => (s.tasks ?? []).map((t) => t.taskStatus.nodeId)));
      expect([...nodes].sort(), `${label} workers`).to.deep.equal([...cluster.workerUrls.keys()].sort());
      // What the stages below the root handed on is what the query exchanged.
      const below = stages.slice(1);
      const rows = below.reduce((n, s) => n + (s.outputPositions ?? 0), 0);
      const bytes = below.reduce((n, s) => n + parseDataSize(s.outputDataSize ?? '0B'), 0);
      expect(rows, `${label} rows exchanged`).to.be.greaterThan(0);
      expect(bytes, `${label} bytes exchanged`).to.be.greaterThan(0);
      expect(body.queryStats.internalNetworkInputPositions, `${label} internalNetworkInputPositions`).to.equal(rows);
      expect(parseDataSize(body.queryStats.internalNetworkInputDataSize), `${label} internalNetworkInputDataSize`).to.equal(bytes);
      expect(result.final.stats.internalNetworkInputBytes, `${label} statement stats`).to.equal(bytes);
      // And the coordinator's query_finished log line says the same.
      const line = await until(`${label}: its query_finished line`, 10_000, () => finishedLine(result.final.id as string), 20);
      expect(line, `${label} log line`).to.include({ exchangedRows: rows, exchangedBytes: bytes });
    }
  });

  it('at tiny: join_distribution_type=BROADCAST and =PARTITIONED give the same answers (the partitioned joins in more stages)', async () => {
    for (const q of TPCH_QUERIES) {
      const expected = (await runOn(local, q.sql, session({ catalog: 'tpch', schema: 'tiny' }))).rows;
      const stageCounts: number[] = [];
      for (const distribution of ['BROADCAST', 'PARTITIONED']) {
        const label = `Q${q.number} tiny ${distribution}`;
        const result = await finished(q.sql, headersFor('tiny', distribution), label);
        expectSameRows(result.rows, expected, label);
        stageCounts.push(flatten(result.final.stats.rootStage as StageJson).length);
      }
      // Q19's join key, in each branch of its OR, is extracted as Trino does: it hashes under PARTITIONED too.
      if (JOIN_PLANNED.has(q.number)) expect(stageCounts[1], `Q${q.number}: PARTITIONED stages vs BROADCAST`).to.be.greaterThan(stageCounts[0]!);
    }
  });

  for (const number of [9, 18, 21]) {
    it(`at sf1, Q${number} stays right when a worker is killed with SIGKILL while a task of a non-leaf stage runs`, async function () {
      if (!cached('sf1')) this.skip();
      await until('two workers listen and are not failed', 60_000, () => healthy(cluster), 50);
      const sql = TPCH_QUERIES[number - 1]!.sql;
      const reference = await finished(sql, headersFor('sf1'), `Q${number} sf1 before the kill`);
      // The stages that read other stages' output: HASH stages, a probe side reading broadcasts, the root
      // of a gathered plan (which is all a gathered plan has above its scans).
      const stages = flatten(reference.final.stats.rootStage as StageJson);
      const inner = stages.slice(1).filter((s) => s.subStages.length > 0).map((s) => s.stageId);
      const targets = new Set(inner.length > 0 ? inner : ['0']);
      const running = runStatement(cluster.url, sql, headersFor('sf1'));
      const logged = cluster.output.length;
      const victim = await killWorkerRunning(cluster, SECRET, `a task of stage ${[...targets].join(' or ')} of Q${number} running`,
        (t) => t.queryId !== reference.final.id && targets.has(t.taskId.split('.')[1]!) && t.state === 'RUNNING');
      const result = await running;
      expect(result.final.stats.state, `Q${number} after the kill: ${JSON.stringify(result.final.error)}`).to.equal('FINISHED');
      expectSameRows(result.rows, reference.rows, `Q${number} sf1 after a kill`);
      await queryInfo(result.final.id as string, 'sf1');
      // The next kill waits until the coordinator saw this victim fail and come back (restarted): a worker
      // restarted before its failure is noticed is listed by /v1/node, yet dropped from the alive ones later.
      // When the detector never logs the failure (the worker came back first), healthy workers are all there is to wait for.
      await until(`${victim} failed and alive again`, 20_000, () => failedAndBack(victim, logged), 50)
        .catch(() => until('two workers listen and are not failed', 60_000, () => healthy(cluster), 50));
    });
  }
});
