// `vivace serve --workers 2` as real processes with tpch.tiny's tables under 2,000 rows read whole
// (vivace.distributed-tpch-min-rows=2000: supplier, nation and region), as sf1's are under the bench's
// 100,000: their one-task fragments are read in place by their consumers (lib/cluster/inline-fragments.ts).
// The TPC-H queries joining them give DuckDB's in-process answers with fewer stages (GET /v1/query/{id},
// checked against its schema; Q2 in 5 of its 11 fragments), tasks still on both workers, and EXPLAIN says
// which fragments are read in place.
import { expect } from 'chai';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startClusterProcess, until, type ClusterProcess } from '../../bench/cluster-process.js';
import { defaultConfig } from '../../lib/config.js';
import { createDuckDbEngine, type DuckDbEngine } from '../../lib/engine/duckdb-engine.js';
import { TPCH_QUERIES } from '../../lib/tpch/queries/tpch-queries.js';
import { request, runStatement } from '../support/http.js';
import { validateResponse } from '../support/schema-validator.js';
import { runOn, session } from '../cluster/cluster-harness.js';
import { expectSameRows } from '../cluster/same-rows.js';
import { healthy } from './cluster-nodes.js';

const SHARED_TPCH = join(defaultConfig().dataDirectory, 'tpch');
const headers = { 'X-Trino-User': 'alice', 'X-Trino-Catalog': 'tpch', 'X-Trino-Schema': 'tiny' };

interface StageJson { stageId: string; subStages: StageJson[]; tasks?: { taskStatus: { nodeId: string } }[] }
const flatten = (s: StageJson): StageJson[] => [s, ...s.subStages.flatMap(flatten)];

/** Each query's stages: its fragments less those read in place (Q2: 11 fragments, 6 over supplier, nation, region; Q9 8, Q11 6 with its HAVING subquery over partsupp's 8,000 rows, Q15 7 with its max of the revenues forwarded, Q16 5, Q20 10 with its suppliers forwarded, Q21 9). */
const STAGES: Record<number, number> = { 2: 5, 5: 4, 9: 6, 11: 3, 15: 3, 16: 4, 20: 7, 21: 7 };

describe('e2e: small fragments read in place on two worker processes', function () {
  this.timeout(300_000);
  let dir: string;
  let cluster: ClusterProcess;
  let local: DuckDbEngine;

  before(async function () {
    if (!existsSync(join(SHARED_TPCH, 'tiny', 'manifest.json'))) this.skip();
    dir = mkdtempSync(join(tmpdir(), 'vivace-e2e-inline-'));
    symlinkSync(SHARED_TPCH, join(dir, 'tpch'));
    cluster = await startClusterProcess({ workers: 2, dataDirectory: dir, properties: { 'shutdown.grace-period': '1s', 'vivace.distributed-tpch-min-rows': '2000' }, captureOutput: true });
    await until('two workers listen and are not failed', 60_000, () => healthy(cluster), 50);
    local = await createDuckDbEngine({ tempDirectory: join(dir, 'local'), threads: 1, tpch: { directory: SHARED_TPCH, log: () => {} } });
  });
  after(async () => {
    await local?.close();
    await cluster?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  for (const [number, count] of Object.entries(STAGES).map(([n, c]) => [Number(n), c] as const)) {
    it(`Q${number}: DuckDB's answer in ${count} stages, tasks on both workers`, async () => {
      const { sql } = TPCH_QUERIES[number - 1]!;
      const result = await runStatement(cluster.url, sql, headers);
      expect(result.final.stats.state, JSON.stringify(result.final.error)).to.equal('FINISHED');
      expectSameRows(result.rows, (await runOn(local, sql, session({ catalog: 'tpch', schema: 'tiny' }))).rows, `Q${number}`);
      const info = await request('GET', `${cluster.url}/v1/query/${String(result.final.id)}`, { headers });
      expect(info.status).to.equal(200);
      validateResponse('query-info', info.body);
      const stages = flatten((info.body as { outputStage: StageJson }).outputStage);
      expect(stages.length, 'stages').to.equal(count);
      const nodes = new Set(stages.flatMap((s) => (s.tasks ?? []).map((t) => t.taskStatus.nodeId)));
      expect(nodes.size, 'workers with tasks').to.equal(2);
    });
  }

  it('EXPLAIN prints every fragment, those read in place saying so', async () => {
    const result = await runStatement(cluster.url, `EXPLAIN (TYPE DISTRIBUTED) ${TPCH_QUERIES[1]!.sql}`, headers);
    expect(result.final.stats.state, JSON.stringify(result.final.error)).to.equal('FINISHED');
    const text = String(result.rows[0]![0]);
    expect(text.match(/^Fragment \d+ \[[A-Z]+\]$/gm)).to.have.length(11);
    expect(text.match(/Read in place: no stage of its own/g)).to.have.length(6);
  });
});
